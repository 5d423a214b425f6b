"""Compiling on a fresh installation: two groups of kernel families at once, honestly
announced, and a helper process that cannot start never leaves a family uncompiled.

The kernels are compiled already when these run (the suite's other tests compile them), so
"compiling" here loads them from numba's cache: the test is of the orchestration, in real
processes, not of numba."""

from __future__ import annotations

import contextlib

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
    assert set(there) == set(warmup.DECISION_GROUP) and not set(here) & set(there)
    assert warmup._groups(["values"]) == (["values"], [])  # one family: no second process
    monkeypatch.setattr(warmup, "_cores", lambda: 1)
    assert warmup._groups(list(warmup.FAMILIES)) == (list(warmup.FAMILIES), [])


def test_two_groups_compile_at_once_with_progress(monkeypatch, nothing_compiled):
    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    report = Recorder()
    warmup.ensure_compiled(("forward", "follow"), report)
    assert len(report.notes) == 1 and "forward, follow" in report.notes[0]
    assert report.steps[-1] == (2, 2)
    done = [d for d, _ in report.steps]
    assert done == sorted(done)  # the bar never goes back
    # "forward" was compiled here; "follow" by the helper process (marked there, on disk).
    assert nothing_compiled == ["forward"]
    assert warmup.missing(("forward",)) == []


def test_a_helper_that_cannot_start_leaves_the_work_here(monkeypatch, nothing_compiled):
    import multiprocessing

    def no_processes(method=None):
        raise OSError("no processes here")

    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    monkeypatch.setattr(multiprocessing, "get_context", no_processes)
    report = Recorder()
    warmup.ensure_compiled(("play", "moments"), report)
    assert sorted(nothing_compiled) == ["moments", "play"]
    assert report.steps[-1] == (2, 2)
