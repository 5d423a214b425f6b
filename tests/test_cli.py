"""The CLI through typer's runner: outputs, JSON shapes, and exit code 2 for every bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner
from yz.cli.main import app

runner = CliRunner()
EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "house-rules.yaml")


def yz(*args: str):
    return runner.invoke(app, list(args))


def yz_json(*args: str):
    result = yz(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("screen", [None, 72, 100, 200])
def test_tables_give_way_to_the_terminal_and_never_to_a_pipe(monkeypatch, screen):
    """On a terminal (`render.screen_width`) a table gives way in its widest column (a file
    name keeps its end), a description goes under its row when too little of it would fit
    beside it, and sentences wrap; piped (None), every line is whole."""
    from yz.cli import render

    monkeypatch.setattr(render, "screen_width", lambda: screen)
    rows = [{"variant": f"v{i}", "boxes": 13, "upper_bonus": "35 at 63", "yahtzee_bonus": 100,
             "joker": "free", "description": "word " * 30} for i in range(3)]
    text = render.variants_table(rows)
    lines = text.splitlines()
    assert all(len(line) <= (screen or 10**6) for line in lines), text
    if screen is None or screen >= 100:
        assert len(lines) == 5 and lines[0].endswith("description")
        assert all(line.endswith("...") for line in lines[2:])
        whole = textwrap.shorten("word " * 30, 60, placeholder="...")
        assert all(line.endswith(whole) for line in lines[2:]) == (screen != 100), text
        assert screen != 100 or max(map(len, lines)) == 100  # (as wide as the terminal)
    else:
        assert len(lines) == 2 + 2 * 3 and lines[3].startswith("  word word")
    table = render._table(["name", "file"], [["a", "/some/where/" + "x" * 80 + "-end.npy"]],
                          shrink=1, keep_end=True)
    if screen is None or screen == 200:  # (piped, or it fits)
        assert "x" * 80 in table
    else:
        assert table.splitlines()[2].endswith("x-end.npy") and "..." in table
        assert max(map(len, table.splitlines())) <= screen
    sentence = "a sentence of many words " * 10
    lines = render._wrap(sentence, "  ")
    assert " ".join(lines).split() == sentence.split()
    assert (len(lines) == 1) == (screen is None or screen > 250)
    assert all(len(line) <= (screen or 10**6) for line in lines)
    items = [f"{q}%: {100 + q}" for q in (1, 5, 10, 25, 50, 75, 90, 95, 99)]
    lines = render._wrap_items("percentiles: ", items)
    assert "  ".join(line.strip() for line in lines).removeprefix("percentiles: ") == \
        "  ".join(items)  # (in order, and no item split at its space)
    assert all(len(line) <= (screen or 10**6) for line in lines)
    assert (len(lines) == 1) == (screen is None or screen >= 100)
    assert render.variants_table([]).splitlines()[0].startswith("variant")
    # A table the other columns alone make too wide is not cut in vain.
    wide = render._table(["a" * 110, "file"], [["x", "f" * 30]], shrink=1)
    assert "f" * 30 in wide


def test_no_args_shows_help():
    result = yz()
    assert "solve" in result.output and "variants" in result.output


def test_variants_lists_every_builtin():
    result = yz("variants")
    assert result.exit_code == 0
    for name in ("official-free-joker", "official-forced-joker", "no-upper-bonus",
                 "no-yahtzee-bonus", "no-bonus", "yatzy", "gist", "generala", "crag", "maxi-yatzy",
                 "maxi-yatzy-no-saved-rolls", "yatzy-in-order", "yatzy-saved-rolls"):
        assert name in result.stdout
    rows = yz_json("variants")
    from yz.rules import builtin_names, example_names

    assert [r["variant"] for r in rows] == [*builtin_names(),
                                            *(f"example:{n}" for n in example_names())]
    official = next(r for r in rows if r["variant"] == "official-free-joker")
    assert official["joker"] == "free" and official["yahtzee_bonus"] == 100
    assert official["upper_bonus"] == "35 at 63" and official["boxes"] == 13
    assert official["categories"][0] == "ones" and len(official["categories"]) == 13


def test_rules_show_resolves_extends():
    data = yz_json("rules", "show", "official-forced-joker")
    assert data["joker"]["mode"] == "forced"
    assert len(data["categories"]) == 13 and data["upper_bonus"]["threshold"] == 63
    text = yz("rules", "show", EXAMPLE).stdout
    assert "50 when" in text and "70 or more" in text and "faces may repeat" in text


def test_rules_show_says_what_totals_and_combined_patterns_need(tmp_path):
    """The text names a total's value or bounds and the patterns a combined box needs (the
    JSON has them too), one inside another in parentheses."""
    assert "at least 2 of a kind and total 13" in yz("rules", "show", "crag").stdout
    house = tmp_path / "house.yaml"
    house.write_text("""\
