"""yz's files on disk, written whole and read only when intact: the one place that writes,
seals and checks them (the strategy cache, a layered solve's folder, `yz solve`'s memo).

- Every file is written to a temporary name beside it (`.tmp-yz-...`) and renamed into place,
  so a reader never sees half a file, and a stopped writer leaves only a temporary file.
- A JSON file is sealed: it carries the SHA-256 of its own canonical JSON (`seal`), and is
  read only when that matches (`read_sealed`), so an altered or truncated file is refused.
- A table (`.npy`) is checked against SHA-256 checksums of its data, block by block, kept in
  the sealed metadata with the byte offset where the data starts (`save_table`), so a reader
  can check it without parsing the file's header (`file_block_sums`: `yz solve`'s memo checks
  a table before numpy is even imported).
- A big file is read where it lies (`CheckedFile`: memory-mapped), each block checked the
  first time a byte of it is read in this process and remembered as checked, so an answer that
  reads a few rows of gigabytes checks only the blocks those rows are in.

The standard library only, at import: numpy is imported by the functions that take arrays.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import threading
from pathlib import Path

TYPE_CHECKING = False  # (typing costs a start-up that `yz solve`'s memo does not pay)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

MAX_SEALED_BYTES = 1 << 20  # a sealed JSON file is metadata: never larger
TEMP_PREFIX = ".tmp-yz-"


class CorruptCache(Exception):
    """A file of yz's that must not be used; the message says why."""


