"""Using the strategy: advice, simulation and exact figures, checked against independent twins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import NaiveGame
from test_solver import small_rule_sets
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import load_rules
from yz.rules.models import RuleSet
from yz.rules.position import parse_filled
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.simulate import simulate, summarise

ROOT = Path(__file__).resolve().parent.parent
# One cache for the module (conftest): the official rules are solved once, not in each test;
# the cache itself is tested in test_cache_cli.py and test_exact_figures_are_cached here.
SHARE_CACHE = True
runner = CliRunner()


@pytest.fixture(scope="module")
def official():
    return Model(load_rules("official-free-joker"), use_cache=False).solve()


# ---------------------------------------------------------------- advice


def _random_position(t, rng, n_filled):
    """A position someone could reach: random boxes with scores the boxes can hold."""
    keys = list(t.rules.keys)
    chosen = rng.choice(len(keys), size=n_filled, replace=False)
    if t.in_order:  # a card filled in order: the first boxes
        chosen = np.arange(n_filled)
    filled = {}
    for c in chosen:
        rolls = np.flatnonzero(t.SCORE[:, c] >= 0)
        filled[keys[c]] = int(t.SCORE[rng.choice(rolls), c])
    return parse_filled(filled, t)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rule_sets(), st.integers(0, 2**31 - 1))
def test_advice_agrees_with_brute_force(rules, seed):
    solution = Model(rules, use_cache=False).solve()
    t = solution.tables
    rng = np.random.default_rng(seed)
    pos = _random_position(t, rng, int(rng.integers(0, len(rules.categories))))
    naive = NaiveGame(rules)
    filled = frozenset(pos.filled)
    upper = min(pos.upper_total, t.upper_threshold)
    assert advise(solution, pos).position_value == pytest.approx(
        naive.value(filled, upper, pos.yahtzee_full), abs=1e-9)
    dice = tuple(int(d) for d in rng.integers(1, rules.faces + 1, size=rules.dice))
    for left in range(rules.rolls):
        advice = advise(solution, pos, dice, left)
        if left == 0:  # with one roll a turn, the final roll is the first (its bonus paid)
            expected = naive.box_values(filled, upper, pos.yahtzee_full, dice,
                                        first=naive.is_first(0))
            got = {a.box.key: a.value for a in advice.actions}
        else:
            expected = naive.keep_values(filled, upper, pos.yahtzee_full, dice, left)
            got = {a.keep: a.value for a in advice.actions if a.kind == "keep"}
            # After the first roll: stopping to claim a first-roll bonus, valued by the twin.
            stops = {a.box.key: a.value for a in advice.actions if a.kind == "score"}
            if stops:
                assert left == rules.rolls - 1
                first = naive.box_values(filled, upper, pos.yahtzee_full, dice, first=True)
                for key, value in stops.items():
                    assert value == pytest.approx(first[key], abs=1e-9)
                    expected = {**expected, ("stop", key): first[key]}
                    got[("stop", key)] = value
        assert got.keys() == expected.keys()
        for action, value in expected.items():
            assert got[action] == pytest.approx(value, abs=1e-9)
        assert advice.best.value == pytest.approx(max(expected.values()), abs=1e-9)


def test_best_action_value_is_the_position_value(official):
    """The advisor's values and the solver's table describe the same strategy."""
    t = official.tables
    rng = np.random.default_rng(11)
    for n_filled in (0, 3, 6, 9, 12):
        pos = _random_position(t, rng, n_filled)
        value = official.value(pos.mask, pos.upper_total, pos.yahtzee_full)
        advice = advise(official, pos)
        assert advice.position_value == pytest.approx(value, abs=1e-9)
        first_roll = sum(t.ROLL_PROB[r] * advise(official, pos, tuple(t.ROLL_DICE[r]),
                                                 t.rolls - 1).best.value
                         for r in range(t.n_distinct_rolls))
        assert first_roll == pytest.approx(value, abs=1e-9)


def test_advice_ranks_every_distinct_keep(official):
    pos = parse_filled(None, official.tables)
    advice = advise(official, pos, (1, 1, 2, 3, 6), 2)
    assert len(advice.actions) == 3 * 2 * 2 * 2  # 0-2 ones, 0-1 two, 0-1 three, 0-1 six
    values = [a.value for a in advice.actions]
    assert values == sorted(values, reverse=True)
    assert advice.best.keep == (6,)  # seed 004: worst first roll 11236, value 249.83
    assert advice.best.value == pytest.approx(249.83, abs=0.005)


# ---------------------------------------------------------------- simulation


@pytest.mark.parametrize("name", ["official-free-joker", "official-forced-joker", "gist",
                                  pytest.param("yatzy", marks=pytest.mark.slow)])
def test_simulated_mean_within_four_standard_errors(name):
    solution = Model(load_rules(name), use_cache=False).solve()
    summary = summarise(simulate(solution, 4000, seed=2024))
    assert abs(summary["mean"] - solution.expected_score) < 4 * summary["sem"]


@pytest.mark.parametrize("strategy", ["greedy", "heuristic"])
def test_other_strategies_match_their_exact_means(official, strategy):
    exact_mean = Model(official.tables, use_cache=False).moments(strategy).expected_score
    summary = summarise(simulate(official, 4000, seed=7, strategy=strategy))
    assert abs(summary["mean"] - exact_mean) < 4 * summary["sem"]
    assert exact_mean < official.expected_score - 5  # what optimal play is worth


@pytest.mark.parametrize("strategy", ["greedy", "heuristic"])
def test_greedy_and_heuristic_play_solve_nothing(monkeypatch, strategy):
    """Their value tables are their own (zeros, or the heuristic's estimate), so playing them,
    their exact figures and their distribution never solve optimal play first (a game too
    big to solve in time is still played)."""
    from yz.solver.exact import exact_moments
    from yz.solver.strategies import strategy_values

    model = Model("no-bonus", use_cache=False)

    def refuse(*args, **kwargs):
        raise AssertionError("optimal play was solved")

    monkeypatch.setattr(model, "solve", refuse)
    played = model.simulate(2000, seed=3, strategy=strategy)
    solved = Model("no-bonus", use_cache=False).solve()  # the old way: from the solved values
    expected = simulate(solved, 2000, seed=3, strategy=strategy)
    assert np.array_equal(played.score_counts, expected.score_counts)
    moments = exact_moments(solved, strategy_values(solved, strategy), strategy)
    figures = model.figures(strategy)
    assert figures.expected_score == pytest.approx(moments.expected_score, abs=1e-9)
    assert figures.sd == pytest.approx(moments.sd, abs=1e-9) and figures.box_mean
    assert model.distribution(strategy).expected_score == pytest.approx(moments.expected_score)


def test_greedy_simulation_of_a_game_too_big_to_solve(tmp_path):
    from test_robustness import big_game

    result = runner.invoke(app, ["simulate", "-v", str(big_game(tmp_path)), "--strategy",
                                 "greedy", "--no-exact", "-n", "200", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["strategy"] == "greedy" and out["games"] == 200 and out["exact"] is None


def test_same_seed_same_games(official):
    a = simulate(official, 1500, seed=99, keep_scores=True)
    b = simulate(official, 1500, seed=99, keep_scores=True)
    c = simulate(official, 1500, seed=100, keep_scores=True)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.box_sum, b.box_sum)
    assert not np.array_equal(a.scores, c.scores)
    # The boxes and bonuses add up to the scores, and the histogram holds every game.
    t = official.tables
    bonuses = np.arange(len(a.yahtzee_bonus_counts)) @ a.yahtzee_bonus_counts
    total = a.box_sum.sum() + a.upper_bonus_games * t.upper_bonus + bonuses * t.yahtzee_bonus
    assert total == a.scores.sum()
    assert np.array_equal(np.bincount(a.scores, minlength=len(a.score_counts)), a.score_counts)


def test_games_do_not_depend_on_the_thread_count(official, isolated_cache):
    env = dict(os.environ, NUMBA_NUM_THREADS="1", YZ_CACHE_DIR=str(isolated_cache))
    out = subprocess.run(
        [sys.executable, "-c", "from yz.cli.main import run; run()", "simulate", "-n", "1500",
         "--seed", "99", "--no-exact", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    single = json.loads(out)
    here = summarise(simulate(official, 1500, seed=99))
    assert single["mean"] == here["mean"] and single["categories"] == here["categories"]


# ---------------------------------------------------------------- exact figures


def test_exact_figures_add_up_and_match_seed_004(official):
    stats = Model(official.tables, use_cache=False).figures()
    t = official.tables
    assert stats.expected_score == pytest.approx(official.expected_score, abs=1e-9)
    parts = (sum(stats.box_mean.values()) + stats.p_upper_bonus * t.upper_bonus +
             stats.yahtzee_bonus_mean * t.yahtzee_bonus)
    assert parts == pytest.approx(stats.expected_score, abs=1e-9)
    assert stats.sd == pytest.approx(59.6117, abs=0.001)  # Verhoeff; ties move the 4th decimal
    # Seed 004's table of the optimal strategy (average score, zero rate in %).
    table = {"ones": (1.88, 10.84), "twos": (5.28, 1.80), "threes": (8.57, 0.95),
             "fours": (12.16, 0.60), "fives": (15.69, 0.50), "sixes": (19.19, 0.53),
             "three_of_a_kind": (21.66, 3.26), "four_of_a_kind": (13.10, 36.34),
             "full_house": (22.59, 9.63), "small_straight": (29.46, 1.80),
             "large_straight": (32.71, 18.22), "yahtzee": (16.87, 66.26), "chance": (22.01, 0)}
    # Seed 004 gives 3.26% zeros in Three of a Kind; exact play with our tie-break (first box
    # in card order among equal moves) zeroes it in 3.2454% of games: the same kind of tie
    # effect that moves the 4th decimal of the SD. Pinned, so a change is noticed.
    disagree = {"three_of_a_kind": 3.2454}
    for key, (mean, zero) in table.items():
        assert stats.box_mean[key] == pytest.approx(mean, abs=0.005)
        assert 100 * stats.box_zero_rate[key] == pytest.approx(disagree.get(key, zero),
                                                               abs=0.006 if key not in disagree
                                                               else 0.0001)
    assert stats.p_upper_bonus * 35 == pytest.approx(23.84, abs=0.005)
    assert 100 * (1 - stats.p_upper_bonus) == pytest.approx(31.88, abs=0.005)
    assert stats.yahtzee_bonus_mean * 100 == pytest.approx(9.58, abs=0.005)
    assert stats.joker_uses_mean == pytest.approx(0.037, abs=0.001)  # "about 3.7% of games"


def test_exact_sd_matches_a_large_simulation_on_a_small_game():
    rules = RuleSet.model_validate({
        "name": "small", "dice": 3, "faces": 4, "rolls": 2,
        "categories": [
            {"key": "ones", "name": "1", "section": "upper",
             "pattern": {"kind": "face", "face": 1}, "score": "face_total"},
            {"key": "fours", "name": "4", "section": "upper",
             "pattern": {"kind": "face", "face": 4}, "score": "face_total"},
            {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 20}}],
        "upper_bonus": {"threshold": 9, "amount": 15}, "yahtzee_bonus": {"amount": 30},
        "joker": {"mode": "free"}})
    model = Model(rules, use_cache=False)
    solution = model.solve()
    moments = model.moments()
    mean, sd = moments.expected_score, moments.sd
    assert mean == pytest.approx(solution.expected_score, abs=1e-12)
    games = simulate(solution, 200_000, seed=5)
    summary = summarise(games)
    assert summary["mean"] == pytest.approx(mean, abs=4 * sd / np.sqrt(games.games))
    assert summary["sd"] == pytest.approx(sd, rel=0.01)
    stats = model.figures()
    for c, key in enumerate(rules.keys):
        assert games.box_sum[c] / games.games == pytest.approx(stats.box_mean[key], abs=0.05)


def test_exact_figures_are_cached(tmp_path, monkeypatch):
    # A game without upper totals (8,192 states): what is checked is the cache, not the sums.
    monkeypatch.setenv("YZ_CACHE_DIR", str(tmp_path))  # (its own: the module shares one)
    first = Model("no-upper-bonus").figures()  # a model with the (empty) cache of this test
    assert list(tmp_path.glob("*.optimal.json"))
    again = Model("no-upper-bonus").figures()  # a new model reads them back
    assert again.as_dict() == first.as_dict()


# ---------------------------------------------------------------- CLI


def yz(*args: str):
    return runner.invoke(app, list(args))


def test_advise_cli_json_and_text():
    result = yz("advise", "--dice", "1,3,4,6,6", "--rolls-left", "2", "--filled",
                "ones=3,chance=22", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"]["kind"] == "keep" and data["alternatives"]
    assert data["best"]["loss"] == 0 and all(a["loss"] >= 0 for a in data["alternatives"])
    assert data["banked"] == 25
    assert data["best"]["expected_final"] == pytest.approx(25 + data["best"]["value"])
    text = yz("advise").stdout
    assert "254.5896" in text and "before the roll" in text
    boxes = yz("advise", "-d", "33333", "-r", "0", "--filled", "yahtzee=50,threes=9").stdout
    assert "score 40 in large_straight +100 Yahtzee bonus" in boxes


def test_advise_from_a_scorecard_file(tmp_path):
    card = tmp_path / "card.yaml"
    card.write_text("variant: yatzy\nfilled: {ones: 2, yatzy: 0}\ndice: [5, 5, 4, 4, 1]\n"
                    "rolls_left: 0\n")
    data = json.loads(yz("advise", "--card", str(card), "--json").stdout)
    assert data["variant"] == "yatzy" and data["best"]["kind"] == "score"
    card.write_text('{"filled": ["ones", "twos"], "upper_total": 7}')
    data = json.loads(yz("advise", "--card", str(card), "--json").stdout)
    assert data["upper_total"] == 7 and data["banked"] is None


@pytest.mark.parametrize("args, needle", [
    (["advise", "--filled", "onez=3"], "'onez' is not a box"),
    (["advise", "--dice", "1,2,3,4,9"], "9 cannot show"),
    (["advise", "--dice", "1,2,3"], "got 3 dice"),
    (["advise", "--filled", "fours=5"], "can never hold"),
    (["advise", "--dice", "12345", "--rolls-left", "3"], "0 to 2"),
    (["advise", "--rolls-left", "1"], "--rolls-left: give the dice"),
    (["advise", "--filled", "ones,twos", "--upper-total", "40"], "impossible"),
    (["advise", "--filled", "ones=3", "--upper-total", "4"], "does not match"),
    (["advise", "--card", "missing-card.yaml"], "cannot read the scorecard"),
    (["simulate", "--strategy", "lucky"], "not a strategy"),
    (["simulate", "--games", "0"], "--games: 0 is not a number of games"),
    (["simulate", "--plot", "scores.txt"], r"\.png"),
    (["simulate", "--plot", "no/such/folder/x.png"], "does not exist"),
])
def test_bad_advise_and_simulate_input_exits_2(args, needle):
    import re

    result = yz(*args)
    assert result.exit_code == 2, result.output
    assert re.search(needle, result.stderr), result.stderr
    assert result.stdout == ""


def test_no_open_box_is_an_error():
    keys = load_rules("official-free-joker").keys
    filled = ",".join(f"{k}=0" for k in keys if k != "chance") + ",chance=5"
    result = yz("advise", "--filled", filled)
    assert result.exit_code == 2 and "game is over" in result.stderr


def test_bad_scorecard_field(tmp_path):
    card = tmp_path / "card.yaml"
    card.write_text("filed: {ones: 3}\n")
    result = yz("advise", "--card", str(card))
    assert result.exit_code == 2 and "Did you mean 'filled'" in result.stderr


def test_simulate_cli_json(tmp_path):
    result = yz("simulate", "-v", "no-bonus", "-n", "2000", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 2000 and set(data["percentiles"]) == {"1", "5", "10", "25", "50",
                                                                   "75", "90", "95", "99"}
    assert data["exact"]["expected_score"] == pytest.approx(229.6385, abs=1e-4)
    assert abs(data["mean"] - data["exact"]["expected_score"]) < 4 * data["sem"]
    text = yz("simulate", "-v", "no-bonus", "-n", "2000", "--seed", "3").stdout
    assert "exact mean" in text and "percentiles" in text


def test_plot_needs_matplotlib_or_writes_png(tmp_path):
    target = tmp_path / "scores.png"
    result = yz("simulate", "-v", "no-bonus", "-n", "500", "--plot", str(target))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert result.exit_code == 2 and "needs matplotlib" in result.stderr
        assert not target.exists()
    else:
        assert result.exit_code == 0 and target.read_bytes()[:4] == b"\x89PNG"


def test_sd_from_the_dp_sweeps_matches_the_policy_pass(official):
    """Two computations of the SD: fused into the DP, and a separate pass along the policy."""
    fused = Model(official.tables, use_cache=False).solve(with_sd=True)
    assert np.array_equal(fused.values, official.values)  # the moments change no value
    plain = Model(official.tables, use_cache=False)
    plain.solve()  # no SD stored: the separate pass
    assert fused.sd == pytest.approx(plain.moments().sd, abs=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rule_sets())
def test_sd_paths_agree_on_small_games(rules):
    fused = Model(rules, use_cache=False).solve(with_sd=True)
    plain = Model(fused.tables, use_cache=False)
    plain.solve()
    moments = plain.moments()  # no SD stored: the separate pass
    assert moments.expected_score == pytest.approx(fused.expected_score, abs=1e-9)
    assert fused.sd == pytest.approx(moments.sd, abs=1e-9)


def test_yz_solve_shows_the_sd():
    data = json.loads(yz("solve", "--json").stdout)
    assert data["sd"] == pytest.approx(59.6114, abs=1e-4)
    assert "standard deviation of the final score 59.6114" in yz("solve").stdout
    assert json.loads(yz("solve", "--json", "--no-sd").stdout)["sd"] is None


@pytest.mark.parametrize("name", ["official-free-joker",
                                  pytest.param("yatzy", marks=pytest.mark.slow)])
def test_strategy_tables_have_the_shape_the_kernels_rely_on(name):
    """Every strategy table never falls as the upper total rises (counting the bonus once
    made) or with the flag (the kernels' best-zero-move shortcut relies on it)."""
    from yz.solver.strategies import STRATEGIES, strategy_values

    solution = Model(load_rules(name), use_cache=False).solve()
    t = solution.tables
    layout = solution.layout
    for strategy in STRATEGIES:
        table = strategy_values(solution, strategy)
        for k in range(t.n_categories + 1):
            rows = layout.rows(k)
            for mask, flag, _bank, u0, nu, out in zip(*rows, strict=True):
                row = table[out: out + nu].copy()
                row[np.arange(u0, u0 + nu) >= t.upper_threshold] += t.upper_bonus
                assert np.all(np.diff(row) >= -1e-9), (strategy, mask)
                if flag == 1:
                    plain = layout.index(int(mask), 0, int(u0))
                    assert np.all(table[out: out + nu] >= table[plain: plain + nu] - 1e-9)


@pytest.mark.parametrize("args, needle", [
    (["simulate", "--seed", "-1"], "--seed: -1 is not a whole number from 0"),
    (["advise", "--top", "-3"], "top"),
    (["advise", "--filled", "ones=3,twos", "--upper-total", "1"], "impossible"),
    (["advise", "--filled", "ones=3,twos", "--upper-total", "4"], "impossible"),
    (["advise", "--filled", "ones=x"], "whole number"),
])
def test_more_bad_input_exits_2(args, needle):
    result = yz(*args)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr.lower() or needle in result.output.lower()


def test_plot_to_a_folder_is_refused_before_any_work(tmp_path):
    folder = tmp_path / "out.png"
    folder.mkdir()
    result = yz("simulate", "-n", "10", "--plot", str(folder))
    assert result.exit_code == 2 and "is a folder" in result.stderr


@pytest.mark.parametrize("text, needle", [
    ("filled: {1: 3}\n", "not a box name"),
    ("filled: {ones: 3.9}\n", "whole number"),
    ("filled: {ones: true}\n", "whole number"),
    ("dice: {a: 1}\n", "list of numbers"),
    ("rolls_left: two\n", "whole number"),
])
def test_bad_scorecards_name_the_file(tmp_path, text, needle):
    card = tmp_path / "card.yaml"
    card.write_text(text)
    result = yz("advise", "--card", str(card))
    assert result.exit_code == 2, result.output
    assert needle in result.stderr and "card.yaml" in result.stderr
