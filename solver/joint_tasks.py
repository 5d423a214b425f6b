"""The two-player solve's joint layers on Dask: each layer cut into chunks of the other
player's states (its columns), each chunk a pure task.

A joint layer's column j (the pairs (i, j) of every mover state i) is solved from the block j
of the layer after it alone (`minimax._LayerSweep.column`), so columns are independent. With
a `JointRunner`, `minimax.solve_minimax` saves every joint layer it solves in its checkpoint
folder (`minimax.Checkpoint`: a table per track, a SHA-256 per block); the next layer's tasks
memory-map those tables, check the blocks their columns read, solve their columns with the
one-process sweep (the same kernels on the same numbers: the values are the same, bit for
bit) and return them; the coordinator puts each chunk's entries in place in the layer's
tables as it comes. So the coordinator holds one joint layer, not two; a worker the columns
of its chunk and the pages it reads of the layer after (let go of once read); the folder two
layers while one is saved. A stop loses at most the layer being solved: run again with the
same folder, the solve goes on from the last one saved. The workers must see the folder at
the same path (one machine, or a shared file system), as for `solver.layered`; Dask runs
again a chunk whose worker was lost.
"""

from __future__ import annotations

import copy
import json
import mmap
import threading
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from yz.rules import InputError

from . import sealed

# Bytes a chunk's entries take at most, in all its tables (one column at least): what its
# file, its task and the coordinator reading it hold, and the work a lost worker costs.
CHUNK_BYTES = 1 << 28
CHUNKS_PER_WORKER = 4  # a layer is cut into at least this many chunks per worker
_KEPT: dict[str, Any] = {}  # this worker's solution, layers and mapped tables, by key
_LOCK = threading.Lock()


