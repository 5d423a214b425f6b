"""Rule sets drawn at random from the whole rule language, against the brute-force twin.

For every drawn rule set (written as YAML and read by the real loader): the DP's expected
score, the chance of two targets under target play, the exact distribution of the final score
(against the twin following the advisor's decisions, with its mean and SD against the DP's),
the advisor's best move at positions reached by random play, and a simulation's mean. A
failing example shrinks to the smallest rule file that still fails, printed with the failure.

The quick profile runs in CI; `pytest -m slow tests/test_random_rules.py` runs thousands of
bigger games (dice up to 4, boxes up to 5).
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st
from naive import (
    START,
    NaiveMoments,
    NaiveMultisetGame,
    NaiveMultisetTarget,
    naive_distribution_multiset,
    naive_solve,
    naive_target,
)
from random_rules import QUICK, SLOW, as_yaml, rule_documents
from slow_slice import slow_examples
from test_saved_rolls import check_moves_within_the_bound
from yz.rules import RulesError, rules_from_text
from yz.rules.position import Position
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.distribution import score_distribution
from yz.solver.simulate import simulate
from yz.solver.target import solve_targets

SIM_GAMES = 2000
# Rule sets drawn by the quick profile (the bounds-checked sample below draws fewer).
QUICK_EXAMPLES = int(os.environ.get("YZ_RANDOM_EXAMPLES", "200"))
TWIN_WORK = 4_000  # states x ordered rolls of a quick saved-rolls draw (see its test)


def loaded(doc: dict):
    """The drawn rule set read back through the loader, its YAML noted for the report."""
    text = as_yaml(doc)
    note(f"the rule file:\n{text}")
    try:
        return rules_from_text(text, "random.yaml")
    except RulesError as exc:  # every drawn document is meant to be valid
        raise AssertionError(f"a drawn rule file was refused:\n{exc}") from None


def random_positions(twin: NaiveMultisetGame, rng: random.Random, count: int):
    """`count` (state, dice, re-rolls left) reached by playing random legal moves."""
    rules = twin.rules
    rolls = [d for d, _ in twin.rolls]
    out = []
    for _ in range(count):
        state = START
        for _turn in range(rng.randrange(len(twin.keys))):
            dice = rng.choice(rolls)
            first = twin.is_first(0)
            moves = twin.legal_boxes(state[0], state[2], first)[dice]
            key, box, ybonus = rng.choice(moves)
            _points, state = twin.move(state, key, box, ybonus)
        out.append((state, rng.choice(rolls), rng.randrange(rules.rolls)))
    return out


def position_of(rules, state) -> Position:
    filled, upper, flag = state
    mask = sum(1 << rules.index_of(k) for k in filled)
    return Position(mask=mask, upper_total=upper, yahtzee_full=flag)


def advisor_choices(solution):
    """The decisions `yz advise` makes, as the twin's distribution asks for them."""
    rules = solution.rules
    memo: dict = {}

    def choose(state, dice, left):
        key = (state, dice, left)
        if key not in memo:
            best = advise(solution, position_of(rules, state), dice, left).best
            memo[key] = best.box.key if best.kind == "score" else best.keep
        return memo[key]

    return choose


def check_rule_set(doc: dict, seed: int) -> None:
    """Every figure of one rule set against the twin (see the module docstring)."""
    rules = loaded(doc)
    solution = Model(rules, use_cache=False).solve(with_sd=True)
    twin = NaiveMultisetGame(rules)
    expected = twin.value(*START)
    assert solution.expected_score == pytest.approx(expected, abs=1e-9, rel=1e-12)
    assert np.all(solution.values >= 0), "a value below any possible score"

    # The exact distribution, following the advisor's choices in the twin.
    dist = score_distribution(solution)
    naive_pmf = naive_distribution_multiset(rules, advisor_choices(solution), twin)
    got = {int(s): float(p) for s, p in zip(dist.scores, dist.probabilities, strict=True)
           if p > 0}
    for score in set(got) | set(naive_pmf):
        assert got.get(score, 0.0) == pytest.approx(naive_pmf.get(score, 0.0), abs=1e-12), score
    assert dist.expected_score == pytest.approx(solution.expected_score, abs=1e-9, rel=1e-12)
    # The DP's SD is sqrt(E[X^2] - E[X]^2): compare variances, to E[X^2]'s precision.
    second = solution.sd ** 2 + solution.expected_score ** 2
    assert dist.sd ** 2 == pytest.approx(solution.sd ** 2, abs=1e-12 * second, rel=1e-9)

    # Target play: two targets around the middle and the top of the distribution.
    targets = sorted({max(1, dist.percentile(50)), max(1, dist.percentile(90) + 1)})
    table = solve_targets(solution, targets[-1])
    twin_target = NaiveMultisetTarget(rules, twin)
    for target in targets:
        assert table.p_reach(target) == pytest.approx(twin_target.chance(START, target),
                                                      abs=2e-6), target  # float32 tables

    # The advisor's best move at positions random play reaches.
    rng = random.Random(seed)
    for state, dice, left in random_positions(twin, rng, 4):
        best = advise(solution, position_of(rules, state), dice, left).best
        assert best.value == pytest.approx(twin.roll_value(state, dice, left),
                                           abs=1e-9, rel=1e-12), (state, dice, left)

    # Simulated games average the exact value (a second, bigger run settles a 4-SE outlier).
    for games, sim_seed in ((SIM_GAMES, seed), (8 * SIM_GAMES, seed + 1)):
        sim = simulate(solution, games, seed=sim_seed)
        se = max(solution.sd, 1e-9) / math.sqrt(games)
        if abs(sim.mean - solution.expected_score) <= 4 * se:
            break
    else:
        raise AssertionError(f"simulated mean {sim.mean} is more than 4 standard errors "
                             f"({4 * se:.4f}) from the exact {solution.expected_score}")


