"""A scaled-down Maxi Yatzy (6 dice, 8 boxes, 4 faces) against a brute-force twin (issue 9).

The ordered-dice twin ``naive_solve`` is far too slow at 6 dice, so the 6-dice games are checked
against ``naive_solve_multiset`` (expectimax over dice multisets), which is itself first checked
against ``naive_solve`` on tiny games.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from naive import naive_solve, naive_solve_multiset
from test_solver import CATEGORY_POOL, small_rule_sets
from yz.rules.models import RuleSet
from yz.solver import Model

# ---------------------------------------------------------------- the multiset twin itself


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rule_sets())
def test_multiset_twin_agrees_with_the_ordered_twin(rules):
    assert naive_solve_multiset(rules) == pytest.approx(naive_solve(rules), abs=1e-9)


def _pool(*keys, **extra):
    """Boxes of the shared pool by key, with `extra` fields per key (e.g. a first-roll bonus)."""
    by_key = {c["key"]: c for c in CATEGORY_POOL}
    return [{**by_key[k], "name": k, **extra.get(k, {})} for k in keys]


FIXED_TINY = {
    "first-roll bonus": {
        "dice": 3, "faces": 3, "rolls": 3,
        "categories": _pool("full", "yahtzee", "chance",
                            full={"first_roll_bonus": 5}, yahtzee={"first_roll_bonus": 9}),
    },
    "in order": {
        "dice": 3, "faces": 3, "rolls": 2, "order": "in_order",
        "categories": _pool("ones", "pair", "twos", "yahtzee", yahtzee={"first_roll_bonus": 4}),
        "upper_bonus": {"threshold": 3, "amount": 12},
    },
    "forced joker": {
        "dice": 2, "faces": 3, "rolls": 3,
        "categories": _pool("yahtzee", "ones", "twos", "run", "double"),
        "upper_bonus": {"threshold": 4, "amount": 10},
        "joker": {"mode": "forced", "full_value": ["run"]},
    },
    "free joker, Yahtzee bonus": {
        "dice": 3, "faces": 2, "rolls": 3,
        "categories": _pool("yahtzee", "ones", "twos", "run", "chance"),
        "upper_bonus": {"threshold": 5, "amount": 20},
        "yahtzee_bonus": {"amount": 100},
        "joker": {"mode": "free", "full_value": ["run", "chance"]},
    },
}


@pytest.mark.parametrize("name", sorted(FIXED_TINY))
def test_multiset_twin_agrees_on_fixed_games(name):
    rules = RuleSet.model_validate({"name": "tiny", **FIXED_TINY[name]})
    assert naive_solve_multiset(rules) == pytest.approx(naive_solve(rules), abs=1e-9)


# ---------------------------------------------------------------- the Maxi-like games


def _box(key, section, pattern, score, **extra):
    return {"key": key, "name": key, "section": section, "pattern": pattern, "score": score,
            **extra}


# Maxi Yatzy's boxes on 4-sided dice, written as variants/maxi-yatzy.yaml writes them: two upper
# boxes with a bonus, Three Pairs, Villa (3+3), Tower (4+2), the Full Straight (every face),
# Chance and Maxi Yatzy (six equal dice). 4 faces keep the brute force to a few seconds.
MAXI_BOXES = [
    _box("threes", "upper", {"kind": "face", "face": 3}, "face_total"),
    _box("fours", "upper", {"kind": "face", "face": 4}, "face_total"),
    _box("three_pairs", "lower", {"kind": "groups", "sizes": [2, 2, 2]}, "sum_matched"),
    _box("villa", "lower", {"kind": "groups", "sizes": [3, 3]}, "sum_matched"),
    _box("tower", "lower", {"kind": "groups", "sizes": [4, 2]}, "sum_matched"),
    _box("full_straight", "lower", {"kind": "straight", "faces": [1, 2, 3, 4]}, "sum_matched"),
    _box("chance", "lower", "any", "sum_all"),
    _box("maxi_yatzy", "lower", "all_same", {"kind": "fixed", "points": 50}),
]

MAXI_LIKE = {
    "name": "maxi-like", "dice": 6, "faces": 4, "rolls": 3, "categories": MAXI_BOXES,
    "upper_bonus": {"threshold": 18, "amount": 25},
}

# The same boxes filled in order (Yatzy in order), Maxi Yatzy third so that later Maxi Yatzys
# meet its bonus and the free Joker, with Generala's first-roll bonuses: few states, so every
# rule comes cheap.
_IN_ORDER = ["threes", "fours", "maxi_yatzy", "three_pairs", "villa", "tower", "full_straight",
             "chance"]
MAXI_LIKE_IN_ORDER = {
    **MAXI_LIKE, "name": "maxi-like-in-order", "order": "in_order",
    "categories": [{**c, "first_roll_bonus": 5} if c["key"] in ("full_straight", "maxi_yatzy")
                   else c for k in _IN_ORDER for c in MAXI_BOXES if c["key"] == k],
    "yahtzee_category": "maxi_yatzy",
    "yahtzee_bonus": {"amount": 50},
    "joker": {"mode": "free", "full_value": ["full_straight", "villa"]},
}


# (the free-order game's brute force takes 8 s: under -m slow; the in-order one, with every
# rule of the box set, runs every time)
@pytest.mark.parametrize("data", [pytest.param(MAXI_LIKE, marks=pytest.mark.slow),
                                  MAXI_LIKE_IN_ORDER], ids=lambda d: d["name"])
def test_dp_agrees_with_brute_force_on_a_maxi_like_game(data):
    rules = RuleSet.model_validate(data)
    fast = Model(rules, use_cache=False).solve().expected_score
    assert fast == pytest.approx(naive_solve_multiset(rules), abs=1e-9)
