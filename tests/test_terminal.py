"""Every command that draws rich output, a progress bar or help, run in a real pseudo-terminal.

A pipe (the CLI runner, CI logs) hides the progress bars: they are drawn only when stderr is a
terminal. Here each command runs as a separate process whose stdin, stdout and stderr are the
slave side of a pty with its window size set (and COLUMNS), at 80 and at 200 columns: it must
exit 0, print no traceback and show the figure it exists for. Each process has a hard timeout,
so a hung command fails the test instead of hanging CI; nothing here needs a terminal of its own.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

WIDTHS = (80, 200)
# The commands' output at the narrow width in every run; the wide terminal, where nothing
# wraps, under `pytest -m slow` (the progress bars and errors are drawn at both in every run).
NARROW_NOW = [80, pytest.param(200, marks=pytest.mark.slow)]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>()][0-9A-B]?")


def yz_command() -> list[str]:
    """The installed `yz` script beside this Python, else the module (same code either way)."""
    script = Path(sys.executable).with_name("yz")
    if script.exists():
        return [str(script)]
    found = shutil.which("yz")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return [found]
    return [sys.executable, "-m", "yz.cli.main"]


def default_sigint() -> None:
    """For a child that will get Ctrl-C: a CI runner may start the tests with SIGINT ignored
    (a background job of a shell ignores it), and a child inherits that; Python installs its
    own handler only over the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Run:
    def __init__(self, code: int, raw: str, pid: int = 0):
        self.code = code
        self.raw = raw
        self.pid = pid  # (and its process group's id)
        # What a person would read: escape sequences dropped, carriage returns as new lines.
        self.text = ANSI.sub("", raw).replace("\r\n", "\n").replace("\r", "\n")

    @property
    def flat(self) -> str:
        """The text with its wrapping undone: whitespace runs (line ends included) as one
        space, and words that wrapping split at a hyphen joined again."""
        return re.sub(r"-\s+(?=\w)", "-", re.sub(r"\s+", " ", self.text))

    def __repr__(self) -> str:
        return f"exit {self.code}\n{self.text[-3000:]}"


