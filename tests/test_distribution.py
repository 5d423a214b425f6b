"""The exact score distribution and target play, against brute-force twins and each other."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from naive import (
    NaiveTarget,
    naive_distribution,
    naive_distribution_multiset,
    naive_solve,
    naive_target,
)
from test_random_rules import advisor_choices
from test_solver import small_rule_sets
from yz.rules import InputError, compile_rules, load_rules
from yz.rules.models import RuleSet
from yz.rules.position import Position
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.distribution import score_distribution
from yz.solver.exact import exact_figures
from yz.solver.simulate import simulate
from yz.solver.strategies import strategy_values
from yz.solver.target import solve_targets

JOKER_GAME = {
    "name": "tiny-joker", "dice": 2, "faces": 3, "rolls": 2,
    "categories": [
        {"key": "ones", "name": "1", "section": "upper", "pattern": {"kind": "face", "face": 1},
         "score": "face_total"},
        {"key": "threes", "name": "3", "section": "upper",
         "pattern": {"kind": "face", "face": 3}, "score": "face_total"},
        {"key": "run", "name": "Run", "section": "lower",
         "pattern": {"kind": "straight", "length": 2}, "score": {"kind": "fixed", "points": 7}},
        {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
         "score": {"kind": "fixed", "points": 10}}],
    "upper_bonus": {"threshold": 4, "amount": 5}, "yahtzee_bonus": {"amount": 20},
    "joker": {"mode": "free", "full_value": ["run"]},
}


GENERALA_GAME = {  # a first-roll bonus, a box waiting for another's score, a straight as sets
    "name": "tiny-generala", "dice": 2, "faces": 3, "rolls": 2,
    "categories": [
        {"key": "threes", "pattern": {"kind": "face", "face": 3}, "score": "face_total"},
        {"key": "escalera", "pattern": {"kind": "straight", "any_of": [[1, 2], [2, 3]]},
         "score": 6, "first_roll_bonus": 3},
        {"key": "generala", "pattern": "all_same", "score": 8, "first_roll_bonus": 2},
        {"key": "double", "pattern": "all_same", "score": 15, "only_after": "generala"}],
}
IN_ORDER_GAME = {**GENERALA_GAME, "name": "tiny-generala-in-order", "order": "in_order"}


def _advised(solution):
    """The decisions `yz advise` makes, as naive_distribution asks for them."""
    def choose(state, dice, left):
        filled, upper, yfull = state
        mask = sum(1 << solution.rules.index_of(k) for k in filled)
        pos = Position(mask=mask, upper_total=upper, yahtzee_full=yfull)
        best = advise(solution, pos, dice, left).best
        return best.box.key if best.kind == "score" else best.keep  # a box: stop and score
    return choose


def _as_dict(dist):
    return {int(s): float(p) for s, p in zip(dist.scores, dist.probabilities, strict=True)
            if p > 0}


def _same_pmf(a: dict, b: dict, tol=1e-12):
    for score in set(a) | set(b):
        assert a.get(score, 0.0) == pytest.approx(b.get(score, 0.0), abs=tol), score


def test_distribution_matches_brute_force_with_every_rule():
    solution = Model(RuleSet.model_validate(JOKER_GAME), use_cache=False).solve()
    _same_pmf(_as_dict(score_distribution(solution)),
              naive_distribution(solution.rules, _advised(solution)))


@pytest.mark.parametrize("game", [GENERALA_GAME, IN_ORDER_GAME])
def test_first_roll_bonus_games_match_brute_force_everywhere(game):
    """Value, exact pmf, SD, target play and simulation of games with first-roll bonuses,
    a box waiting for another's score and (second) boxes filled in order, against the twin."""
    rules = RuleSet.model_validate(game)
    model = Model(rules, use_cache=False)
    solution = model.solve(with_sd=True)
    assert solution.expected_score == pytest.approx(naive_solve(rules), abs=1e-9)
    dist = score_distribution(solution)
    _same_pmf(_as_dict(dist), naive_distribution(rules, _advised(solution)))
    assert dist.expected_score == pytest.approx(solution.expected_score, abs=1e-9)
    assert dist.sd == pytest.approx(solution.sd, abs=1e-9)
    for strategy in ("optimal", "greedy"):  # the moments' sweep and the forward pass
        moments = model.moments(strategy)
        figures = exact_figures(solution, strategy_values(solution, strategy), strategy)
        assert sum(figures.box_mean.values()) == pytest.approx(moments.expected_score, abs=1e-9)
    assert moments.expected_score == pytest.approx(
        score_distribution(solution, "greedy").expected_score, abs=1e-9)
    table = solve_targets(solution, 40)
    naive = NaiveTarget(rules)
    for target in range(1, 41, 3):
        assert table.p_reach(target) == pytest.approx(naive_target(rules, target, naive),
                                                      abs=1e-6)  # float32 tables
    games = simulate(solution, 20_000, seed=5)
    assert games.mean == pytest.approx(solution.expected_score, abs=4 * solution.sd / 141)
    threes_filled = Position(filled={"threes": 3}, mask=1, upper_total=3)
    served = [a for a in advise(solution, threes_filled, (2, 3), 1).actions
              if a.kind == "score"]
    assert served and served[0].box.points == 9 and "first roll" in served[0].label()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rule_sets())
def test_distribution_matches_brute_force_on_small_games(rules):
    solution = Model(rules, use_cache=False).solve()
    _same_pmf(_as_dict(score_distribution(solution)),
              naive_distribution_multiset(rules, advisor_choices(solution)))


