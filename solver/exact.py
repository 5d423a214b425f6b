"""Exact figures of a strategy: the spread of the final score and per-box statistics.

Two passes over the turn-start states, following the strategy's decisions (ties broken as
`solver.kernels.ties` says, which moves the 4th decimal of the SD):

- backward, layer by layer from the full card: the first and second moments of the points
  still to come, carried along the DP's own sweeps, so SD = sqrt(M2 - M1^2) at the start
  (Verhoeff: 59.6117 for the official rules);
- forward from the empty card (`solver.forward`): the probability of reaching each state,
  pushed through one turn at a time, which gives each box's expected score and zero rate, the
  chance of the upper bonus, and the expected numbers of extra Yahtzee bonuses and Joker uses.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from .dp import Solution, backward
from .report import Step


@dataclass(frozen=True)
class Moments:
    """Exact mean and standard deviation of the final score under a strategy."""

    strategy: str
    expected_score: float
    sd: float
    cached: bool = False  # read from the cache (or stored with the values), not computed now


@dataclass(frozen=True)
class ExactFigures:
    """Exact expectations under a strategy (one shape for every strategy and caller)."""

    strategy: str
    expected_score: float
    sd: float | None  # None only in `known_figures` (a solve without the SD)
    box_mean: dict[str, float]  # empty in `known_figures`, as are the zero rates
    box_zero_rate: dict[str, float]
    p_upper_bonus: float | None  # None without an upper bonus (or in `known_figures`)
    yahtzee_bonus_mean: float | None  # expected number of extra Yahtzee bonuses
    joker_uses_mean: float | None  # expected turns the Joker gave a box its full value
    seconds: float

    def as_dict(self) -> dict:
        """Every field, as stored in the cache."""
        return asdict(self)

    @property
    def per_box(self) -> bool:
        """Whether the forward pass was run: the per-box and bonus figures are known (not
        in `known_figures`, nor for games with saved rolls too big for it)."""
        return bool(self.box_mean)

    def to_dict(self) -> dict:
        """The figures as plain JSON values (`yz simulate --json`'s `exact`). A figure not
        computed is left out and its key listed in `not_computed`, so that `null` keeps one
        meaning: the game has no such thing (`p_upper_bonus`: no upper bonus)."""
        out = self.as_dict()
        missing = [] if self.sd is not None else ["sd"]
        if not self.per_box:
            missing += ["box_mean", "box_zero_rate", "p_upper_bonus", "yahtzee_bonus_mean",
                        "joker_uses_mean"]
        for key in missing:
            del out[key]
        if missing:
            out["not_computed"] = missing
        return out


def known_figures(solution: Solution) -> ExactFigures:
    """Optimal play's figures that need no further pass: the mean (the solved value) and the
    SD when the solve computed it; the per-box and bonus figures are left out. For games
    whose full figures take minutes (Maxi Yatzy)."""
    return ExactFigures("optimal", solution.expected_score, solution.sd, {}, {}, None, None,
                        None, 0.0)


def exact_moments(solution: Solution, V: np.ndarray, strategy: str = "optimal",
                  step: Step | None = None) -> Moments:
    """Exact mean and SD of the final score under the play V's values make (the backward
    pass): `strategy` names it (`strategies.strategy_values`: V of "optimal" is the solution's
    own values)."""
    if strategy == "optimal" and solution.sd is not None:
        return Moments(strategy, solution.expected_score, solution.sd)
    layout = solution.layout
    # Optimal play's own value is V, so its first moment needs no carrying.
    M1 = None if strategy == "optimal" else np.zeros(layout.size)
    M2 = np.zeros(layout.size)
    backward(solution.problem, V, m1=M1, m2=M2, step=step)
    start = layout.start
    mean = float((V if M1 is None else M1)[start])
    return Moments(strategy, mean, float(np.sqrt(max(0.0, M2[start] - mean * mean))))


def exact_figures(solution: Solution, V: np.ndarray, strategy: str = "optimal",
                  moments: Moments | None = None, step: Step | None = None) -> ExactFigures:
    """Exact mean, SD and per-box statistics of the play V's values make, `strategy` (see
    the module docstring); `moments`, when known already, spare the backward pass."""
    from .forward import walk

    begin = time.perf_counter()
    moments = moments or exact_moments(solution, V, strategy)
    t = solution.tables
    found = walk(solution, V, step=step)
    return figures_of_walk(t, strategy, moments.expected_score, moments.sd, found,
                           time.perf_counter() - begin)


def figures_of_walk(t, strategy: str, expected_score: float, sd: float | None, found,
                    seconds: float) -> ExactFigures:
    """The figures of a forward pass (`forward.Walk`) by box key and event."""
    from .kernels.outcomes import EVENT_JOKER, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS

    keys = t.rules.keys
    return ExactFigures(
        strategy=strategy, expected_score=expected_score, sd=sd,
        box_mean={k: float(found.box_mean[c]) for c, k in enumerate(keys)},
        box_zero_rate={k: float(found.box_zero_rate[c]) for c, k in enumerate(keys)},
        p_upper_bonus=float(found.events[EVENT_UPPER_BONUS]) if t.upper_threshold else None,
        yahtzee_bonus_mean=float(found.events[EVENT_YAHTZEE_BONUS]),
        joker_uses_mean=float(found.events[EVENT_JOKER]),
        seconds=seconds)
