"""How the library tells a front end what it is doing: notes and progress, nothing drawn.

A `Reporter` receives what a person waiting wants to know: a note ("compiling the solver's
kernels, once per installation, about 15 s"; "a damaged cache file was recomputed") and the
progress of each long stage. The command line draws them as notes and progress bars on
standard error, the web page as its status, a notebook not at all (`SILENT`). The library
decides what to say and when; the front end decides how it looks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

Step = Callable[[int, int], None]  # (done, total): called as a stage advances


class Reporter:
    """Says nothing: the base of every reporter, and what the library uses by default."""

    def note(self, message: str) -> None:
        """A sentence for the person waiting (no flags, no markup)."""

    @contextlib.contextmanager
    def stage(self, label: str, unit: str) -> Iterator[Step]:
        """A long stage ("solving official-free-joker", counted in "states"): yields the
        function to call with (done, total) as it advances."""
        yield lambda done, total: None


SILENT = Reporter()
