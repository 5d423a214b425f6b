"""What every `yz` command shares: the typer apps, the options that mean the same thing
everywhere, error handling and the model of a rule set with the terminal's reporter.

Library errors (`YzError`) become one paragraph on stderr and exit code 2; nothing here
decides anything about the game.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated

import typer
from yz.rules import YzError

from .report import TerminalReporter

HELP = "Rules-variant engine and exact solver for Yahtzee-family dice games."
# Plain help (no rich markup): `[default: ...]` and other brackets are shown as written, flags
# carry no `<bool>` type, and the text wraps to the terminal like any other command's.
SETTINGS = {"help_option_names": ["-h", "--help"]}


def _plain_arguments() -> None:
    """Show positional arguments as click does (`A`, `[DICE]...`): typer 0.29 prints them as
    `A <str>` and `{A}` even when they have a metavar. Only the help text changes."""
    from typer.core import TyperArgument

    if not hasattr(TyperArgument, "_usage_display_name"):  # another typer: leave it be
        return

    def usage_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    TyperArgument.display_type_rich = lambda self, ctx: None
    TyperArgument._usage_display_name = usage_name


_plain_arguments()
app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode=None, context_settings=SETTINGS, help=HELP)
rules_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=SETTINGS,
                        help="Inspect and check rule sets.")
cache_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=SETTINGS,
                        help="The cache of solved strategies.")
app.add_typer(rules_app, name="rules")
app.add_typer(cache_app, name="cache")

VariantOpt = Annotated[str, typer.Option(
    "--variant", "-v", metavar="VARIANT",
    help="A built-in variant name, example:NAME or a YAML rule file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
# Options that mean the same thing in `score` and `advise`.
CardVariantOpt = Annotated[str | None, typer.Option(
    "--variant", "-v", metavar="VARIANT", help="A built-in variant name or a YAML rule file "
    "[default: the scorecard's, else official-free-joker].")]
FilledOpt = Annotated[str | None, typer.Option(
    "--filled", metavar="BOXES",
    help="Boxes already filled with their scores, e.g. 'ones=3,yahtzee=50'.")]
UpperTotalOpt = Annotated[int | None, typer.Option(
    "--upper-total", metavar="N", help="Upper-section total so far, instead of each upper score.")]
CardOpt = Annotated[str | None, typer.Option(
    "--card", metavar="FILE", help="A scorecard file (YAML or JSON; - for standard input) with "
    "variant, filled, upper_total, bonus_points, dice, rolls_left, saved_rolls; options given "
    "here override it. A relative variant path is read from the card's folder.")]

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Solve afresh; neither read nor "
                                          "write the cache.")]

def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"yz {version('yz')}")
        except PackageNotFoundError:
            typer.echo("yz (not installed: no version recorded)")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the installed version and exit.")] = False) -> None:
    pass


# The library names its parameters (an error about `games` starts "games: "); the CLI says
# which option that is.
FLAGS = {"games": "--games", "seed": "--seed", "strategy": "--strategy",
         "strategy_a": "--strategy-a", "strategy_b": "--strategy-b",
         "category": "--category", "dice": "--dice", "rolls_left": "--rolls-left",
         "threads": "--threads", "bonus_points": "--bonus-points", "target": "--target",
         "max_target": "--max-target", "upper_total": "--upper-total",
         "max_memory": "--max-memory", "port": "--port", "host": "--host",
         "store": "--store", "scheduler": "--scheduler", "workers": "--workers",
         "saved_rolls": "--saved-rolls", "targets": "--targets", "checkpoint": "--checkpoint"}


def error_text(exc: YzError) -> str:
    """The library's message, speaking of the option the user typed where there is one."""
    from yz.rules import WorkTooLong

    if isinstance(exc, WorkTooLong):
        return f"error: {exc.estimate}; run it again with --yes to go ahead{exc.hint}."
    message = str(exc)
    param = getattr(exc, "param", None)
    label = f"{param.replace('_', ' ')}: " if param else None
    if label and param in FLAGS and message.startswith(label):
        message = f"{FLAGS[param]}: {message[len(label):]}"
    return f"error: {message}"


def handles_errors(func):
    """Turn a YzError into a one-paragraph message on stderr and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except YzError as exc:
            typer.echo(error_text(exc), err=True)
            _estimate_as_json(exc, kwargs.get("as_json"))
            raise typer.Exit(2) from None

    return wrapper


def _estimate_as_json(exc: YzError, as_json: bool | None) -> None:
    """With --json, work refused for its estimated time is also an object on standard
    output: what, the estimate and the budget, in seconds (a script decides on --yes)."""
    from yz.rules import WorkTooLong

    if as_json and isinstance(exc, WorkTooLong):
        typer.echo(json.dumps({"error": error_text(exc)[len("error: "):], "refused": exc.what,
                               "estimate_seconds": round(exc.seconds, 1),
                               "budget_seconds": exc.budget}))


def note(text: str) -> None:
    typer.echo(f"note: {text}", err=True)


def parse_size(text: str | None) -> int | None:
    """Bytes from '2G', '512M', '1.5GiB', '300k' or a plain number of bytes."""
    import re

    from yz.rules import InputError

    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not m or float(m.group(1)) <= 0:
        raise InputError(f"--max-memory: '{text}' is not a size; give e.g. 2G, 512M or a number "
                         "of bytes.")
    scale = 1 << (10 * " kmgt".index(m.group(2) or " "))
    return int(float(m.group(1)) * scale)


def model_for(rules, quiet: bool = False, as_json: bool = False, use_cache: bool = True,
              max_memory: int | None = None, threads: int | None = None, yes: bool = False):
    """The model of a rule set (a name, a file or rules), reporting to the terminal: notes on
    standard error, progress bars unless quiet or JSON. Without `yes`, work estimated to take
    longer than ten minutes is refused before it starts."""
    from yz.solver import Model
    from yz.solver.budget import LONG_WORK_SECONDS

    reporter = TerminalReporter(bars=not quiet and not as_json, notes=not quiet or as_json)
    return Model(rules, use_cache=use_cache, max_memory=max_memory, threads=threads,
                 max_seconds=None if yes else LONG_WORK_SECONDS, report=reporter)


YesOpt = Annotated[bool, typer.Option(
    "--yes", "-y", help="Go ahead with work estimated to take longer than ten minutes (it is "
    "refused otherwise, with the estimate).")]


StrategyOpt = Annotated[str, typer.Option(
    "--strategy", "-s", metavar="NAME", help="optimal, greedy or heuristic.")]


def emit_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=2))


def read_card(card: str | None):
    """The scorecard named by --card, or an empty one."""
    from yz.rules.position import Scorecard, load_scorecard

    return load_scorecard(card) if card else Scorecard()


