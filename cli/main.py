"""The `yz` command: every command module registers on the app (`cli.app`), and `run` is the
entry point that turns errors into exit codes.

Each command resolves its inputs, calls the rule set's model (`yz.solver.Model`) and renders
the result (`cli.render`); the modules: `rules_cmds` (variants, rules, score), `solve_cmds`
(solve, advise, compare, simulate, distribution, duel, target), `play_cmd` (play, serve),
`sweep_cmd` (sweep), `cache_cmds` (cache, warmup).
"""

from __future__ import annotations

import sys

import typer

from . import cache_cmds, play_cmd, rules_cmds, solve_cmds, sweep_cmd  # noqa: F401 (commands)
from .app import app

__all__ = ["app", "run"]

# The order `yz --help` lists the commands in: looking at rules, solving, playing, upkeep.
ORDER = ("variants", "score", "advise", "solve", "compare", "simulate", "distribution", "duel",
         "target", "play", "serve", "sweep", "warmup")
app.registered_commands.sort(key=lambda c: ORDER.index(c.name) if c.name in ORDER else 99)


# ---------------------------------------------------------------- entry point

# typer vendors click (0.26+) or depends on it (older): reach its exception classes through
# the public typer.BadParameter rather than importing either.
_CLICK_ERRORS = {cls.__name__: cls for cls in typer.BadParameter.__mro__}
UsageError = _CLICK_ERRORS["UsageError"]
ClickException = _CLICK_ERRORS["ClickException"]


def usage_error_text(exc) -> str:
    """An option-parser error as one paragraph, in the style of every other error."""
    message = exc.format_message().strip().replace("\n", " ")
    message = message[:1].lower() + message[1:]
    if not message.endswith((".", "?")):
        message += "."
    if getattr(exc, "ctx", None) is None:  # the parser did not say which command
        return f"error: {message} See 'yz COMMAND --help'."
    path = exc.ctx.command_path
    return f"error: {path}: {message} See '{path} --help'."


def run(args: list[str] | None = None) -> int:
    """Console-script entry point: the exit code (2 for bad input, 130 when interrupted)."""
    try:
        code = app(args=args, prog_name="yz", standalone_mode=False)
    except UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `yz` or `yz rules`: the help
            typer.echo(exc.format_message(), err=True)
        else:
            typer.echo(usage_error_text(exc), err=True)
        return exc.exit_code
    except ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except (KeyboardInterrupt, typer.Abort):
        code = 130
    if code == 130:  # typer turns Ctrl-C into exit code 130
        typer.echo("interrupted", err=True)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(run())
