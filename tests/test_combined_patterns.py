"""Patterns on the dice total and patterns that combine others (`total`, `either`, `both`).

Scores are checked against hand-worked numbers, each through the scorer, the compiled table
and the naive twin; Crag's two boxes ("Thirteen" and "Crag") and "a Yahtzee also counts as a
straight" are rule files of a line or two; the nesting and list bounds are refused with one
`file:line:col` error, whatever the size of the input.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from naive import NaiveMultisetGame, naive_score
from yz.rules import RulesError, compile_rules, load_rules, rules_from_text
from yz.rules.models import (
    MAX_EITHER_PATTERNS,
    MAX_PATTERN_DEPTH,
    MAX_PLAIN_PATTERNS,
    RuleSet,
    plain_patterns,
)
from yz.rules.scoring import category_scores
from yz.solver import Model

HANG_GUARD = 60  # seconds; only a hang trips it


def counts_of(dice, faces: int) -> np.ndarray:
    counts = np.zeros((1, faces), dtype=np.int64)
    for d in dice:
        counts[0, d - 1] += 1
    return counts


def score(rules: RuleSet, key: str, dice) -> int:
    """The box's points for the dice: the scorer, the compiled table and the twin agree."""
    cat = rules.categories[rules.index_of(key)]
    fast = int(category_scores(cat, counts_of(dice, rules.faces))[0])
    t = compile_rules(rules)
    table = int(t.SCORE[t.roll_index(dice), rules.index_of(key)])
    naive = naive_score(cat, tuple(dice))
    assert fast == table == naive, f"scorer {fast}, table {table}, twin {naive}: {key} {dice}"
    return naive


def problems(text: str) -> str:
    with pytest.raises(RulesError) as info:
        rules_from_text(text, "rules.yaml")
    return str(info.value)


# ---------------------------------------------------------------- Crag

# Crag (3 dice, 13 boxes): "Thirteen" is any three dice totalling 13 (26 points), "Crag" a
# pair among dice totalling 13 (50 points). Two of its boxes, as the rule language writes them.
CRAG = """\
name: crag-two-boxes
dice: 3
faces: 6
rolls: 3
categories:
  - {key: thirteen, pattern: {kind: total, equals: 13}, score: 26}
  - key: crag
    pattern: {kind: both, patterns: [{kind: of_a_kind, count: 2}, {kind: total, equals: 13}]}
    score: 50
"""


@pytest.mark.parametrize("dice, thirteen, crag", [
    ((6, 6, 1), 26, 50),   # a pair of sixes and a one: 13
    ((1, 6, 6), 26, 50),   # the order of the dice does not matter
    ((4, 4, 5), 26, 50),
    ((5, 5, 3), 26, 50),
    ((6, 5, 2), 26, 0),    # 13, but no pair
    ((6, 4, 3), 26, 0),
    ((6, 6, 2), 0, 0),     # a pair, but 14
    ((4, 4, 4), 0, 0),     # three of a kind (a pair too), 12
    ((1, 1, 1), 0, 0),
    ((6, 6, 6), 0, 0),
])
def test_crag_boxes_score_as_worked_by_hand(dice, thirteen, crag):
    rules = rules_from_text(CRAG, "crag.yaml")
    assert score(rules, "thirteen", dice) == thirteen
    assert score(rules, "crag", dice) == crag


def test_crag_rolls_counted_by_hand():
    """Of the 216 ordered throws of 3 dice, 21 total 13 (the 6 orders of 6-5-2 and of 6-4-3,
    the 3 of 6-6-1, 5-5-3 and 5-4-4) and 9 of them show a pair: the table agrees."""
    rules = rules_from_text(CRAG, "crag.yaml")
    t = compile_rules(rules)
    chance = {key: float(t.ROLL_PROB[t.SCORE[:, c] > 0].sum()) for c, key in enumerate(rules.keys)}
    assert chance == pytest.approx({"thirteen": 21 / 216, "crag": 9 / 216}, abs=1e-15)