name: totals
extends: example:quick-duel
categories:
  - {key: middle, name: Middle, pattern: {kind: total, min: 5, max: 7}, score: 10}
  - key: mixed
    name: Mixed
    pattern: {kind: either, patterns: [all_same, {kind: both, patterns: [
      {kind: of_a_kind, count: 2}, {kind: total, equals: 9}]}]}
    score: 20
  - key: runs
    name: Runs
    pattern: {kind: both, patterns: [{kind: straight, any_of: [[1, 2], [5, 6]]},
                                     {kind: total, min: 7}]}
    score: 30
""")
    text = yz("rules", "show", str(house)).stdout
    for shown in ("total at most 6", "total at least 8", "total 5 to 7",
                  "all same or (at least 2 of a kind and total 9)",
                  "(faces 1-2 or 5-6) and total at least 7"):
        assert shown in text, (shown, text)


def test_rules_validate_ok_and_bad(tmp_path):
    assert yz("rules", "validate", EXAMPLE).exit_code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: official-free-joker\nupper_bonus: {threshold: 70, amout: 5}\n")
    result = yz("rules", "validate", str(bad))
    assert result.exit_code == 2
    assert "bad.yaml:2:" in result.stderr and "did you mean 'amount'" in result.stderr
    assert "Traceback" not in result.output


def test_rules_table_json_and_csv():
    data = yz_json("rules", "table", "gist")
    assert data["categories"][0] == "chance" and len(data["rolls"]) == 252
    i = data["rolls"].index([1, 2, 3, 4, 5])
    assert data["scores"][i][data["categories"].index("small_straight")] == 15
    assert all(r == sorted(r) for r in data["rolls"])
    csv = yz("rules", "table", "yatzy", "--csv").stdout.splitlines()
    assert csv[0].startswith("dice,ones,twos") and len(csv) == 253
    assert yz("rules", "table", "yatzy").exit_code == 0


def test_score_every_box_best_first():
    data = yz_json("score", "--variant", "yatzy", "5", "5", "4", "4", "1")
    assert data["scores"]["one_pair"] == 10 and data["scores"]["two_pairs"] == 18
    totals = [b["total"] for b in data["boxes"]]
    assert totals == sorted(totals, reverse=True)
    text = yz("score", "-v", "yatzy", "55441").stdout
    assert text.splitlines()[3].startswith("chance")  # 19, the best box, first after the header


def test_score_one_category_and_dice_forms():
    for dice in (["3,3,3,4,5"], ["33345"], ["3", "3", "3", "4", "5"], ["5 4 3 3 3"]):
        data = yz_json("score", "-v", "gist", "--category", "three_of_a_kind", *dice)
        assert data["score"] == 9


def test_score_with_joker_position():
    args = ["score", "33333", "--filled", "yahtzee=50,threes=15"]
    data = yz_json(*args, "--category", "large_straight")
    assert data["score"] == 40 and data["yahtzee_bonus"] == 100 and data["joker"]
    forced = yz_json(*args, "-v", "official-forced-joker")
    legal = {b["category"] for b in forced["boxes"] if b["legal"]}
    assert "ones" not in legal and "large_straight" in legal
    must = yz_json("score", "33333", "--filled", "yahtzee=50", "-v", "official-forced-joker")
    assert {b["category"] for b in must["boxes"] if b["legal"]} == {"threes"}


@pytest.mark.parametrize("args, needle", [
    (["score", "1", "2", "3"], "got 3 dice"),
    (["score", "1", "2", "3", "4", "7"], "7 cannot show on a 6-sided die"),
    (["score", "a", "b", "c", "d", "e"], "is not a list of numbers"),
    (["score", "12345", "-c", "fullhouse"], "did you mean 'full_house'"),
    (["score", "12345", "-c", "ones", "--filled", "ones=1"], "already filled"),
    (["score", "12345", "--filled", "onez=3"], "'onez' is not a box"),
    (["score", "12345", "--filled", "ones=7"], "can never hold"),
    (["score", "12345", "--filled", "ones"], "give the scores of ones"),
    (["score", "12345", "--filled", "yahtzee"], "give the score in the yahtzee box"),
    (["score", "12345", "-v", "nonexistent.yaml"], "no such file"),
    (["rules", "show", "yahtze"], "Did you mean 'yatzy'|no such built-in"),
    (["solve", "-v", "missing/file.yaml"], "no such file"),
    (["compare", "official-free-joker", "nope"], "no such built-in variant or file"),
    (["duel", "crag", "crag", "--strategy-a", "minimax"], "^error: --strategy-a: 'minimax' is "
     "not a strategy"),
    (["duel", "crag", "crag", "--strategy-b", "x"], "^error: --strategy-b: 'x' is not"),
])
def test_bad_input_exits_2_with_one_paragraph(args, needle):
    result = yz(*args)
    assert result.exit_code == 2, result.output
    assert re.search(needle, result.stderr, re.IGNORECASE), result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_all_boxes_filled_is_an_error():
    filled = ",".join(f"{k}=0" for k in ("ones", "twos", "threes", "fours", "fives", "sixes",
                                         "three_of_a_kind", "four_of_a_kind", "full_house",
                                         "small_straight", "large_straight", "yahtzee"))
    filled += ",chance=20"
    result = yz("score", "12345", "--filled", filled)
    assert result.exit_code == 2 and "game is over" in result.stderr


def test_solve_json_end_to_end(isolated_cache):
    first = yz_json("solve", "--variant", "official-free-joker")
    assert round(first["expected_score"], 4) == 254.5896
    assert first["states"] == 536_320 and first["cached"] is False
    assert first["variant"] == "official-free-joker" and first["seconds"] > 0
    second = yz_json("solve", "--variant", "official-free-joker")
    assert second["cached"] is True and second["expected_score"] == first["expected_score"]
    assert yz_json("solve", "--no-cache")["cached"] is False
    text = yz("solve").stdout
    assert "254.5896" in text and "from the cache" in text
    listing = yz_json("cache", "list")
    kinds = sorted(e["kind"] for e in listing["entries"])
    assert kinds == ["answer", "store", "values"]  # solve's answer, the table, its metadata
    assert {e["variant"] for e in listing["entries"]} == {"official-free-joker"}
    assert all(e["status"] == "ok" for e in listing["entries"])
    assert listing["cache_dir"] == str(isolated_cache)
    assert yz_json("cache", "clear")["removed"] == 3
    assert yz_json("cache", "list")["entries"] == []
    assert "no files of yz" in yz("cache", "list").stdout


def test_compare_json():
    rows = yz_json("compare", "no-bonus", "crag")  # (two quick games)
    assert [r["variant"] for r in rows] == ["no-bonus", "crag"]
    assert rows[0]["difference"] == 0.0
    assert rows[1]["difference"] == pytest.approx(rows[1]["expected_score"] -
                                                  rows[0]["expected_score"])
    assert "vs first" in yz("compare", "no-bonus", "crag").stdout


BANKED = """\
name: tiny-banked
dice: 3
faces: 4
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: fours, pattern: {kind: face, face: 4}, score: face_total}
  - {key: pair, pattern: {kind: of_a_kind, count: 2}, score: sum_matched}
  - {key: chance, pattern: any, score: sum_all}