class Mapped:
    """A joint layer's table saved by `minimax.Checkpoint`, memory-mapped read-only (`array`),
    each block checked against its SHA-256 before it is read (`check`)."""

    def __init__(self, folder: Path, facts: dict):
        self.path = folder / facts["file"]
        try:
            self.data = sealed.CheckedFile(self.path, list(facts["blocks"]),
                                           int(facts["block_bytes"]), int(facts["data_offset"]),
                                           int(facts["file_bytes"]))
        except sealed.CorruptCache as exc:
            raise InputError(f"checkpoint: {self.path} is damaged, or not where this process "
                             f"looks for it ({exc}); on Dask every worker must see the folder "
                             "at the same path. Give another folder, or delete this one to "
                             "start over.", param="checkpoint") from None
        entries = int(facts["entries"])
        self.array = np.frombuffer(self.data.buffer, dtype=np.float64, count=entries,
                                   offset=self.data.offset) if entries else np.zeros(0)

    def release(self, start: int, stop: int) -> None:
        """Drop the pages of entries start .. stop - 1 from this process (the system keeps
        them as the file's, to read again): a worker's memory, as Dask counts it, does not
        grow with the layer it reads."""
        buffer = self.data.buffer
        if not isinstance(buffer, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
            return
        page = mmap.PAGESIZE
        a = (self.data.offset + 8 * start) // page * page
        b = -(-(self.data.offset + 8 * stop) // page) * page
        b = min(b, len(buffer))
        if b > a:
            buffer.madvise(mmap.MADV_DONTNEED, a, b - a)

    def check(self, start: int, stop: int) -> None:
        """Check the blocks of entries start .. stop - 1."""
        try:
            self.data.check(8 * start, 8 * stop)
        except sealed.CorruptCache as exc:
            raise InputError(f"checkpoint: {exc}; give another folder, or delete this one to "
                             "start over.", param="checkpoint") from None


def column_chunks(now, workers: int, tables: int) -> list[tuple[int, int]]:
    """Layer `now`'s columns cut into chunks [j0, j1): at least CHUNKS_PER_WORKER per
    worker, each of at most CHUNK_BYTES in its `tables` tables (one column at least)."""
    per_column = now.WIDTH.reshape(now.n_m, now.n_o).sum(axis=0)  # (pairs mover-major)
    most = max(1, min(CHUNK_BYTES // (8 * tables),
                      int(now.size // max(1, workers * CHUNKS_PER_WORKER))))
    chunks, j0, held = [], 0, 0
    for j, size in enumerate(per_column):
        if j > j0 and held + size > most:
            chunks.append((j0, j))
            j0, held = j, 0
        held += int(size)
    if now.n_o:
        chunks.append((j0, now.n_o))
    return chunks


def solve_columns(rules_data: dict, stamp: str, values, chances: bool, seats: list[str],
                  km: int, ko: int, j0: int, j1: int, files: dict, folder: str
                  ) -> np.ndarray:
    """A task: solve columns j0 .. j1 - 1 of joint layer (km, ko) of the pass (`chances`,
    `seats`) from the layer after it, saved in `folder` (`files`: each track's tables, as the
    checkpoint's manifest names them), for the rule set `rules_data` (`values`: expected-score
    play's, where a seat needs them; None: zeros); `stamp`: the coordinator's
    `layered.solver_stamp`. Returns the chunk: an array [table, entry], the tracks' score
    and draw tables in turn, entries in the order of `minimax.columns_entries`. Pure: run
    twice (a lost worker's chunk), it gives the same numbers."""
    from .joint import next_layer
    from .layered import StoreError, _problem_for, solver_stamp
    from .minimax import _LayerSweep, _Track, tracks_of

    problem = _problem_for(rules_data, 1)
    if solver_stamp(problem) != stamp:
        raise StoreError(f"a worker's yz ({solver_stamp(problem)}) is not the coordinator's "
                         f"({stamp}); install the same yz on every worker.")
    folder_ = Path(folder)
    with _LOCK:
        kept = _kept(problem, values)
        now = _layer(kept, km, ko)
        after = _layer(kept, *next_layer(km, ko))
        tables = _mapped(folder_, files)
        outcomes = kept["outcomes"]
        if seats:  # (expected-score play's moves from layer km, this task's own copy)
            outcomes.of(km)
            outcomes = copy.copy(outcomes)
    start, stop = int(after.PTR[j0 * after.n_o]), int(after.PTR[j1 * after.n_o])
    tracks: list[_Track] = tracks_of(chances, tuple(seats))
    for track in tracks:
        track.after = tables[track.name]
        for table in track.after:
            if table is not None:
                table.check(start, stop)
    from .minimax import columns_entries

    # The chunk's tables, rows in the order of the tracks (score, then draw), filled column
    # by column as the sweep gives them.
    first_row, rows = {}, 0
    for track in tracks:
        first_row[track.name] = rows
        rows += 1 + track.chances
    data = np.empty((rows, len(columns_entries(now, j0, j1))))
    filled = dict.fromkeys(first_row, 0)

    def sink(track, score, draw) -> None:
        row, at = first_row[track.name], filled[track.name]
        data[row, at:at + len(score)] = score
        if draw is not None:
            data[row + 1, at:at + len(draw)] = draw
        filled[track.name] = at + len(score)

    sweep = _LayerSweep(kept["solution"], now, after, outcomes)
    for j in range(j0, j1):
        sweep.column(j, tracks, sink)
    for track in tracks:  # (no other task reads these entries of the layer after)
        for table in track.after:
            if table is not None:
                table.release(start, stop)
    if any(n != data.shape[1] for n in filled.values()):
        raise AssertionError("a chunk's columns were not all given")
    return data


def _kept(problem, values) -> dict:
    """This worker's solution (the problem and `values`) and its turn outcomes, kept while
    tasks of the same solve come."""
    from .dp import Solution
    from .minimax import _Outcomes

    key = json.dumps([problem.tables.digest, values is None])
    if _KEPT.get("key") != key:
        _KEPT.clear()
        layout = problem.layout
        vals = np.zeros(layout.size) if values is None else np.asarray(values)
        solution = Solution(problem, vals, 0.0, layout.reachable)
        _KEPT.update(key=key, solution=solution, outcomes=_Outcomes(solution), layers={})
        from .joint import all_bounds

        _KEPT["bounds"] = all_bounds(problem.tables, layout)
    return _KEPT


def _layer(kept: dict, km: int, ko: int):
    """Joint layer (km, ko)'s geometry, the last few kept."""
    from .joint import build_layer

    layers = kept["layers"]
    if (km, ko) not in layers:
        if len(layers) >= 3:
            layers.pop(next(iter(layers)))
        layers[(km, ko)] = build_layer(kept["bounds"], km, ko)
    return layers[(km, ko)]


def _mapped(folder: Path, files: dict) -> dict:
    """{track: (score, draw or None)} of the layer saved in `folder`, mapped once per worker
    for the tasks of that layer; the layer before is let go of (its files are removed once
    the next one is saved: a mapping kept would keep their disk space). A file changed since
    it was mapped (a solve stopped, then resumed) is mapped and checked anew: the blocks found
    intact before say nothing of it."""
    names = sorted(facts["file"] for pair in files.values() for facts in pair if facts)
    key = json.dumps([str(folder), files, [sealed.file_identity(folder / n) for n in names]],
                     sort_keys=True)
    if _KEPT.get("mapped_key") != key:
        _KEPT["mapped"] = None  # (the old mappings closed before the new ones are made)
        _KEPT["mapped"] = {name: tuple(None if facts is None else Mapped(folder, facts)
                                       for facts in pair) for name, pair in files.items()}
        _KEPT["mapped_key"] = key
    return _KEPT["mapped"]


def forget() -> None:
    """Drop what this worker kept: the joint layers and, through the layered solve's own
    `_forget`, the compiled problem its tasks took from there (`_problem_for`)."""
    from .layered import _forget

    with _LOCK:
        _KEPT.clear()
    _forget()


def check_workers(scheduler: Any, workers: int | None) -> None:
    """InputError unless the solve has somewhere to run on Dask: a scheduler, or more than
    one local worker."""
    if scheduler is None and (workers is None or workers < 2):
        raise InputError("workers: the two-player solve runs on Dask with more than one "
                         "local worker or a scheduler; give one, or neither to solve in "
                         "this process.", param="workers")


class JointRunner:
    """Solves a joint layer's column chunks on Dask (`study.DaskWorkers`): the coordinator's
    side (see the module docstring)."""

    def __init__(self, scheduler: Any, workers: int | None, problem, values):
        from .layered import solver_stamp
        from .study import DaskWorkers

        check_workers(scheduler, workers)
        self.dask = DaskWorkers(scheduler, workers)
        try:
            self.client = self.dask.client
            self.rules_data = problem.rules.model_dump(mode="json")
            self.stamp = solver_stamp(problem)
            # (hash=False: a key of its own; another solve scattering the same values would
            # share a hashed key, and lose it when that solve let go of it)
            self.values = None if values is None else self.client.scatter(
                np.ascontiguousarray(values), broadcast=True, hash=False)
            info = self.client.scheduler_info()
            self.slots = max(1, sum(int(w.get("nthreads", 1))
                                    for w in info.get("workers", {}).values()))
        except BaseException:
            self.dask.close()
            raise

    def solve_layer(self, now, chances: bool, seats: tuple, checkpoint, tracks: list,
                    step=None) -> None:
        """Solve every column of joint layer `now` into the tracks' `now` tables, from the
        layer after it saved in `checkpoint` (`minimax.Checkpoint`); `step(columns done)` as
        chunks come back."""
        from distributed import as_completed

        from .minimax import columns_entries

        folder, files = checkpoint.folder, checkpoint.table_files()
        rows = sum(1 + track.chances for track in tracks)
        chunks = column_chunks(now, self.slots, rows)
        # A key of each call's own: a stopped call's tasks may still be known to the
        # scheduler. (No retries: a task fails the same way again; Dask itself runs again a
        # task whose worker died.)
        tag = uuid.uuid4().hex[:16]
        futures = {}
        for j0, j1 in chunks:
            futures[self.client.submit(
                solve_columns, self.rules_data, self.stamp, self.values, chances, list(seats),
                now.km, now.ko, j0, j1, files, str(folder),
                key=f"yz-joint-{tag}-{now.km}-{now.ko}-{j0}-{j1}", pure=False)] = (j0, j1)
        done = 0
        try:
            for fut in as_completed(list(futures)):
                j0, j1 = futures[fut]
                data = _result(fut, now, folder)
                fut.release()  # (the worker lets go of it)
                dest = columns_entries(now, j0, j1)
                if data.shape != (rows, len(dest)):
                    raise AssertionError(f"a chunk of joint layer {(now.km, now.ko)} came back "
                                         f"with the shape {data.shape}, not {(rows, len(dest))}")
                row = 0
                for track in tracks:
                    for table in track.now[:1 + track.chances]:
                        table.array[dest] = data[row]
                        row += 1
                del data
                done += j1 - j0
                if step is not None:
                    step(done)
        except BaseException:
            self.client.cancel(list(futures))
            raise

    def close(self) -> None:
        self.values = None  # (the scattered values let go of)
        self.dask.close(forget)


def _result(fut, now, folder: Path) -> list:
    """A task's result; what went wrong on Dask (a worker lost too often, the scheduler
    gone) as one paragraph: the layers saved before stay, and a run again goes on from
    them."""
    from yz.rules import YzError

    try:
        return fut.result()
    except YzError:
        raise
    except (Exception, TimeoutError) as exc:  # (distributed's own: KilledWorker, CommClosed)
        raise InputError(f"checkpoint: the two-player solve on Dask failed in joint layer "
                         f"{(now.km, now.ko)} ({type(exc).__name__}: {exc}); the layers "
                         f"solved before are saved in {folder}: run it again to go on from "
                         "them.", param="checkpoint") from None


