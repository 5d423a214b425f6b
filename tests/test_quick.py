"""A repeated plain `yz solve` answers from its memo (`yz.cli.quick`) without importing the
rule models or numpy, prints what the full command prints, and never answers from anything
that changed: the rule files (and what they extend), the value table, the memo, the code."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from yz.cli import quick
from yz.cli.solve_cmds import solve_cmd
from yz.rules.loader import looks_like_path
from yz.solver import cache

HANG_GUARD = 600  # a first solve of a tiny game compiles nothing (warm-up ran): seconds

# Run as the console script runs, and report whether the heavy packages were imported.
PROBE = ("import sys; from yz.cli.entry import main; sys.argv = ['yz', *sys.argv[1:]]; "
         "code = main(); sys.stderr.write('\\nIMPORTED ' + ' '.join(sorted(m for m in "
         "('numpy', 'pydantic', 'typer', 'numba') if m in sys.modules))); sys.exit(code)")

TINY = """\
name: {name}
dice: 2
faces: 3
rolls: {rolls}
categories:
  - {{key: f1, pattern: {{kind: face, face: 1}}, score: face_total}}
  - {{key: f2, pattern: {{kind: face, face: 2}}, score: face_total}}
  - {{key: f3, pattern: {{kind: face, face: 3}}, score: face_total}}