upper_bonus: {threshold: 6, amount: 10}
saved_rolls: {cap: 3}
"""


def test_compare_shows_what_it_has_and_names_what_it_has_not(monkeypatch, tmp_path):
    """A game with saved rolls too big for its distribution to come along (as if: the
    memory check says so) has its SD; its median, mode and percentiles once `yz
    distribution` has cached it; never P(bonus), which needs its per-box figures. What is not
    computed is left out and named in `not_computed`: null is only "no upper bonus"."""
    from yz.solver.budget import Budget

    monkeypatch.setattr(Budget, "figures_fit",
                        lambda self, max_memory=None: not self.problem.layout.saves_rolls)
    path = tmp_path / "banked.yaml"
    path.write_text(BANKED)
    plain, banked = yz_json("compare", "no-bonus", str(path))
    assert plain["p_upper_bonus"] is None and "not_computed" not in plain  # no upper bonus
    assert {"median", "mode", "percentiles", "sd", "seconds", "states"} <= set(plain)
    assert banked["not_computed"] == ["median", "mode", "percentiles", "p_upper_bonus"]
    assert not {"median", "mode", "percentiles", "p_upper_bonus"} & set(banked)
    assert banked["sd"] > 0
    dist = yz_json("distribution", "-v", str(path))
    plain, banked = yz_json("compare", "no-bonus", str(path))
    assert banked["not_computed"] == ["p_upper_bonus"]
    assert (banked["median"], banked["mode"], banked["percentiles"]) == (
        dist["median"], dist["mode"], dist["percentiles"])
    assert banked["sd"] == pytest.approx(dist["sd"])
    text = yz("compare", "no-bonus", str(path)).stdout
    row = next(line for line in text.splitlines() if line.startswith("tiny-banked"))
    assert row.split()[4:8] == [str(dist["median"]), str(dist["percentiles"]["5"]),
                                str(dist["percentiles"]["95"]), "?"]
    assert "?: not computed: P(bonus) of tiny-banked" in text and "-: no upper bonus" in text


# ---------------------------------------------------------------- options and parser errors


@pytest.mark.parametrize("page", [[], ["solve"], ["score"], ["advise"], ["simulate"], ["rules"],
                                  ["rules", "show"], ["cache", "clear"]])
def test_short_help_option(page):
    long, short = yz(*page, "--help"), yz(*page, "-h")
    assert long.exit_code == short.exit_code == 0
    assert short.stdout == long.stdout and "Usage: " in long.stdout


def test_version_is_the_installed_distribution(capsys):
    from importlib.metadata import version

    from yz.cli.main import run

    assert run(["--version"]) == 0
    assert capsys.readouterr().out == f"yz {version('yz')}\n"


@pytest.mark.parametrize("args, needle", [
    (["score", "12345", "--bogus"], "no such option: --bogus"),
    (["solve", "--jsn"], "possible options: --json"),
    (["simulate", "--games", "abc"], "'--games'"),
    (["advise", "--top", "-3"], "'--top'"),
    (["rules", "show"], "missing argument 'VARIANT'"),
    (["score", "12345", "--variant"], "'--variant' requires an argument"),
    (["solve", "official-free-joker"], "unexpected extra argument"),
    (["nosuchcommand"], "no such command 'nosuchcommand'"),
])
def test_parser_errors_are_one_paragraph(capsys, args, needle):
    from yz.cli.main import run

    assert run(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert needle.lower() in err.lower(), err
    assert "Usage:" not in err and "Traceback" not in err and "╭" not in err


@pytest.mark.parametrize("args", [["solve", "--help"], ["score", "--help"],
                                  ["solve", "--bogus"], ["warmup", "extra"],
                                  ["advise", "--variant"]])
def test_one_command_app_answers_as_the_whole_app(capsys, monkeypatch, args):
    """`run` parses a top-level command with an app holding only that command: its help and
    its errors are the whole app's, word for word."""
    from yz.cli import main

    assert [c.name for c in main.app_for(args).registered_commands] == [args[0]]
    code = main.run(args)
    pruned = capsys.readouterr()
    monkeypatch.setattr(main, "app_for", lambda args: main.app)
    assert main.run(args) == code
    assert capsys.readouterr() == pruned


