"""The exact solver for any rule set yz can express, with a verified on-disk cache.

    Model(rules)          everything about one rule set, as methods (solver.model): solve,
                          moments, figures, distribution, targets, advise, simulate, duel,
                          coach
    solve(rules)          Model(rules).solve(): the optimal value of every turn-start state
    exact_figures(solution, strategy)   solution.model.figures(strategy)
    warm_up()             compile every kind of work's kernels now (`yz warmup`)

The records the methods return: `Solution`, `Moments`, `ExactFigures`, `Distribution`,
`TargetTable` (solver.target), `Simulation` (solver.simulate), `Advice` (solver.advice).
"""

from __future__ import annotations

from pathlib import Path

from yz.rules import RuleSet, RuleTables

from .distribution import Distribution
from .dp import SOLVER_VERSION, Solution
from .exact import ExactFigures, Moments
from .model import Model
from .report import SILENT, Reporter
from .strategies import STRATEGIES
from .warmup import warm_up

__all__ = ["SILENT", "SOLVER_VERSION", "STRATEGIES", "Distribution", "ExactFigures", "Model",
           "Moments", "Reporter", "Solution", "exact_figures", "solve", "warm_up"]


def solve(rules: RuleSet | RuleTables | str | Path, use_cache: bool = True,
          with_sd: bool = False, threads: int | None = None,
          max_memory: int | None = None, report: Reporter = SILENT) -> Solution:
    """Solve a rule set exactly (`Model(rules, ...).solve(with_sd)`): the value of every
    turn-start state, from the verified cache when it is there."""
    return Model(rules, use_cache=use_cache, threads=threads, max_memory=max_memory,
                 report=report).solve(with_sd)


def exact_figures(solution: Solution, strategy: str = "optimal",
                  use_cache: bool = True) -> ExactFigures:
    """The exact figures of `strategy` (`Model.figures`), computed afresh without
    `use_cache`."""
    if not use_cache and solution.model.use_cache:
        fresh = Model(solution.tables, use_cache=False, threads=solution.model.threads)
        return fresh.figures(strategy)
    return solution.model.figures(strategy)