"""


def yz(*args: str, cwd: Path | None = None) -> tuple[int, str, str, list[str]]:
    """(exit code, stdout, stderr without the probe's line, heavy packages imported)."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=HANG_GUARD, env=dict(os.environ))
    err, _, imported = proc.stderr.rpartition("\nIMPORTED ")
    return proc.returncode, proc.stdout, err, imported.split()


def without_time(text: str) -> str:
    return re.sub(r"in [0-9.]+ s|\"seconds\": [0-9.e-]+", "<time>", text)


@pytest.fixture
def house(tmp_path) -> Path:
    """house.yaml, which extends base.yaml: a game of 2 three-sided dice, solved in a moment."""
    (tmp_path / "base.yaml").write_text(TINY.format(name="base", rolls=2))
    (tmp_path / "house.yaml").write_text("name: house\nextends: base.yaml\n")
    return tmp_path / "house.yaml"


def test_a_repeated_solve_answers_from_its_memo_as_the_full_command_would(house, tmp_path):
    code, first, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported and "solved in" in first
    memos = list(cache.cache_dir().glob("house-*.answer.json"))
    assert len(memos) == 1
    code, again, err, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert (code, err, imported) == (0, "", [])
    assert without_time(again) == without_time(first).replace("solved", "from the cache")
    # --json and --quiet, and the other spellings of the option, from another folder.
    code, as_json, _, imported = yz("solve", f"--variant={house}", "--json", "-q")
    assert (code, imported) == (0, [])
    data = json.loads(as_json)
    assert data["cached"] is True and data["variant"] == "house" and data["sd"] > 0
    assert f"{data['expected_score']:.4f}" in first and f"{data['states']:,}" in first


def test_the_memo_and_the_full_command_print_the_same(isolated_cache):
    """On a built-in: the full command's cached answer (memo removed), then the memo's."""
    yz("solve", "-v", "no-bonus")
    for args in (("solve", "-v", "no-bonus"), ("solve", "-v", "no-bonus", "--json")):
        for memo in isolated_cache.glob("*.answer.json"):
            memo.unlink()
        code, full, _, imported = yz(*args)
        assert code == 0 and "numpy" in imported
        code, memo, _, imported = yz(*args)
        assert code == 0 and imported == []
        assert without_time(memo) == without_time(full)


def test_a_game_first_solved_without_its_sd_is_answered_from_the_memo(house, tmp_path):
    """Solved from Python without the SD, its SD then computed by `yz solve` into a file of
    its own: the strategy's metadata has no SD, the memo has it, and answers."""
    from yz.solver import Model

    Model(str(house)).solve()
    code, first, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported and "standard deviation" in first
    code, again, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert (code, imported) == (0, [])
    assert without_time(again).splitlines()[:2] == without_time(first).splitlines()[:2]
    assert "from the cache" in again


def test_a_changed_rule_file_or_what_it_extends_is_solved_again(house, tmp_path):
    yz("solve", "-v", str(house), cwd=tmp_path)
    (tmp_path / "base.yaml").write_text(TINY.format(name="base", rolls=3))  # the parent changes
    code, out, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported and "solved in" in out
    code, again, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert imported == [] and without_time(again) == without_time(out).replace(
        "solved", "from the cache")
    house.write_text(house.read_text() + "description: the same game, described\n")
    code, _, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported  # the bytes changed: the full command decides


def test_a_damaged_table_is_never_answered_from_the_memo(house, tmp_path):
    _, first, _, _ = yz("solve", "-v", str(house), cwd=tmp_path)
    values = next(cache.cache_dir().glob("house-*.values.npy"))
    data = bytearray(values.read_bytes())
    data[-3] ^= 0xFF
    values.write_bytes(bytes(data))
    code, out, err, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported
    assert "checksum mismatch" in err and without_time(out) == without_time(first)


def test_an_altered_memo_is_ignored(house, tmp_path):
    _, first, _, _ = yz("solve", "-v", str(house), cwd=tmp_path)
    memo = next(cache.cache_dir().glob("house-*.answer.json"))
    data = json.loads(memo.read_text())
    data["expected_score"] += 1
    memo.write_text(json.dumps(data))
    code, out, _, imported = yz("solve", "-v", str(house), cwd=tmp_path)
    assert code == 0 and "numpy" in imported
    assert without_time(out) == without_time(first).replace("solved", "from the cache")
    memo.write_bytes(b"\x00" * 100)  # garbage
    assert yz("solve", "-v", str(house), cwd=tmp_path)[0] == 0


@pytest.mark.parametrize("extra", [("--no-sd",), ("--help",), *(
    pytest.param(extra, marks=pytest.mark.slow)  # (the same test of the memo's option list)
    for extra in (("--no-cache",), ("--max-memory", "1G"), ("--yes",), ("-v",)))])
def test_any_other_option_runs_the_full_command(house, tmp_path, extra):
    yz("solve", "-v", str(house), cwd=tmp_path)
    code, _, _, imported = yz("solve", "-v", str(house), *extra, cwd=tmp_path)
    assert "typer" in imported
    assert code == (2 if extra == ("-v",) else 0)


def test_another_code_version_ignores_the_memo(house, tmp_path, monkeypatch, capsys):
    yz("solve", "-v", str(house), cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert quick.answer(["solve", "-v", str(house)]) == 0
    assert "house: expected score" in capsys.readouterr().out
    monkeypatch.setattr(quick, "code_stamp", lambda: "another version")
    assert quick.answer(["solve", "-v", str(house)]) is None


def test_the_memo_is_listed_and_cleared_with_its_rule_set(house, tmp_path):
    yz("solve", "-v", str(house), cwd=tmp_path)
    answers = [e for e in cache.entries() if e.kind == "answer"]
    assert [(e.variant, e.status) for e in answers] == [("house", "ok")]
    cache.clear("house")
    assert list(cache.cache_dir().iterdir()) == []


def test_standard_input_is_never_remembered(tmp_path):
    text = TINY.format(name="piped", rolls=2)
    (tmp_path / "-").write_text(TINY.format(name="a-file-named-dash", rolls=3))
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PROBE, "solve", "-v", "-"], input=text,
                              capture_output=True, text=True, cwd=tmp_path, timeout=HANG_GUARD)
        assert proc.returncode == 0 and proc.stdout.startswith("piped:"), proc.stderr
        assert "numpy" in proc.stderr.rpartition("\nIMPORTED ")[2]
    assert not list(cache.cache_dir().glob("*.answer.json"))


def test_the_twins_agree_with_what_they_mirror(tmp_path, monkeypatch):
    """quick keeps a few facts of the full command without importing it: they must agree."""
    assert inspect.signature(solve_cmd).parameters["variant"].default == quick.DEFAULT_VARIANT
    assert quick.cache_root() == cache.cache_dir()
    monkeypatch.delenv("YZ_CACHE_DIR")
    assert quick.cache_root() == cache.cache_dir()
    for spec in ("official-free-joker", "a/b", "a\\b", "x.yaml", "x.yml", "yaml", "./x",
                 "example:yacht"):
        assert quick._looks_like_path(spec) == looks_like_path(spec) or \
            spec.startswith("example:")
    for name, _ in quick.CODE_FOLDERS:
        assert (quick._package_dir(name) / "__init__.py").is_file()