def run_in_pty(args: list[str], columns: int, timeout: float = 120.0, *,
               interrupt_when: str | None = None, interrupt_after: float = 0.0,
               env: dict | None = None) -> Run:
    """Run `yz ARGS` on a pty `columns` wide; with `interrupt_when`, send SIGINT to its
    process group, as a terminal's Ctrl-C does, `interrupt_after` seconds after that text has
    appeared. The test's environment (its own YZ_CACHE_DIR), with `env`, is passed on."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {**os.environ, **(env or {}), "COLUMNS": str(columns), "LINES": "40",
           "TERM": "xterm-256color"}
    for name in ("NO_COLOR", "FORCE_COLOR", "TERMINAL_WIDTH", "PY_COLORS"):
        env.pop(name, None)
    proc = subprocess.Popen([*yz_command(), *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True, start_new_session=True,
                            preexec_fn=default_sigint)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    sent = interrupt_when is None
    seen_at = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"yz {' '.join(args)} still running after {timeout} s:\n"
                                     + ANSI.sub("", out.decode(errors="replace"))[-2000:])
            ready, _, _ = select.select([master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError as exc:  # Linux: EIO once the child has closed the pty
                    if exc.errno != errno.EIO:
                        raise
                    chunk = b""
                if not chunk:
                    break
                out += chunk
            if not sent and seen_at is None and \
                    interrupt_when in ANSI.sub("", out.decode(errors="replace")):
                seen_at = time.monotonic()
            if not sent and seen_at is not None and time.monotonic() >= seen_at + interrupt_after:
                os.killpg(proc.pid, signal.SIGINT)
                sent = True
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Run(code, out.decode(errors="replace"), proc.pid)


def check(run: Run, *expected: str) -> None:
    assert run.code == 0, run
    assert "Traceback" not in run.text, run
    for text in expected:
        assert text in run.text, f"{text!r} missing:\n{run!r}"


# ---------------------------------------------------------------- commands with output


@pytest.mark.parametrize("width", WIDTHS)
def test_solve_draws_its_progress_bar(width):
    # A fresh cache: the table is solved, so the bar (total unknown, then layers) is drawn.
    run = run_in_pty(["solve", "--variant", "no-bonus"], width)
    check(run, "no-bonus: expected score 229.6385")
    assert "solving no-bonus" in run.text, run  # the bar was drawn, then cleared


@pytest.mark.share_cache  # the first width solves, the second reads what it wrote
@pytest.mark.parametrize("width", NARROW_NOW)
def test_compare_draws_a_bar_per_rule_set(width):
    run = run_in_pty(["compare", "no-bonus", "crag"], width)  # (two quick games)
    check(run, "229.6385", "149.8476", "vs first")


@pytest.mark.parametrize("width", WIDTHS)
def test_simulate_draws_solve_and_game_bars(width):
    run = run_in_pty(["simulate", "--variant", "no-bonus", "--games", "2000", "--seed", "3"],
                     width)
    check(run, "2,000 games (seed 3)", "229.6385", "percentiles:")
    bars = [line for line in run.text.splitlines() if line.startswith(("solving", "playing"))]
    assert bars and all(len(line) <= width for line in bars), run  # one line each, in width
    assert all(len(line) <= width for line in run.text.splitlines()), run  # (the text too)
    # Once the total is known: the count and the time left (the last frame, before clearing).
    assert any(re.search(r"2,000/2,000 games .*left", line) for line in bars), run


@pytest.mark.parametrize("width", NARROW_NOW)
@pytest.mark.parametrize("args, expected", [
    (["variants"], ["official-free-joker", "yatzy", "gist"]),
    (["rules", "show", "yatzy"], ["one_pair", "upper bonus:   50"]),
    (["rules", "table", "gist"], ["6 6 6 6 6", "small_straight"]),
    (["score", "33333", "--filled", "yahtzee=50,threes=15"], ["Large Straight", "+100 Yahtzee"]),
    (["advise", "--variant", "no-bonus", "--dice", "1,1,2,3,6"], ["best: keep"]),
    (["cache", "list"], ["no files of yz"]),
    (["rules", "validate", "example:house-rules"], ["valid rule set 'house-70-50'"]),
    # The solving commands share the module's cache: the first width computes and the
    # second reads what it wrote, so both paths draw in the terminal.
    pytest.param(["distribution", "--variant", "no-bonus"],
                 ["percentiles:", "229.6385", "P(score >= x)"], marks=pytest.mark.share_cache),
    pytest.param(["duel", "no-bonus", "crag"], ["draw", "no-bonus (optimal)", "crag (optimal)"],
                 marks=pytest.mark.share_cache),
    pytest.param(["target", "--variant", "no-bonus", "--max-target", "300", "--targets",
                  "200,250"], ["target play", "mean play"], marks=pytest.mark.share_cache),
    pytest.param(["advise", "--variant", "no-bonus", "--dice", "1,1,2,3,6", "--target", "250"],
                 ["chance of 250 or more"], marks=pytest.mark.share_cache),
], ids=["variants", "rules-show", "rules-table", "score", "advise", "cache-list", "validate",
        "distribution", "duel", "target", "advise-target"])
def test_command_output(width, args, expected):
    """Each command's text in a terminal: what it should say, and every line in the
    terminal's width (tables give way in their widest column, sentences wrap), but for a
    score table, which is as wide as the card, and a path on a line of its own."""
    run = run_in_pty(args, width)
    check(run, *expected)
    if args[:2] != ["rules", "table"]:  # (a path longer than the terminal is left whole)
        wide = [line for line in run.text.splitlines()
                if len(line) > width and len(line.split()) > 1]
        assert not wide, f"wider than {width}: {wide}\n{run!r}"


# ---------------------------------------------------------------- help pages

HELP_PAGES = [[], ["variants"], ["score"], ["advise"], ["solve"], ["compare"], ["simulate"],
              ["distribution"], ["duel"], ["target"],
              ["rules"], ["rules", "show"], ["rules", "validate"], ["rules", "table"],
              ["rules", "schema"], ["cache"], ["cache", "list"], ["cache", "clear"]]


def help_pages(width: int) -> dict[str, Run]:
    with ThreadPoolExecutor(4) as pool:
        runs = pool.map(lambda page: run_in_pty([*page, "--help"], width, timeout=60),
                        HELP_PAGES)
        return {" ".join(["yz", *page]): run for page, run in zip(HELP_PAGES, runs, strict=True)}


# Every help page in a terminal is a process each (about 7 s a width): the narrow terminal,
# where pages wrap, in every run; the wide one under `pytest -m slow`.
@pytest.mark.parametrize("width", NARROW_NOW)
def test_help_pages(width):
    pages = help_pages(width)
    for name, run in pages.items():
        check(run, f"Usage: {name} ")
        assert "<bool>" not in run.text, f"a flag shows a <bool> metavar:\n{run!r}"
        assert "╭" not in run.text and "│" not in run.text, run  # plain text, no rich box
        assert max(map(len, run.text.splitlines())) <= width, run
        if name in ("yz", "yz rules", "yz cache"):
            # One line per command, with its whole first sentence: no hard break, no "...".
            listing = run.text.split("Commands:\n", 1)[1].rstrip().splitlines()
            assert all(re.fullmatch(r"  [a-z]+ +[A-Z].*[^.]\.", line) for line in listing), run
        # Arguments read as click writes them: no type tags, no braces.
        assert not re.search(r"<(str|int|list\[str\])>|\{[A-Z]+\}", run.text), run
    # Defaults are shown, typer's and those written into the help text alike.
    assert "[default: official-free-joker]" in pages["yz solve"].flat
    assert "[default: 100000]" in pages["yz simulate"].flat
    assert "[default: the scorecard's, else official-free-joker]" in pages["yz advise"].flat
    assert "[default: all but the first, and the saved rolls]" in pages["yz advise"].flat
    assert "[default: the scorecard's, else official-free-joker]" in pages["yz score"].flat
    assert "-h, --help" in pages["yz"].text and "--version" in pages["yz"].text


# ---------------------------------------------------------------- errors and Ctrl-C


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", [
    ["score", "12345", "--filled", "onez=3,twos=6,threes=9,fours=12,fives=15,sixes=18"],
    ["simulate", "--games", "lots"],
    ["solve", "--bogus-option-with-a-long-name"],
], ids=["library-error", "bad-int", "unknown-option"])
def test_errors_are_one_paragraph(width, args):
    run = run_in_pty(args, width, timeout=60)
    assert run.code == 2, run
    lines = [line for line in run.text.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), run
    assert "Traceback" not in run.text and "╭" not in run.text, run


def test_ctrl_c_prints_interrupted_and_exits_130():
    run = run_in_pty(["simulate", "--variant", "no-bonus", "-n", "3000000", "--no-exact"], 80,
                     interrupt_when="playing 3,000,000 games")
    assert run.code == 130, run
    assert run.text.rstrip().endswith("interrupted"), run
    assert "Traceback" not in run.text and "KeyboardInterrupt" not in run.text, run


# ---------------------------------------------------------------- the bar's columns


def test_progress_columns_render_with_and_without_total():
    from rich.console import Console
    from rich.progress import Progress
    from yz.cli import report

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    bar = Progress(*report.progress_columns("games"), console=console, auto_refresh=False)
    task = bar.add_task("playing", total=None)
    console.print(bar.make_tasks_table(bar.tasks))  # the crash: '{task.total:,}' on None
    bar.update(task, completed=250, total=1000)
    console.print(bar.make_tasks_table(bar.tasks))
    first, second = buf.getvalue().splitlines()[:2]
    assert "playing" in first and "None" not in first
    assert "250/1,000 games" in second and "left" in second  # a total brings the time left
