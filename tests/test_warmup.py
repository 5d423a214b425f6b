"""Compiling on a fresh installation: two groups of kernel families at once, honestly
announced, and a helper process that cannot start never leaves a family uncompiled.

The kernels are compiled already when these run (the suite's other tests compile them), so
"compiling" here loads them from numba's cache: the test is of the orchestration, in real
processes, not of numba."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from yz.solver import warmup
from yz.solver.report import Reporter


class Recorder(Reporter):
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.steps: list[tuple[int, int]] = []

    def note(self, message: str) -> None:
        self.notes.append(message)

    @contextlib.contextmanager
    def stage(self, label, unit):
        yield lambda done, total: self.steps.append((done, total))


@pytest.fixture
def nothing_compiled(monkeypatch):
    """Every family counts as not compiled in this process (its markers stay as they are)."""
    marked: list[str] = []
    monkeypatch.setattr(warmup, "compiled", lambda family: family in marked)
    monkeypatch.setattr(warmup, "mark_compiled", marked.append)
    return marked


def test_the_decision_families_split_off_when_there_is_a_core(monkeypatch):
    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    here, there = warmup._groups(list(warmup.FAMILIES))
    assert set(there) == set(warmup.SECOND_GROUP)
    assert not set(here) & set(there) and set(here) | set(there) == set(warmup.FAMILIES)
    assert warmup._groups(["values"]) == (["values"], [])  # one family: no second process
    monkeypatch.setattr(warmup, "_cores", lambda: 1)
    assert warmup._groups(list(warmup.FAMILIES)) == (list(warmup.FAMILIES), [])


def test_two_groups_compile_at_once_with_progress(monkeypatch, nothing_compiled):
    """Each group in a process of its own, this one only waiting (so that Ctrl-C here is
    answered at once): nothing runs a family here."""
    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    from yz.solver.kernel_cache import _marker, compiled

    def not_here(*args, **kwargs):
        raise AssertionError("a family was compiled in the waiting process")

    monkeypatch.setattr(warmup, "_run", not_here)
    for family in ("follow", "saved-forward"):  # the processes mark them again
        _marker(family).unlink(missing_ok=True)
    report = Recorder()
    warmup.ensure_compiled(("saved-forward", "follow"), report)
    assert len(report.notes) == 1 and "saved-forward, follow" in report.notes[0]
    assert report.steps[-1] == (2, 2)
    done = [d for d, _ in report.steps]
    assert done == sorted(done)  # the bar never goes back
    # Both were compiled by the compiling processes (marked there, on disk), none here.
    assert nothing_compiled == []
    assert compiled("follow") and compiled("saved-forward")


def hold_a_temporary(folder: str, ready) -> None:
    """A compiling process killed mid-write, as far as the files go: a numba temporary file
    open, and a finished one."""
    import time

    (Path(folder) / "layer._values-1.py311.nbi").write_bytes(b"a whole index")
    with open(Path(folder) / "layer._values-1.py311.nbi.tmp.0123456789abcdef", "wb") as f:
        f.write(b"half an index")
        f.flush()
        ready.send("writing")
        time.sleep(600)


def test_an_interrupted_wait_kills_the_compiling_processes(monkeypatch, tmp_path):
    """Whatever stops the waiting (Ctrl-C) kills the compiling processes at once and removes
    the temporary files they were writing, and only theirs; finished files stay."""
    import multiprocessing
    from multiprocessing import connection

    context = multiprocessing.get_context("spawn")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=hold_a_temporary, args=(str(tmp_path), writer), daemon=True)
    process.start()
    assert reader.poll(60) and reader.recv() == "writing"
    others = tmp_path / "another.nbi.tmp.fedcba9876543210"  # another program's, not open here
    others.write_bytes(b"")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(connection, "wait", interrupted)
    compilers = warmup._Compilers([])
    compilers.running = [(process, reader, ["values"])]
    with pytest.raises(KeyboardInterrupt), compilers:
        compilers.wait(lambda done: None)
    assert process.exitcode is not None  # killed, not left to finish
    assert sorted(p.name for p in tmp_path.iterdir()) == [others.name, "layer._values-1.py311.nbi"]


def test_a_helper_that_cannot_start_leaves_the_work_here(monkeypatch, nothing_compiled):
    import multiprocessing

    def no_processes(method=None):
        raise OSError("no processes here")

    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    monkeypatch.setattr(multiprocessing, "get_context", no_processes)
    report = Recorder()
    warmup.ensure_compiled(("play", "saved-moments"), report)
    assert sorted(nothing_compiled) == ["play", "saved-moments"]
    assert report.steps[-1] == (2, 2)


def test_a_game_with_saved_rolls_compiles_only_its_own_drivers(monkeypatch, nothing_compiled):
    """The drivers of games with saved rolls are kernels of their own (most of a driver's
    compile time is their stages): each kind of work asks for its `saved-` twin there, and a
    game without saved rolls never asks for one."""
    from yz.solver import Model

    plain = Model("official-free-joker", use_cache=False)
    saved = Model("yatzy-saved-rolls", use_cache=False)
    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(warmup, "ensure_compiled", lambda families, report: asked.append(families))
    plain.ensure_compiled("solve-sd")
    saved.ensure_compiled("solve-sd")
    saved.ensure_compiled("distribution")
    assert asked == [("decisions",), ("saved-decisions",), ("saved-follow", "saved-forward")]
    assert plain.budget.compile_seconds("solve") < \
        saved.budget.compile_seconds("solve", "distribution")
    for work in warmup.WORK_FAMILIES:
        assert all(f in warmup.FAMILIES for f in warmup.work_families(work, saved.layout))


def test_a_family_that_compiles_more_is_not_compiled_yet(monkeypatch, tmp_path):
    """The markers of compiled families depend on what warm-up compiles for each (its own
    source), not only on the kernels: a family given one more specialisation of unchanged
    kernels (as play to win's one-payload sweep was) compiles, and says so, again."""
    from yz.solver import kernel_cache

    monkeypatch.setattr(kernel_cache, "KERNEL_CACHE_DIR", tmp_path)
    kernel_cache.mark_compiled("versus")
    assert kernel_cache.compiled("versus")
    monkeypatch.setattr(kernel_cache, "_families_hash", lambda: "another")
    assert not kernel_cache.compiled("versus")
