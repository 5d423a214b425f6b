"""One game's solve split into layers and chunks, written to a folder: resumable, and able to
run on a Dask cluster.

Layer k (the turn-start states with k boxes filled) depends only on layer k + 1 (see
`solver.dp`). `solve_layered` cuts every layer into chunks of its batches and solves them as
pure tasks: a task reads the layer above from the store folder, solves its chunk with the same
kernels as the one-process solve (so the values are the same, bit for bit: a state's value never
depends on which states share its batch) and writes its chunk as a file of its own. The layout
of the folder:

    solve.json                    the manifest (sealed): rules, chunks, the finished ones with
                                  their SHA-256; written by the coordinator only
    layer-KK/chunk-NNNNN.npy      a chunk's values (shape (n,)), or values and second moments
                                  of the final score (shape (2, n)) with the SD

The manifest holds, beside the rules it solves:

    chunks        per layer, each chunk's batches [first, last) (`Chunk`)
    index         per layer, each chunk's store ranges [a0, b0, a1, b1, ...] in the order its
                  file holds them: where any state's value lies (chunk and row), read
                  without the kernels (`solver.store`)
    done          the finished chunks ("layer/index") with their file's SHA-256
    blocks        the same chunks' file size and the SHA-256 of every STORE_BLOCK_BYTES of
                  their file (`block_bytes`), concatenated: a reader of a few rows checks only
                  the blocks they are in

A chunk is recorded in the manifest once its file is complete, so a killed run resumes at its
first unrecorded chunk; a whole chunk file read is checked against its SHA-256, and a damaged
one is solved again. Folders written before the block checksums (format 1) are read too: each
finished chunk is checked once, whole, and its block checksums recorded (`read_manifest`).
On Dask, the workers must see the folder at the same path (a shared file system); a worker
lost mid-chunk costs only that chunk, which Dask runs again. A worker holds at most the layer
above and its own chunks: two layers.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from yz.rules import InputError, RuleSet, SolverError, compile_rules

from . import sealed
from .budget import CHUNK_STATES, STORE_BLOCK_BYTES
from .dp import SOLVER_VERSION, layer_plan, parts, sweep_part
from .problem import Problem
from .report import SILENT, Reporter, Step

STORE_FORMAT = 2  # 1: before the index and the block checksums (read, and brought up to 2)
MANIFEST = "solve.json"
# A manifest's most bytes: Maxi Yatzy's with the SD lists 193,000 block checksums (12 MB).
MANIFEST_BYTES = 1 << 27
RETRIES = 3  # Dask runs a chunk that raised (a shared folder briefly unreadable) again this often
# Kept by each process: the problem of the rule set it works for, and the layer it last read.
_PROBLEM: dict[str, Any] = {}
_LAYER: dict[tuple, tuple] = {}
_LOCK = threading.Lock()


class StoreError(InputError):
    """The store folder cannot be used for this solve (another game's, or not yz's)."""


@dataclass(frozen=True)
class LayeredSolution:
    """A finished layered solve: the figures, and where the values are."""

    name: str
    folder: Path
    expected_score: float
    sd: float | None
    states: int
    seconds: float
    resumed_chunks: int  # chunks found finished in the folder when the run began
    solved_chunks: int  # chunks solved by this run


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Chunk:
    """Batches first .. last - 1 of layer k (boundaries of `dp.layer_plan`'s batches)."""

    layer: int
    index: int
    first: int
    last: int

    @property
    def spec(self) -> list[int]:
        """The chunk as plain data (a Dask task's argument)."""
        return [self.layer, self.index, self.first, self.last]


def plan(problem: Problem, chunk_states: int = CHUNK_STATES) -> list[list[Chunk]]:
    """Every layer's chunks (index k: layer k; the full card has none: its values are 0)."""
    layers: list[list[Chunk]] = []
    for k in range(problem.tables.n_categories):
        R, ptr, per_row = layer_plan(problem, k)
        states = np.cumsum(R.NU)[ptr[1:] - 1] * per_row  # states up to each batch's end
        chunks, first, base = [], 0, 0
        for b in range(1, len(ptr)):
            if states[b - 1] - base >= chunk_states or b == len(ptr) - 1:
                chunks.append(Chunk(k, len(chunks), first, b))
                first, base = b, int(states[b - 1])
        layers.append(chunks)
    return layers


def chunk_slices(problem: Problem, chunk: Chunk) -> list[tuple[int, int]]:
    """The store ranges [start, end) a chunk solves, in the order its file holds them: one per
    bank of saved rolls its rows stand for."""
    R, ptr, per_row = layer_plan(problem, chunk.layer)
    lo, hi = int(ptr[chunk.first]), int(ptr[chunk.last])
    per_bank = len(R.NU) // per_row
    out = []
    for bank in range(per_row):
        a, b = lo + bank * per_bank, hi - 1 + bank * per_bank
        out.append((int(R.OUT[a]), int(R.OUT[b] + R.NU[b])))
    return out


# ---------------------------------------------------------------- one chunk (a pure task)


def _problem_for(rules_data: dict, threads: int) -> Problem:
    """The problem of a rule set in this process (kept: a worker solves many chunks of it)."""
    key = (json.dumps(rules_data, sort_keys=True), threads)
    with _LOCK:
        problem = _PROBLEM.get(key)
        if problem is None:
            _PROBLEM.clear()
            _LAYER.clear()
            problem = Problem.of(compile_rules(RuleSet.model_validate(rules_data)), threads)
            _PROBLEM[key] = problem
        return problem


def chunk_path(folder: Path, layer: int, index: int) -> Path:
    return folder / f"layer-{layer:02d}" / f"chunk-{index:05d}.npy"


def _read_chunk(path: Path, sha: str, rows: int) -> np.ndarray:
    """A chunk file, checked against its SHA-256; StoreError when damaged."""
    return _chunk_array(path, _chunk_bytes(path, sha), rows)


def _chunk_bytes(path: Path, sha: str) -> bytes:
    """A chunk file's bytes, checked against its SHA-256; StoreError when damaged."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{path}: unreadable ({exc})") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise StoreError(f"{path}: checksum mismatch (the file was altered or truncated); "
                         "resume the layered solve into its folder to solve it again.",
                         param="store")
    return data


def _chunk_array(path: Path, data: bytes, rows: int) -> np.ndarray:
    array = np.load(io.BytesIO(data), allow_pickle=False)
    if array.dtype != np.float64 or array.ndim != rows or (rows == 2 and array.shape[0] != 2):
        raise StoreError(f"{path}: not a chunk of this solve")
    return array


def lazy_zeros(n: int) -> np.ndarray:
    """n float64 zeros that take memory only where written: an anonymous mapping the system
    does not reserve (MAP_NORESERVE), so a table far larger than the two layers a task
    touches is not refused up front (numpy's zeros can be, under strict overcommit)."""
    import mmap

    if n == 0 or not hasattr(mmap, "MAP_NORESERVE"):
        return np.zeros(n)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_NORESERVE
    return np.frombuffer(mmap.mmap(-1, n * 8, flags=flags), dtype=np.float64)


def _tables_with_layer(problem: Problem, folder: Path, layer: int, chunks: list[list], with_sd: bool
                       ) -> tuple[np.ndarray, np.ndarray | None]:
    """Full-size value (and second-moment) tables holding the finished `layer`, whose chunks
    are `chunks` ([first batch, last batch, file SHA-256] each: `Chunk.spec`), read from the
    folder once per process and layer (`lazy_zeros`: only the layers a task touches take
    memory)."""
    key = (str(folder), layer, json.dumps(chunks), with_sd)
    with _LOCK:
        have = _LAYER.get(key)
        if have is not None:
            return have
        _LAYER.clear()  # the layer before: at most two layers live in a worker
        VAL = lazy_zeros(problem.layout.size)
        M2 = lazy_zeros(problem.layout.size) if with_sd else None
        if layer < problem.tables.n_categories:
            for index, (first, last, sha) in enumerate(chunks):
                chunk = Chunk(layer, index, first, last)
                data = _read_chunk(chunk_path(folder, layer, index), sha, 2 if with_sd else 1)
                _scatter(problem, chunk, data, VAL, M2)
        _LAYER[key] = (VAL, M2)
        return VAL, M2


def _scatter(problem: Problem, chunk: Chunk, data: np.ndarray, VAL: np.ndarray,
             M2: np.ndarray | None):
    """Put a chunk file's entries back at their store places."""
    at = 0
    values = data if data.ndim == 1 else data[0]  # (a solve with the SD: values, moments)
    for a, b in chunk_slices(problem, chunk):
        VAL[a:b] = values[at:at + b - a]
        if M2 is not None:
            M2[a:b] = data[1, at:at + b - a]
        at += b - a


def solve_chunk(rules_data: dict, folder: str, chunk: list[int], above: list[list],
                with_sd: bool, threads: int = 1, expect: str = "") -> list:
    """A task: solve one chunk (`Chunk.spec`: [layer, index, first batch, last batch]; see
    `chunk_task`) for the rule set `rules_data` (plain rule data, as
    `RuleSet.model_dump(mode="json")` gives it); `expect`: the coordinator's `solver_stamp`,
    which this process's yz must match. Pure: the same arguments write the same bytes, so a
    chunk run twice (a retry) is harmless."""
    problem = _problem_for(rules_data, threads)
    if expect and solver_stamp(problem) != expect:
        raise StoreError(f"a worker's yz ({solver_stamp(problem)}) is not the coordinator's "
                         f"({expect}); install the same yz on every worker.")
    return chunk_task(problem, Path(folder), Chunk(*chunk), above, with_sd)


def solver_stamp(problem) -> str:
    """What must be the same wherever a solve's chunks are computed: the compiled rules and
    the solver's version."""
    return f"{problem.tables.digest[:16]}-v{SOLVER_VERSION}"


def chunk_task(problem: Problem, folder: Path, chunk: Chunk, above: list[list],
               with_sd: bool) -> list:
    """Solve `chunk` from the finished layer above (its chunks `above`: [first batch, last
    batch, file SHA-256] each), write it to the folder and return its file's SHA-256 and
    block checksums ([sha, `file_record`]). The chunks' bounds come from the store's
    manifest: a solve resumed with another chunk size goes on with the chunks it began
    with."""
    layer = chunk.layer
    VAL, M2 = _tables_with_layer(problem, folder, layer + 1, above, with_sd)
    R, ptr, per_row = layer_plan(problem, layer)
    for part in parts(problem, R, ptr[chunk.first:chunk.last + 1], per_row):  # Ctrl-C here
        sweep_part(problem, R, part, VAL, VAL, None, M2)
    slices = chunk_slices(problem, chunk)
    values = np.concatenate([VAL[a:b] for a, b in slices])
    data = values if M2 is None else np.stack([values, np.concatenate([M2[a:b]
                                                                       for a, b in slices])])
    buf = io.BytesIO()
    np.save(buf, data, allow_pickle=False)
    raw = buf.getvalue()
    sealed.write_bytes(chunk_path(folder, layer, chunk.index), raw)
    return [hashlib.sha256(raw).hexdigest(), file_record(raw)]


def file_record(raw: bytes, block_bytes: int | None = None) -> dict:
    """What the manifest's `blocks` holds of a chunk file: its size and the SHA-256 of every
    `block_bytes` (default STORE_BLOCK_BYTES) of it from its first byte, concatenated."""
    return {"bytes": len(raw), "sums": "".join(sealed.array_block_sums(
        np.frombuffer(raw, dtype=np.uint8), block_bytes or STORE_BLOCK_BYTES))}


# ---------------------------------------------------------------- the coordinator


# What a manifest must say to be this solve's (besides its format).
IDENTITY = ("solver_version", "digest", "variant", "size", "with_sd")


def _manifest_base(problem: Problem, with_sd: bool, layers: list[list[Chunk]]) -> dict:
    t = problem.tables
    return {"format": STORE_FORMAT, "solver_version": SOLVER_VERSION, "digest": t.digest,
            "variant": t.rules.name, "size": problem.layout.size, "with_sd": with_sd,
            "block_bytes": STORE_BLOCK_BYTES,
            "chunks": [[[c.first, c.last] for c in chunks] for chunks in layers],
            "index": [[[x for a, b in chunk_slices(problem, c) for x in (a, b)]
                       for c in chunks] for chunks in layers]}


def open_store(problem: Problem, folder: Path, with_sd: bool, chunk_states: int
               ) -> tuple[dict, list[list[Chunk]]]:
    """The manifest of `folder` for this solve and its chunks: a new one (chunks of about
    `chunk_states` states) for a new or empty folder, the folder's own when it holds this
    solve (its finished chunks and its chunk plan kept, whatever `chunk_states` is now);
    StoreError otherwise (`check_store`). Never touches a folder that holds anything but a
    solve of yz."""
    have = check_store(problem, folder, with_sd)
    if have is None:
        layers = plan(problem, chunk_states)
        return {**_manifest_base(problem, with_sd, layers), "done": {}, "blocks": {}}, layers
    layers = _chunks_of(problem, have.get("chunks"), folder)
    done, blocks = have.get("done"), have.get("blocks")
    done = done if isinstance(done, dict) else {}
    # (a folder of format 1 has no block checksums: the run records them as it checks)
    blocks = {k: v for k, v in blocks.items() if k in done} \
        if isinstance(blocks, dict) and have.get("block_bytes") == STORE_BLOCK_BYTES else {}
    return {**_manifest_base(problem, with_sd, layers), "done": done, "blocks": blocks}, layers


def check_store(problem: Problem, folder: str | os.PathLike, with_sd: bool) -> dict | None:
    """The manifest `folder` holds for this solve, None for a new or empty folder; StoreError
    for a file, a folder holding something else (another solve included) or a damaged
    manifest. Reads only the manifest: cheap enough to run before a time estimate."""
    folder = Path(folder).expanduser().resolve()
    base = _manifest_base(problem, with_sd, [])
    path = folder / MANIFEST
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"store: {folder} is a file, not a folder.", param="store")
    if not path.exists():
        if folder.exists() and any(folder.iterdir()):
            raise StoreError(f"store: {folder} is not empty and holds no solve of yz "
                             f"({MANIFEST}); give an empty or new folder.", param="store")
        return None
    try:
        have = sealed.read_sealed(path, MANIFEST_BYTES)
    except sealed.CorruptCache as exc:
        raise StoreError(f"store: {exc}; give another folder, or remove this one if it is "
                         "yz's.", param="store") from None
    if have.get("format") not in (1, STORE_FORMAT) or \
            any(have.get(k) != base[k] for k in IDENTITY):
        raise StoreError(f"store: {folder} holds a solve of '{have.get('variant')}' with other "
                         "rules, solver version or options; give another folder.",
                         param="store")
    return have


def _write_manifest(folder: Path, manifest: dict) -> str:
    """Write the manifest, sealed; returns its seal (what the store figures are tied to)."""
    return sealed.write_sealed(folder / MANIFEST, manifest)["sha256"]


def solve_layered(problem: Problem, folder: str | os.PathLike, with_sd: bool = False,
                  scheduler: Any = None, chunk_states: int = CHUNK_STATES,
                  progress: Callable[[int, int], None] | None = None,
                  workers: int | None = None) -> LayeredSolution:
    """Solve `problem`'s rule set layer by layer into `folder` (created; resumed when it holds
    an unfinished solve of the same rules): here on the problem's threads, on a Dask cluster
    (`scheduler`: an address or a `distributed.Client`) or, with `workers` > 1, on that many
    local Dask worker processes. `progress(states done, states in all)` follows the
    chunks."""
    start = time.perf_counter()
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InputError(f"workers: {workers!r} is not a positive whole number.",
                         param="workers")
    if workers is not None and scheduler is not None:
        raise InputError("workers: local workers and a scheduler exclude each other; give one.",
                         param="workers")
    folder_ = Path(folder).expanduser().resolve()
    manifest, layers = open_store(problem, folder_, with_sd, chunk_states)
    folder_.mkdir(parents=True, exist_ok=True)
    sealed.remove_stale_temporaries(folder_)  # (a killed run's half-written chunks)
    done: dict[str, str] = manifest["done"]
    blocks: dict[str, dict] = manifest["blocks"]
    resumed = len(done)
    _write_manifest(folder_, manifest)
    rules_data = problem.rules.model_dump(mode="json")
    run = _Runner(scheduler, workers, problem, rules_data, folder_, with_sd)
    n = problem.tables.n_categories
    size = {f"{c.layer}/{c.index}": _chunk_size(problem, c) for chunks in layers for c in chunks}
    total = sum(size.values())
    finished = sum(size[key] for key in done if key in size)  # states in finished chunks
    solved = 0

    checked: set[str] = set()  # chunks solved or checked by this run
    recorded: list[str] = []  # chunks whose block checksums were just recorded

    def damaged(chunks: list[Chunk]) -> list[Chunk]:
        """The finished chunks among `chunks` whose files are missing or fail their checksum
        (each read at most once per run), forgotten so that they are solved again."""
        nonlocal finished
        bad = []
        for c in chunks:
            key = f"{c.layer}/{c.index}"
            if key in checked or key not in done:
                continue
            try:
                path = chunk_path(folder_, c.layer, c.index)
                raw = _chunk_bytes(path, done[key])
                _chunk_array(path, raw, 2 if with_sd else 1)
                checked.add(key)
                if key not in blocks:  # (a folder written before the block checksums)
                    blocks[key] = file_record(raw)
                    recorded.append(key)
            except StoreError:
                bad.append(c)
                del done[key]
                blocks.pop(key, None)
                finished -= size[key]
        if bad or recorded:
            recorded.clear()
            _write_manifest(folder_, manifest)
        return bad

    if progress is not None:
        progress(finished, total)  # (where a resumed solve starts: the rate counts from here)
    try:
        k = n - 1
        while k >= 0:
            todo = [c for c in layers[k] if f"{k}/{c.index}" not in done]
            if todo and k + 1 < n and damaged(layers[k + 1]):
                k += 1  # files altered since they were written: solve them again first
                continue
            above = [[c.first, c.last, done[f"{k + 1}/{c.index}"]] for c in layers[k + 1]] \
                if k + 1 < n else []
            for c, (sha, record) in run.map(k, todo, above):
                key = f"{k}/{c.index}"
                done[key], blocks[key] = sha, record
                finished += size[key]
                checked.add(key)
                solved += 1
                _write_manifest(folder_, manifest)
                if progress is not None:
                    progress(finished, total)
            k -= 1
            if k < 0:  # a finished solve leaves every chunk intact: check those not yet read
                bad = damaged([c for chunks in layers for c in chunks])
                k = max((c.layer for c in bad), default=-1)
        # The game's value: layer 0, read back (and checked) from the folder.
        layer0 = [[c.first, c.last, done[f"0/{c.index}"]] for c in layers[0]]
        VAL, M2 = _tables_with_layer(problem, folder_, 0, layer0, with_sd)
        value = float(VAL[problem.layout.start])
        sd = None
        if M2 is not None:
            sd = float(np.sqrt(max(0.0, M2[problem.layout.start] - value ** 2)))
    finally:
        run.close()
        with _LOCK:
            _LAYER.clear()
    solution = LayeredSolution(problem.rules.name, folder_, value, sd, problem.layout.reachable,
                               time.perf_counter() - start, resumed, solved)
    check_layered(solution)
    manifest["expected_score"], manifest["sd"] = value, sd
    _write_manifest(folder_, manifest)
    return solution


def share_left(problem: Problem, folder: str | os.PathLike, with_sd: bool) -> float:
    """The share of the states still to solve in `folder` by its manifest (1.0 for a new,
    foreign or unreadable folder; the files are checked by the solve, not here): what a
    resumed solve's time estimate is scaled by."""
    try:
        manifest = check_store(problem, folder, with_sd)
        if manifest is None:
            return 1.0
        layers = _chunks_of(problem, manifest.get("chunks"), Path(folder))
        done = manifest.get("done") or {}
        sizes = [(_chunk_size(problem, c), f"{c.layer}/{c.index}" in done)
                 for chunks in layers for c in chunks]
    except (OSError, sealed.CorruptCache, StoreError):
        return 1.0
    total = sum(size for size, _ in sizes)
    return sum(size for size, finished in sizes if not finished) / max(1, total)


def _chunk_size(problem: Problem, chunk: Chunk) -> int:
    return sum(b - a for a, b in chunk_slices(problem, chunk))


def read_store(problem, folder: str | os.PathLike, layers: Iterable[int] | None = None,
               moments: bool = True, report: Reporter = SILENT
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """The whole value table (and second moments, when solved with the SD) of a finished
    layered solve in `folder`, every chunk read whole and checked (`read_manifest`: what is
    refused, and the folders of an older yz); StoreError when it is not finished. With
    `layers`, only those layers are read: the rest of the table reads 0 and takes no memory.
    Without `moments` the second moments are left out (None). Advice reads only the rows a
    position needs instead (`solver.store`)."""
    problem = getattr(problem, "problem", problem)  # (a Model will do: its problem is read)
    folder_ = store_folder(folder)
    manifest, _ = read_manifest(problem, folder_, report)
    with_sd = bool(manifest["with_sd"]) and moments
    size = problem.layout.size
    wanted = range(problem.tables.n_categories) if layers is None else set(layers)
    VAL = np.zeros(size) if layers is None else lazy_zeros(size)
    M2 = None if not with_sd else np.zeros(size) if layers is None else lazy_zeros(size)
    for k, chunks in enumerate(manifest["index"]):
        if k not in wanted:
            continue
        for i, flat in enumerate(chunks):
            path = chunk_path(folder_, k, i)
            data = _read_chunk(path, manifest["done"][f"{k}/{i}"],
                               2 if manifest["with_sd"] else 1)
            values = data if data.ndim == 1 else data[0]
            at = 0
            for a, b in zip(flat[::2], flat[1::2], strict=True):
                if b - a > values.size - at:
                    raise StoreError(f"store: {path} holds fewer values than its chunk "
                                     "lists.", param="store")
                VAL[a:b] = values[at:at + b - a]
                if M2 is not None:
                    M2[a:b] = data[1, at:at + b - a]
                at += b - a
    return VAL, M2


FIGURES = "figures.json"  # optimal play's per-box figures from the store, once computed
FIGURES_PROGRESS = "figures-progress.json"  # where the pass stands (`forward.Reached`)
FIGURES_KEEP_SECONDS = 60.0  # the pass writes where it stands at most this often


def store_figures(problem, folder: str | os.PathLike, step: Step | None = None,
                  report: Reporter = SILENT, keep_seconds: float = FIGURES_KEEP_SECONDS):
    """(expected score, SD or None, `forward.Walk`): the game's value and SD as the manifest
    of the finished layered solve in `folder` holds them, and the per-box figures of optimal
    play (each box's mean and zero rate, the bonus and Joker rates) from its values, a layer
    in memory at a time (each read whole and checked, as `read_store` reads it): the forward
    pass streamed (`forward.streamed_figures`). The pass keeps where it stands in the folder
    after a layer (at most every `keep_seconds`), so a stopped pass goes on from there, and its
    figures when done, so the next call reads them (both sealed and tied to the store's
    manifest; a folder yz cannot write to is read, and the pass starts over each time)."""
    from .forward import Reached, streamed_figures

    problem = getattr(problem, "problem", problem)
    folder_ = store_folder(folder)
    manifest, _ = read_manifest(problem, folder_, report)  # (before any work)
    tie = manifest["sha256"]  # (the seal on disk, also of an older folder brought up to date)
    sealed.remove_stale_temporaries(folder_)
    value, sd = manifest["expected_score"], manifest.get("sd")
    done = _read_figures(folder_, tie, problem)
    if done is not None:
        with contextlib.suppress(OSError):  # (a pass stopped before it tidied up)
            _remove_progress(folder_)
        return value, sd, done
    held = [_read_progress(folder_, tie, problem)]
    if held[0] is not None:
        report.note(f"the figures' forward pass goes on from layer {held[0].layer} of "
                    f"{problem.tables.n_categories}, where it stopped")
    last = [time.monotonic()]  # (None once the folder refused a write: not tried again)

    def keep(reached: Reached) -> None:
        if last[0] is not None and time.monotonic() - last[0] >= keep_seconds:
            kept = _write_progress(folder_, tie, reached, report)
            last[0] = time.monotonic() if kept else None

    walk = streamed_figures(  # (the pass holds the start layer only as long as it needs it)
        problem, lambda k: read_store(problem, folder, [k + 1], moments=False, report=report)[0],
        step, start=held.pop(), keep=keep)
    try:
        sealed.write_sealed(folder_ / FIGURES, {
            "tie": tie, "box_mean": walk.box_mean.tolist(),
            "box_zero_rate": walk.box_zero_rate.tolist(), "events": walk.events.tolist()})
        _remove_progress(folder_)
    except OSError:
        pass  # (a folder yz cannot write to: the figures are returned, not kept)
    return value, sd, walk


def figures_share_left(problem, folder: str | os.PathLike) -> float:
    """The share of the stored states whose turns `store_figures` still has to follow in
    `folder` (0 when its figures are kept there, 1 for a pass not begun or a folder it cannot
    read): what its time estimate is scaled by. Reads only the small sealed files."""
    problem = getattr(problem, "problem", problem)
    try:
        folder_ = store_folder(folder)
        tie = sealed.read_sealed(folder_ / MANIFEST, MANIFEST_BYTES).get("sha256")
        if _read_figures(folder_, tie, problem) is not None:
            return 0.0
        facts = sealed.read_sealed(folder_ / FIGURES_PROGRESS, MANIFEST_BYTES)
        layer = int(facts["layer"]) if facts.get("tie") == tie else 0
    except (OSError, ValueError, TypeError, KeyError, sealed.CorruptCache, StoreError):
        return 1.0
    ptr = problem.layout.LAYER_PTR
    return float(1 - ptr[layer] / max(1, ptr[problem.tables.n_categories]))


def _read_figures(folder: Path, tie: str, problem: Problem):
    """The figures a finished pass kept in `folder` for this manifest, or None."""
    from .forward import Walk
    from .kernels.outcomes import N_EVENTS

    try:
        data = sealed.read_sealed(folder / FIGURES)
        if data.get("tie") != tie:
            return None
        n = problem.tables.n_categories
        mean, zero, events = (np.array(data[name], dtype=np.float64)
                              for name in ("box_mean", "box_zero_rate", "events"))
        if mean.shape != (n,) or zero.shape != (n,) or events.shape != (N_EVENTS,):
            return None
    except (sealed.CorruptCache, KeyError, TypeError, ValueError):
        return None
    return Walk(mean, zero, events, None, None)


def _progress_table(folder: Path, name: str, layer: int) -> Path:
    return folder / f"figures-{name}-{layer:02d}.npy"


def _write_progress(folder: Path, tie: str, reached, report: Reporter) -> bool:
    """Keep `reached` (a `forward.Reached`) in `folder`: its two tables first, then the sealed
    file that names them, then the previous layer's tables go. False, said, when the folder
    cannot be written to."""
    try:
        facts = {name: sealed.save_table(_progress_table(folder, name, reached.layer),
                                         getattr(reached, name), STORE_BLOCK_BYTES)
                 for name in ("index", "reach")}
        sealed.write_sealed(folder / FIGURES_PROGRESS, {
            "tie": tie, "layer": reached.layer, **facts,
            "box_stats": reached.box_stats.tolist(), "events": reached.events.tolist()})
    except OSError as exc:
        report.note(f"the figures' pass cannot keep where it stands in {folder} ({exc}); "
                    "it goes on, and would start over if stopped")
        return False
    _remove_progress(folder, keep_layer=reached.layer)
    return True


def _read_progress(folder: Path, tie: str, problem: Problem):
    """Where a stopped pass stood (`forward.Reached`), when `folder` keeps it for this
    manifest and its tables are intact; None otherwise (the pass starts over)."""
    from .forward import Reached
    from .kernels.outcomes import N_EVENTS

    n = problem.tables.n_categories
    try:
        facts = sealed.read_sealed(folder / FIGURES_PROGRESS, MANIFEST_BYTES)
        layer = int(facts["layer"])
        if facts.get("tie") != tie or not 0 < layer < n:
            return None
        arrays = {}
        for name, dtype in (("index", np.int64), ("reach", np.float64)):
            path = _progress_table(folder, name, layer)
            if not sealed.table_intact(path, facts[name]):
                return None
            arrays[name] = np.load(path, allow_pickle=False)
            if arrays[name].dtype != dtype or arrays[name].ndim != 1:
                return None
        index, reach = arrays["index"], arrays["reach"]
        box_stats = np.array(facts["box_stats"], dtype=np.float64)
        events = np.array(facts["events"], dtype=np.float64)
        ptr = problem.layout.LAYER_PTR
        if len(index) != len(reach) or not len(index) or box_stats.shape != (2, n) or \
                events.shape != (N_EVENTS,) or index[0] < ptr[layer] or \
                index[-1] >= ptr[layer + 1] or (np.diff(index) <= 0).any():
            return None
    except (OSError, sealed.CorruptCache, KeyError, TypeError, ValueError):
        return None
    return Reached(layer, index, reach, box_stats, events)


def _remove_progress(folder: Path, keep_layer: int | None = None) -> None:
    """The pass's kept tables (every layer's but `keep_layer`'s) and, without `keep_layer`,
    the file that names them: only the files `_write_progress` writes."""
    import re

    pattern = re.compile(r"figures-(index|reach)-(\d\d)\.npy")
    for path in folder.iterdir():
        match = pattern.fullmatch(path.name)
        if match and (keep_layer is None or int(match.group(2)) != keep_layer):
            path.unlink(missing_ok=True)
    if keep_layer is None:
        (folder / FIGURES_PROGRESS).unlink(missing_ok=True)


def store_folder(folder: str | os.PathLike) -> Path:
    """The folder of a finished layered solve, resolved; StoreError for a blank name, a file,
    or a folder that holds no solve of yz."""
    if not str(folder).strip():
        raise StoreError("store: give the folder of a finished layered solve.", param="store")
    folder_ = Path(folder).expanduser().resolve()
    if folder_.exists() and not folder_.is_dir():
        raise StoreError(f"store: {folder_} is a file, not a folder.", param="store")
    if not (folder_ / MANIFEST).is_file():
        raise StoreError(f"store: {folder_} holds no solve of yz ({MANIFEST}); give the "
                         "folder a layered solve wrote.", param="store")
    return folder_


@dataclass(frozen=True)
class StoreIndex:
    """Where every stored state's value lies in a store's chunk files (from its manifest's
    `index`): the store ranges [START, END), sorted, each with its chunk (a number: `keys`
    names it "layer/index") and the row of its first value in that chunk's file."""

    START: np.ndarray  # int64 [range]
    END: np.ndarray
    CHUNK: np.ndarray
    ROW: np.ndarray
    keys: tuple[str, ...]  # [chunk]
    entries: np.ndarray  # int64 [chunk]: values each chunk file holds


def store_index(problem: Problem, index: Any, folder: Path) -> StoreIndex:
    """The index of a manifest, checked to list every stored state but the full card's, each
    once, in the layer it belongs to; StoreError otherwise."""
    import itertools

    layout = problem.layout
    try:
        if len(index) != problem.tables.n_categories:
            raise ValueError
        flats = [flat for chunks in index for flat in chunks]
        keys = tuple(f"{k}/{i}" for k, chunks in enumerate(index) for i in range(len(chunks)))
        sizes = np.array([len(flat) for flat in flats], dtype=np.int64)
        if (sizes < 2).any() or (sizes % 2).any():
            raise ValueError
        ends = np.fromiter(itertools.chain.from_iterable(flats), dtype=np.int64,
                           count=int(sizes.sum())).reshape(-1, 2)
        start, end = ends[:, 0], ends[:, 1]
        chunk = np.repeat(np.arange(len(flats)), sizes // 2)
        layer = np.repeat([k for k, chunks in enumerate(index) for _ in chunks], sizes // 2)
        width = end - start
        row = np.cumsum(width) - width  # (from the first chunk's first row: made per chunk)
        firsts = np.concatenate([[0], np.cumsum(sizes // 2)[:-1]])
        entries = np.add.reduceat(width, firsts)
        row -= np.repeat(row[firsts], sizes // 2)
        if (width <= 0).any() or (start < layout.LAYER_PTR[layer]).any() or \
                (end > layout.LAYER_PTR[layer + 1]).any():
            raise ValueError
        order = np.argsort(start, kind="stable")
        start, end = start[order], end[order]
        if start[0] != 0 or end[-1] != layout.LAYER_PTR[-2] or \
                (start[1:] != end[:-1]).any():
            raise ValueError
    except (TypeError, ValueError, IndexError, OverflowError):
        raise StoreError(f"store: {folder} lists chunks that do not fit these rules.",
                         param="store") from None
    return StoreIndex(start, end, chunk[order], row[order], keys, entries)


def read_manifest(problem: Problem, folder: Path, report: Reporter = SILENT
                  ) -> tuple[dict, StoreIndex]:
    """The manifest of the finished layered solve of `problem`'s rules in `folder`
    (`store_folder`), checked: StoreError, with the reason, for a damaged manifest, a solve of
    other rules or by another version of yz, an unfinished solve or an index that does not
    fit the rules (a solve with or without the SD will do). A folder written before the block
    checksums (an older yz) is read once, every chunk checked whole, and its index and block
    checksums recorded in its manifest (said to `report` first; where the folder cannot be
    written, the checksums serve this process only). Returns the manifest and its index
    (`store_index`)."""
    try:
        manifest = sealed.read_sealed(folder / MANIFEST, MANIFEST_BYTES)
    except sealed.CorruptCache as exc:
        raise StoreError(f"store: {exc}", param="store") from None
    if manifest.get("format") not in (1, STORE_FORMAT) or \
            manifest.get("solver_version") != SOLVER_VERSION:
        raise StoreError(f"store: {folder} was written by another version of yz "
                         f"(format {manifest.get('format')!r}, solver version "
                         f"{manifest.get('solver_version')!r}); solve it again.",
                         param="store")
    if manifest.get("digest") != problem.tables.digest or \
            manifest.get("size") != problem.layout.size:
        raise StoreError(f"store: {folder} holds a solve of other rules "
                         f"('{manifest.get('variant')}'), not of {problem.name}.",
                         param="store")
    index = manifest.get("index")
    if manifest.get("format") == 1 or not isinstance(index, list):
        # (the index from the chunk plan: the kernels' batches, once)
        layers = _chunks_of(problem, manifest.get("chunks"), folder)
        index = _manifest_base(problem, bool(manifest.get("with_sd")), layers)["index"]
    table = store_index(problem, index, folder)
    done = manifest.get("done") if isinstance(manifest.get("done"), dict) else {}
    for key in table.keys:
        if key not in done:
            k, i = key.split("/")
            raise StoreError(f"store: {folder} holds an unfinished solve (layer {k}, chunk {i} "
                             "not solved yet); resume the layered solve into it to finish it.",
                             param="store")
    blocks = manifest.get("blocks") if isinstance(manifest.get("blocks"), dict) else {}
    block_bytes = manifest.get("block_bytes", STORE_BLOCK_BYTES)
    missing = [key for key in table.keys if key not in blocks]
    manifest = {**manifest, "format": STORE_FORMAT, "index": index, "done": done,
                "blocks": blocks, "block_bytes": block_bytes}
    if missing:
        _record_blocks(folder, manifest, missing, report)
    return manifest, table


def _record_blocks(folder: Path, manifest: dict, keys: list[str], report: Reporter) -> None:
    """Check the chunk files `keys` whole, once, and record their block checksums in the
    manifest (a folder of an older yz), written back where the folder allows."""
    paths = {key: chunk_path(folder, *map(int, key.split("/"))) for key in keys}
    sizes = {key: path.stat().st_size if path.is_file() else 0 for key, path in paths.items()}
    total = sum(sizes.values())
    report.note(f"{folder} was written by an older yz: checking its {len(keys):,} chunk files "
                f"({total / 1e9:.1f} GB) once, whole, and recording their block checksums for "
                "quick reads")
    done = 0
    with report.stage(f"checking {folder.name} once", "bytes") as step:
        for key in keys:
            raw = _chunk_bytes(paths[key], manifest["done"][key])
            manifest["blocks"][key] = file_record(raw, manifest["block_bytes"])
            done += sizes[key]
            step(done, total)
    try:
        manifest["sha256"] = _write_manifest(folder, manifest)  # (the seal now on disk)
    except OSError as exc:
        report.note(f"could not record the block checksums in {folder / MANIFEST} ({exc}); "
                    "the folder will be checked whole again next time")


def _chunks_of(problem: Problem, chunks: Any, folder: Path) -> list[list[Chunk]]:
    """The chunks a manifest lists (whatever chunk size its solve used), checked to cover
    each layer's batches in order."""
    layers = []
    try:
        for k in range(problem.tables.n_categories):
            n_batches = len(layer_plan(problem, k)[1]) - 1
            bounds = [(int(a), int(b)) for a, b in chunks[k]]
            ends = [a for a, _ in bounds[1:]] + [n_batches]
            if not bounds or bounds[0][0] != 0 or any(
                    not a < b == end for (a, b), end in zip(bounds, ends, strict=True)):
                raise ValueError
            layers.append([Chunk(k, i, a, b) for i, (a, b) in enumerate(bounds)])
    except (TypeError, ValueError, IndexError):
        raise StoreError(f"store: {folder} lists chunks that do not fit these rules.",
                         param="store") from None
    return layers


class _Runner:
    """Runs a layer's chunk tasks here (one after another, each on the problem's threads) or
    on Dask (one thread each: a worker process per core)."""

    def __init__(self, scheduler: Any, workers: int | None, problem, rules_data: dict,
                 folder: Path, with_sd: bool):
        self.problem, self.rules_data, self.folder = problem, rules_data, folder
        self.with_sd = with_sd
        from .study import DaskWorkers

        self.dask = DaskWorkers(scheduler, workers)
        self.client = self.dask.client

    def map(self, k: int, chunks: list[Chunk], above: list[list]):
        """(chunk, [its file's SHA-256, `file_record`]) for each chunk of layer k, as it
        finishes."""
        if self.client is None:
            for c in chunks:
                yield c, chunk_task(self.problem, self.folder, c, above, self.with_sd)
            return
        from distributed import as_completed

        # A task's key names everything its result depends on: another solve on the same
        # cluster (other rules, folder, chunks or layer above) never shares it.
        tag = hashlib.sha256(json.dumps([self.rules_data, str(self.folder), self.with_sd,
                                         above], sort_keys=True).encode()).hexdigest()[:20]
        stamp = solver_stamp(self.problem)
        futures = {}
        for c in chunks:
            futures[self.client.submit(
                solve_chunk, self.rules_data, str(self.folder), c.spec, above, self.with_sd,
                1, stamp, key=f"yz-chunk-{tag}-{k}-{c.index}-{c.first}-{c.last}",
                pure=False, retries=RETRIES)] = c
        try:
            for fut in as_completed(list(futures)):
                c = futures[fut]
                sha = fut.result()  # ([SHA-256, file record])
                path = chunk_path(self.folder, k, c.index)
                if not path.is_file():
                    raise StoreError(f"store: a Dask worker wrote {path}, which this process "
                                     "cannot see: the workers must share the folder, at the "
                                     "same path.", param="store")
                yield c, sha
        except BaseException:
            self.client.cancel(list(futures))
            raise

    def close(self) -> None:
        self.dask.close(_forget)


def _forget() -> None:
    """Drop this process's kept problem and layers."""
    with _LOCK:
        _PROBLEM.clear()
        _LAYER.clear()


def check_layered(solution: LayeredSolution) -> None:
    """SolverError when the game's value is not a finite number of points."""
    if not np.isfinite(solution.expected_score) or solution.expected_score < 0:
        raise SolverError(f"{solution.name}: the layered solve computed "
                          f"{solution.expected_score!r} as the expected score; this is a bug "
                          "in yz, not in the rule file; please report it with the rule file.")
