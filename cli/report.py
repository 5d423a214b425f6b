"""The terminal's `Reporter`: the library's notes on standard error and its stages as progress
bars (only when standard error is a terminal, never with --json or --quiet)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import typer
from yz.solver import Reporter

from . import render

# Without a bar, a stage expected to run longer than this says so once, with the time left.
SAY_TIME_LEFT = 30.0


class TerminalReporter(Reporter):
    """Notes as `note: ...` lines; stages as transient progress bars."""

    def __init__(self, bars: bool = True, notes: bool = True):
        self.bars = bars
        self.notes = notes

    def note(self, message: str) -> None:
        if self.notes:
            typer.echo(f"note: {message}", err=True)

    @contextlib.contextmanager
    def stage(self, label: str, unit: str) -> Iterator:
        began = time.perf_counter()
        told = False

        with render.progress(label, enabled=self.bars, unit=unit) as bar:
            def step(done: int, total: int) -> None:
                nonlocal told
                if bar is not None:
                    bar(done, total)
                elapsed = time.perf_counter() - began
                left = elapsed * (total - done) / max(done, 1)
                known = elapsed > 2 and done >= total / 50  # early rates mislead
                if bar is None and known and not told and self.notes and \
                        left > SAY_TIME_LEFT and done < total:
                    told = True
                    self.note(f"{label}: about {left / 60:.0f} min left (Ctrl-C stops)")

            yield step