def sha256(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def seal(payload: dict) -> dict:
    """The payload with the SHA-256 of its own canonical JSON (without that field) added."""
    body = {k: v for k, v in payload.items() if k != "sha256"}
    return {**body, "sha256": sha256(json.dumps(body, sort_keys=True).encode())}


def is_sealed(data: Any) -> bool:
    """Whether `data` is a mapping whose seal matches its content."""
    return isinstance(data, dict) and seal(data).get("sha256") == data.get("sha256")


def read_sealed(path: Path, max_bytes: int = MAX_SEALED_BYTES) -> dict:
    """A sealed JSON file, checked; CorruptCache when unreadable, too large or altered."""
    try:
        if path.stat().st_size > max_bytes:
            raise CorruptCache(f"{path}: too large for a metadata file of yz")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorruptCache(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    if not is_sealed(data):
        raise CorruptCache(f"{path}: checksum mismatch (the metadata was altered or truncated)")
    return data


def write_atomic(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write through `write(file)` to a temporary file in the same folder, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # (here: its import costs the memo's start-up a third)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# A temporary file untouched for this long is a stopped writer's (a killed process): a live
# one writes to it all the time. yz's folders drop such files when a solve opens them again.
STALE_TEMP_SECONDS = 600.0


def remove_stale_temporaries(folder: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove the temporary files (`TEMP_PREFIX`) a killed writer left in `folder` (not in
    its sub-folders), those not written to for `older_than` seconds; returns how many. Only
    files with yz's temporary prefix go: they are nobody else's."""
    import time

    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and \
                    now - entry.stat(follow_symlinks=False).st_mtime > older_than:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue  # (gone already, or not ours to remove: left as it is)
    return removed


def write_bytes(path: Path, data: bytes) -> None:
    """`data` as the whole of `path`, atomically."""
    write_atomic(path, lambda fh: fh.write(data))


def write_sealed(path: Path, payload: dict, indent: int | None = None) -> dict:
    """The payload sealed and written to `path` as JSON, atomically; returns what was
    written."""
    sealed = seal(payload)
    write_bytes(path, json.dumps(sealed, indent=indent).encode())
    return sealed


# ---------------------------------------------------------------- tables


def save_table(path: Path, array, block_bytes: int) -> dict:
    """Write a C-ordered array as `.npy`, atomically, and return what its sealed metadata must
    hold to check it: the byte offset of its data in the file, the file's size, the block
    size and the SHA-256 of every block of the data (what `table_intact` checks)."""
    import numpy as np

    array = np.ascontiguousarray(array)
    write_atomic(path, lambda fh: np.save(fh, array, allow_pickle=False))
    size = path.stat().st_size
    return {"data_offset": size - array.nbytes, "file_bytes": size, "block_bytes": block_bytes,
            "blocks": array_block_sums(array, block_bytes)}


def array_block_sums(array, block_bytes: int) -> list[str]:
    """The SHA-256 of every `block_bytes` of an array's data, in order."""
    import numpy as np

    data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return [sha256(memoryview(data[i:i + block_bytes]))  # (read in place, not copied)
            for i in range(0, max(1, data.size), block_bytes)]


def file_block_sums(path: Path, offset: int, block_bytes: int, max_blocks: int) -> list[str]:
    """The SHA-256 of every `block_bytes` of a file from `offset` on (the data of a table
    `save_table` wrote), at most `max_blocks` of them; the standard library only."""
    sums = []
    with open(path, "rb") as fh:
        fh.seek(offset)
        while len(sums) < max_blocks:
            block = fh.read(block_bytes)
            if not block and sums:
                break
            sums.append(sha256(block))
    return sums


def table_intact(path: Path, facts: dict) -> bool:
    """Whether the table file at `path` is the one `save_table` described in `facts` (its
    size and every block of its data), read with the standard library only."""
    try:
        offset, size = int(facts["data_offset"]), int(facts["file_bytes"])
        block, sums = int(facts["block_bytes"]), list(facts["blocks"])
        if os.stat(path).st_size != size or block < 1:
            return False
        return file_block_sums(path, offset, block, len(sums) + 1) == sums
    except (OSError, KeyError, TypeError, ValueError):
        return False


# ---------------------------------------------------------------- reading where it lies


# The blocks found intact in this process, by file: (path, device, inode, size, modification
# time) -> block numbers. A file replaced or rewritten since is another key, checked afresh.
_CHECKED: dict[tuple, set[int]] = {}
_CHECKED_LOCK = threading.Lock()


def file_identity(path: Path) -> tuple | None:
    """What tells one version of a file from another (device, inode, size, modification
    time), None when it cannot be read: a checked mapping kept for a file is reused only while
    this is unchanged."""
    try:
        return _identity(os.stat(path))
    except OSError:
        return None


def _identity(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class CheckedFile:
    """A file memory-mapped for reading, whose bytes from `offset` on are checked in blocks of
    `block_bytes` against their SHA-256 (`sums`, as `save_table` or `file_block_sums` gave
    them) the first time a byte of a block is read (`check`); a block once found intact is not
    hashed again in this process. CorruptCache when the file has not `size` bytes (when given),
    cannot be read, or a block read fails its checksum."""

    def __init__(self, path: Path, sums, block_bytes: int, offset: int = 0,
                 size: int | None = None):
        self.path, self.sums, self.block_bytes, self.offset = path, sums, block_bytes, offset
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if size is not None and st.st_size != size:
                    raise CorruptCache(f"{path}: {st.st_size:,} bytes, not the {size:,} it was "
                                       "written with (the file was altered or truncated)")
                self.buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) \
                    if st.st_size else b""
        except OSError as exc:
            raise CorruptCache(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
        if block_bytes < 1 or len(sums) * block_bytes < st.st_size - offset:
            raise CorruptCache(f"{path}: its checksums do not cover the file")
        key = (str(path), *_identity(st))
        with _CHECKED_LOCK:
            self._checked = _CHECKED.setdefault(key, set())

    def check(self, start: int, stop: int) -> None:
        """Check every block holding a byte of [start, stop) (counted from `offset`)."""
        if stop > start:
            self.check_blocks(range(start // self.block_bytes,
                                    (stop - 1) // self.block_bytes + 1))

    def check_blocks(self, blocks) -> None:
        """Check these blocks (numbers from 0), each once per process."""
        for b in blocks:
            b = int(b)
            if b in self._checked:
                continue
            lo = self.offset + b * self.block_bytes
            if not 0 <= b < len(self.sums) or \
                    sha256(self.buffer[lo:lo + self.block_bytes]) != self.sums[b]:
                raise CorruptCache(f"{self.path}: block {b} (bytes {lo:,} to "
                                   f"{lo + self.block_bytes - 1:,}) fails its checksum (the file "
                                   "was altered or damaged after it was written)")
            with _CHECKED_LOCK:
                self._checked.add(b)

    def close(self) -> None:
        """Unmap the file (no view of `buffer` may be alive)."""
        if isinstance(self.buffer, mmap.mmap):
            self.buffer.close()
