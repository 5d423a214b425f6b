"""The strategies yz can play and evaluate, each as a value table shaped like the solver's.

- `optimal`: the solved values themselves, so play maximises the expected final score;
- `greedy`: all zeros, so every turn maximises the points scored in that turn (bonuses won
  that turn included) with no thought for later turns;
- `heuristic`: a per-turn player in the spirit of Dahlbom Norgren & Svensson's KTH thesis:
  each turn is played optimally against a simple additive estimate of the future: every open
  box is worth what it scores on average when played alone for a whole turn, plus a share of
  the upper bonus in proportion to the part of the threshold the open upper boxes are expected
  to make up (nothing once the bonus is out of reach).

Every table must, like the solved values, never fall as the upper total rises (counting the
upper bonus once made) or as the bonus flag is raised: the kernels' best-zero-move shortcut
relies on it. (Flatness where the bonus is out of reach comes with the store: those totals
share one entry, see `solver.state`.)
"""

from __future__ import annotations

import numpy as np
from yz.rules import InputError, RuleSet, RuleTables, compile_rules

from .dp import Solution
from .state import filled_matrix

STRATEGIES = ("optimal", "greedy", "heuristic")


def check_strategy(name: str, param: str = "strategy") -> None:
    """InputError unless `name` is a strategy (`param`: the parameter that named it)."""
    if name not in STRATEGIES:
        raise InputError(f"{param.replace('_', ' ')}: '{name}' is not a strategy; choose one "
                         f"of {', '.join(STRATEGIES)}.", param=param)


def strategy_values(solution: Solution, name: str) -> np.ndarray:
    """The value table that plays like strategy `name` (built once per model)."""
    check_strategy(name)
    if name == "optimal":
        return solution.values
    # (Writable like the solved values: numba compiles read-only arrays separately. Zeros
    # from np.zeros, not zeros_like: the system hands them out untouched, so a big game's
    # greedy table costs no memory until written, and it never is.)
    return solution.problem.remember(("strategy", name), lambda: np.zeros(
        solution.values.shape) if name == "greedy" else _heuristic_values(solution))


def box_alone_values(t: RuleTables) -> np.ndarray:
    """Expected score of each box played alone for one turn (the heuristic's box weights)."""
    from .dp import solve_values
    from .problem import Problem

    out = np.zeros(t.n_categories)
    rules = t.rules
    for c, cat in enumerate(rules.categories):
        single = Problem.of(compile_rules(RuleSet(name="single-box", dice=rules.dice,
                                                  faces=rules.faces, rolls=rules.rolls,
                                                  categories=(cat,))), threads=1)
        values, _ = solve_values(single)
        out[c] = values[single.layout.start]
    return out


def _heuristic_values(solution: Solution) -> np.ndarray:
    t = solution.tables
    layout = solution.layout
    w = box_alone_values(t)
    upper_w = np.where(t.COUNTS_UPPER == 1, w, 0.0)
    maxs = t.UPPER_MAX
    table = np.zeros(layout.size)
    for k in range(t.n_categories + 1):
        mask, _flag, u, index = layout.state_arrays(k)
        open_ = ~filled_matrix(mask, t.n_categories)
        value = open_ @ w
        if t.upper_threshold:
            T = t.upper_threshold
            share = np.clip((u + open_ @ upper_w) / T, 0.0, 1.0) ** 2
            share[u >= T] = 0.0  # made already: the bonus was counted when the total reached T
            # Out of reach: nothing (this also keeps the table flat there, as the kernels need).
            share[u + open_ @ maxs < T] = 0.0
            value = value + t.upper_bonus * share
        table[index] = value
    return table