@settings(max_examples=QUICK_EXAMPLES, deadline=None, derandomize=True, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(QUICK), st.integers(0, 2**31))
def test_random_rule_sets_match_the_twin(doc, seed):
    check_rule_set(doc, seed)


@pytest.mark.slow
@settings(max_examples=slow_examples(5000), deadline=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(SLOW), st.integers(0, 2**31))
def test_random_rule_sets_match_the_twin_slow(doc, seed):
    check_rule_set(doc, seed)


# 12 rule sets with saved rolls in every run, new ones each run (hypothesis draws at random);
# 300 under `pytest -m slow`, of every size.
@settings(max_examples=int(os.environ.get("YZ_RANDOM_BANK_EXAMPLES", "12")), deadline=None,
          print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(QUICK, saved_rolls=True))
def test_random_rule_sets_with_saved_rolls_match_the_twin(doc):
    """The DP's value of a game with saved rolls, its SD and the chance of reaching the median
    under target play, against the twin over ordered dice (the SD within the range the ways of
    breaking ties allow)."""
    rules = loaded(doc)
    # The twin's work grows with the states and the ordered rolls: the quick run skips the
    # few draws above this (measured on 150 draws: 0.3 s each on average, but one in fifty
    # took 10 to 26 s, above 10,000 here), which the slow test keeps.
    assume(Model(rules, use_cache=False).problem.layout.size
           * rules.faces ** rules.dice <= TWIN_WORK)
    check_saved_rolls_rule_set(doc)


@pytest.mark.slow
@settings(max_examples=slow_examples(300), deadline=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(QUICK, saved_rolls=True))
def test_random_rule_sets_with_saved_rolls_match_the_twin_slow(doc):
    check_saved_rolls_rule_set(doc)


def check_saved_rolls_rule_set(doc) -> None:
    rules = loaded(doc)
    model = Model(rules, use_cache=False)
    solution = model.solve(with_sd=True)
    assert solution.expected_score == pytest.approx(naive_solve(rules), rel=1e-9, abs=1e-9)
    mean, low, high = NaiveMoments(rules).start_moments()
    assert mean == pytest.approx(solution.expected_score, rel=1e-9, abs=1e-9)
    second = solution.sd ** 2 + mean * mean
    assert low - 1e-7 * max(1.0, low) <= second <= high + 1e-7 * max(1.0, high), (
        low, second, high)
    # The exact distribution (the forward pass over banked moves) has the same two moments.
    dist = model.distribution()
    assert dist.expected_score == pytest.approx(solution.expected_score, rel=1e-9, abs=1e-9)
    assert dist.sd ** 2 == pytest.approx(solution.sd ** 2, abs=1e-9 * max(1.0, second),
                                         rel=1e-7)
    check_moves_within_the_bound(model)
    # Target play, at the median (the twin's expectimax over chances, the bank in its state).
    target = max(1, dist.percentile(50))
    table = solve_targets(solution, target)
    assert table.p_reach(target) == pytest.approx(naive_target(rules, target), abs=2e-6)


@pytest.mark.slow
def test_a_sample_with_bounds_checked_kernels():
    """The quick profile's first rule sets again, with every kernel compiled with numba's
    bounds checking (`YZ_DEBUG_KERNELS=1`): an index outside an array raises instead of
    reading a neighbour's entry. (Compiling every kernel so takes minutes: slow.)"""
    env = {**os.environ, "YZ_DEBUG_KERNELS": "1", "YZ_RANDOM_EXAMPLES": "60"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
         f"{__file__}::test_random_rule_sets_match_the_twin"],
        env=env, cwd=Path(__file__).parent.parent, capture_output=True, text=True,
        timeout=3600)  # a hang guard only
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