def test_crag_is_solved_as_the_twin_solves_it():
    rules = rules_from_text(CRAG, "crag.yaml")
    value = Model(rules, use_cache=False).solve().expected_score
    assert value == pytest.approx(NaiveMultisetGame(rules).value(frozenset(), 0, False),
                                  rel=1e-12)
    assert 0 < value < 76


# ---------------------------------------------------------------- a Yahtzee is a straight too

YAHTZEE_STRAIGHT = """\
name: yahtzee-is-a-straight
extends: official-free-joker
categories:
  - key: large_straight
    pattern: {kind: either, patterns: [{kind: straight, length: 5}, all_same]}
"""


@pytest.mark.parametrize("dice, large, small", [
    ((1, 2, 3, 4, 5), 40, 30), ((6, 4, 5, 2, 3), 40, 30), ((3, 3, 3, 3, 3), 40, 0),
    ((6, 6, 6, 6, 6), 40, 0), ((1, 2, 3, 4, 6), 0, 30), ((3, 3, 3, 3, 4), 0, 0),
])
def test_a_yahtzee_also_counts_as_a_large_straight(dice, large, small):
    """One line of YAML; the Small Straight, not changed, still needs its run."""
    rules = rules_from_text(YAHTZEE_STRAIGHT, "house.yaml")
    assert score(rules, "large_straight", dice) == large
    assert score(rules, "small_straight", dice) == small


# ---------------------------------------------------------------- what forms a pattern

SUMS = """\
name: sums
dice: 5
categories:
  - {key: box, pattern: %s, score: sum_matched}
"""
EITHER_OF_BOTHS = ("{kind: either, patterns: [{kind: both, patterns: [{kind: face, face: 6}, "
                   "{kind: total, max: 12}]}, {kind: both, patterns: [{kind: face, face: 1}, "
                   "all_same]}]}")


@pytest.mark.parametrize("pattern, dice, points", [
    # total: all the dice form it
    ("{kind: total, equals: 13}", (1, 2, 3, 3, 4), 13),
    ("{kind: total, min: 20}", (6, 6, 4, 3, 1), 20),
    ("{kind: total, min: 20}", (6, 6, 4, 2, 1), 0),
    ("{kind: total, max: 10}", (1, 1, 2, 3, 3), 10),
    ("{kind: total, max: 10}", (1, 1, 2, 3, 4), 0),
    ("{kind: total, min: 12, max: 14}", (1, 2, 3, 3, 4), 13),
    ("{kind: total, min: 12, max: 14}", (1, 2, 3, 3, 6), 0),
    # either: the matching pattern whose dice sum highest
    ("{kind: either, patterns: [{kind: face, face: 6}, {kind: face, face: 5}]}",
     (6, 5, 5, 1, 2), 10),
    ("{kind: either, patterns: [{kind: of_a_kind, count: 3}, {kind: of_a_kind, count: 2}]}",
     (2, 2, 2, 6, 6), 12),
    ("{kind: either, patterns: [{kind: of_a_kind, count: 4}, {kind: face, face: 1, "
     "min_count: 2}]}", (1, 1, 6, 6, 6), 2),
    ("{kind: either, patterns: [{kind: of_a_kind, count: 4}, all_same]}", (1, 1, 6, 6, 6), 0),
    # both: its first pattern's dice; the second only has to match
    ("{kind: both, patterns: [{kind: of_a_kind, count: 2}, {kind: total, min: 20}]}",
     (6, 6, 5, 2, 1), 12),
    ("{kind: both, patterns: [{kind: total, min: 20}, {kind: of_a_kind, count: 2}]}",
     (6, 6, 5, 2, 1), 20),
    ("{kind: both, patterns: [{kind: of_a_kind, count: 2}, {kind: total, min: 21}]}",
     (6, 6, 5, 2, 1), 0),
    # nested: an either of boths (three levels, the most)
    (EITHER_OF_BOTHS, (1, 1, 1, 1, 1), 5),
    (EITHER_OF_BOTHS, (6, 1, 2, 1, 2), 6),
    (EITHER_OF_BOTHS, (6, 1, 2, 1, 3), 0),
])
def test_the_dice_that_form_a_combined_pattern(pattern, dice, points):
    assert score(rules_from_text(SUMS % pattern, "sums.yaml"), "box", dice) == points


