"""The terminal's `Reporter`: the library's notes on standard error and its stages as progress
bars (only when standard error is a terminal, never with --json or --quiet), drawn with rich."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

import typer
from yz.solver import Reporter

# Without a bar, a stage expected to run longer than this says so, with the time left, and again
# whenever it runs this much past the time it said.
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
        due: float | None = None  # when the time left last said runs out
        said = (0.0, 0)  # when it was said, and the count then
        base: int | None = None  # the first count given: a resumed solve's work already done

        with progress(label, enabled=self.bars, unit=unit) as bar:
            def step(done: int, total: int) -> None:
                nonlocal due, base, began, said
                now = time.perf_counter()
                if base is None:
                    base, began = done, now
                if bar is not None:
                    bar(done, total)
                elapsed = now - began
                left = elapsed * (total - done) / max(done - base, 1)
                known = elapsed > 2 and done - base >= (total - base) / 50  # early rates mislead
                if bar is not None or not known or not self.notes or done >= total or \
                        left <= SAY_TIME_LEFT:
                    return
                if due is None:
                    self.note(f"{label}: about {left / 60:.0f} min left (Ctrl-C stops)")
                elif now > due + SAY_TIME_LEFT:  # (work that costs more than the rate so far)
                    # at the rate since it was said: later work may cost more than earlier
                    left = max(left, (now - said[0]) * (total - done) / max(done - said[1], 1))
                    self.note(f"{label}: slower than said; now about {left / 60:.0f} min left")
                else:
                    return
                due, said = now + left, (now, done)

            yield step


def progress_columns(unit: str) -> list:
    """The columns of a progress bar: label, bar, count, time left (once the total is known),
    time elapsed. Every column renders whether or not the total is known yet; the text columns
    never wrap, the bar takes the width that is left."""
    from rich.progress import (
        BarColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Column
    from rich.text import Text

    class CountColumn(ProgressColumn):
        """'done/total unit', or 'done unit' while the total is unknown."""

        def render(self, task) -> Text:
            done = f"{task.completed:,.0f}"
            if task.total is None:
                return Text(f"{done} {unit}" if task.completed else "", style="progress.download")
            return Text(f"{done}/{task.total:,.0f} {unit}", style="progress.download")

    class LeftColumn(TimeRemainingColumn):
        """rich's time-remaining column, blank while the total is unknown."""

        def render(self, task) -> Text:
            if task.total is None:
                return Text("")
            return Text.assemble(super().render(task), " left")

    def fixed() -> Column:
        return Column(no_wrap=True)

    return [TextColumn("{task.description}", table_column=fixed()),
            BarColumn(bar_width=None, table_column=Column(ratio=1)),
            CountColumn(table_column=fixed()), LeftColumn(compact=True, table_column=fixed()),
            TimeElapsedColumn(table_column=fixed())]


@contextlib.contextmanager
def progress(label: str, enabled: bool = True,
             unit: str = "layers") -> Iterator[Callable[..., None] | None]:
    """A transient progress bar on stderr while working, only when stderr is a terminal.

    Yields `step(done, total=None)`: the bar pulses until a total is given, then shows the count
    and an estimate of the time left. It is one line, at most 100 columns wide.
    """
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    console.width = min(console.width, 100)  # a wide terminal gets a bar, not a runway
    bar = Progress(*progress_columns(unit), console=console, transient=True, expand=True)
    with bar:
        task = bar.add_task(label, total=None)
        first = True

        def step(done: int, total: int | None = None) -> None:
            nonlocal first
            if first and done:  # a resumed solve: the time left counts from what it does now
                bar.reset(task, total=total, completed=done)
            else:
                bar.update(task, completed=done, total=total)
            first = False

        yield step