@pytest.mark.parametrize("args", [[], ["rules", "show"], ["--version"], ["sol"]])
def test_groups_and_options_use_the_whole_app(args):
    from yz.cli import main

    assert main.app_for(args) is main.app


def test_bare_yz_prints_the_help(capsys):
    from yz.cli.main import run

    assert run([]) == 2  # like click: no command is a usage error, answered with the help
    assert "Commands:" in capsys.readouterr().err


def test_score_takes_the_options_of_advise(tmp_path):
    by_args = yz_json("score", "33333", "--filled", "yahtzee=50,threes=15")
    assert yz_json("score", "--dice", "3,3,3,3,3", "--filled", "yahtzee=50,threes=15") == by_args
    assert yz_json("score", "-d", "33333", "--filled", "yahtzee=50,threes=15") == by_args
    # --upper-total stands in for the upper boxes' scores, as in advise.
    data = yz_json("score", "66666", "-c", "sixes", "--filled", "ones,twos,threes,fours,fives",
                   "--upper-total", "33")
    assert data["score"] == 30 and data["upper_bonus"] == 35
    card = tmp_path / "card.yaml"
    card.write_text("variant: yatzy\nfilled: {ones: 3}\ndice: [5, 5, 4, 4, 1]\n")
    data = yz_json("score", "--card", str(card))
    assert data["variant"] == "yatzy" and data["scores"]["one_pair"] == 10
    assert "ones" not in data["scores"]
    # Options and arguments override the card.
    assert yz_json("score", "--card", str(card), "66655")["scores"]["one_pair"] == 12
    assert yz_json("score", "--card", str(card), "-d", "66655")["scores"]["one_pair"] == 12
    assert "ones" in yz_json("score", "--card", str(card), "--filled", "twos=4")["scores"]
    assert yz_json("score", "--card", str(card), "-v", "gist")["variant"] == "gist"


