"""Property tests: the compiled tables against the naive twin, on the built-in variants and on
small random rule sets drawn by hypothesis."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import naive_box_points, naive_full_value, naive_score
from random_rules import plain_patterns
from slow_slice import slow_examples
from test_scoring_examples import table_box_points
from yz.rules import builtin_names, compile_rules, load_rules
from yz.rules.models import RuleSet

VARIANTS = builtin_names()
QUICK = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def builtin(name: str):
    rules = load_rules(name)
    return rules, compile_rules(rules)


def rolls_of(t) -> list[tuple[int, ...]]:
    return [tuple(int(d) for d in t.ROLL_DICE[r]) for r in range(t.n_distinct_rolls)]


def test_the_seven_builtins_are_covered():
    assert {"gist", "no-bonus", "no-upper-bonus", "no-yahtzee-bonus", "official-forced-joker",
            "official-free-joker", "yatzy"} <= set(VARIANTS)


# ---------------------------------------------------------------- checks on one rule set


def check_table_matches_naive(rules, t, rng: random.Random) -> None:
    """SCORE equals naive_score on every roll, sorted and in a random order."""
    assert t.SCORE.shape == (t.n_distinct_rolls, len(rules.categories))
    for r, dice in enumerate(rolls_of(t)):
        assert t.roll_index(dice) == r
        shuffled = list(dice)
        rng.shuffle(shuffled)
        for c, cat in enumerate(rules.categories):
            want = int(t.SCORE[r, c])
            assert naive_score(cat, dice) == want, (cat.key, dice)
            assert naive_score(cat, tuple(shuffled)) == want, (cat.key, shuffled)


def check_bounds(rules, t) -> None:
    """0 <= score <= the most the box can give; chance = sum; upper box = face x count."""
    sums = t.ROLL_COUNTS.astype(np.int64) @ np.arange(1, t.n_faces + 1)
    for c, cat in enumerate(rules.categories):
        col = t.SCORE[:, c].astype(np.int64)
        assert (col >= 0).all()
        if cat.score.kind == "fixed":
            assert set(np.unique(col)) <= {0, cat.score.points}
        else:
            assert (col <= sums).all()  # never more than the dice shown
            assert col.max() <= rules.dice * rules.faces
        if cat.pattern.kind == "any" and cat.score.kind == "sum_all":
            assert (col == sums).all()
        if cat.pattern.kind == "face" and cat.score.kind == "face_total":
            face = cat.pattern.face
            want = face * t.ROLL_COUNTS[:, face - 1].astype(np.int64)
            if cat.pattern.min_count:
                want = np.where(t.ROLL_COUNTS[:, face - 1] >= cat.pattern.min_count, want, 0)
            assert (col == want).all()


def check_joker_table(rules, t) -> None:
    """JOKER_SCORE differs from SCORE only on all-equal rolls in the Joker's full-value boxes,
    and there it is the full value."""
    all_same = np.array([len(set(d)) == 1 for d in rolls_of(t)])
    for c, cat in enumerate(rules.categories):
        differ = t.JOKER_SCORE[:, c] != t.SCORE[:, c]
        if cat.key not in rules.joker.full_value:
            assert not differ.any(), cat.key
            continue
        assert not (differ & ~all_same).any(), cat.key
        for r, dice in enumerate(rolls_of(t)):
            if all_same[r]:
                assert int(t.JOKER_SCORE[r, c]) == naive_full_value(cat, dice)


def loosened(rules, index: int):
    """The same rule set with category `index`'s pattern counting 'at least' (exact=False)."""
    data = rules.model_dump()
    data["categories"][index]["pattern"]["exact"] = False
    return RuleSet.model_validate(data)


