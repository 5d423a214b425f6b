"""The exact distribution of the final score under a strategy, and what it tells.

It comes from the forward pass (`solver.forward`: the same choices and tie rule as
`yz advise` and `yz simulate`); `Distribution` holds it with its figures (mean, SD, mode,
percentiles, P(score >= x)), and `duel` compares two players exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .dp import Solution
from .report import Step
from .strategies import check_strategy, strategy_values

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
CDF_SLACK = 1e-12  # rounding in a cumulative sum of probabilities


@dataclass(frozen=True)
class Distribution:
    """The exact probability of every final score under a strategy."""

    variant: str
    strategy: str
    scores: np.ndarray  # int64: lowest .. highest score with nonzero probability
    probabilities: np.ndarray  # float64, same length
    seconds: float = 0.0
    cached: bool = False  # read from the cache, not computed now

    @property
    def expected_score(self) -> float:
        return float(self.scores @ self.probabilities)

    @property
    def sd(self) -> float:
        mean = self.expected_score
        return float(np.sqrt(max(0.0, ((self.scores - mean) ** 2) @ self.probabilities)))

    @property
    def mode(self) -> int:
        return int(self.scores[int(np.argmax(self.probabilities))])

    def percentile(self, q: float) -> int:
        """The smallest score s with P(score <= s) >= q / 100."""
        cdf = np.cumsum(self.probabilities)
        i = int(np.searchsorted(cdf, q / 100 - CDF_SLACK, side="left"))
        return int(self.scores[min(i, len(self.scores) - 1)])

    @property
    def median(self) -> int:
        return self.percentile(50)

    def percentiles(self) -> dict[str, int]:
        return {str(q): self.percentile(q) for q in PERCENTILES}

    def p_at_least(self, score: int) -> float:
        """P(final score >= score)."""
        return float(self.probabilities[self.scores >= score].sum())

    def summary(self) -> dict:
        """The figures as plain JSON values (the pmf itself excluded)."""
        return {"variant": self.variant, "strategy": self.strategy,
                "expected_score": self.expected_score, "sd": self.sd,
                "min": int(self.scores[0]), "max": int(self.scores[-1]), "mode": self.mode,
                "median": self.median, "percentiles": self.percentiles()}


def highest_score(t) -> int:
    """An upper bound on any final score: every box at its best, both bonuses, and an extra
    Yahtzee bonus on every turn after the first."""
    return int(t.BOX_MAX.sum()) + t.upper_bonus + t.yahtzee_bonus * max(0, t.n_categories - 1)


# Bytes a move of the forward pass can take at once with saved rolls when a layer's moves are
# held (the per-box figures; `forward.COLUMN_TYPES`): source 4, target 8, probability 8, box,
# points and flags 12, one column's copy while a layer's blocks are joined (8), the target's
# place (4) and the figures' weights and their products (16).
MOVE_BYTES = 64


def distribution_bytes(t, layout) -> int:
    """The most memory the forward pass can need: two layers of windows, each state's as wide
    as every possible score (real windows are far narrower); with saved rolls also a layer's
    moves, which are many (`moves_per_state` for every state of the layer)."""
    sizes = np.diff(layout.LAYER_PTR)
    windows = 2 * int(sizes.max()) * (highest_score(t) + 1) * 8
    if max(layout.banks) == 1:
        return windows
    moves = max(int(sizes[k]) * moves_per_state(t, layout, k) for k in range(t.n_categories))
    return windows + moves * MOVE_BYTES + block_bytes(t, layout)


def moves_per_state(t, layout, k: int) -> int:
    """The most distinct moves a turn can end with from a state of layer k in a game with
    saved rolls: one for each roll at each stage at most, and at most one per key that
    `play.banked_outcomes` tells moves apart by: a box still open (the k filled leave the
    n - k with the most keys at most), its score (or, for a Yahtzee rolled with the Yahtzee
    box filled, its face), whether it is the first roll (with a first-roll bonus only) and
    the bank the move leaves (`bank_after` over the layer's banks and re-rolls)."""
    from yz.rules.position import bank_after

    n_banks = layout.banks[k]
    stages = t.rolls + n_banks - 1
    left_banks = {bank_after(t, b, left) for b in range(n_banks) for left in range(t.rolls + b)}
    extra = t.n_faces if t.yahtzee_box >= 0 else 0  # (Yahtzees with the Yahtzee box filled)
    keys = np.sort([len(np.unique(t.SCORE[:, c])) + extra for c in range(t.n_categories)])
    open_keys = int(keys[k:].sum()) * (2 if t.has_first_roll_bonus else 1)
    return min(t.n_distinct_rolls * stages, open_keys * len(left_banks))


def check_distribution_memory(t, layout=None, max_memory: int | None = None) -> None:
    """InputError, with the estimate, when the forward pass might not fit in `max_memory`
    bytes (default: half of this machine's memory). Cheap: run it before solving."""
    from yz.rules import InputError

    from .layout import build_layout
    from .limits import machine_memory

    need = distribution_bytes(t, layout if layout is not None else build_layout(t))
    limit = max_memory if max_memory is not None else machine_memory() // 2
    if need > limit:
        raise InputError(f"the exact distribution of {t.rules.name} may need up to "
                         f"{need / 2**30:.1f} GiB, more than the {limit / 2**30:.1f} GiB "
                         "allowed here; simulate the game instead.")


def state_windows(t, layout, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For every stored state of layer k (store order), the lowest points it can have banked
    and how many totals from there it can have: what its filled boxes can add up to beyond
    what the state fixes (and a Yahtzee bonus a turn after the first). A stored upper total
    between a row's first (U0: every total too low to reach the threshold) and the threshold
    is exact, so only the other boxes vary; at U0 the upper boxes held at most U0; at the
    threshold (the cap) at least that, the bonus paid. Far narrower than every score."""
    R = layout.rows(k)
    every, others, threshold, extra = _window_terms(t, R.MASK, k)
    base = int(layout.LAYER_PTR[k])
    lo = np.zeros(int(layout.LAYER_PTR[k + 1]) - base, dtype=np.int64)
    width = np.zeros_like(lo)
    row = np.repeat(np.arange(len(R.NU)), R.NU)
    step = np.arange(len(row)) - np.repeat(np.cumsum(R.NU) - R.NU, R.NU)
    at = R.OUT[row] - base + step
    u = R.U0[row] + step
    if threshold:
        top = u >= threshold
        exact = step > 0
        lo[at] = np.where(top, threshold + t.upper_bonus, np.where(exact, u, 0))
        width[at] = extra + np.where(top, every[row] - threshold,
                                     np.where(exact, others[row], u + others[row]))
    else:
        width[at] = every[row] + t.upper_bonus + extra
    return lo, width


def _window_terms(t, masks: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Per box set of layer k: the most its filled boxes score (every) and the most those
    that do not count toward the upper total score (others); the threshold (0: no upper
    bonus) and what every window adds (a Yahtzee bonus a turn after the first, and 1)."""
    every = np.zeros(len(masks), dtype=np.int64)
    others = np.zeros(len(masks), dtype=np.int64)
    for c in range(t.n_categories):
        filled = (masks >> c) & 1
        every += filled * int(t.BOX_MAX[c])
        others += filled * int(t.BOX_MAX[c] - t.UPPER_MAX[c])
    threshold = int(t.upper_threshold) if t.upper_bonus else 0
    return every, others, threshold, t.yahtzee_bonus * max(0, k - 1) + 1


def window_bytes(t, layout) -> np.ndarray:
    """Per layer, the bytes of every stored state's window (`state_windows`, float64), added
    up by box set (its totals are U0 .. U1, the same for each flag and bank it is stored
    with): no array per state or row, so the check of a game with hundreds of millions of
    states stays quick and small."""
    out = np.zeros(t.n_categories + 1, dtype=np.int64)
    for k in range(t.n_categories + 1):
        masks = layout.layer_masks[k]
        u0 = layout.U0[masks].astype(np.int64)
        nu = (layout.U1[masks] - layout.U0[masks] + 1).astype(np.int64)
        copies = layout.banks[k] * (1 + ((masks >> layout.flag_box) & 1
                                         if layout.n_flags == 2 else 0))
        every, others, threshold, extra = _window_terms(t, masks, k)
        if threshold:
            top = np.clip(u0 + nu - np.maximum(threshold, u0), 0, nu)
            first_low = (threshold > u0).astype(np.int64)  # (U0: up to U0 upper points)
            exact = nu - top - first_low
            width = (top * (every - threshold) + first_low * (u0 + others)
                     + exact * others + nu * extra)
        else:
            width = nu * (every + t.upper_bonus + extra)
        out[k] = int((width * copies).sum()) * 8
    return out


def banked_distribution_bytes(t, layout) -> int:
    """The most the streamed forward pass of a game with saved rolls holds
    (`forward._banked_pmf_walk`): a layer's windows as reached beside every window of the
    next (`window_bytes`), or the next's twice while they are trimmed to what was reached,
    and one block of states' moves (`block_bytes`)."""
    w = window_bytes(t, layout)
    return int(np.maximum(w[:-1] + w[1:], 2 * w[1:]).max()) + block_bytes(t, layout)


def block_bytes(t, layout) -> int:
    """The forward pass's buffers for a block of states with saved rolls (`outcome_block`)
    and the block's moves as listed."""
    block, per_state = outcome_block(t, layout)
    return 2 * min(block, int(np.diff(layout.LAYER_PTR).max())) * per_state


def most_stages(t, layout) -> int:
    """The most rolls a turn has: `rolls`, and with saved rolls the largest bank."""
    return t.rolls + max(layout.banks) - 1


def most_outcomes(t, layout) -> int:
    """The most distinct moves a turn can end with: a box for every final roll, and for
    every first roll kept whole to claim a first-roll bonus; with saved rolls at most one
    box for each roll at each stage."""
    if t.n_banks > 1:
        return t.n_distinct_rolls * most_stages(t, layout)
    return t.n_distinct_rolls * (2 if t.has_first_roll_bonus else 1)


def outcome_block(t, layout) -> tuple[int, int]:
    """States whose turn outcomes the forward pass holds at once, and the bytes of each
    (six numbers per outcome; with saved rolls also the choices at every stage)."""
    from .config import CHOICE_BYTES, SIM_STATE_BLOCK

    per_state = most_outcomes(t, layout) * 6 * 8
    if t.n_banks > 1:
        per_state += most_stages(t, layout) * t.n_distinct_rolls * 8
    return max(1, min(SIM_STATE_BLOCK, CHOICE_BYTES // per_state)), per_state


def check_banked_distribution_memory(t, layout, max_memory: int | None = None) -> None:
    """`check_distribution_memory` for the streamed pass of a game with saved rolls (its
    bound, `banked_distribution_bytes`, needs no solve: nothing is solved before a
    refusal)."""
    from yz.rules import InputError

    from .limits import machine_memory

    need = banked_distribution_bytes(t, layout)
    limit = max_memory if max_memory is not None else machine_memory() // 2
    if need > limit:
        raise InputError(f"the exact distribution of {t.rules.name} may need up to "
                         f"{need / 2**30:.1f} GiB, more than the {limit / 2**30:.1f} GiB "
                         "allowed here; simulate the game instead.")


def score_distribution(solution: Solution, strategy: str = "optimal",
                       step: Step | None = None, max_memory: int | None = None
                       ) -> Distribution:
    """The exact final-score distribution of `strategy` (see the module docstring), within
    `max_memory` bytes (default: half of this machine's memory)."""
    from .forward import walk

    check_strategy(strategy)
    if solution.tables.n_banks > 1:
        check_banked_distribution_memory(solution.tables, solution.layout, max_memory)
    else:
        check_distribution_memory(solution.tables, solution.layout, max_memory)
    begin = time.perf_counter()
    found = walk(solution, strategy_values(solution, strategy), pmf=True, step=step,
                 figures=False)
    return Distribution(solution.rules.name, strategy, found.scores, found.probabilities,
                        time.perf_counter() - begin)


def duel(a: Distribution, b: Distribution) -> tuple[float, float, float]:
    """P(A's score > B's), P(equal), P(B's > A's) for two independent players (solitaire:
    neither sees the other), from their exact distributions."""
    lo = int(min(a.scores[0], b.scores[0]))
    hi = int(max(a.scores[-1], b.scores[-1]))
    pa = np.zeros(hi - lo + 1)
    pb = np.zeros(hi - lo + 1)
    pa[a.scores - lo] = a.probabilities
    pb[b.scores - lo] = b.probabilities
    below_b = np.concatenate([[0.0], np.cumsum(pb)[:-1]])  # P(B < s)
    a_wins = float(pa @ below_b)
    draw = float(pa @ pb)
    return a_wins, draw, max(0.0, 1.0 - a_wins - draw)