def test_sum_all_and_fixed_on_a_combined_pattern():
    rules = rules_from_text(
        "name: s\ncategories:\n"
        "  - {key: a, pattern: {kind: both, patterns: [{kind: of_a_kind, count: 2}, any]}, "
        "score: sum_all}\n"
        "  - {key: b, pattern: {kind: either, patterns: [all_same, {kind: total, equals: 7}]}, "
        "score: 15}\n", "s.yaml")
    assert score(rules, "a", (3, 3, 1, 2, 6)) == 15
    assert score(rules, "a", (3, 4, 1, 2, 6)) == 0
    assert score(rules, "b", (2, 2, 2, 2, 2)) == 15 and score(rules, "b", (1, 1, 1, 2, 2)) == 15
    assert score(rules, "b", (1, 1, 1, 2, 3)) == 0


# ---------------------------------------------------------------- totals no roll has


@pytest.mark.parametrize("fields, message", [
    ("equals: 31", "categories[0].pattern.equals: no roll totals 31: 5 dice of 6 faces total 5 "
                   "to 30"),
    ("equals: 4", "categories[0].pattern.equals: no roll totals 4"),
    ("min: 31", "categories[0].pattern.min: no roll fits min 31: 5 dice of 6 faces total"),
    ("max: 4", "categories[0].pattern.max: no roll fits max 4: 5 dice"),
    ("min: 14, max: 13", "categories[0].pattern.min: min 14 is above max 13, so no total fits"),
    ("min: 31, max: 40", "categories[0].pattern.min: no roll fits min 31 and max 40"),
    ("equals: 13, min: 2", "categories[0].pattern: Value error, give either `equals`"),
    ("", "categories[0].pattern: Value error, give either `equals`"),
])
def test_a_total_no_roll_has_is_refused(fields, message):
    pattern = f"{{kind: total, {fields}}}" if fields else "{kind: total}"
    text = problems(SUMS % pattern)
    assert "rules.yaml:4:" in text and message in text, text


def test_a_total_that_always_matches_is_accepted():
    rules = rules_from_text(SUMS % "{kind: total, min: 0, max: 80}", "sums.yaml")
    assert score(rules, "box", (1, 1, 1, 1, 1)) == 5 and score(rules, "box", (6,) * 5) == 30


def test_fewer_dice_make_an_inherited_total_unreachable_and_say_where(tmp_path):
    (tmp_path / "crag.yaml").write_text(CRAG)
    house = tmp_path / "house.yaml"
    house.write_text("extends: crag.yaml\ndice: 2\n")
    with pytest.raises(RulesError) as info:
        load_rules(str(house))
    text = str(info.value)
    assert text.startswith(f"{house}: 2 problems in the rule set:")
    for box, nested in ((0, ""), (1, ".patterns[1]")):
        assert (f"{house}:2:1: categories[{box}].pattern{nested}.equals: no roll totals 13: 2 "
                f"dice of 6 faces total 2 to 12 (because of dice here; the box comes from "
                f"{tmp_path / 'crag.yaml'}:") in text, text


# ---------------------------------------------------------------- bounds on hostile input


def nest(depth: int) -> str:
    """A pattern of `depth` levels: eithers inside eithers, plain patterns at the bottom."""
    text = "any"
    for _ in range(depth - 1):
        text = f"{{kind: either, patterns: [{text}, all_same]}}"
    return text


