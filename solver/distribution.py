"""The exact distribution of the final score under a strategy, and what it tells.

It comes from the forward pass (`solver.forward`: the same choices and tie rule as
`yz advise` and `yz simulate`); `Distribution` holds it with its figures (mean, SD, mode,
percentiles, P(score >= x)), and `duel` compares two players exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from yz.rules import RuleTables

from .budget import check_distribution_memory
from .dp import Solution
from .report import Step
from .state import StateLayout, filled_maxima
from .strategies import check_strategy, strategy_values

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
ROUND_SCORES = (100, 150, 200, 250, 300, 350, 400, 500, 600, 800, 1000)  # shown: P(score >= x)
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
    states: int | None = None  # the game's reachable turn-start states, when known

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

    def to_dict(self) -> dict:
        """Everything as plain JSON values (`yz distribution --json`, the web page): the
        figures, P(score >= x) at round scores, and the whole distribution."""
        reach = {str(x): self.p_at_least(x) for x in ROUND_SCORES if x <= self.scores[-1]}
        return {**self.summary(), "p_at_least": reach, "scores": self.scores.tolist(),
                "probabilities": self.probabilities.tolist(), "states": self.states,
                "seconds": self.seconds, "cached": self.cached}


def state_windows(t: RuleTables, layout: StateLayout, k: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """For every stored state of layer k (store order), the lowest points it can have banked
    and how many totals from there it can have: what its filled boxes can add up to beyond
    what the state fixes (and a Yahtzee bonus a turn after the first). A stored upper total
    between a row's first (U0: every total too low to reach the threshold) and the threshold
    is exact, so only the other boxes vary; at U0 the upper boxes held at most U0; at the
    threshold (the cap) at least that, the bonus paid. A Yahtzee bonus is won only with the
    flag set (the flag box scored), so a state without it has won none. Far narrower than
    every score."""
    R = layout.rows(k)
    every, others = filled_maxima(t, R.MASK)
    threshold = int(t.upper_threshold) if t.upper_bonus else 0
    base = int(layout.LAYER_PTR[k])
    lo = np.zeros(int(layout.LAYER_PTR[k + 1]) - base, dtype=np.int64)
    width = np.zeros_like(lo)
    row = np.repeat(np.arange(len(R.NU)), R.NU)
    # A Yahtzee bonus in every turn after the flag box's (flag set only), +1: the count.
    extra = t.yahtzee_bonus * max(0, k - 1) * R.FLAG.astype(np.int64)[row] + 1
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


def score_distribution(solution: Solution, strategy: str = "optimal",
                       step: Step | None = None, max_memory: int | None = None,
                       start: int | None = None) -> Distribution:
    """The exact final-score distribution of `strategy` (see the module docstring), within
    `max_memory` bytes (default: half of this machine's memory); from the state stored at
    `start` (a turn in the middle of a game), of the points still to come."""
    from .forward import walk

    check_strategy(strategy)
    check_distribution_memory(solution.tables, solution.layout, max_memory,
                              streamed=start is None)
    begin = time.perf_counter()
    found = walk(solution, strategy_values(solution, strategy), pmf=True, step=step,
                 figures=False, start=start)
    return Distribution(solution.rules.name, strategy, found.scores, found.probabilities,
                        time.perf_counter() - begin, states=solution.layout.reachable)


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
