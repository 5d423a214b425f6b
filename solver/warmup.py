"""Compile the kernels a kind of work needs, once per installation, on a one-box game.

numba compiles each kernel the first time it meets a new combination of argument types, which
takes from a few seconds to a minute. Doing it on a tiny game first keeps that time out of the
figures a command reports ("solved in 0.3 s"), and lets a front end say what is happening.
"""

from __future__ import annotations

from collections.abc import Callable

from .kernel_cache import compiled, mark_compiled

MODES = ("dp", "dp-sd", "moments", "play", "distribution", "targets")


def _tiny():
    from yz.rules import RuleSet, compile_rules

    from .dp import solve_tables

    rules = RuleSet.model_validate({
        "name": "warm-up", "dice": 2, "faces": 2, "rolls": 2,
        "categories": [
            {"key": "ones", "name": "1", "section": "upper",
             "pattern": {"kind": "face", "face": 1}, "score": "face_total"},
            {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 10}}],
        "upper_bonus": {"threshold": 2, "amount": 5}, "yahtzee_bonus": {"amount": 10},
        "joker": {"mode": "free"}})
    return solve_tables(compile_rules(rules))


def _run(mode: str, solution) -> None:
    from . import exact, simulate
    from .distribution import score_distribution
    from .dp import solve_tables
    from .target import solve_targets

    if mode == "dp":
        solve_tables(solution.tables)
    elif mode == "dp-sd":
        solve_tables(solution.tables, with_sd=True)
    elif mode == "moments":  # the SD of optimal play on cached values, and other strategies'
        exact.exact_moments(solution, "optimal")
        exact.exact_moments(solution, "greedy")
    elif mode == "play":
        simulate.simulate(solution, 10, seed=0)
        exact.exact_figures(solution, "greedy")
    elif mode == "distribution":
        score_distribution(solution)
    elif mode == "targets":
        solve_targets(solution, 5)


def ensure_compiled(modes: tuple[str, ...],
                    on_compile: Callable[[list[str]], None] | None = None) -> None:
    """Compile the kernels of `modes` that are not compiled yet (telling `on_compile` which,
    before it starts)."""
    missing = [m for m in modes if not compiled(m)]
    if not missing:
        return
    if on_compile is not None:
        on_compile(missing)
    solution = _tiny()
    for mode in missing:
        _run(mode, solution)
        mark_compiled(mode)
