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
from .kernels.bundle import Needs, Rows, build
from .report import Step
from .state import StateLayout

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


def target_rows(layout: StateLayout, k: int, n_need: int) -> tuple[Rows, np.ndarray]:
    """The rows of layer k for target play: each state's needs 1 .. n_need - 1 in runs of at
    most NEED_RUN; results go to (state - layer start) x n_need + need. In store order, so
    with saved rolls the rows of a bank are consecutive and every bank has the same rows (what
    `layer.layer_batches` needs to sweep them all at once)."""
    mask, flag, u, index = layout.state_arrays(k)
    states = layout.rows(k)
    bank = np.repeat(states.BANK, states.NU)
    first = index - layout.LAYER_PTR[k]
    starts = np.arange(1, n_need, NEED_RUN, dtype=np.int64)
    lengths = np.minimum(NEED_RUN, n_need - starts)
    m = np.repeat(mask, len(starts))
    f = np.repeat(flag, len(starts))
    uu = np.repeat(u, len(starts))
    need0 = np.tile(starts, len(mask))
    nu = np.tile(lengths, len(mask))
    out = np.repeat(first, len(starts)) * n_need + need0
    return build(Rows, MASK=m, FLAG=f, BANK=np.repeat(bank, len(starts)), U0=uu, NU=nu,
                 OUT=out), need0


def solve_targets(solution: Solution, max_target: int, step: Step | None = None
                  ) -> TargetTable:
    """W for every state and every need up to `max_target` (see the module docstring)."""
    from .kernels import layer

    check_max_target(max_target)
    begin = time.perf_counter()
    t = solution.tables
    layout = solution.layout
    problem = solution.problem
    K, L = problem.K, problem.L
    n_need = max_target + 1
    W = np.zeros((layout.size, n_need), dtype=np.float32)
    W[:, 0] = 1.0
    last = layout.layer_slice(t.n_categories)
    below = np.zeros((last.stop - last.start, n_need))
    below[:, 0] = 1.0  # the full card: nothing more to score
    done, total = 0, int(layout.LAYER_PTR[-2]) * max_target
    for k in range(t.n_categories - 1, -1, -1):
        here = layout.layer_slice(k)
        current = np.zeros((here.stop - here.start, n_need))
        current[:, 0] = 1.0
        rows, need0 = target_rows(layout, k, n_need)
        needs = build(Needs, NEED0=need0, n_need=n_need, next_base=int(layout.LAYER_PTR[k + 1]))
        ptr, per_row = layer.layer_batches(K, rows, NEED_RUN)
        # In parts, as the DP (`dp.parts`): a big layer takes tens of seconds, and Python
        # (Ctrl-C, progress) has its turn only between kernel calls. A part's columns are
        # needs here, each about a third of a DP state's work, so parts are shorter.
        for part in parts(problem, rows, ptr, per_row):
            layer.values(K, L, rows, part, NEED_RUN, problem.threads, below.reshape(-1),
                         store=current.reshape(-1), needs=needs, shared=True)
            if step is not None:  # (every state's needs are columns: `total` counts them)
                step(done + int(rows.NU[: part[-1]].sum()) * per_row, total)
        check_values(t, layout, current, "chances of reaching the targets", 0.0, 1.0 + 1e-9,
                     here.start)
        W[here] = current
        below = current
        done += (here.stop - here.start) * max_target
        if step is not None:
            step(done, total)
    return TargetTable(solution, max_target, W, time.perf_counter() - begin)
