"""A finished layered solve's values, read where they lie: only the rows a question needs.

Advice in one position needs the values of the states its turn can lead to: one more box
filled, the upper totals its scores allow, the banks of saved rolls the turn can leave; a few
thousand rows. `StoreValues` answers `values[i]` (and `values[array]`) for store indices of
the whole game from the folder `solver.layered` wrote, without loading any layer:

    manifest index   store range [a, b) -> (chunk file, row of a)     (`layered.StoreIndex`)
    chunk file       memory-mapped; row r of its values at byte data_offset + 8 r
    block checks     each STORE_BLOCK_BYTES of a chunk file checked against the SHA-256 the
                     manifest records the first time a row in it is read (`sealed.CheckedFile`;
                     remembered per process, so a second position checks only new blocks)

The full card's states (past the last chunk) are worth 0. A block that fails its checksum
raises StoreError naming the file and the block; the values read are never wrong silently.
A `Solution` holding a `StoreValues` is what the advisor and the coach read (`Model.
store_solution`): the same code as for a table in memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from . import sealed
from .budget import STORE_OPEN_FILES
from .layered import StoreError, chunk_path, read_manifest, store_folder
from .problem import Problem
from .report import SILENT, Reporter


class StoreValues:
    """The value of every stored state of a finished layered solve, read on demand from its
    folder (see the module docstring); indexable like the value table in memory. StoreError,
    with the reason, for a folder that is not a finished store of these rules
    (`layered.read_manifest`, which also brings a folder of an older yz up to date once)."""

    def __init__(self, problem: Problem, folder, report: Reporter = SILENT):
        self.folder = store_folder(folder)
        self.manifest, self.index = read_manifest(problem, self.folder, report)
        self.size = problem.layout.size
        self.shape = (self.size,)
        self.end = int(self.index.END[-1])  # the full card's states from here: 0
        self._open: OrderedDict[int, tuple[sealed.CheckedFile, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):
        if isinstance(index, int | np.integer):
            return float(self.read(np.array([index], dtype=np.int64))[0])
        return self.read(np.asarray(index, dtype=np.int64))

    def read(self, index: np.ndarray) -> np.ndarray:
        """The values at these store indices (any shape), each chunk file's rows read and
        their blocks checked together."""
        flat = index.reshape(-1)
        if flat.size and (flat.min() < 0 or flat.max() >= self.size):
            raise IndexError(f"store index out of range 0 .. {self.size - 1}")
        out = np.zeros(flat.size)
        inside = np.flatnonzero(flat < self.end)
        at = flat[inside]
        j = np.searchsorted(self.index.START, at, side="right") - 1
        chunk = self.index.CHUNK[j]
        row = self.index.ROW[j] + at - self.index.START[j]
        order = np.argsort(chunk, kind="stable")
        cuts = np.flatnonzero(np.diff(chunk[order])) + 1
        with self._lock:
            for part in np.split(order, cuts) if order.size else []:
                out[inside[part]] = self._rows(int(chunk[part[0]]), row[part])
        return out.reshape(index.shape)

    def _rows(self, c: int, rows: np.ndarray) -> np.ndarray:
        """Rows of chunk c's values, their blocks checked (the lock held)."""
        file, data_offset = self._file(c)
        starts = data_offset + 8 * rows
        try:
            file.check_blocks(np.unique(np.concatenate([starts, starts + 7])
                                        // file.block_bytes))
        except sealed.CorruptCache as exc:
            raise StoreError(f"store: {exc}; resume the layered solve into {self.folder} to "
                             "solve that chunk again.", param="store") from None
        values = np.frombuffer(file.buffer, dtype="<f8", count=int(self.index.entries[c]),
                               offset=data_offset)
        got = values[rows]
        del values  # (no view of the map outlives the read: it may be closed)
        return got

    def _file(self, c: int) -> tuple[sealed.CheckedFile, int]:
        """Chunk c's file, memory-mapped (at most STORE_OPEN_FILES at once), with where its
        values start."""
        have = self._open.get(c)
        if have is not None:
            self._open.move_to_end(c)
            return have
        key = self.index.keys[c]
        record = self.manifest["blocks"][key]
        path = chunk_path(self.folder, *map(int, key.split("/")))
        block = int(self.manifest["block_bytes"])
        sums = record["sums"]
        try:
            file = sealed.CheckedFile(path, [sums[i:i + 64] for i in range(0, len(sums), 64)],
                                      block, 0, int(record["bytes"]))
        except sealed.CorruptCache as exc:
            raise StoreError(f"store: {exc}; resume the layered solve into {self.folder} to "
                             "solve that chunk again.", param="store") from None
        rows = 2 if self.manifest["with_sd"] else 1
        data_offset = int(record["bytes"]) - 8 * rows * int(self.index.entries[c])
        if data_offset < 10:  # (an .npy header is longer)
            raise StoreError(f"store: {path} is smaller than the values its chunk lists.",
                             param="store")
        self._open[c] = (file, data_offset)
        while len(self._open) > STORE_OPEN_FILES:
            self._open.popitem(last=False)[1][0].close()
        return file, data_offset

    def close(self) -> None:
        """Let go of every memory-mapped chunk file (they are mapped again when read)."""
        with self._lock:
            while self._open:
                self._open.popitem()[1][0].close()