@pytest.fixture(scope="module")
def solved():
    """`solved(name)`: a built-in's solution (with its SD) and exact distribution, computed
    once for the module."""
    memo = {}

    def get(name: str):
        if name not in memo:
            solution = Model(load_rules(name), use_cache=False).solve(with_sd=True)
            memo[name] = solution, score_distribution(solution)
        return memo[name]

    return get


# (Yatzy's distribution takes 15 s here: the same code as the others', checked under -m slow)
@pytest.mark.parametrize("name", ["official-free-joker", "gist",
                                  pytest.param("yatzy", marks=pytest.mark.slow)])
def test_distribution_agrees_with_the_dp_and_the_moments(name, solved):
    solution, dist = solved(name)
    assert dist.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(dist.probabilities >= 0)
    assert dist.expected_score == pytest.approx(solution.expected_score, abs=1e-9)
    assert dist.sd == pytest.approx(solution.sd, abs=1e-9)
    if name == "official-free-joker":
        # Verhoeff's 10^6-game simulation: median 248, 1% 152, 99% 474, P(>=400) about 4%.
        assert dist.median == 248 and dist.percentile(99) == 474
        assert abs(dist.percentile(1) - 152) <= 1
        assert dist.p_at_least(400) == pytest.approx(0.0384, abs=0.0005)


@pytest.mark.parametrize("strategy", ["greedy", "heuristic"])
def test_other_strategies_distributions(strategy):
    model = Model(load_rules("no-bonus"), use_cache=False)
    solution = model.solve()
    dist = score_distribution(solution, strategy)
    moments = model.moments(strategy)
    assert dist.expected_score == pytest.approx(moments.expected_score, abs=1e-9)
    assert dist.sd == pytest.approx(moments.sd, abs=1e-9)


def test_simulated_histogram_agrees_with_the_exact_pmf(solved):
    solution, dist = solved("official-free-joker")
    games = simulate(solution, 40_000, seed=3)
    n = games.games
    # Counts in bands of scores: each within 4.5 binomial standard errors.
    edges = [0, 150, 200, 230, 250, 270, 300, 400, 2000]
    counts = np.add.reduceat(np.append(games.score_counts, np.zeros(2000)), edges[:-1])
    for lo, hi, count in zip(edges[:-1], edges[1:], counts, strict=True):
        p = float(dist.probabilities[(dist.scores >= lo) & (dist.scores < hi)].sum())
        assert abs(count - n * p) <= 4.5 * np.sqrt(n * p * (1 - p)) + 1, (lo, hi)


# ---------------------------------------------------------------- target play


def test_target_play_matches_brute_force():
    rules = RuleSet.model_validate(JOKER_GAME)
    solution = Model(rules, use_cache=False).solve()
    table = solve_targets(solution, 60)
    naive = NaiveTarget(rules)
    for target in range(0, 61, 3):
        assert table.p_reach(target) == pytest.approx(naive_target(rules, target, naive),
                                                      abs=1e-6)


@pytest.mark.parametrize("name, rules", [("no-bonus", None), ("saved", "saved_rolls: {cap: 2}")])
def test_target_play_returns_between_parts_of_a_layer(monkeypatch, name, rules):
    """Python (Ctrl-C, progress) has its turn only between two kernel calls, so target play
    sweeps a layer in parts of about budget.PART_SECONDS of work, as the DP does (made tiny
    here): many steps a layer, never back, the same chances."""
    from yz.rules import rules_from_text
    from yz.solver import budget

    game = load_rules("no-bonus") if rules is None else rules_from_text(
        f"name: banked\nextends: no-bonus\n{rules}\nremove_categories: [ones, twos, threes, "
        "fours, fives, sixes, chance]\n")
    whole = solve_targets(Model(game, use_cache=False).solve(), 60)
    monkeypatch.setattr(budget, "PART_SECONDS", 1e-6)
    model = Model(game, use_cache=False)
    steps = []
    table = solve_targets(model.solve(), 60, lambda done, total: steps.append((done, total)))
    assert len(steps) > 2 * model.tables.n_categories  # (one a layer before)
    done = [d for d, _ in steps]
    assert done == sorted(done) and done[-1] == steps[-1][1]
    np.testing.assert_array_equal(table.W, whole.W)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rule_sets())
def test_target_play_beats_mean_play_and_matches_brute_force(rules):
    solution = Model(rules, use_cache=False).solve()
    dist = score_distribution(solution)
    top = int(dist.scores[-1])
    table = solve_targets(solution, top + 1)
    naive = NaiveTarget(rules)
    for target in range(1, top + 2, max(1, top // 6)):
        p = table.p_reach(target)
        assert p >= dist.p_at_least(target) - 1e-6
        assert p == pytest.approx(naive_target(rules, target, naive), abs=1e-6)
    assert table.p_reach(top + 1) == 0.0


def test_a_distribution_too_big_for_memory_is_refused_up_front(monkeypatch, isolated_cache):
    from typer.testing import CliRunner
    from yz.cli.main import app
    from yz.solver import budget
    from yz.solver.state import build_layout

    t = compile_rules(load_rules("official-free-joker"))
    layout = build_layout(t)
    assert t.highest_score == 1575  # 13 boxes at their best, 35 bonus, 12 Yahtzee bonuses
    budget.check_distribution_memory(t, layout, None)  # fits here
    monkeypatch.setattr(budget, "machine_memory", lambda: 1 << 26)
    with pytest.raises(InputError, match="GiB"):
        budget.check_distribution_memory(t, layout, None)
    result = CliRunner().invoke(app, ["distribution", "--variant", "official-free-joker"])
    assert result.exit_code == 2 and "simulate the game instead" in result.stderr
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())  # nothing solved
