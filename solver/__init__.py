"""The exact solver for any rule set yz can express, with a verified on-disk cache.

    Model(rules)          everything about one rule set, as methods (solver.model): solve,
                          moments, figures, distribution, targets, advise, simulate, duel,
                          coach, solve_layered, minimax and duel_exact (two players both
                          playing to win)
    warm_up()             compile every kind of work's kernels now (`yz warmup`)

What the methods return: `Solution` (solve), `Moments` and `ExactFigures` (moments, figures),
`Distribution` (distribution), `TargetTable` (targets), `Advice` of `Action`s at a `Position`
(advise, position), `Simulation` (simulate), `Game` (coach), `LayeredSolution`
(solve_layered), `ExactDuel` (minimax, duel_exact). What they raise: `YzError`s with
one-paragraph messages (`InputError`, `RulesError`, `SolverError`, and `WorkTooLong` for work
over the model's time budget). A `Reporter` passed to the model receives its notes and the
progress of each stage.

Names are loaded when first used (PEP 562), so a module of the package that needs none of
them (`yz.solver.kernels.rule`, which the scorer runs) costs no more than itself.
"""

from __future__ import annotations

from yz.rules.lazy import lazy_names

TYPE_CHECKING = False  # (not typing's: its import would cost `yz solve`'s memo start-up)

# Where each name of the package lives (a module of this package, or yz.rules').
_WHERE = {
    "Model": ".model", "warm_up": ".warmup", "Reporter": ".report", "SILENT": ".report",
    "STRATEGIES": ".strategies", "SOLVER_VERSION": ".dp",
    "Solution": ".dp", "Moments": ".exact", "ExactFigures": ".exact",
    "Distribution": ".distribution", "TargetTable": ".target", "Advice": ".advice",
    "Action": ".advice", "Simulation": ".simulate", "Game": ".coach", "Match": ".match",
    "LayeredSolution": ".layered", "ExactDuel": ".minimax", "Position": "yz.rules.position",
    "YzError": "yz.rules.errors", "InputError": "yz.rules.errors",
    "RulesError": "yz.rules.errors", "SolverError": "yz.rules.errors",
    "WorkTooLong": "yz.rules.errors",
}

__all__ = ["SILENT", "SOLVER_VERSION", "STRATEGIES", "Action", "Advice", "Distribution",
           "ExactDuel", "ExactFigures", "Game", "InputError", "LayeredSolution", "Match",
           "Model", "Moments",
           "Position", "Reporter", "RulesError", "Simulation", "Solution", "SolverError",
           "TargetTable", "WorkTooLong", "YzError", "warm_up"]

if TYPE_CHECKING:
    from yz.rules.errors import InputError, RulesError, SolverError, WorkTooLong, YzError
    from yz.rules.position import Position

    from .advice import Action, Advice
    from .coach import Game
    from .distribution import Distribution
    from .dp import SOLVER_VERSION, Solution
    from .exact import ExactFigures, Moments
    from .layered import LayeredSolution
    from .match import Match
    from .minimax import ExactDuel
    from .model import Model
    from .report import SILENT, Reporter
    from .simulate import Simulation
    from .strategies import STRATEGIES
    from .target import TargetTable
    from .warmup import warm_up


__getattr__, __dir__ = lazy_names(globals(), _WHERE)
