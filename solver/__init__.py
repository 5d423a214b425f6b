"""The exact solver for any rule set yz can express, with a verified on-disk cache.

    Model(rules)          everything about one rule set, as methods (solver.model): solve,
                          moments, figures, distribution, targets, advise, simulate, duel,
                          coach
    solve(rules)          Model(rules).solve(): the optimal value of every turn-start state
    exact_figures(solution, strategy)   solution.model.figures(strategy)
    warm_up()             compile every kind of work's kernels now (`yz warmup`)

The records the methods return: `Solution`, `Moments`, `ExactFigures`, `Distribution`,
`TargetTable` (solver.target), `Simulation` (solver.simulate), `Advice` (solver.advice).

Names are loaded when first used (PEP 562), so a module of the package that needs none of
them (`yz.solver.kernels.rule`, which the scorer runs) costs no more than itself.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# Where each name of the package lives.
_WHERE = {
    "Model": "model", "Solution": "dp", "SOLVER_VERSION": "dp", "Moments": "exact",
    "ExactFigures": "exact", "Distribution": "distribution", "STRATEGIES": "strategies",
    "Reporter": "report", "SILENT": "report", "warm_up": "warmup",
}

__all__ = ["SILENT", "SOLVER_VERSION", "STRATEGIES", "Distribution", "ExactFigures", "Model",
           "Moments", "Reporter", "Solution", "warm_up"]

if TYPE_CHECKING:
    from .distribution import Distribution
    from .dp import SOLVER_VERSION, Solution
    from .exact import ExactFigures, Moments
    from .model import Model
    from .report import SILENT, Reporter
    from .strategies import STRATEGIES
    from .warmup import warm_up


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