def check_exact_vs_loose(rules, t) -> int:
    """An exact-count box never scores where its 'at least' twin scores 0, nor more than it."""
    checked = 0
    for c, cat in enumerate(rules.categories):
        if getattr(cat.pattern, "exact", False):
            loose_rules = loosened(rules, c)
            loose = compile_rules(loose_rules).SCORE[:, c]
            exact = t.SCORE[:, c]
            assert not ((exact > 0) & (loose == 0)).any(), cat.key
            assert (loose >= exact).all(), cat.key
            for dice in rolls_of(t)[:: max(1, t.n_distinct_rolls // 40)]:
                assert naive_score(loose_rules.categories[c], dice) >= naive_score(cat, dice)
            checked += 1
    return checked


# ---------------------------------------------------------------- built-in variants


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(rng=st.randoms(use_true_random=False))
def test_builtin_table_equals_naive_every_roll(name, rng):
    rules, t = builtin(name)
    check_table_matches_naive(rules, t, rng)


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_builtin_any_order_of_dice(name, data):
    rules, t = builtin(name)
    dice = data.draw(st.lists(st.integers(1, rules.faces), min_size=rules.dice,
                              max_size=rules.dice), label="dice")
    r = t.roll_index(dice)
    for c, cat in enumerate(rules.categories):
        assert naive_score(cat, tuple(dice)) == t.SCORE[r, c]


@pytest.mark.parametrize("name", VARIANTS)
def test_builtin_bounds_and_simple_boxes(name):
    rules, t = builtin(name)
    check_bounds(rules, t)
    # every built-in has six upper face boxes and (but Generala and Crag) a chance box
    assert sum(c.pattern.kind == "face" for c in rules.categories) == 6
    assert any(c.pattern.kind == "any" for c in rules.categories) or \
        name in ("generala", "crag")


@pytest.mark.parametrize("name", VARIANTS)
def test_builtin_joker_table(name):
    rules, t = builtin(name)
    check_joker_table(rules, t)


@pytest.mark.parametrize("name", VARIANTS)
def test_builtin_exact_patterns_loosened(name):
    rules, t = builtin(name)
    checked = check_exact_vs_loose(rules, t)
    assert checked == (5 if name == "gist" else 0)  # pair, two pairs, 3K, 4K, full house


@st.composite
def positions(draw, rules):
    """A final roll (often a Yahtzee roll), an open box and a filled set around it."""
    keys = rules.keys
    if draw(st.booleans()):
        dice = (draw(st.integers(1, rules.faces)),) * rules.dice
    else:
        dice = tuple(draw(st.lists(st.integers(1, rules.faces), min_size=rules.dice,
                                   max_size=rules.dice)))
    filled = frozenset(k for k in keys if draw(st.booleans()))
    flag_key = rules.flag_box_key  # the box whose non-zero score the state remembers
    if flag_key is not None and draw(st.booleans()):
        filled |= {flag_key}
    key = draw(st.sampled_from(keys))
    yfull = flag_key in filled and key != flag_key and draw(st.booleans())
    return dice, key, filled - {key}, yfull


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=150, deadline=None)  # (new positions each run)
@given(data=st.data())
def test_builtin_box_points_tables_equal_naive(name, data):
    rules, t = builtin(name)
    dice, key, filled, yfull = data.draw(positions(rules))
    assert naive_box_points(rules, dice, key, filled, yfull) == table_box_points(
        t, dice, key, filled, yfull)


# ---------------------------------------------------------------- random small rule sets


@st.composite
def patterns(draw, n: int, f: int, depth: int = 1):
    """A pattern at level `depth` (combined ones nest at most three deep)."""
    kinds = ["face", "of_a_kind", "groups", "all_same", "any", "total"]
    if min(n, f) >= 2:
        kinds += ["run", "set"]
    if depth < 3:
        kinds += ["either", "both"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("either", "both"):
        count = 2 if kind == "both" else draw(st.integers(2, 4))
        return {"kind": kind, "patterns": [draw(patterns(n, f, depth + 1)) for _ in range(count)]}
    if kind == "total":  # a total some roll has: n .. n x f
        how = draw(st.sampled_from(["equals", "min", "max", "min_max"]))
        if how == "equals":
            return {"kind": "total", "equals": draw(st.integers(n, n * f))}
        low = draw(st.integers(0, n * f))
        high = draw(st.integers(max(low, n), n * f + 3))
        given = {"min": ["min"], "max": ["max"], "min_max": ["min", "max"]}[how]
        bounds = {"min": low, "max": high}
        return {"kind": "total", **{k: bounds[k] for k in given}}
    if kind == "face":
        return {"kind": "face", "face": draw(st.integers(1, f)),
                "min_count": draw(st.integers(0, n))}
    if kind == "of_a_kind":
        return {"kind": "of_a_kind", "count": draw(st.integers(1, n)), "exact": draw(st.booleans())}
    if kind == "groups":
        distinct = draw(st.booleans())
        g = draw(st.integers(1, min(4, n, f) if distinct else min(4, n)))
        sizes, left = [], n
        for j in range(g):
            size = draw(st.integers(1, left - (g - j - 1)))
            sizes.append(size)
            left -= size
        return {"kind": "groups", "sizes": draw(st.permutations(sizes)),
                "exact": draw(st.booleans()), "distinct": distinct}
    if kind == "run":
        return {"kind": "straight", "length": draw(st.integers(2, min(n, f)))}
    if kind == "set":
        return {"kind": "straight", "faces": draw(st.lists(
            st.integers(1, f), min_size=2, max_size=min(n, f), unique=True))}
    return {"kind": kind}


@st.composite
def rule_sets(draw, max_dice: int = 6, max_faces: int = 8):
    n = draw(st.integers(1, max_dice))
    f = draw(st.integers(2, max_faces))
    cats = []
    held = 0  # plain patterns in the boxes so far: a rule set holds at most 40
    for i in range(draw(st.integers(1, 5))):
        pattern = draw(patterns(n, f))
        held += plain_patterns(pattern)
        if held > 40:
            pattern, held = {"kind": "any"}, held - plain_patterns(pattern) + 1
        forms = ["sum_all", "sum_matched", {"kind": "fixed", "points": draw(st.integers(0, 50))}]
        if pattern["kind"] == "face":
            forms.append("face_total")
        cats.append({"key": f"c{i}", "name": f"Box {i}",
                     "section": draw(st.sampled_from(["upper", "lower"])),
                     "pattern": pattern, "score": draw(st.sampled_from(forms))})
    extra = {}
    if draw(st.booleans()):  # a Yahtzee box, a Joker and maybe an extra bonus
        cats.append({"key": "yahtzee", "name": "Yahtzee", "section": "lower",
                     "pattern": "all_same", "score": {"kind": "fixed", "points": 50}})
        keys = [c["key"] for c in cats]
        extra["joker"] = {"mode": draw(st.sampled_from(["none", "free", "forced"])),
                          "full_value": draw(st.lists(st.sampled_from(keys), unique=True))}
        if draw(st.booleans()):
            extra["yahtzee_bonus"] = {"amount": draw(st.integers(1, 100))}
    return RuleSet.model_validate({"name": "random", "dice": n, "faces": f,
                                   "categories": cats, **extra})


def check_random_rules_table(rules, rng) -> None:
    t = compile_rules(rules)
    check_table_matches_naive(rules, t, rng)
    check_bounds(rules, t)
    check_joker_table(rules, t)


# 60 random rule sets in every run (new ones each run: hypothesis draws at random), 1,500
# under `pytest -m slow`.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), rng=st.randoms(use_true_random=False))
def test_random_rules_table_equals_naive(rules, rng):
    check_random_rules_table(rules, rng)


@pytest.mark.slow
@settings(max_examples=slow_examples(1500), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), rng=st.randoms(use_true_random=False))
def test_random_rules_table_equals_naive_slow(rules, rng):
    check_random_rules_table(rules, rng)


@QUICK
@given(rules=rule_sets(max_dice=5, max_faces=6))
def test_random_rules_exact_patterns_loosened(rules):
    check_exact_vs_loose(rules, compile_rules(rules))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(max_dice=5, max_faces=6), data=st.data())
def test_random_rules_box_points_tables_equal_naive(rules, data):
    t = compile_rules(rules)
    for _ in range(10):
        dice, key, filled, yfull = data.draw(positions(rules))
        assert naive_box_points(rules, dice, key, filled, yfull) == table_box_points(
            t, dice, key, filled, yfull)
