"""The one exception type the library raises for bad input; only the CLI turns it into exit 2."""

from __future__ import annotations


class YzError(Exception):
    """A problem with the user's input (a rule file, dice, a position), explained in one paragraph.

    The message is meant to be printed as it is: it names the file or field and says what is
    allowed, so the caller never needs a traceback to act on it. `param` names the library
    parameter at fault (e.g. "games"), so a front end can speak of its own name for it (a CLI
    flag).
    """

    def __init__(self, message: str, param: str | None = None,
                 problems: list[str] | None = None, reason: str | None = None):
        super().__init__(message)
        self.param = param
        # Each problem on its own, where the message lists several (a rule file's, each with
        # its file:line:col), for a front end that shows them apart.
        self.problems = problems
        # What is refused and why, without the library's way out that the message ends with
        # (a front end that has its own way out says it instead).
        self.reason = message if reason is None else reason


class RulesError(YzError):
    """A rule file or rule name that cannot be loaded, resolved or validated."""


class InputError(YzError):
    """Dice, a category key or a position that does not fit the rule set."""


class SolverError(YzError):
    """yz caught itself computing something impossible (a bug, never the user's input): the
    message names the rule set and the state, so the rule file can be reported."""


class WorkTooLong(InputError):
    """A piece of work estimated to take longer than the budget, refused before it starts
    (`yz.solver.budget`)."""

    def __init__(self, what: str, seconds: float, budget: float, why: str,
                 at_least: bool = False):
        """`at_least`: `seconds` is a lower bound (refused at once, before any measuring)."""
        self.what, self.seconds, self.budget = what, seconds, budget
        self.hint = ""  # another way to go ahead, added by a front end that has one
        shown, cap = duration(seconds), duration(budget)
        if shown == cap:  # just over the budget: a finer figure, or it reads as "10 > 10"
            shown, cap = duration(seconds, finer=True), duration(budget, finer=True)
        self.estimate = (f"{what} would take {'at least' if at_least else 'about'} {shown} on "
                         f"this machine (estimated {why}), more than the budget of {cap}")
        super().__init__(f"{self.estimate}; give a larger budget (max_seconds, or None for "
                         "none) to go ahead.", param="max_seconds")


def duration(seconds: float, finer: bool = False) -> str:
    """Seconds in words a person reads at a glance: '40 s', '23 minutes', '18.2 hours'
    (`finer`: one more decimal, '10.1 minutes')."""
    if seconds < 90:
        return f"{seconds:.{1 if finer else 0}f} s"
    if seconds < 5400:
        return f"{seconds / 60:.{1 if finer else 0}f} minutes"
    return f"{seconds / 3600:.{2 if finer else 1}f} hours"
