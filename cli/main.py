"""The `yz` command: every command module registers on the app (`cli.app`), and `run` is the
entry point that turns errors into exit codes.

Each command resolves its inputs, calls the rule set's model (`yz.solver.Model`) and renders
the result (`cli.render`); the modules: `rules_cmds` (variants, rules, score), `solve_cmds`
(solve, advise, compare, simulate, distribution, duel, target), `play_cmd` (play, serve),
`sweep_cmd` (sweep), `cache_cmds` (cache, warmup).
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import sys
from typing import TextIO

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


class OutputFailed(Exception):
    """Writing to standard output failed (a full disk, a closed pipe)."""


class _GuardedOutput:
    """Standard output whose write errors are `OutputFailed`, told apart from every other
    OSError; everything else is the real stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputFailed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputFailed(exc) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _retrying(stream: TextIO) -> TextIO:
    """Standard output that writes all it is given or fails. Unbuffered (`PYTHONUNBUFFERED`,
    `python -u`, usual in containers), Python's text stream hands each write to the file as
    is, and when the file takes only part of it (a pipe whose reader leaves midway) drops the
    rest without an error: `yz rules table maxi-yatzy | head -1` then ended 0 with its output
    cut. A buffered writer in between retries a partial write, so the rest fails as it should
    (exit 141 there); flushed at each line, as unbuffered output is seen."""
    raw = getattr(stream, "buffer", None)
    if type(raw) is not io.FileIO:  # (buffered already; or a console's own raw stream)
        return stream
    own = io.FileIO(raw.fileno(), "w", closefd=False)  # (dropping it never closes the fd)
    return io.TextIOWrapper(io.BufferedWriter(own), encoding=stream.encoding,
                            errors=stream.errors, line_buffering=True)


def _drop_output() -> None:
    """Point standard output at /dev/null: the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())


def run(args: list[str] | None = None) -> int:
    """Console-script entry point: the exit code (2 for bad input or output that cannot be
    written, 130 when interrupted, 141 quietly when the reader of a pipe has gone)."""
    real_stdout = sys.stdout
    if real_stdout is None:  # (`yz variants >&-`: no standard output at all)
        if sys.stderr is not None:
            typer.echo("error: could not write the output: standard output is closed.",
                       err=True)
        return 2
    sys.stdout = _GuardedOutput(_retrying(real_stdout))
    try:
        return _run(args)
    except OutputFailed as failed:
        exc = failed.args[0]
        _drop_output()
        if isinstance(exc, BrokenPipeError):  # `yz variants | head -1`: as Unix tools do
            return 141
        with contextlib.suppress(OSError):
            typer.echo(f"error: could not write the output: {exc.strerror or exc}.", err=True)
        return 2
    finally:
        with contextlib.suppress(OutputFailed, OSError, ValueError):
            sys.stdout.flush()  # (a line an error or Ctrl-C cut short: written now)
        sys.stdout = real_stdout


def app_for(args: list[str]):
    """The app to parse `args` with: for one top-level command named before any option, an
    app holding just that command (typer reads every command's signature to build the
    parser, a sixth of a cached `yz solve`'s time), else the whole app. Both parse the
    command's arguments, say its errors and print its help alike."""
    name = args[0] if args else None
    only = [c for c in app.registered_commands if name is not None and c.name == name]
    if len(only) != 1:
        return app
    one = copy.copy(app)
    one.registered_commands = only
    one.registered_groups = []
    return one


def _run(args: list[str] | None) -> int:
    args = sys.argv[1:] if args is None else list(args)
    try:
        code = app_for(args)(args=args, prog_name="yz", standalone_mode=False)
        sys.stdout.flush()
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
