"""Play for a target: the strategy that maximises P(final score >= T), for every T at once.

W[s, n] is the best chance, from turn-start state s, of scoring at least n more points
(n = 0 .. N; W[s, 0] = 1). It obeys the DP's recursion with "max expected value" replaced by
"max probability" and the value of a final move being W[next state, n - points gained]: the
same value kernel (`solver.kernels.layer`, with a `Needs` bundle) computes it, its columns the needs
of one state instead of the upper totals of several. With b points banked, the chance of
reaching T under target play is W[s, T - b], and the best move is the one that keeps the
highest such chance (`advise` with a target).

With saved rolls the bank is part of the state, as in the DP: a turn's stages, its stops at
every roll and the bank each stop leaves are the value kernel's (`layer._banked_stages`), its
columns needs here too, and one sweep serves every bank of a layer when unused rolls are
carried.

The table has `layout.size x (N + 1)` entries. Layers are computed in float64, two at a time,
and stored as float32 (probabilities to about 1e-7, checked by the tests against the float64
computation), so the official rules up to N = 500 need about 1.5 GiB
(`budget.target_table_bytes`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from yz.rules import InputError

from .dp import Solution, check_values, parts
from .kernels.bundle import Needs, Rows
from .report import Step
from .state import StateLayout, filled_maxima

MAX_TARGET = 5000
DEFAULT_MAX_TARGET = 500  # the table `targets()` builds when not told how high
NEED_RUN = 256  # needs of one state solved side by side (a row of the sweep)


@dataclass(frozen=True)
class TargetTable:
    """W[state, need] for every turn-start state of a solution's layout, needs up to
    `max_target`; above `ceiling` (the game's highest possible score) every chance is 0."""

    solution: Solution = field(repr=False)
    max_target: int
    # float32 [layout.size, max_target + 1], or a cache.CheckedArray of it
    W: np.ndarray = field(repr=False)
    seconds: float
    cached: bool = False
    ceiling: int | None = None
    # Called with the CorruptCache a cached table raised; returns a recomputed table.
    heal: Callable[[Exception], TargetTable] | None = field(default=None, repr=False,
                                                            compare=False)

    def row(self, index: int) -> np.ndarray:
        """W[index, :] (checked against its checksum first when it comes from the cache; a
        damaged cached table is recomputed once, through `heal`)."""
        if not hasattr(self.W, "row"):
            return self.W[index]
        from .cache import CorruptCache

        try:
            return self.W.row(index)
        except CorruptCache as exc:
            if self.heal is None:
                raise
            fresh = self.heal(exc)
            for name in ("W", "seconds", "cached", "heal"):
                object.__setattr__(self, name, getattr(fresh, name))
            return self.row(index)

    def chance(self, mask: int, upper_total: int, yahtzee_full: bool, need: int,
               saved_rolls: int = 0) -> float:
        """The best chance of scoring at least `need` more points from a turn start (with
        `saved_rolls` in games that save rolls)."""
        if need <= 0:
            return 1.0
        if self.ceiling is not None and need > self.ceiling:
            return 0.0
        if need > self.max_target:
            raise InputError(f"target: {need} more points is beyond the table's "
                             f"{self.max_target}; solve with a higher maximum target.",
                             param="target")
        index = self.solution.layout.index(mask, int(yahtzee_full), upper_total, saved_rolls)
        return float(self.row(index)[need])

    def p_reach(self, target: int) -> float:
        """P(final score >= target) under target play from the empty card."""
        return self.chance(0, 0, False, target, self.solution.layout.start_bank)


def check_max_target(max_target: int, param: str = "max_target") -> None:
    if isinstance(max_target, bool) or not isinstance(max_target, int) or \
            not 1 <= max_target <= MAX_TARGET:
        raise InputError(f"{param.replace('_', ' ')}: {max_target!r} is not a score from 1 to "
                         f"{MAX_TARGET}.", param=param)


def most_to_come(t, layout: StateLayout, k: int) -> np.ndarray:
    """For every stored state of layer k (store order), at least the most points still to
    come: every open box at its best, the upper bonus while it is not made, and an extra
    Yahtzee bonus on every turn left."""
    mask, _flag, u, _index = layout.state_arrays(k)
    every, _others = filled_maxima(t, mask)
    rest = int(t.BOX_MAX.sum()) - every + t.yahtzee_bonus * (t.n_categories - k)
    if t.upper_threshold:
        rest += np.where(u < t.upper_threshold, t.upper_bonus, 0)
    return rest.astype(np.int64)


def need_rows(t, layout: StateLayout, k: int, n_need: int, reach: int | None = None,
              windows: bool = False, after: tuple[int, int] | None = None
              ) -> tuple[Rows, np.ndarray, int]:
    """The rows of layer k for a need sweep: each state's needs 1 .. n_need - 1 in runs of at
    most NEED_RUN, and the layer's first stored need (0 but with `windows`: the lowest need
    of any row, which keeps a half to two thirds of the official game's biggest layers);
    results go to (state - layer start) x (n_need - first) + need - first. In store order, so
    with saved rolls the rows of a bank are consecutive and every bank has the same rows (what
    `layer.layer_batches` needs to sweep them all at once).

    Needs a state's entry is known without a sweep for are left out (their entries stay 0):
    with `reach`, the needs above the most points it can still score (`most_to_come`) plus
    `reach` (the utility is 0 below its top less `reach`: 0 for a target); with `windows`, the
    needs its banked points cannot be at from a start at need n_need - 1 (one utility, not
    every target: `distribution.state_windows`, what its filled boxes can add up to); with
    `after` = (box set, points banked) of a position, only the states it can reach (those
    whose box sets hold its boxes) and their needs from those points on."""
    from .distribution import state_windows
    from .kernels.state import has_all

    mask, flag, u, index = layout.state_arrays(k)
    states = layout.rows(k)
    bank = np.repeat(states.BANK, states.NU)
    place = index - layout.LAYER_PTR[k]  # (each state's row in the layer's table)
    top = n_need - 1
    j_lo = np.ones(len(mask), dtype=np.int64)
    j_hi = np.full(len(mask), top, dtype=np.int64)
    if reach is not None:
        j_hi = np.minimum(j_hi, most_to_come(t, layout, k) + reach)
    if windows:
        lo_b, width = state_windows(t, layout, k)
        j_lo = np.maximum(j_lo, top - (lo_b + width - 1))
        j_hi = np.minimum(j_hi, top - lo_b)
    if after is not None:
        j_hi = np.where(has_all(mask, after[0]), np.minimum(j_hi, top - after[1]), 0)
    runs = np.where(j_hi >= j_lo, (j_hi - j_lo + NEED_RUN) // NEED_RUN, 0)
    state = np.repeat(np.arange(len(mask)), runs)
    within = np.arange(len(state)) - np.repeat(np.cumsum(runs) - runs, runs)
    need0 = (j_lo[state] + within * NEED_RUN).astype(np.int64)
    nu = np.minimum(NEED_RUN, j_hi[state] - need0 + 1)
    lowest = (int(need0.min()) if len(need0) else n_need - 1) if windows else 0
    rows = Rows.of(MASK=mask[state], FLAG=flag[state], BANK=bank[state], U0=u[state], NU=nu,
                   OUT=place[state] * (n_need - lowest) + need0 - lowest)
    return rows, need0, lowest


def need_sweep(solution: Solution, n_need: int, last: np.ndarray, met: float,
               on_layer: Callable[[int, slice, np.ndarray, tuple, int], None],
               step: Step | None = None, windows: bool = False,
               payloads: tuple | None = None, what: str = "chances of reaching the targets",
               reach: int | None = None, after: tuple[int, int, int] | None = None) -> None:
    """The backward sweep of a table over needs 0 .. n_need - 1 (see the module docstring),
    layer by layer from the full card, whose row is `last` (the utility of each need's final
    score; column 0, a need met, is worth `met` everywhere). `on_layer(k, its store slice,
    its table, its payload tables, first)` receives each layer as it is solved (two are
    held): entry [state - slice start, need - first] for needs from `first` on; the needs 1 ..
    first - 1 are worth 0 (0 but with `windows`: `need_rows`). `windows` and `reach`: only the
    needs whose entries are not known without it (`need_rows`; the others stay 0). `after` =
    (box set, points banked, layer) of a position: only what it can reach, down to that layer
    (the last one `on_layer` receives). `payloads` = (last_m1, met_m1, last_m2, met_m2): two
    more tables of the same shape, carried along the choices the values make (the decision
    kernel, its tie rule: `ties`), such as the chances of a win and of a draw; last_m2 None
    carries one."""
    from .kernels import layer
    from .kernels.bundle import Next

    t, layout, problem = solution.tables, solution.layout, solution.problem
    K, L = problem.K, problem.L
    n_cat = t.n_categories

    def layer_table(k: int, row: np.ndarray, column0: float, first: int) -> np.ndarray:
        size = int(layout.LAYER_PTR[k + 1] - layout.LAYER_PTR[k])
        if k == n_cat:  # (the full card: every need, its own row)
            table = np.empty((size, n_need))
            table[:] = row
            table[:, 0] = column0
            return table
        table = np.zeros((size, n_need - first))
        if first == 0:
            table[:, 0] = column0
        return table

    def payload_tables(k: int, first: int) -> tuple | None:
        if payloads is None:
            return None
        return tuple(None if payloads[i] is None else
                     layer_table(k, payloads[i], payloads[i + 1], first) for i in (0, 2))

    def flat(table: np.ndarray | None) -> np.ndarray | None:
        return None if table is None else table.reshape(-1)

    below, below_first = layer_table(n_cat, last, met, 0), 0
    below_p = payload_tables(n_cat, 0)
    lowest = 0 if after is None else after[2]
    done, total = 0, int(layout.LAYER_PTR[-2] - layout.LAYER_PTR[lowest]) * (n_need - 1)
    for k in range(n_cat - 1, lowest - 1, -1):
        here = layout.layer_slice(k)
        rows, need0, first = need_rows(t, layout, k, n_need, reach, windows,
                                       None if after is None else after[:2])
        current = layer_table(k, last, met, first)
        m1, m2 = (0.0, 0.0) if payloads is None else (payloads[1], payloads[3])
        needs = Needs.of(NEED0=need0, n_need=n_need, next_base=int(layout.LAYER_PTR[k + 1]),
                         next_first=below_first, met=met, met_m1=m1, met_m2=m2)
        ptr, per_row = layer.layer_batches(K, rows, NEED_RUN)
        current_p = payload_tables(k, first)
        layer_work = (here.stop - here.start) * (n_need - 1)
        columns = max(1, int(rows.NU.sum()))
        # In parts, as the DP (`dp.parts`): a big layer takes tens of seconds, and Python
        # (Ctrl-C, progress) has its turn only between kernel calls.
        for part in parts(problem, rows, ptr, per_row):
            if payloads is None:
                layer.values(K, L, rows, part, NEED_RUN, problem.threads, below.reshape(-1),
                             store=current.reshape(-1), needs=needs, shared=True)
            else:
                layer.decide(K, L, rows, part, NEED_RUN, problem.threads,
                             Next(below.reshape(-1), flat(below_p[0]), flat(below_p[1])),
                             store=current.reshape(-1), needs=needs, shared=True,
                             payload=(flat(current_p[0]), flat(current_p[1])))
            if step is not None:  # (the share of the layer's columns solved so far)
                step(done + layer_work * int(rows.NU[: part[-1]].sum()) // columns, total)
        check_values(t, layout, current, what, 0.0, 1.0 + 1e-9, here.start)
        on_layer(k, here, current, current_p, first)
        below, below_p, below_first = current, current_p, first
        done += layer_work
        if step is not None:
            step(done, total)


def solve_targets(solution: Solution, max_target: int, step: Step | None = None
                  ) -> TargetTable:
    """W for every state and every need up to `max_target` (see the module docstring): the
    sweep of the step utility, 1 from the target on."""
    check_max_target(max_target)
    begin = time.perf_counter()
    n_need = max_target + 1
    W = np.zeros((solution.layout.size, n_need), dtype=np.float32)
    last = np.zeros(n_need)
    last[0] = 1.0  # the full card: nothing more to score

    def keep(_k: int, here: slice, table: np.ndarray, _payloads, first: int) -> None:
        assert first == 0  # (no windows: every need is stored)
        W[here] = table

    need_sweep(solution, n_need, last, 1.0, keep, step, reach=0)
    return TargetTable(solution, max_target, W, time.perf_counter() - begin)
