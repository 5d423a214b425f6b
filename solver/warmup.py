"""Compile the kernels each kind of work needs, once per installation, on a one-box game.

numba compiles a kernel the first time it meets a new combination of argument types: seconds
to tens of seconds for the layer driver. The kinds of work below each compile one such
combination (`solver.kernels.layer`); doing it on a tiny game first keeps that time out of the
figures a command reports ("solved in 0.3 s") and lets a front end say what is happening.
`yz warmup` compiles them all.

    values      the DP without the SD, and nothing else
    decisions   the DP with the SD; the SD of optimal play on cached values
    moments     the mean and SD of greedy or heuristic play
    follow      the choices of a strategy state by state: games and the forward pass
    play        simulated games
    forward     the exact distribution's convolutions
    targets     play for a target
"""

from __future__ import annotations

from .kernel_cache import compiled, mark_compiled
from .report import SILENT, Reporter

FAMILIES = ("values", "decisions", "moments", "follow", "play", "forward", "targets")
# Seconds each takes to compile on this project's 2-core machine (bench/bench_compile.py).
COMPILE_SECONDS = {"values": 12, "decisions": 16, "moments": 14, "follow": 16, "play": 3,
                   "forward": 2, "targets": 10}


# The families each kind of work compiles (a family compiles once for all the kinds that use it).
WORK_FAMILIES = {"solve": ("values",), "solve-sd": ("decisions",), "sd": ("decisions",),
                 "moments": ("moments",), "figures": ("follow",),
                 "distribution": ("follow", "forward"), "targets": ("targets",),
                 "simulate": ("play",)}


def work_families(work: str) -> tuple[str, ...]:
    """The kernel families a kind of work needs (see WORK_FAMILIES)."""
    return WORK_FAMILIES[work]


def compile_seconds(families: tuple[str, ...]) -> float:
    """Seconds of compiling these families still need here (0 when compiled)."""
    return float(sum(COMPILE_SECONDS[f] for f in missing(families)))


def tiny_model():
    """A two-box game that touches every code path a kernel compiles (a first-roll bonus, a
    Yahtzee bonus, a Joker, an upper bonus)."""
    from yz.rules import RuleSet

    from .model import Model

    rules = RuleSet.model_validate({
        "name": "warm-up", "dice": 2, "faces": 2, "rolls": 2,
        "categories": [
            {"key": "ones", "pattern": {"kind": "face", "face": 1}, "score": "face_total"},
            {"key": "yahtzee", "pattern": "all_same", "score": 10, "first_roll_bonus": 1}],
        "upper_bonus": {"threshold": 2, "amount": 5}, "yahtzee_bonus": {"amount": 10},
        "joker": {"mode": "free"}})
    return Model(rules, use_cache=False, threads=1)


def _run(family: str, model) -> None:
    import numpy as np

    from . import dp, exact, simulate
    from .distribution import score_distribution
    from .target import solve_targets

    if family == "values":
        dp.solve_values(model)
        return
    if family == "decisions":
        dp.solve_values(model, with_sd=True)
        return
    # Any value table compiles the rest (zeros: greedy play), so no other family is needed.
    solution = dp.Solution(model, np.zeros(model.layout.size), 0.0, model.layout.reachable)
    if family == "moments":
        exact.exact_moments(solution, "greedy")
    elif family == "follow":
        from .forward import walk

        simulate.strategy_choices(solution, "optimal", _one_state(model))
        walk(solution, solution.values)
    elif family == "play":
        simulate.simulate(solution, 10, seed=0)
    elif family == "forward":
        score_distribution(solution)
    elif family == "targets":
        solve_targets(solution, 5)


def _one_state(model):
    import numpy as np

    from .kernels.bundle import States

    one = np.zeros(1, dtype=np.int64)
    return States(one, one, one)


def missing(families: tuple[str, ...]) -> list[str]:
    """The families not compiled yet on this installation."""
    return [f for f in dict.fromkeys(families) if not compiled(f)]


def ensure_compiled(families: tuple[str, ...], report: Reporter = SILENT) -> None:
    """Compile the families of kernels not compiled yet, telling `report` first (once per
    installation: numba keeps them on disk)."""
    todo = missing(families)
    if not todo:
        return
    seconds = sum(COMPILE_SECONDS[f] for f in todo)
    report.note(f"compiling the solver's kernels for this kind of work, once per installation "
                f"({', '.join(todo)}): about {seconds} s here")
    model = tiny_model()
    with report.stage("compiling the solver's kernels", "kernels") as step:
        for i, family in enumerate(todo):
            _run(family, model)
            mark_compiled(family)
            step(i + 1, len(todo))


def ensure_loaded(families: tuple[str, ...], report: Reporter = SILENT) -> None:
    """Compile what is missing, and load every family's kernels into this process (running
    them on the tiny game takes milliseconds once they are compiled), so that the next real
    piece of work times only itself."""
    ensure_compiled(families, report)
    model = tiny_model()
    for family in families:
        _run(family, model)


def warm_up(report: Reporter = SILENT) -> tuple[int, int]:
    """Compile every kind of work's kernels not compiled yet (`yz warmup`): (how many kinds
    were compiled now, how many there are)."""
    todo = missing(FAMILIES)
    ensure_compiled(FAMILIES, report)
    return len(todo), len(FAMILIES)
