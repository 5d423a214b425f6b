"""The one exception type the library raises for bad input; only the CLI turns it into exit 2."""

from __future__ import annotations


class YzError(Exception):
    """A problem with the user's input (a rule file, dice, a position), explained in one paragraph.

    The message is meant to be printed as it is: it names the file or field and says what is
    allowed, so the caller never needs a traceback to act on it. `param` names the library
    parameter at fault (e.g. "games"), so a front end can speak of its own name for it (a CLI
    flag).
    """

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


class RulesError(YzError):
    """A rule file or rule name that cannot be loaded, resolved or validated."""


class InputError(YzError):
    """Dice, a category key or a position that does not fit the rule set."""


class SolverError(YzError):
    """yz caught itself computing something impossible (a bug, never the user's input): the
    message names the rule set and the state, so the rule file can be reported."""
