"""Exact figures of a strategy: the spread of the final score and per-box statistics.

Two passes over the turn-start states, following the strategy's decisions (see
`yz.solver.policy_kernels`; ties are broken as documented there, which moves the 4th decimal of
the SD):

- backward, layer by layer from the full card: the first and second moments of the points
  still to come, M1 and M2, so SD = sqrt(M2 - M1^2) at the start (Verhoeff: 59.6117 for the
  official rules);
- forward from the empty card: the probability of reaching each state, pushed through one turn
  at a time, which gives each box's expected score and zero rate, the chance of the upper bonus,
  and the expected numbers of extra Yahtzee bonuses and Joker uses.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from .dp import (
    Solution,
    batch_width,
    column_batches,
    layer_items,
    positive_scores,
    state_block,
    state_space,
)
from .simulate import keep_choices, strategy_table


@dataclass(frozen=True)
class ExactStats:
    """Exact expectations under a strategy."""

    strategy: str
    mean: float
    sd: float
    box_mean: dict[str, float]
    box_zero_rate: dict[str, float]
    upper_bonus_rate: float
    yahtzee_bonus_mean: float
    joker_uses_mean: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def exact_moments(solution: Solution, strategy: str = "optimal") -> tuple[float, float]:
    """Exact mean and SD of the final score under `strategy` (the backward pass)."""
    import numba

    from . import policy_kernels as pk

    t = solution.tables
    V = strategy_table(strategy, solution)
    space = state_space(t)
    pos_indptr, pos_roll = positive_scores(t)
    batch_cols = batch_width(t, space.n_upper)
    # Optimal play's own value is V, so its first moment needs no carrying.
    track_m1 = strategy != "optimal"
    M1 = np.zeros_like(V) if track_m1 else V
    M2 = np.zeros_like(V)
    for filled in range(t.n_categories - 1, -1, -1):
        items, flags = layer_items(t, space, filled)
        widths = space.U_END[items] - space.U_START[items] + 1
        pk.policy_moments(
            items, flags, column_batches(widths, batch_cols), space.U_START, space.U_END, V, M1, M2,
            t.SCORE, t.JOKER_SCORE, t.YAHTZEE_FACE, t.UPPER_BOX_OF_FACE, t.COUNTS_UPPER,
            t.IS_LOWER, pos_indptr, pos_roll, t.KEEP_CHILD, t.SUB_INDPTR, t.SUB_INDICES,
            t.ROLL_PROB, t.n_faces, t.n_rolls_per_turn, t.upper_threshold, t.upper_bonus,
            t.yahtzee_bonus, t.yahtzee_cat, t.joker_mode, batch_cols, numba.get_num_threads(),
            track_m1, False)
    mean = float(M1[0, 0, 0])
    return mean, float(np.sqrt(max(0.0, M2[0, 0, 0] - mean * mean)))


def _layer_states(space, items: np.ndarray, flags: np.ndarray):
    """Every (mask, flag, u) of a layer, u from U_START to U_END, sorted as keep_choices wants."""
    widths = space.U_END[items] - space.U_START[items] + 1
    starts = np.repeat(np.cumsum(widths) - widths, widths)
    u = np.repeat(space.U_START[items], widths) + np.arange(widths.sum()) - starts
    return np.repeat(items, widths), np.repeat(flags, widths), u.astype(np.int64)


def exact_stats(solution: Solution, strategy: str = "optimal") -> ExactStats:
    """Exact mean, SD and per-box statistics of `strategy` (see the module docstring)."""
    import numba

    from . import policy_kernels as pk

    start = time.perf_counter()
    mean, sd = exact_moments(solution, strategy)
    t = solution.tables
    V = strategy_table(strategy, solution)
    space = state_space(t)
    threads = numba.get_num_threads()
    PI = np.zeros_like(V)
    PI[0, 0, 0] = 1.0
    stats = np.zeros((threads, 3, max(t.n_categories, 3)))  # row 2 holds three totals
    for filled in range(t.n_categories):
        sm, sf, su = _layer_states(space, *layer_items(t, space, filled))
        live = PI[sm, sf, su] > 0.0
        sm, sf, su = sm[live], sf[live], su[live]
        order = np.lexsort((su, sf, sm))
        sm, sf, su = sm[order], sf[order], su[order]
        pi_next = np.zeros((threads, *V.shape))
        block = state_block(t)
        for b0 in range(0, len(sm), block):
            sl = slice(b0, b0 + block)
            choice = keep_choices(t, V, sm[sl], sf[sl], su[sl])
            pk.policy_forward(
                sm[sl], sf[sl], su[sl], choice, V, PI, pi_next, stats, t.SCORE, t.JOKER_SCORE,
                t.YAHTZEE_FACE, t.UPPER_BOX_OF_FACE, t.COUNTS_UPPER, t.IS_LOWER, t.ROLL_PROB,
                t.KEEP_OUT_INDPTR, t.KEEP_OUT_ROLL, t.KEEP_OUT_PROB, space.U_START,
                t.n_rolls_per_turn, t.upper_threshold, t.upper_bonus, t.yahtzee_bonus,
                t.yahtzee_cat, t.joker_mode, threads)
        PI += pi_next.sum(axis=0)
    total = stats.sum(axis=0)
    keys = t.rules.keys
    return ExactStats(
        strategy=strategy, mean=mean, sd=sd,
        box_mean={k: float(total[0, c]) for c, k in enumerate(keys)},
        box_zero_rate={k: float(total[1, c]) for c, k in enumerate(keys)},
        upper_bonus_rate=float(total[2, 0]) if t.upper_threshold else 0.0,
        yahtzee_bonus_mean=float(total[2, 1]), joker_uses_mean=float(total[2, 2]),
        seconds=time.perf_counter() - start)