@pytest.mark.parametrize("args, needle", [
    (["score", "12345", "--dice", "12345"], "give the dice once"),
    (["score"], "no dice to score"),
    (["score", "--card", "missing-card.yaml"], "missing-card.yaml"),
    (["score", "66666", "-c", "sixes", "--filled", "ones", "--upper-total", "70"],
     "upper total"),
])
def test_score_option_errors(args, needle):
    result = yz(*args)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr and result.stdout == ""


# ---------------------------------------------------------------- simulate --plot


def test_simulate_plot_missing_folder_is_refused_before_simulating(tmp_path):
    result = yz("simulate", "-v", "no-bonus", "-n", "100", "--plot",
                str(tmp_path / "none" / "x.png"))
    assert result.exit_code == 2 and result.stdout == ""
    assert "does not exist" in result.stderr


def test_simulate_plot_file_as_folder_is_refused_before_simulating(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    result = yz("simulate", "-v", "no-bonus", "-n", "100", "--plot",
                str(tmp_path / "file" / "x.png"))
    assert result.exit_code == 2 and result.stdout == ""
    assert "is a file, not a folder" in result.stderr


def test_simulate_plot_read_only_folder_is_refused_before_simulating(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as root: a read-only folder is still writable")
        result = yz("simulate", "-v", "no-bonus", "-n", "100", "--plot", str(folder / "x.png"))
    finally:
        folder.chmod(0o755)
    assert result.exit_code == 2 and result.stdout == ""
    assert "not writable" in result.stderr


@pytest.fixture(params=["matplotlib", "stub"])
def failing_plot(request, monkeypatch, tmp_path):
    """A plot path that passes the check but cannot be written once the games are played
    (the folder went away): with matplotlib for real, or with a stub plotter without it."""
    from yz.cli import plots
    from yz.rules import InputError

    monkeypatch.setattr(plots, "check_plot_target", lambda path: None)
    if request.param == "matplotlib":
        pytest.importorskip("matplotlib")
    else:
        def fail(path, *args, **kwargs):
            raise InputError(f"--plot: could not write '{path}' (gone).")
        monkeypatch.setattr(plots, "plot_histogram", fail)
    return str(tmp_path / "gone" / "x.png")


def test_simulate_plot_failure_keeps_the_text_figures(failing_plot):
    result = yz("simulate", "-v", "no-bonus", "-n", "200", "--plot", failing_plot)
    assert result.exit_code == 2
    assert "200 games" in result.stdout and "percentiles:" in result.stdout
    assert "histogram written" not in result.stdout
    # (A first run may say before it that the kernels are being compiled.)
    assert result.stderr.splitlines()[-1].startswith("error: --plot: could not write")


def test_simulate_plot_failure_keeps_the_json_figures(failing_plot):
    result = yz("simulate", "-v", "no-bonus", "-n", "200", "--plot", failing_plot, "--json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["games"] == 200
    assert data["exact"]["expected_score"] == pytest.approx(229.6385, abs=1e-4)
    assert data["plot"] is None  # not written
    # (A first run may say before it that the kernels are being compiled.)
    assert result.stderr.splitlines()[-1].startswith("error: --plot: could not write")


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")
def test_simulate_plot_unwritable_system_folder():
    """/proc takes no new files, even from root, for whom the check's access() says yes: then
    the figures come first and the error after; for anyone else the check refuses it."""
    pytest.importorskip("matplotlib")
    result = yz("simulate", "-v", "no-bonus", "-n", "200", "--plot", "/proc/yz-plot.png")
    assert result.exit_code == 2 and "/proc" in result.stderr
    assert "Traceback" not in result.output
    if os.access("/proc", os.W_OK):
        assert "percentiles:" in result.stdout and "could not write" in result.stderr
    else:
        assert result.stdout == "" and "not writable" in result.stderr


# ---------------------------------------------------------------- honest messages


def test_solve_says_solved_when_it_computed_the_sd(isolated_cache):
    first = yz("solve", "--variant", "no-bonus", "--no-sd")
    assert first.exit_code == 0 and "solved in" in first.stdout
    again = yz("solve", "--variant", "no-bonus")  # values cached without their SD
    assert again.exit_code == 0 and "solved in" in again.stdout, again.stdout
    assert "SD computed" in again.stdout and "standard deviation" in again.stdout
    cached = yz("solve", "--variant", "no-bonus")  # now the SD is cached too
    assert "from the cache" in cached.stdout and "solved" not in cached.stdout


def test_building_big_tables_is_announced(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("dice: 7\nfaces: 8\nrolls: 2\ncategories:\n"
                   "  - {key: chance, pattern: any, score: sum_all}\n")
    result = yz("score", "--variant", str(big), "1234567")
    assert result.exit_code == 0, result.output
    assert "note: building the tables of big (7 dice of 8 faces)" in result.stderr
    assert "28" in result.stdout


def test_first_compile_is_announced(monkeypatch, isolated_cache):
    from yz.solver import warmup

    monkeypatch.setattr(warmup, "compiled", lambda mode: False)
    monkeypatch.setattr(warmup, "mark_compiled", lambda mode: None)
    result = yz("solve", "--variant", "no-bonus", "--no-sd")
    assert result.exit_code == 0
    assert "compiling the solver's kernels" in result.stderr and "once per" in result.stderr
    assert "solved in" in result.stdout


def test_rules_schema_is_json_schema_of_rule_files():
    result = yz("rules", "schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert "json-schema.org" in schema["$schema"]
    assert "categories" in schema["properties"] and "extends" in schema["properties"]


def test_simulate_leaves_out_slow_exact_figures_unless_asked(monkeypatch, isolated_cache):
    """A game whose exact figures would take long (Maxi Yatzy: minutes) gets the exact mean
    only, with a word on --exact; --exact computes them all, --no-exact none."""
    from yz.solver import budget

    monkeypatch.setattr(budget, "AUTO_FIGURES_SECONDS", -1.0)  # every game counts as slow
    auto = yz("simulate", "-v", "no-bonus", "-n", "300")
    assert auto.exit_code == 0, auto.output
    assert "--exact computes them" in auto.stderr
    mean = next(line for line in auto.stdout.splitlines() if line.startswith("mean"))
    assert mean.split()[-1] == "229.6385"
    sd = next(line for line in auto.stdout.splitlines() if line.startswith("standard"))
    assert sd.split()[-1] == "-"
    data = json.loads(yz("simulate", "-v", "no-bonus", "-n", "300", "--json").stdout)
    assert data["exact"]["expected_score"] == pytest.approx(229.6385, abs=1e-4)
    # Not computed: left out and named (null would say "no upper bonus").
    assert data["exact"]["not_computed"] == ["sd", "box_mean", "box_zero_rate",
                                             "p_upper_bonus", "yahtzee_bonus_mean",
                                             "joker_uses_mean"]
    assert not set(data["exact"]["not_computed"]) & set(data["exact"])
    asked = yz_json("simulate", "-v", "no-bonus", "-n", "300", "--exact")
    assert set(asked["exact"]["box_mean"]) == set(asked["boxes"])
    assert asked["exact"]["sd"] > 0 and "not_computed" not in asked["exact"]
    assert asked["exact"]["p_upper_bonus"] is None  # computed: no-bonus has no upper bonus
    assert yz_json("simulate", "-v", "no-bonus", "-n", "300", "--no-exact")["exact"] is None
    # Once computed they are cached, and shown unasked.
    again = yz_json("simulate", "-v", "no-bonus", "-n", "300")
    assert again["exact"]["box_mean"] == asked["exact"]["box_mean"]


def test_console_script_collects_garbage_during_the_command():
    """The `yz` script pauses the garbage collector only while it imports; the command runs
    with it on (a larger first generation), and importing yz as a library changes nothing."""
    script = ("import gc, sys; default = gc.get_threshold(); import yz.cli.main, yz.solver; "
              "library = gc.isenabled() and gc.get_threshold() == default; "
              "from yz.cli.entry import main, COMMAND_THRESHOLDS; sys.argv = ['yz', '--version']; "
              "code = main(); "
              "print(library, gc.isenabled(), gc.get_threshold() == COMMAND_THRESHOLDS, code)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0].startswith("yz ") and out[1] == "True True True 0"


def test_differences_that_round_to_zero_read_as_a_tie():
    from yz.cli import render

    assert render.signed(-1e-9, 3) == "+0.000"
    assert render.signed(-0.0, 4) == "+0.0000"
    assert render.signed(-0.0012, 3) == "-0.001"
    assert render.signed(0.25, 2) == "+0.25"


# ---------------------------------------------------------------- the README's JSON table

ROOT = Path(__file__).resolve().parent.parent
# Each command of the README's "JSON output" table, as the test runs it (with --json). The
# order matters once: `cache list` comes last, to list what the others cached.
JSON_COMMANDS = {
    "variants": ["variants"],
    "rules validate": ["rules", "validate", "example:house-rules"],
    "rules table": ["rules", "table", "gist"],
    "score": ["score", "-v", "no-bonus", "13466"],
    "advise": ["advise", "-v", "no-bonus", "--dice", "1,1,2,3,6"],
    "solve": ["solve", "-v", "no-bonus"],
    "solve --figures": ["solve", "-v", "no-bonus", "--figures"],
    "compare": ["compare", "no-bonus", "crag"],
    "simulate": ["simulate", "-v", "no-bonus", "-n", "300"],
    "distribution": ["distribution", "-v", "no-bonus"],
    "duel": ["duel", "no-bonus", "crag"],
    "target": ["target", "-v", "no-bonus", "--max-target", "100"],
    "duel --best-response": ["duel", "example:quick-duel", "example:quick-duel",
                             "--best-response"],
    "duel --exact": ["duel", "example:quick-duel", "--exact"],
    "advise --opponent-filled": ["advise", "-v", "example:quick-duel", "--filled", "low=5",
                                 "-d", "3,4", "-r", "1", "--opponent-filled", "high=10"],
    "advise --opponent-strategy minimax": [
        "advise", "-v", "example:quick-duel", "--filled", "low=5", "-d", "3,4", "-r", "1",
        "--opponent-filled", "high=10", "--opponent-strategy", "minimax"],
    "cache list": ["cache", "list"],
}
# Names the table's "in" column uses for places inside a command's output.
JSON_PLACES = {"a", "b", "exact", "targets", "opponent", "figures"}
# Keys present only in some outputs (a figure not computed, an invalid rule file): checked
# one way here (and each where it appears: test_compare_shows_what_it_has_and_names_what_it_
# has_not, test_an_invalid_rule_file_is_json_too).
SOMETIMES = {"not_computed", "errors"}


def readme_json_table() -> dict[str, set[str]]:
    """The README's "JSON output" table: each key and the commands it names as having it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### JSON output"):].split("\n### ")[0]
    table = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        keys, _meaning, where = line.strip("| ").split(" | ")
        named = set(re.findall(r"`([^`]+)`", where))
        unknown = named - set(JSON_COMMANDS) - JSON_PLACES
        assert not unknown, f"the README's JSON table names {unknown}: run them here too"
        for key in re.findall(r"`([^`]+)`", keys):
            table[key] = named & set(JSON_COMMANDS)
    assert len(table) > 15, table
    return table


def json_keys(value) -> set[str]:
    """Every key of every object in a JSON value, however deep."""
    if isinstance(value, dict):
        return set(value).union(*(json_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(json_keys(v) for v in value))
    return set()


def test_every_commands_json_keys_are_the_readmes_table():
    table = readme_json_table()
    found = {name: json_keys(yz_json(*args)) for name, args in JSON_COMMANDS.items()}
    for key, commands in table.items():
        for name in commands if key not in SOMETIMES else ():
            assert key in found[name], f"yz {name} --json has no '{key}' (README: it has)"
        has = {name for name, keys in found.items() if key in keys}
        assert has <= commands, f"'{key}' is in yz {', '.join(sorted(has - commands))} " \
                                "--json, which the README's table does not name"


def test_an_invalid_rule_file_is_json_too(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ndice: 9\ncategories: []\nfoo: 1\n")
    result = yz("rules", "validate", str(bad), "--json")
    assert result.exit_code == 2
    told = json.loads(result.stdout)
    assert told["valid"] is False and told["file"] == str(bad)
    assert [e.split(": ")[1] for e in told["errors"]] == ["dice", "categories", "foo"]
    assert all(e.startswith(f"{bad}:") for e in told["errors"])
    assert result.stderr.startswith(f"error: {bad}: 3 problems in the rule set")
    missing = yz("rules", "validate", str(tmp_path / "none.yaml"), "--json")
    assert missing.exit_code == 2 and json.loads(missing.stdout)["valid"] is False
