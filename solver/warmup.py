"""Compile the kernels each kind of work needs, once per installation, on a one-box game.

numba compiles a kernel the first time it meets a new combination of argument types: seconds
to tens of seconds for the layer driver. The kinds of work below each compile one such
combination (`solver.kernels.layer`); doing it on a tiny game first keeps that time out of the
figures a command reports ("solved in 0.3 s") and lets a front end say what is happening.
`yz warmup` compiles them all.

Compiling is one core's work, so with two or more families to compile and a core to spare, two
processes compile a group of them each, side by side. The groups split by the drivers they
specialise (`solver.kernels.layer`): one takes the families that run the decision driver of
games with saved rolls (the most expensive to compile), the other every other family. So the
two never write the same driver's entry in numba's cache index, and neither can overwrite the
other's.

The compiling runs in processes of its own, never in this one (a numba compile cannot be
interrupted: Ctrl-C would wait for it, tens of seconds): this process waits, and on Ctrl-C
kills them at once, removes the temporary files numba was writing, and stops. Nothing is
half-written: numba writes each cache file whole (a temporary file, then a rename), and a
family is marked compiled only once all of it is. The kernels are then loaded from numba's
cache where the work runs (a fraction of a second). Where no process can be started (a
daemon process, a system without the resources), they are compiled here.

    values      the DP without the SD, and nothing else
    decisions   the DP with the SD; the SD of optimal play on cached values
    moments     the mean and SD of greedy or heuristic play
    follow      the choices of a strategy state by state: games and the forward pass
    play        simulated games
    forward     the exact distribution's convolutions
    targets     play for a target
    versus      play to win: a need sweep whose choices carry the chances of a win and a draw

Games with saved rolls run drivers of their own (`solver.kernels.layer`), so each family has a
twin, `saved-<family>`, compiled on a game with a bank of saved rolls, the first time such a
game needs it: a game without saved rolls never waits for their stages to compile.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator

from .kernel_cache import compiled, mark_compiled
from .report import SILENT, Reporter

BASE_FAMILIES = ("values", "decisions", "moments", "follow", "play", "forward", "targets",
                 "versus")
SAVED = "saved-"  # the prefix of a family's twin for games with saved rolls
FAMILIES = BASE_FAMILIES + tuple(SAVED + family for family in BASE_FAMILIES)
# Seconds each takes to compile on this project's 2-core machine: after the families before it
# in a fresh process (`bench/bench_compile.py`, 2026-11-27, quiet, rounded up), and alone
# (the same, plus what an earlier measurement found the families before it had compiled).
ALONE_SECONDS = {"values": 23, "decisions": 30, "moments": 33, "follow": 33, "play": 24,
                 "forward": 18, "targets": 23, "versus": 52, "saved-values": 26,
                 "saved-decisions": 44, "saved-moments": 48, "saved-follow": 49,
                 "saved-play": 24, "saved-forward": 26, "saved-targets": 32,
                 "saved-versus": 84}
AFTER_SECONDS = {"values": 22, "decisions": 30, "moments": 31, "follow": 30, "play": 7,
                 "forward": 4, "targets": 17, "versus": 48, "saved-values": 19,
                 "saved-decisions": 34, "saved-moments": 38, "saved-follow": 40,
                 "saved-play": 2, "saved-forward": 4, "saved-targets": 20, "saved-versus": 73}


# The families each kind of work compiles (a family compiles once for all the kinds that use it).
WORK_FAMILIES = {"solve": ("values",), "solve-sd": ("decisions",), "sd": ("decisions",),
                 "moments": ("moments",), "figures": ("follow",),
                 "distribution": ("follow", "forward"), "targets": ("targets",),
                 "simulate": ("play",), "versus": ("versus",),
                 "minimax-value": ("targets",), "minimax": ("versus",),
                 "minimax-optimal": ("versus", "follow")}


# The families compiled in a second process when there is a core for it (see the module
# docstring): all but the specialisations of `_banked_decision_batches`.
SECOND_GROUP = (*BASE_FAMILIES, SAVED + "values", SAVED + "targets")


def work_families(work: str, layout=None) -> tuple[str, ...]:
    """The kernel families a kind of work needs (see WORK_FAMILIES) on a game of this state
    layout (`solver.state.StateLayout`): their `saved-` twins where turns save rolls."""
    saved = layout is not None and layout.saves_rolls
    return tuple(SAVED + f if saved else f for f in WORK_FAMILIES[work])


def base_family(family: str) -> str:
    """The kind of work a family compiles, with or without saved rolls."""
    return family.removeprefix(SAVED)


def compile_seconds(families: tuple[str, ...]) -> float:
    """Seconds of compiling these families still need here (0 when compiled)."""
    return float(_estimate(missing(families)))


def _estimate(todo: list[str]) -> int:
    """Seconds compiling `todo` takes, its two groups side by side, on the cores other work
    leaves free now (the times above are of a quiet machine)."""
    from .budget import free_cores

    groups = [group for group in _groups(todo) if group]
    if not groups:
        return 0
    quiet = max(_seconds(group) for group in groups)
    return round(quiet * len(groups) / free_cores(len(groups)))


def _seconds(group: list[str]) -> int:
    """Seconds one process takes to compile `group` in turn."""
    if not group:
        return 0
    return ALONE_SECONDS[group[0]] + sum(AFTER_SECONDS[f] for f in group[1:])


def _groups(todo: list[str]) -> tuple[list[str], list[str]]:
    """(the families one process compiles, those a second one compiles beside it)."""
    here = [f for f in todo if f not in SECOND_GROUP]
    there = [f for f in todo if f in SECOND_GROUP]
    if not here or not there or _cores() < 2:
        return todo, []
    return here, there


def tiny_problem(saved_rolls: bool = False):
    """A two-box game that touches every code path a kernel compiles (a first-roll bonus, a
    Yahtzee bonus, a Joker, an upper bonus; with `saved_rolls`, a bank of them)."""
    from yz.rules import RuleSet, compile_rules

    from .problem import Problem

    rules = RuleSet.model_validate({
        "name": "warm-up", "dice": 2, "faces": 2, "rolls": 2,
        "categories": [
            {"key": "ones", "pattern": {"kind": "face", "face": 1}, "score": "face_total"},
            {"key": "yahtzee", "pattern": "all_same", "score": 10, "first_roll_bonus": 1}],
        "upper_bonus": {"threshold": 2, "amount": 5}, "yahtzee_bonus": {"amount": 10},
        "joker": {"mode": "free"}, **({"saved_rolls": {"cap": 1}} if saved_rolls else {})})
    return Problem.of(compile_rules(rules), threads=1)


def _run(family: str, problem=None) -> None:
    """Run a family's kind of work on the tiny game (`problem`, or a new one), with saved
    rolls for a `saved-` family."""
    import numpy as np

    from . import dp, exact, simulate
    from .distribution import score_distribution
    from .target import solve_targets

    saved_rolls = family.startswith(SAVED)
    if problem is None or problem.layout.saves_rolls != saved_rolls:
        problem = tiny_problem(saved_rolls)
    family = base_family(family)

    if family == "values":
        dp.solve_values(problem)
        return
    if family == "decisions":
        dp.solve_values(problem, with_sd=True)
        return
    # Any value table compiles the rest (zeros: greedy play), so no other family is needed.
    solution = dp.Solution(problem, np.zeros(problem.layout.size), 0.0,
                           problem.layout.reachable)
    if family == "moments":
        exact.exact_moments(solution, solution.values, "greedy")  # (zeros: greedy play)
    elif family == "follow":
        from .forward import walk

        simulate.strategy_choices(solution, "optimal", _one_state())
        walk(solution, solution.values)
    elif family == "play":
        simulate.simulate(solution, 10, seed=0)
    elif family == "forward":
        score_distribution(solution)
    elif family == "targets":
        solve_targets(solution, 5)
    elif family == "versus":
        from .target import need_sweep

        row = np.array([1.0, 0.5, 0.0, 0.0])
        for carried in ((row, 0.0, None, 0.0), (row, 1.0, row, 0.0)):  # (one payload, two)
            need_sweep(solution, len(row), row, 1.0, lambda *_: None, windows=True,
                       payloads=carried)


def _one_state():
    import numpy as np

    from .kernels.bundle import States

    one = np.zeros(1, dtype=np.int64)
    return States(one, one, one, one)


def missing(families: tuple[str, ...]) -> list[str]:
    """The families not compiled yet on this installation."""
    return [f for f in dict.fromkeys(families) if not compiled(f)]


def ensure_compiled(families: tuple[str, ...], report: Reporter = SILENT) -> None:
    """Compile the families of kernels not compiled yet, telling `report` first (once per
    installation: numba keeps them on disk), in processes of their own, two groups at once
    when there is a core to spare (see the module docstring)."""
    todo = missing(families)
    if not todo:
        return
    report.note(f"compiling the solver's kernels for this kind of work, once per installation "
                f"({', '.join(todo)}): about {_estimate(todo)} s here")
    with (report.stage("compiling the solver's kernels", "kernels") as step,
          _Compilers([group for group in _groups(todo) if group]) as compilers):
        compilers.wait(lambda done: step(done, len(todo)))


def _cores() -> int:
    from .budget import cores

    return cores()


# Seconds between two looks at the compiling processes: Ctrl-C waits for no more than this.
WAIT_SECONDS = 0.2
# The name numba gives a cache file while writing it (`caching._open_for_write`).
NUMBA_TEMPORARY = re.compile(r"\.tmp\.[0-9a-f]{16}$")


class _Compilers:
    """One process per group of families, compiling them in turn (`compile_families`) and
    saying each one done; this process only waits. Leaving on an exception (Ctrl-C) kills
    them and removes the temporary files they were writing. A family a process could not
    compile (it could not start, or died) is compiled here."""

    def __init__(self, groups: list[list[str]]) -> None:
        self.groups = groups
        self.running: list[tuple] = []  # (process, its end of the pipe, its families)

    def __enter__(self) -> _Compilers:
        import multiprocessing

        if multiprocessing.current_process().daemon:  # (no children for a daemon)
            return self
        try:
            context = multiprocessing.get_context("spawn")
            for group in self.groups:
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(target=compile_families, args=(group, writer),
                                          name="yz-compile", daemon=True)
                with _sigint_ignored():  # Ctrl-C is this process's to handle: it kills them
                    process.start()
                writer.close()
                self.running.append((process, reader, group))
        except (OSError, RuntimeError):  # no process to be had: compiled here instead
            self._stop()
        return self

    def wait(self, step: Callable[[int], None]) -> None:
        """Wait for every family, calling step(how many are done) as each one is."""
        from multiprocessing.connection import wait

        done: list[str] = []
        if not self.running:
            for group in self.groups:
                for family in group:
                    compile_family(family)
                    done.append(family)
                    step(len(done))
            return
        running = list(self.running)
        while running:
            wait([reader for _, reader, _ in running], timeout=WAIT_SECONDS)
            for item in list(running):
                process, reader, group = item
                try:
                    while reader.poll():
                        done.append(reader.recv())
                        step(len(done))
                except (EOFError, OSError):  # it has ended: whatever it did not do is done here
                    process.join()
                    running.remove(item)
                    for family in group:
                        if family not in done:
                            compile_family(family)
                            done.append(family)
                            step(len(done))

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:
            self._stop()
        for process, reader, _ in self.running:
            process.join()
            reader.close()

    def _stop(self) -> None:
        """Kill the compiling processes at once, and remove the cache files they had begun
        to write: each is frozen first, and the numba temporary files it holds open are
        its own (another program compiling into the same folder keeps its files)."""
        begun: set[str] = set()
        for process, _, _ in self.running:
            if process.pid is not None and process.exitcode is None:
                with contextlib.suppress(OSError):
                    os.kill(process.pid, signal.SIGSTOP)
                    begun |= _open_temporaries(process.pid)
                process.kill()
        for process, _, _ in self.running:
            if process.pid is not None:
                process.join()
        for path in begun:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _open_temporaries(pid: int) -> set[str]:
    """The numba temporary files process `pid` has open (read from /proc: none elsewhere)."""
    found = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if NUMBA_TEMPORARY.search(target):
                    found.add(target)
    return found


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while a process starts, so that it is born ignoring it (Python keeps an
    ignored SIGINT ignored), then handled here again; only the main thread sets handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def compile_families(families: list[str], done) -> None:
    """A compiling process's work (`_Compilers`): each family compiled and marked in turn, its
    name sent on `done` once it is. Ctrl-C is the waiting process's to handle (it kills this
    one), so it is ignored here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for family in families:
        compile_family(family)
        done.send(family)
    done.close()


def compile_family(family: str) -> None:
    """Compile one family on the tiny game and mark it compiled."""
    _run(family)
    mark_compiled(family)


def ensure_loaded(families: tuple[str, ...], report: Reporter = SILENT) -> None:
    """Compile what is missing, and load every family's kernels into this process (running
    them on the tiny game takes milliseconds once they are compiled), so that the next real
    piece of work times only itself."""
    ensure_compiled(families, report)
    problem = tiny_problem()
    for family in families:
        _run(family, problem)


def warm_up(report: Reporter = SILENT) -> tuple[int, int]:
    """Compile every kind of work's kernels not compiled yet (`yz warmup`): (how many kinds
    were compiled now, how many there are)."""
    todo = missing(FAMILIES)
    ensure_compiled(FAMILIES, report)
    return len(todo), len(FAMILIES)
