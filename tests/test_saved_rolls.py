"""Saved rolls (a bank carried between turns): the rule field, the layout of banked states and
the DP's value against the brute-force twin (random rule sets: tests/test_random_rules.py)."""

from __future__ import annotations

import numpy as np
import pytest
from naive import NaiveMoments, naive_solve
from yz.rules import RulesError, rules_from_text
from yz.solver import Model

TINY = """\
name: banked
dice: 2
faces: 3
rolls: 2
saved_rolls: {saved}
upper_bonus: {{threshold: 4, amount: 5}}
categories:
  - {{key: ones, section: upper, pattern: {{kind: face, face: 1}}, score: face_total}}
  - {{key: threes, section: upper, pattern: {{kind: face, face: 3}}, score: face_total}}
  - {{key: pair, pattern: {{kind: of_a_kind, count: 2}}, score: sum_all, first_roll_bonus: 4}}
"""


@pytest.mark.parametrize("saved", ["{}", "{cap: 2}", "{start: 1}",
                                   "{carry_unused: false, start: 2}", "{cap: 0}"])
def test_every_banked_state_has_its_own_place_in_its_layer(saved):
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    layout, t = model.layout, model.tables
    seen = []
    for k in range(t.n_categories + 1):
        rows = layout.rows(k)
        assert len(set(rows.BANK.tolist())) == t.banks_in_layer(k)
        for out, nu in zip(rows.OUT, rows.NU, strict=True):
            assert layout.LAYER_PTR[k] <= out and out + nu <= layout.LAYER_PTR[k + 1]
            seen.extend(range(out, out + nu))
    assert sorted(seen) == list(range(layout.size))  # each entry once, none left over
    assert np.all(np.diff(layout.LAYER_PTR) >= 0)


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}"])
def test_the_value_is_the_twins(saved):
    rules = rules_from_text(TINY.format(saved=saved))
    assert Model(rules, use_cache=False).solve().expected_score == pytest.approx(
        naive_solve(rules), rel=1e-12)


def test_more_saved_rolls_are_worth_more():
    values = [Model(rules_from_text(TINY.format(saved=s)), use_cache=False).solve().expected_score
              for s in ("{cap: 0}", "{cap: 1}", "{cap: 2}", "{}")]
    assert values == sorted(values) and values[0] < values[-1]


def test_a_start_above_the_cap_is_refused():
    with pytest.raises(RulesError, match="cannot start with 3 saved rolls when at most 2"):
        rules_from_text(TINY.format(saved="{start: 3, cap: 2}"))


def sd_bounds(rules) -> tuple[float, float, float]:
    """The twin's mean and the range of the SD over every tie-breaking rule."""
    mean, low, high = NaiveMoments(rules).start_moments()
    return mean, np.sqrt(max(0.0, low - mean * mean)), np.sqrt(max(0.0, high - mean * mean))


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}"])
def test_the_sd_is_the_twins(saved):
    rules = rules_from_text(TINY.format(saved=saved))
    mean, low, high = sd_bounds(rules)
    solution = Model(rules, use_cache=False).solve(with_sd=True)
    assert solution.expected_score == pytest.approx(mean, rel=1e-12)
    assert low - 1e-9 <= solution.sd <= high + 1e-9, (low, solution.sd, high)


def test_the_other_commands_say_they_do_not_handle_saved_rolls_yet(tmp_path):
    from yz.rules import SolverError

    model = Model(rules_from_text(TINY.format(saved="{}")), use_cache=False)
    for work in (model.distribution, model.figures, lambda: model.simulate(10, strategy="greedy"),
                 lambda: model.advise(), lambda: model.moments("greedy"), model.coach):
        with pytest.raises(SolverError, match="with saved rolls is not computed yet"):
            work()
    assert model.moments().sd > 0  # the SD of optimal play is
    assert model.figures(when_quick=True).expected_score == model.solve().expected_score


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 2}", "{cap: 0}"])
def test_simulated_games_agree_with_the_exact_mean_and_sd(saved):
    # Play the recorded choices (a stop at any throw, the bank it leaves, the first-roll bonus
    # of the turn's first throw): 100,000 games, a fixed seed.
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    exact = model.solve(with_sd=True)
    games = model.simulate(100_000, seed=3, keep_scores=True).scores
    sem = games.std() / np.sqrt(len(games))
    assert abs(games.mean() - exact.expected_score) < 4 * sem, (games.mean(), sem)
    assert games.std() == pytest.approx(exact.sd, rel=0.02)


def test_rules_show_prints_the_bank():
    from yz.cli.render import rules_text

    text = rules_text(rules_from_text(TINY.format(saved="{carry_unused: false, start: 2}")))
    assert "saved rolls:   2 at the start; unused rolls are lost" in text
    assert "saved rolls" not in rules_text(rules_from_text(TINY.replace(
        "saved_rolls: {saved}\n", "").format()))
