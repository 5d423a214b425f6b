"""Two players, both playing to win: the exact value of a game under `minimax` play.

Two players play the same rules, A first, in turn, each seeing the other's card. The game is
zero-sum: a win counts 1, a draw 1/2, a loss 0. At a joint turn start (i, j, d) (the mover's
state, the other's, the mover's lead: `solver.joint`) let V(i, j, d) be the mover's best
P(win) + P(draw) / 2 when both play to win. Then

    V(i, j, d)  = E over the turn's dice of  max over the mover's moves of
                  1 - V(j, i', -(d + g))          (a move: keeps, then box, gaining g points,
                                                    leading to i')
    V(full, full, d) = 1 if d > 0, 1/2 if d = 0, 0 if d < 0     (A reads the result)

That is `minimax` play (named apart from `optimal`, which maximises the expected score). For
the other's state j fixed, the mover's turn over (i, d) is exactly the target sweep of
`solver.target` (`need_sweep`, the decision kernels of `solver.kernels.layer` with a `Needs`
bundle): its columns are the points still needed n = c - d with c = M(j) + 1 (M: the most the
other can still score; a lead of c or more has won, the sweep's "need met", worth 1), and the
next layer's table is

    T[i', n'] = 1 - V(j, i', n' - c)

read from the joint layer after (`joint.next_layer`), decided and out-of-reach differences
filled as `solver.joint` says. So no turn is written twice: a joint layer is swept as many
times as the other player has states in it, each sweep one call of the kernels the solitaire
solve uses. Along the choices the sweep carries the chances of a win and of a draw (the
payloads of play to win, `solver.versus`), so win, draw and loss are exact, their split
depending on how ties between equally good moves are broken (`kernels.ties`).

The same joint states evaluate `minimax` against expected-score play (`optimal`), seated first
or second: where the minimax player moves, the choices are minimax's (its table decides, the
payloads carry that pairing's chances); where the expected-score player moves, its turn is
the list of moves it ends with from each state (`forward.layer_outcomes`: next state, points,
probability, under the solved values and yz's tie rule), averaged over. The full-information
best response to expected-score play (seated first or second) is the same pairing with the
player to win deciding by its own table instead of minimax's: the most any player seeing the
card can get against expected-score play.

Layers are solved from both full cards back to the start, two joint layers in memory; the
blocks of the layer after are handed back to the system as they are read for the last time
(`joint.Table.release`), so a sweep holds little more than the larger of the two.

A long solve can keep its progress in a folder (`Checkpoint`): the tables of the last joint
layer solved, every `every` seconds, each checked block by block against its SHA-256 when read
back, so a solve stopped (Ctrl-C, a crash, the machine) goes on from there when run again with
the same folder; the solve started over is the same, bit for bit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from yz.rules import InputError, SolverError

from .dp import Solution, parts
from .joint import (
    JointLayer,
    Table,
    all_bounds,
    build_layer,
    joint_order,
    next_layer,
)
from .kernels.bundle import Needs, Next, Rows
from .report import Step
from .target import NEED_RUN
from .versus import Chances

MINIMAX = "minimax"
# The ways of playing the joint states evaluate: both minimax; minimax seated first (A)
# against expected-score play; expected-score play seated first against minimax (B); the
# best response to expected-score play, seeing its card, seated first and seated second.
BOTH, FIRST, SECOND = "minimax", "first", "second"
BR_FIRST, BR_SECOND = "best_response_first", "best_response_second"
# Outcome entries (moves x needs) averaged at once in an expected-score turn.
OUTCOME_CELLS = 1 << 22


@dataclass(frozen=True)
class ExactDuel:
    """The exact two-player figures of a rule set (see the module docstring): the first
    player's chances when both play `minimax`, and where asked the minimax player's chances
    against expected-score play, seated first and seated second, and the full-information
    best response's. `value` is A's P(win) + P(draw) / 2 under minimax play."""

    variant: str
    value: float
    minimax: Chances | None  # A's chances (None: only the value was solved)
    minimax_first: Chances | None  # minimax as A against expected-score play as B
    minimax_second: Chances | None  # minimax as B against expected-score play as A
    pairs: int  # pairs of turn-start states, all joint layers
    states: int  # joint states stored (pairs x the differences each needs)
    memory_bytes: int  # the estimate the solve was checked against
    seconds: float
    layers: dict = field(default_factory=dict, repr=False, compare=False)
    # The best response to expected-score play seeing its card, as A and as B (its chances).
    best_response_first: Chances | None = None
    best_response_second: Chances | None = None

    def to_dict(self) -> dict:
        def chances(c: Chances | None) -> dict | None:
            return None if c is None else c.to_dict()

        out = {"variant": self.variant, "strategy": MINIMAX, "value": self.value,
               "minimax": chances(self.minimax), "minimax_first": chances(self.minimax_first),
               "minimax_second": chances(self.minimax_second), "pairs": self.pairs,
               "joint_states": self.states, "memory_bytes": self.memory_bytes,
               "seconds": self.seconds}
        out["best_response_first"] = chances(self.best_response_first)
        out["best_response_second"] = chances(self.best_response_second)
        return out


@dataclass
class _Track:
    """One way of playing, evaluated over the joint states: its tables of the layer being
    solved and of the one after (the mover's score, and the chance of a draw)."""

    name: str
    chances: bool
    now: tuple | None = None  # (Table score, Table draw or None)
    after: tuple | None = None

    @property
    def own(self) -> bool:
        """Whether the player to win decides by this track's own table (a best response),
        not by minimax's."""
        return self.name in (BR_FIRST, BR_SECOND)

    def minimax_moves(self, km: int, ko: int) -> bool:
        """Whether the mover of joint layer (km, ko) plays to win in this track (minimax, or
        the best response)."""
        return self.name == BOTH or (self.name in (FIRST, BR_FIRST)) == (km == ko)


CHECKPOINT_FORMAT = 1
CHECKPOINT_SECONDS = 600.0  # a solve's progress is saved at most this often
CHECKPOINT_BLOCK = 1 << 24  # bytes of a table checked by one SHA-256


class Checkpoint:
    """A two-player solve's progress in a folder of its own: the tables of the last joint layer
    solved (`save`), described in a sealed `checkpoint.json` (the rule set's digest, the
    pass's chances and seats, the layer, every table's checksums by block), then the pass's
    result once it is finished (`finish`). `load` gives back what a run with the same rule set
    and pass left, or None; anything else in the folder (another game's progress, a damaged
    table) is refused with the reason, and nothing yz did not write is touched."""

    NAME = "checkpoint.json"

    def __init__(self, folder: str | Path, digest: str, chances: bool, seats: tuple,
                 every: float = CHECKPOINT_SECONDS):
        from .dp import SOLVER_VERSION
        from .joint_store import writable_folder

        self.folder = Path(folder)
        self.identity = {"format": CHECKPOINT_FORMAT, "solver_version": SOLVER_VERSION,
                         "digest": digest, "chances": bool(chances), "seats": list(seats)}
        self.every = every
        self.last = time.monotonic()
        self.failed: str | None = None  # why progress could not be saved, if it could not
        writable_folder(self.folder, "checkpoint")

    @property
    def manifest_path(self) -> Path:
        return self.folder / self.NAME

    def _manifest(self) -> dict | None:
        from .joint_store import read_manifest

        return read_manifest(self.manifest_path, self.identity, "checkpoint", "the progress",
                             "give another folder, or delete this one to start over.")

    def load(self, mapped: bool = False) -> dict | None:
        """{"result": ...} of a finished pass, or {"layer": (km, ko), "tables": {track:
        (score, draw or None)}} of the last layer saved (joint.Table each, read and checked;
        with `mapped`, `joint_tasks.Mapped` each: memory-mapped, its blocks checked by
        whoever reads them, as Dask's workers do), or None when the folder holds no progress
        yet."""
        from .joint import Table
        from .joint_tasks import Mapped
        from .sealed import CheckedFile, CorruptCache

        found = self._manifest()
        if found is None:
            return None
        if "result" in found:
            return {"result": found["result"]}
        if "layer" not in found:  # (stopped while saving its first layer)
            return None
        tables: dict = {}
        for name, files in found["tables"].items():
            pair = []
            for facts in files:
                if facts is None:
                    pair.append(None)
                    continue
                if mapped:
                    pair.append(Mapped(self.folder, facts))
                    continue
                path = self.folder / facts["file"]
                try:
                    table = Table(int(facts["entries"]))
                    view = table.array.view(np.uint8)
                    block, offset = int(facts["block_bytes"]), int(facts["data_offset"])
                    data = CheckedFile(path, list(facts["blocks"]), block, offset,
                                       int(facts["file_bytes"]))
                    try:
                        for b, at in enumerate(range(0, view.size, block)):
                            data.check_blocks([b])  # (each block checked, then copied)
                            view[at:at + block] = np.frombuffer(
                                data.buffer[offset + at:offset + min(at + block, view.size)],
                                dtype=np.uint8)
                    finally:
                        data.close()
                except (OSError, CorruptCache, ValueError, KeyError) as exc:
                    raise InputError(f"checkpoint: {path.name} is damaged or missing ({exc}); "
                                     "give another folder, or delete this one to start over.",
                                     param="checkpoint") from None
                pair.append(table)
            tables[name] = tuple(pair)
        return {"layer": tuple(found["layer"]), "tables": tables}

    def due(self) -> bool:
        return time.monotonic() - self.last >= self.every

    def save(self, km: int, ko: int, tracks: list) -> None:
        """The tables of joint layer (km, ko) just solved (each track's `after`), then the
        manifest naming them, then the files of the layer saved before are removed. The
        files about to be written are named in the manifest first, so a stop half way leaves
        none that a later run would not remove. A folder that cannot be written (full,
        read-only) stops the saving, not the solve (`failed` says why)."""
        from .sealed import save_table, write_sealed

        if self.failed:
            return
        try:
            found = self._manifest() or dict(self.identity)
            old = self._files(found)
            names = {track.name: [None if table is None else
                                  f"layer-{km}-{ko}-{track.name}-{what}.npy"
                                  for what, table in zip(("score", "draw"), track.after,
                                                         strict=True)]
                     for track in tracks}
            pending = sorted(old | {n for pair in names.values() for n in pair if n})
            write_sealed(self.manifest_path, {**found, "pending": pending})
            files: dict = {}
            for track in tracks:
                files[track.name] = [
                    None if name is None else
                    {**save_table(self.folder / name, table.array, CHECKPOINT_BLOCK),
                     "file": name, "entries": int(table.array.size)}
                    for name, table in zip(names[track.name], track.after, strict=True)]
            write_sealed(self.manifest_path, {**self.identity, "layer": [km, ko],
                                              "tables": files})
            self._remove(set(pending) - {n for pair in names.values() for n in pair if n})
        except OSError as exc:
            self.failed = f"{type(exc).__name__}: {exc}"
        self.last = time.monotonic()

    def table_files(self) -> dict:
        """{track: [what the manifest says of its score table, of its draw table or None]}
        of the last layer saved ({} before the first)."""
        found = self._manifest()
        return dict(found.get("tables", {})) if found else {}

    def finish(self, result: dict) -> None:
        """The pass's result (JSON: numbers and None), and the tables removed; a folder that
        cannot be written leaves the result to the caller alone (`failed`)."""
        from .sealed import write_sealed

        try:
            old = self._files(self._manifest())
            write_sealed(self.manifest_path, {**self.identity, "result": result})
            self._remove(old)
        except OSError as exc:
            self.failed = f"{type(exc).__name__}: {exc}"

    @staticmethod
    def _files(found: dict | None) -> set[str]:
        """The table files a manifest names, written or about to be (yz's own: the only ones
        ever removed)."""
        if not found:
            return set()
        named = {f["file"] for pair in found.get("tables", {}).values() for f in pair if f}
        return named | set(found.get("pending", []))

    def _remove(self, names: set[str]) -> None:
        for name in names:
            if "/" not in name and name.startswith("layer-") and name.endswith(".npy"):
                (self.folder / name).unlink(missing_ok=True)


def tracks_of(chances: bool, seats: tuple[str, ...]) -> list[_Track]:
    """The tracks a pass evaluates: minimax (with its chances or not), then the seats."""
    return [_Track(BOTH, chances), *(_Track(seat, True) for seat in seats)]


def solve_minimax(solution: Solution, chances: bool = True, seats: tuple[str, ...] = (),
                  step: Step | None = None, keep: bool = False,
                  checkpoint: Checkpoint | None = None, store=None, runner=None) -> dict:
    """Solve the joint states of `solution`'s rule set backwards (module docstring). With
    `chances` minimax's chance of a draw is carried too (win, draw and loss, not only the
    value); `seats` (any of FIRST, SECOND, BR_FIRST, BR_SECOND) evaluates minimax, or the
    best response, against expected-score play seated there too (`solution` then holds the
    solved values expected-score play follows). Returns
    {track: (score, draw or None)} at the start for each track (BOTH and the seats: the
    first player's), "pairs" and "states", and with `keep` also "layers": {(km, ko):
    (JointLayer, {track: (score, draw)})} of every joint layer (for the tests; no block is
    handed back then). With `checkpoint`, the progress is saved there as it goes and a run
    goes on from what the folder holds (`Checkpoint`). With `store` (a
    `joint_store.JointStore`, not with a checkpoint), every joint layer's minimax values are
    written there as they are solved, to play minimax from. With `runner` (a
    `joint_tasks.JointRunner`, with a checkpoint), each layer's columns are solved on Dask
    from the layer after it, saved in the checkpoint after every layer."""
    if store is not None and checkpoint is not None:
        raise InputError("store: a solve into a store of joint layers starts over when run "
                         "again; give a checkpoint or a store, not both.", param="store")
    if runner is not None and (checkpoint is None or keep):
        raise InputError("checkpoint: a two-player solve on Dask keeps its joint layers in "
                         "a checkpoint folder, where the workers read them; give one.",
                         param="checkpoint")
    problem = solution.problem
    t, layout = problem.tables, problem.layout
    n = t.n_categories
    bounds = all_bounds(t, layout)
    tracks = tracks_of(chances, seats)
    order = joint_order(n)
    total = sum(int(_entries(bounds, km, ko)) for km, ko in order[:-1])
    pairs = sum(len(bounds[km]) * len(bounds[ko]) for km, ko in order)
    states = total + int(_entries(bounds, n, n))
    saved = None if checkpoint is None or keep else checkpoint.load(mapped=runner is not None)
    if saved is not None and "result" in saved:
        out = {name: tuple(value) for name, value in saved["result"].items()}
        return {**out, "pairs": pairs, "states": states}
    done = 0
    todo = list(reversed(order[:-1]))
    if saved is not None:  # (go on after the layer saved)
        km, ko = saved["layer"]
        after = build_layer(bounds, km, ko)
        for track in tracks:
            track.after = saved["tables"][track.name]
            if any(table is not None and table.array.size != after.size
                   for table in track.after):
                raise InputError(f"checkpoint: {checkpoint.folder} holds joint layer "
                                 f"{(km, ko)} of another size than this solve's (another "
                                 "version of yz wrote it); give another folder.",
                                 param="checkpoint")
        if (km, ko) != (n, n):  # (the full cards: saved before the first layer on Dask)
            done = _solved_through(bounds, todo, (km, ko))
            todo = todo[todo.index((km, ko)) + 1:]
        if runner is not None:  # (the workers read the layer from the folder, not from here)
            for track in tracks:
                track.after = None
        saved = None
    else:
        after = build_layer(bounds, n, n)
        for track in tracks:
            track.after = _final_tables(after, track.chances)
        if runner is not None:
            _save_for_workers(checkpoint, n, n, tracks)
    if store is not None:
        store.save(n, n, tracks[0].after[0].array)
    kept = {}
    if keep:
        kept[(n, n)] = (after, {tr.name: tr.after for tr in tracks})
    outcomes = _Outcomes(solution)
    if step is not None:
        step(done, total)  # (where a resumed solve starts: the rate counts from here)
    for km, ko in todo:
        now = build_layer(bounds, km, ko)
        if next_layer(km, ko) != (after.km, after.ko):
            raise AssertionError("joint layers out of order")
        for track in tracks:
            track.now = (Table(now.size), Table(now.size) if track.chances else None)
        columns_done = None if step is None else _columns_step(step, done, now, total)
        if runner is not None:
            runner.solve_layer(now, chances, seats, checkpoint, tracks, columns_done)
        else:
            _sweep_here(solution, now, after, outcomes, tracks, keep, columns_done)
        for track in tracks:
            _check(t, now, track.now[0].array, f"{track.name} values")
            track.after, track.now = track.now, None
        if store is not None:
            store.save(km, ko, tracks[0].after[0].array)
        done += now.size
        if keep:
            kept[(km, ko)] = (now, {tr.name: tr.after for tr in tracks})
        after = now
        if checkpoint is not None and not keep and (km, ko) != todo[-1] and (
                runner is not None or checkpoint.due()):
            if runner is None:
                checkpoint.save(km, ko, tracks)
            else:
                _save_for_workers(checkpoint, km, ko, tracks)
        if step is not None:
            step(done, total)
    start = layout.start - int(layout.LAYER_PTR[0])
    out: dict = {}
    for track in tracks:
        score, draw = track.after
        out[track.name] = (after.read(score.array, start, start, 0),
                           None if draw is None else after.read(draw.array, start, start, 0,
                                                                (0.0, 0.0)))
    if checkpoint is not None and not keep:
        checkpoint.finish({name: list(value) for name, value in out.items()})
    if store is not None:
        store.finish(out[BOTH][0])
    out["pairs"] = pairs
    out["states"] = states
    if keep:
        out["layers"] = kept
    return out


def _columns_step(step: Step, done: int, now: JointLayer, total: int):
    """`step` of the whole pass, called with the columns of layer `now` solved."""
    return lambda columns: step(done + now.size * columns // max(1, now.n_o), total)


def _save_for_workers(checkpoint: Checkpoint, km: int, ko: int, tracks: list[_Track]) -> None:
    """Save joint layer (km, ko) where the Dask workers read it, and let go of it here (one
    layer held in this process: the one being solved)."""
    checkpoint.save(km, ko, tracks)
    if checkpoint.failed:
        raise InputError(f"checkpoint: the two-player solve on Dask could not save joint "
                         f"layer {(km, ko)} in {checkpoint.folder}, where its workers read it "
                         f"({checkpoint.failed}).", param="checkpoint")
    for track in tracks:
        track.after = None


def _sweep_here(solution: Solution, now: JointLayer, after: JointLayer, outcomes: _Outcomes,
                tracks: list[_Track], keep: bool, step) -> None:
    """Solve joint layer `now` in this process, column by column, handing back each block of
    the layer after once it is read for the last time (unless every layer is `keep`t)."""
    sweep = _LayerSweep(solution, now, after, outcomes)
    for j in range(now.n_o):
        sweep.column(j, tracks)
        if not keep:
            block = after.block(j)
            for track in tracks:
                for table in track.after:
                    if table is not None:
                        table.release(int(after.PTR[block.start]), int(after.PTR[block.stop]))
        if step is not None:
            step(j + 1)


def chances_of(score: float, draw: float) -> Chances:
    """A player's chances from their score (win + draw / 2) and their chance of a draw."""
    return Chances.of_score(score, draw)


def work_left(problem, checkpoint: Checkpoint | None) -> float:
    """The share of a pass's joint states still to solve after what `checkpoint` holds (1.0
    without one or before its first layer, 0.0 once the pass is finished): what a resumed
    solve's time estimate is scaled by. Reads the checkpoint's manifest only (a foreign or
    damaged one is refused, as `load` refuses it)."""
    found = None if checkpoint is None else checkpoint._manifest()
    if found is None or ("result" not in found and "layer" not in found):
        return 1.0
    if "result" in found:
        return 0.0
    bounds = all_bounds(problem.tables, problem.layout)
    todo = list(reversed(joint_order(problem.tables.n_categories)[:-1]))
    if tuple(found["layer"]) not in todo:
        return 1.0  # (not this game's layer: `load` refuses it with the reason)
    total = sum(int(_entries(bounds, *layer)) for layer in todo)
    return 1.0 - _solved_through(bounds, todo, tuple(found["layer"])) / max(1, total)


def _solved_through(bounds, todo: list, layer: tuple[int, int]) -> int:
    """The joint states of the layers of `todo` (solving order) up to `layer`, included."""
    return sum(int(_entries(bounds, *one)) for one in todo[:todo.index(tuple(layer)) + 1])


def _entries(bounds, km: int, ko: int) -> int:
    from .joint import layer_size

    return layer_size(bounds, km, ko).entries


def _final_tables(final: JointLayer, chances: bool) -> tuple:
    """The full cards: A's result, read by A (1, 1/2 or 0 by the lead)."""
    d = _differences(final)
    score, draw = Table(final.size), (Table(final.size) if chances else None)
    score.array[:] = (d > 0) + 0.5 * (d == 0)
    if draw is not None:
        draw.array[:] = d == 0
    return score, draw


def _differences(layer: JointLayer) -> np.ndarray:
    """The difference d of every stored entry of a layer, in store order."""
    within = np.arange(layer.size) - np.repeat(layer.PTR[:-1], layer.WIDTH)
    return np.repeat(layer.LO, layer.WIDTH) + within


def _check(t, layer: JointLayer, values: np.ndarray, what: str) -> None:
    """SolverError when a value is not a chance, to rounding (a bug: a read outside a
    table)."""
    if layer.size and not (values.min() >= -1e-9 and values.max() <= 1.0 + 1e-9):
        raise SolverError(f"{t.rules.name}: the two-player solve computed {what} outside "
                          f"[0, 1] in joint layer {(layer.km, layer.ko)}. This is a bug in yz, "
                          "not in the rule file; please report it with the rule file.")


class _Outcomes:
    """Where expected-score play's turn leads from each state of a layer (kept for the last
    layer asked: each is asked for by two joint layers in a row)."""

    def __init__(self, solution: Solution):
        self.solution = solution
        self.k: int | None = None
        self.moves: tuple | None = None

    def of(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(first move of each state and one past the last, next state in layer k + 1,
        points gained, probability) of every stored state of layer k."""
        from .forward import layer_outcomes

        if self.k != k:
            problem = self.solution.problem
            layout = problem.layout
            here = layout.layer_slice(k)
            index = np.arange(here.start, here.stop, dtype=np.int64)
            src, out = layer_outcomes(problem, self.solution.values, index,
                                      ("target", "gain", "prob"))
            ptr = np.searchsorted(src, np.arange(len(index) + 1)).astype(np.int64)
            self.moves = (ptr, out["target"] - int(layout.LAYER_PTR[k + 1]),
                          out["gain"].astype(np.int64), out["prob"])
            self.k = k
        return self.moves


class _LayerSweep:
    """Joint layer `now` solved from the layer `after` it, one state j of the other player at
    a time (`column`)."""

    def __init__(self, solution: Solution, now: JointLayer, after: JointLayer,
                 outcomes: _Outcomes):
        self.solution = solution
        self.problem = solution.problem
        self.now, self.after = now, after
        self.outcomes = outcomes
        layout = self.problem.layout
        mask, flag, u, _index = layout.state_arrays(now.km)
        states = layout.rows(now.km)
        self.states = (mask, flag, u, np.repeat(states.BANK, states.NU))
        self.next_base = int(layout.LAYER_PTR[now.km + 1])

    def column(self, j: int, tracks: list[_Track], sink=None) -> None:
        """Solve the pairs (i, j) of every mover state i, for every track: into the tracks'
        `now` tables, or given to `sink(track, score, draw or None)` in the order of
        `columns_entries(now, j, j + 1)` (a task of `solver.joint_tasks`)."""
        now = self.now
        c = int(now.other.most[j]) + 1
        pairs = now.column(j)
        lo, width = now.LO[pairs], now.WIDTH[pairs]
        active = np.flatnonzero(width > 0)
        if len(active) == 0:
            return
        n_need = int((c - lo[active]).max()) + 1
        rows = self._rows(active, c - (lo[active] + width[active] - 1), width[active], n_need)
        minimax_next = _next_tables(self.after, tracks[0].after, j, c, n_need)
        for track in tracks:
            nxt = minimax_next if track is tracks[0] else \
                _next_tables(self.after, track.after, j, c, n_need)
            if track.minimax_moves(now.km, now.ko):
                score, draw = self._minimax_turn(rows, n_need,
                                                 nxt[0] if track.own else minimax_next[0],
                                                 nxt, track.chances or track is not tracks[0])
            else:
                score, draw = self._optimal_turn(nxt, n_need)
            self._store(track, pairs, active, c, n_need, score, draw, sink)

    def _rows(self, active: np.ndarray, need0: np.ndarray, nu: np.ndarray, n_need: int
              ) -> tuple[Rows, np.ndarray]:
        """The sweep's rows: mover state i's needs need0 .. need0 + nu - 1 in runs of at most
        NEED_RUN, results at i x n_need + need (`target.need_rows`' layout without windows)."""
        mask, flag, u, bank = (a[active] for a in self.states)
        runs = (nu + NEED_RUN - 1) // NEED_RUN
        state = np.repeat(np.arange(len(active)), runs)
        within = np.arange(len(state)) - np.repeat(np.cumsum(runs) - runs, runs)
        first = need0[state] + within * NEED_RUN
        width = np.minimum(NEED_RUN, need0[state] + nu[state] - first)
        rows = Rows.of(MASK=mask[state], FLAG=flag[state], BANK=bank[state], U0=u[state],
                       NU=width, OUT=active[state] * n_need + first)
        return rows, first.astype(np.int64)

    def _minimax_turn(self, rows, n_need: int, decide_by: np.ndarray, nxt: tuple,
                      carry: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The mover's turn played to win (decisions by `decide_by`, 1 - V of the next
        states), carrying the chances of a win and a draw of `nxt` (= (score, win, draw)
        tables) when `carry`: the mover's score and chance of a draw, by need."""
        from .kernels import layer

        problem = self.problem
        K, L = problem.K, problem.L
        rows, need0 = rows
        needs = Needs.of(NEED0=need0, n_need=n_need, next_base=self.next_base, next_first=0,
                         met=1.0, met_m1=1.0 if carry else 0.0, met_m2=0.0)
        ptr, per_row = layer.layer_batches(K, rows, NEED_RUN)
        value = np.zeros((self.now.n_m, n_need))
        win = np.zeros_like(value) if carry else None
        draw = np.zeros_like(value) if carry else None
        for part in parts(problem, rows, ptr, per_row):
            if carry:
                layer.decide(K, L, rows, part, NEED_RUN, problem.threads,
                             Next(decide_by.reshape(-1), nxt[1].reshape(-1),
                                  nxt[2].reshape(-1)), store=value.reshape(-1),
                             needs=needs, shared=True,
                             payload=(win.reshape(-1), draw.reshape(-1)))
            else:
                layer.values(K, L, rows, part, NEED_RUN, problem.threads,
                             decide_by.reshape(-1), store=value.reshape(-1), needs=needs,
                             shared=True)
        if not carry:
            return value, None
        if decide_by is not nxt[0]:  # another pairing's chances, along minimax's choices
            value = win + draw / 2
        return value, draw

    def _optimal_turn(self, nxt: tuple, n_need: int) -> tuple[np.ndarray, np.ndarray]:
        """The mover's turn played for the expected score: the average, over the moves it
        ends with, of the next states' tables shifted by the points gained (a need met: won).
        The mover's score and chance of a draw, by need."""
        ptr, target, gain, prob = self.outcomes.of(self.now.km)
        most = int(gain.max(initial=0))
        # Column G - g + n of a padded table is need n - g of the next state: met below G.
        score, _win, draw = nxt
        padded = [np.ones((len(score), most + n_need)), np.zeros((len(score), most + n_need))]
        padded[0][:, most:] = score
        padded[1][:, most:] = draw
        out = (np.zeros((self.now.n_m, n_need)), np.zeros((self.now.n_m, n_need)))
        needs = np.arange(n_need)
        per_chunk = max(1, OUTCOME_CELLS // n_need)
        i0 = 0
        while i0 < self.now.n_m:  # states in chunks of about OUTCOME_CELLS moves x needs
            i1 = max(i0 + 1, int(np.searchsorted(ptr, ptr[i0] + per_chunk, "right")) - 1)
            i1 = min(i1, self.now.n_m)
            moves = slice(int(ptr[i0]), int(ptr[i1]))
            cols = (most - gain[moves])[:, None] + needs[None, :]
            starts = ptr[i0:i1] - ptr[i0]
            for table, result in zip(padded, out, strict=True):
                weighted = table[target[moves][:, None], cols] * prob[moves][:, None]
                result[i0:i1] = np.add.reduceat(weighted, starts, axis=0)
            i0 = i1
        return out

    def _store(self, track: _Track, pairs: np.ndarray, active: np.ndarray, c: int,
               n_need: int, score: np.ndarray, draw: np.ndarray | None, sink=None) -> None:
        """Put the results by need of the mover states `active` into the track's tables of
        the pairs (i, j) (or give them to `sink`): difference d is need c - d."""
        now = self.now
        p = pairs[active]
        width = now.WIDTH[p]
        within = np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width)
        src = np.repeat(active * n_need + c - now.LO[p], width) - within
        score = score.reshape(-1)[src]
        draw = draw.reshape(-1)[src] if track.chances else None
        if sink is not None:
            sink(track, score, draw)
            return
        dest = np.repeat(now.PTR[p], width) + within
        track.now[0].array[dest] = score
        if draw is not None:
            track.now[1].array[dest] = draw


def columns_entries(layer: JointLayer, j0: int, j1: int) -> np.ndarray:
    """Where the entries of the pairs (i, j) of every mover state i and other's state j0 ..
    j1 - 1 are in the layer's tables, in the order of j, then i, then d (what
    `_LayerSweep.column` gives a sink, column after column)."""
    p = (np.arange(j0, j1, dtype=np.int64)[:, None]
         + np.arange(layer.n_m, dtype=np.int64)[None, :] * layer.n_o).ravel()
    width = layer.WIDTH[p]
    within = np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width)
    return np.repeat(layer.PTR[p], width) + within


def _next_tables(after: JointLayer, tables: tuple, j: int, c: int, n_need: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a move of the mover (now the other in `after`) leads to, by the mover's next state
    i' and need n': (1 - V, the chance of winning, of a draw), each float64 [n_o of after,
    n_need], from the pairs (j, i') of `after` at difference n' - c (see the module
    docstrings: decided and out-of-reach differences filled)."""
    score, draw = tables
    block = after.block(j)
    lo, width, start = after.LO[block], after.WIDTH[block], after.PTR[block.start:block.stop]
    e = np.arange(n_need)[None, :] - c  # the difference d of `after`'s mover, j
    top = lo + np.maximum(width, 1) - 1
    at = start[:, None] + np.clip(e, lo[:, None], top[:, None]) - lo[:, None]
    has = width > 0
    at = np.where(has[:, None], at, 0)
    s = score.array[at] if score.array.size else np.zeros(at.shape)
    dr = draw.array[at] if draw is not None and draw.array.size else np.zeros(at.shape)
    # Nothing stored: every reachable difference is won (above the most i' can score) or lost.
    won_all = (~has) & (lo > after.other.most)
    s = np.where(has[:, None], s, won_all[:, None].astype(np.float64))
    dr = np.where(has[:, None], dr, 0.0)
    lost = e < -int(after.mover.most[j])  # j cannot catch up: j has lost
    won = e > after.other.most[:, None]  # i' cannot catch up: j has won
    s = np.where(lost, 0.0, np.where(won, 1.0, s))
    dr = np.where(lost | won, 0.0, dr)
    value = 1.0 - s
    return value, value - dr / 2, dr


class MinimaxPlay:
    """The moves of a player playing `minimax`, read from a two-player solve whose joint layers
    were kept (`Model.minimax(keep=True)`: small games, whose tables fit in memory whole), or
    from a folder holding them (`joint_store.JointStore`, read entry by entry). `advise`
    ranks the mover's moves of a roll by 1 - V of the joint state each leads to (the
    mover's chance, P(win) + P(draw) / 2), with the solitaire advisor's turn recursion; its
    best move is what minimax plays (ties broken by the advisor's rule)."""

    def __init__(self, solution: Solution, duel: ExactDuel | None = None, store=None):
        if store is None and (duel is None or not duel.layers):
            raise SolverError("minimax play reads a two-player solve kept whole (keep=True) "
                              "or its store.")
        self.solution = solution
        self.store = store
        if store is not None:
            self.layers = {tuple(layer) for layer in store.layers}
            self._bounds = all_bounds(solution.tables, solution.layout)
            self._built: dict = {}
        else:
            self.layers = {key: (layer, tables[BOTH][0].array)
                           for key, (layer, tables) in duel.layers.items()}
        # A reach above any turn's points: every move's "need" is positive, the points it
        # gains are reach - need.
        self.reach = int(solution.tables.highest_score) + 1

    def local(self, position) -> tuple[int, int]:
        """(layer, index in it) of a player's turn-start state."""
        layout = self.solution.layout
        k = len(position.filled)
        index = layout.index(position.mask, int(position.yahtzee_full), position.upper_total,
                             position.saved_rolls)
        return k, index - int(layout.LAYER_PTR[k])

    def joint(self, km: int, ko: int) -> tuple:
        """Joint layer (km, ko) and its minimax values (the mover's); SolverError when no such
        layer is solved (the mover has as many boxes filled as the other, A to move, or one
        fewer, B to move)."""
        if (km, ko) not in self.layers:
            raise SolverError(f"minimax play: no joint turn start has the mover with {km} "
                              f"boxes filled and the other with {ko} (the mover has as many "
                              "as the other, A to move, or one fewer, B to move).")
        if self.store is None:
            return self.layers[(km, ko)]
        if (km, ko) not in self._built:
            while len(self._built) >= 4:  # (a turn reads two; older ones go: hundreds of MB)
                self._built.pop(next(iter(self._built)))
            self._built[(km, ko)] = (build_layer(self._bounds, km, ko),
                                     self.store.table(km, ko))
        return self._built[(km, ko)]

    def value(self, mover, other, lead: int) -> float:
        """V of the joint turn start: the mover's chance before the turn's first roll."""
        km, i = self.local(mover)
        ko, j = self.local(other)
        layer, score = self.joint(km, ko)
        return layer.read(score, i, j, lead)

    def advise(self, mover, other, lead: int, dice, rolls_left: int | None):
        """The mover's moves ranked by its chance when both play minimax (`advice.Advice`,
        objective "win"): `mover` and `other` the two players' positions (their cards),
        `lead` the mover's points less the other's."""
        from .advice import advise_target

        reading = _JointReading(self, mover, other, lead)
        return advise_target(reading, mover, dice, rolls_left, 0, self.reach, objective="win")


class _JointReading:
    """A table for `advice.advise_target` over the mover's next state and "need" (reach less
    the points a move gains): 1 - V of the joint state the move leads to."""

    def __init__(self, play: MinimaxPlay, mover, other, lead: int):
        self.solution = play.solution
        self.play = play
        km, _i = play.local(mover)
        ko, self.j = play.local(other)
        play.joint(km, ko)
        self.after, self.score = play.joint(*next_layer(km, ko))
        self.base = int(play.solution.layout.LAYER_PTR[km + 1])
        self.lead = lead

    def chance(self, mask: int, upper_total: int, yahtzee_full: bool, need: int,
               saved_rolls: int = 0) -> float:
        gain = self.play.reach - need
        i2 = self.solution.layout.index(mask, int(yahtzee_full), upper_total,
                                        saved_rolls) - self.base
        return 1.0 - self.after.read(self.score, self.j, i2, -(self.lead + gain))
