"""Hostile rule files and scorecards: refused fast, with bounded memory, in one paragraph.

Each case goes through the library (RulesError for rules, InputError for cards) and through
the CLI in a subprocess with a timeout, so a hang (a FIFO, /dev/zero) fails the test instead of
blocking the run.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from yz.rules import InputError, RulesError, load_rules, rules_from_text
from yz.rules.loader import MAX_INPUT_BYTES
from yz.rules.position import load_scorecard

BILLION_LAUGHS = "".join(
    ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n']
    + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10)])

HOSTILE_TEXT = {
    "billion_laughs": (BILLION_LAUGHS, r"anchors \(&name\) and aliases"),
    "self_alias": ("a: &a [*a]\n", r":1:4: YAML anchors"),
    "deep_yaml": ("[" * 100_000, r"nested more than \d+ deep"),
    "deep_json": ('{"filled": ' + "[" * 100_000 + "]" * 100_000 + "}", r"nested more than"),
    "huge_integer": ("dice: " + "9" * 10_000 + "\n", r"cannot be read"),
    "nul_bytes": ("name: x\x00\n", r"NUL bytes"),
}
BINARY = bytes(range(256)) * 8


def write_cases(tmp_path: Path) -> dict[str, Path]:
    """Every hostile file as a path (the FIFO included)."""
    paths = {}
    for case, (text, _) in HOSTILE_TEXT.items():
        paths[case] = tmp_path / f"{case}.yaml"
        paths[case].write_text(text, encoding="utf-8")
    paths["binary"] = tmp_path / "binary.yaml"
    paths["binary"].write_bytes(BINARY)
    paths["two_megabytes"] = tmp_path / "big.yaml"
    paths["two_megabytes"].write_text("# padding\n" * 200_000)
    paths["fifo"] = tmp_path / "fifo.yaml"
    os.mkfifo(paths["fifo"])
    paths["dev_zero"] = Path("/dev/zero")
    paths["folder"] = tmp_path
    return paths


EXPECTED = {**{case: pattern for case, (_, pattern) in HOSTILE_TEXT.items()},
            "binary": r"not UTF-8 text", "two_megabytes": r"larger than 1,000,000 bytes",
            "fifo": r"is not a regular file", "dev_zero": r"is not a regular file",
            "folder": r"folder"}
CASES = sorted(EXPECTED)
# Refusals are measured for speed by bench/bench_loader.py; here they must not hang (a guard
# that only a hang trips, whatever the load) and must not build what they refuse.
HANG_GUARD = 60  # seconds
MAX_REFUSAL_BYTES = 48 << 20  # Python memory allocated at the peak of one refusal


@contextlib.contextmanager
def bounded(max_bytes: int):
    """Fail when the block hangs or its peak of Python allocations exceeds `max_bytes`."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        yield
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - start < HANG_GUARD
    assert peak < max_bytes, f"{peak / 2**20:.1f} MiB at the peak"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")


@needs_fifo
@pytest.mark.parametrize("case", CASES)
def test_hostile_rule_file_is_refused_in_bounded_memory(tmp_path, case):
    path = write_cases(tmp_path)[case]
    with bounded(MAX_REFUSAL_BYTES), pytest.raises(RulesError, match=EXPECTED[case]) as info:
        load_rules(str(path))
    assert "\n\n" not in str(info.value)


@needs_fifo
@pytest.mark.parametrize("case", [c for c in CASES if c != "folder"])
def test_hostile_scorecard_is_refused_in_bounded_memory(tmp_path, case):
    path = write_cases(tmp_path)[case]
    with bounded(MAX_REFUSAL_BYTES), pytest.raises(InputError, match=EXPECTED[case]):
        load_scorecard(str(path))


def test_rule_text_with_an_alias_is_refused():
    with pytest.raises(RulesError, match=r"<text>:1:4: YAML anchors"):
        rules_from_text("a: &a [*a]\n")


def test_rule_text_with_a_lone_surrogate_names_its_place():
    # Only text from JSON (a web request) can carry one; the C parser cannot encode it.
    with pytest.raises(RulesError, match=r"^<web>:2:8: the character U\+D800 \(half of a "):
        rules_from_text("name: x\nrolls: \ud800\n", "<web>")


def test_a_legitimate_json_scorecard_still_loads(tmp_path):
    card = tmp_path / "card.json"
    card.write_text('{"variant": "yatzy", "filled": {"ones": 3}, "dice": [1, 2, 3, 4, 5]}')
    sc = load_scorecard(str(card))
    assert sc.variant == "yatzy" and sc.filled == {"ones": 3} and sc.dice == (1, 2, 3, 4, 5)
    assert sc.origin == str(card)


def test_scorecard_variant_path_is_read_from_the_cards_folder(tmp_path):
    (tmp_path / "rules").mkdir()
    card = tmp_path / "rules" / "card.yaml"
    card.write_text("variant: house.yaml\n")
    assert load_scorecard(str(card)).variant == str(tmp_path / "rules" / "house.yaml")
    for name in ("yatzy", "example:house-rules", "/abs/rules.yaml"):
        card.write_text(f"variant: '{name}'\n")
        assert load_scorecard(str(card)).variant == name


def test_scorecard_from_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("variant: yatzy\nfilled: [ones]\n"))
    sc = load_scorecard("-")
    assert sc.variant == "yatzy" and sc.filled == {"ones": None} and sc.origin == "<stdin>"


def test_scorecard_from_standard_input_is_bounded(monkeypatch):
    class Endless(io.TextIOBase):
        """A stdin that never ends: reading it all would never return."""

        def read(self, size=-1):
            assert 0 < size <= MAX_INPUT_BYTES + 1
            return "#" * size

    monkeypatch.setattr(sys, "stdin", Endless())
    with pytest.raises(InputError, match=r"<stdin>: the scorecard is larger"):
        load_scorecard("-")


# ---------------------------------------------------------------- through the CLI


def yz(*args: str, cache: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "YZ_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "yz.cli.main", *args], capture_output=True,
                          text=True, env=env, timeout=30, input=stdin, check=False)


def assert_one_paragraph_error(result: subprocess.CompletedProcess, pattern: str) -> None:
    import re

    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error:")
    assert "Traceback" not in result.stderr
    assert "\n\n" not in result.stderr.strip()
    assert re.search(pattern, result.stderr), result.stderr


@needs_fifo
@pytest.mark.parametrize("case", ["billion_laughs", "self_alias", "two_megabytes", "dev_zero",
                                  "fifo", "binary", "deep_yaml"])
def test_cli_refuses_hostile_rule_file(tmp_path, case):
    path = write_cases(tmp_path)[case]
    start = time.perf_counter()
    result = yz("rules", "validate", str(path), cache=tmp_path / "cache")
    assert time.perf_counter() - start < HANG_GUARD
    assert_one_paragraph_error(result, EXPECTED[case])


@needs_fifo
@pytest.mark.parametrize("case", ["billion_laughs", "self_alias", "two_megabytes", "dev_zero",
                                  "fifo", "binary", "deep_json"])
def test_cli_refuses_hostile_scorecard(tmp_path, case):
    path = write_cases(tmp_path)[case]
    result = yz("score", "--card", str(path), "11111", cache=tmp_path / "cache")
    assert_one_paragraph_error(result, EXPECTED[case])
