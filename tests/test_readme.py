"""The README's Python sessions (```pycon blocks) run as doctests: the documented API works as
shown, with the values shown."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SHARE_CACHE = True  # the blocks build on each other's solves


def pycon_blocks() -> list[tuple[int, str]]:
    """(line number, text) of every ```pycon block of the README."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```pycon\n(.*?)^```$", text, re.S | re.M)]


def test_the_readme_has_python_sessions():
    assert len(pycon_blocks()) >= 2


def test_the_readme_python_sessions_run_as_shown():
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict = {}  # one session: a later block uses the names of an earlier one
    for line, block in pycon_blocks():
        test = parser.get_doctest(block, namespace, f"README.md:{line}", str(README), line)
        runner.run(test, clear_globs=False)
        namespace = test.globs
    results = runner.summarize(verbose=False)
    if results.failed:
        pytest.fail(f"{results.failed} of {results.attempted} README examples failed "
                    "(the report above)")