def test_patterns_three_deep_are_accepted_four_deep_refused_at_the_spot():
    assert MAX_PATTERN_DEPTH == 3
    rules = rules_from_text(SUMS % nest(3), "sums.yaml")
    assert score(rules, "box", (2, 2, 2, 2, 2)) == 10
    text = problems(SUMS % nest(4))
    assert text.startswith("rules.yaml: 1 problem in the rule set:\n")
    # at the third level's either (the first item of the second level's list)
    assert ("rules.yaml:4:77: categories[0].pattern.patterns[0].patterns[0]: 'either' is "
            "nested too deep: combined patterns nest at most 3 deep") in text


@pytest.mark.parametrize("depth", [5, 9, 13])
def test_a_deep_nesting_is_one_error_at_the_first_level_too_deep(depth):
    start = time.perf_counter()
    text = problems(SUMS % nest(depth))
    assert time.perf_counter() - start < HANG_GUARD
    assert "1 problem in the rule set" in text and text.count("\n") == 1
    assert "categories[0].pattern.patterns[0].patterns[0]: 'either' is nested too deep" in text


def test_a_nesting_deeper_than_yaml_allows_is_one_error_from_the_reader():
    text = problems(SUMS % nest(40))
    assert text.startswith("rules.yaml:4:") and "nested more than 32 deep" in text
    assert "\n" not in text


def test_the_lists_of_patterns_are_bounded():
    assert MAX_EITHER_PATTERNS == 4
    five = "{kind: either, patterns: [any, any, any, any, any]}"
    assert ("rules.yaml:4:40: categories[0].pattern.patterns: Tuple should have at most 4 "
            "items after validation, not 5") in problems(SUMS % five)
    three = "{kind: both, patterns: [any, any, any]}"
    assert "categories[0].pattern.patterns: Tuple should have at most 2 items" in problems(
        SUMS % three)
    one = "{kind: either, patterns: [any]}"
    assert "categories[0].pattern.patterns: Tuple should have at least 2 items" in problems(
        SUMS % one)


def test_a_huge_list_of_patterns_is_refused_before_validation():
    huge = "{kind: either, patterns: [" + ", ".join(["any"] * 50_000) + "]}"
    start = time.perf_counter()
    text = problems(SUMS % huge)
    assert time.perf_counter() - start < HANG_GUARD
    assert text == ("rules.yaml:4:40: categories[0].pattern.patterns: a list of 50,000 items; "
                    "no list in a rule set has more than 64.")


def test_the_plain_patterns_of_a_rule_set_are_bounded():
    """At most 40 plain patterns in all the boxes (twice a full card of plain boxes): each is
    scored on every roll when the tables are built."""
    assert MAX_PLAIN_PATTERNS == 40
    four = "{kind: either, patterns: [any, all_same, {kind: total, min: 9}, {kind: total, max: 9}]}"
    sixteen = f"{{kind: either, patterns: [{four}, {four}, {four}, {four}]}}"
    boxes = "".join(f"  - {{key: b{i}, pattern: {sixteen}, score: 1}}\n" for i in range(3))
    text = problems("name: many\ncategories:\n" + boxes)
    assert text.startswith("rules.yaml: 1 problem in the rule set:\n  rules.yaml:5:15: "
                           "categories[2].pattern: the boxes up to this one hold 48 plain "
                           "patterns"), text
    rules = rules_from_text("name: many\ncategories:\n" + boxes.replace(sixteen, four, 1)
                            .replace(sixteen, four, 1), "rules.yaml")
    assert sum(plain_patterns(c.pattern) for c in rules.categories) == 24


def test_a_misremembered_kind_gets_a_hint():
    for wrong, right in (("any_of", "either"), ("all_of", "both"), ("or", "either")):
        text = problems(SUMS % f"{{kind: {wrong}, patterns: [any, all_same]}}")
        assert f"did you mean '{right}'?" in text, text


def test_an_unknown_field_in_a_nested_pattern_lists_that_kinds_fields():
    text = problems(SUMS % "{kind: either, patterns: [{kind: total, equals: 13, "
                           "maximum: 3}, any]}")
    assert ("categories[0].pattern.patterns[0].maximum: unknown field (allowed here: kind, "
            "equals, min, max); did you mean 'max'?") in text
