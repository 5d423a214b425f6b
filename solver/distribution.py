"""The exact distribution of the final score under a strategy, by a forward pass.

Each turn-start state s carries the distribution of the points banked so far (every bonus
included) over a window of scores [lo(s), lo(s) + width(s)), nothing outside it. One turn
from s leads to a few distinct (next state, points gained) pairs, found by the DP's own sweep
(`solver.kernels.turn.turn_outcomes`: the same keep and box choices, and tie rule, as
`yz advise` and `yz simulate`). The next layer's distributions are the probability-weighted
sums of the shifted windows that lead to each state: a convolution done per target state, in
parallel, reading the sources (so no two threads write one number). After the last box the
full-card states' distributions add up to the final score's.

Glenn (2006) computed this for the official rules "in about 24 hours"; windows keep it to
seconds: a state's window spans only the banked totals it can be reached with.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .dp import Solution, kernel_threads
from .exact import rows_of_states
from .kernels.bundle import Outcomes, States, payload
from .layout import batch_width, batches, state_block
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


def distribution_bytes(t, layout) -> int:
    """The most memory the forward pass can need: two layers of windows, each state's as wide
    as every possible score (real windows are far narrower)."""
    widest = int(np.diff(layout.LAYER_PTR).max())
    return 2 * widest * (highest_score(t) + 1) * 8


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


def score_distribution(solution: Solution, strategy: str = "optimal",
                       progress: Callable[[int, int], None] | None = None,
                       threads: int | None = None) -> Distribution:
    """The exact final-score distribution of `strategy` (see the module docstring)."""
    check_strategy(strategy)
    check_distribution_memory(solution.tables, solution.layout)
    begin = time.perf_counter()
    t = solution.tables
    layout = solution.layout
    V = strategy_values(solution, strategy)
    # The current layer: its live states (store indices, sorted) and their windows.
    index = np.array([layout.index(0, 0, 0)], dtype=np.int64)
    lo = np.zeros(1, dtype=np.int64)
    width = np.ones(1, dtype=np.int64)
    offset = np.zeros(1, dtype=np.int64)
    pmf = np.ones(1)
    with kernel_threads(threads) as n_threads:
        for k in range(t.n_categories):
            src, target, gain, prob = _layer_outcomes(solution, V, index, n_threads)
            index, lo, width, offset, pmf = _convolve(src, target, gain, prob, lo, width,
                                                      offset, pmf)
            if progress is not None:
                progress(k + 1, t.n_categories)
    total = np.zeros(int((lo + width).max() - lo.min()))
    base = int(lo.min())
    for s in range(len(index)):
        total[lo[s] - base: lo[s] - base + width[s]] += pmf[offset[s]: offset[s] + width[s]]
    nonzero = np.flatnonzero(total > 0)
    first, last = int(nonzero[0]), int(nonzero[-1])
    return Distribution(t.rules.name, strategy,
                        np.arange(base + first, base + last + 1, dtype=np.int64),
                        total[first: last + 1], time.perf_counter() - begin)


def _layer_outcomes(solution: Solution, V: np.ndarray, index: np.ndarray, n_threads: int):
    """Every (source position, next state, gain, probability) of one turn from the states at
    store indices `index` (sorted), in source order."""
    from .kernels.sweep import sweep

    t = solution.tables
    layout = solution.layout
    game = solution.kernel_tables()
    L = layout.kernel_layout()
    mask, flag, u = layout.states_at(index)
    block = state_block(t)
    most = 2 * t.n_rolls if t.has_first_roll_bonus else t.n_rolls  # a final or a first roll
    parts = []
    for b0 in range(0, len(index), block):
        part = slice(b0, b0 + block)
        rows = rows_of_states(States(mask[part], flag[part], u[part]))
        n = len(mask[part])
        out = Outcomes(np.empty((n, most), dtype=np.int64), np.empty((n, most), dtype=np.int32),
                       np.empty((n, most)), np.zeros(n, dtype=np.int32))
        cols = batch_width(t, int(rows.NU.max(initial=1)))
        sweep(game, L, rows, batches(rows.NU, cols), V, payload(out=out), cols, n_threads)
        keep = np.arange(most)[None, :] < out.COUNT[:, None]
        src = np.repeat(np.arange(b0, b0 + n, dtype=np.int64), out.COUNT)
        parts.append((src, out.TARGET[keep], out.GAIN[keep].astype(np.int64), out.PROB[keep]))
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def _convolve(src, target, gain, prob, lo, width, offset, pmf):
    """The next layer: its states, windows and distributions."""
    from .kernels.play import convolve_windows, group_by, window_bounds

    index, slot = np.unique(target, return_inverse=True)
    slot = slot.astype(np.int64)
    ptr, order = group_by(slot, len(index))
    first = lo[src] + gain
    new_lo, new_hi = window_bounds(slot, first, first + width[src], len(index))
    new_width = new_hi - new_lo
    new_offset = np.concatenate([[0], np.cumsum(new_width)[:-1]]).astype(np.int64)
    new_pmf = np.zeros(int(new_width.sum()))
    convolve_windows(ptr, order, (src, gain, prob), (lo, width, offset, pmf),
                     (new_lo, new_offset, new_pmf))
    return index, new_lo, new_width, new_offset, new_pmf


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
