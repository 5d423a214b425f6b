"""The rule language for bigger and stranger games: 20 boxes, `order`, `first_roll_bonus`,
`only_after`, straights with `any_of`, and the built-ins that use them (maxi-yatzy, generala,
yatzy-in-order, example:generala-wraparound).

Scores are checked against hand-written numbers (the examples of the Maxi Yatzy rules page
and of the Generala article), against the naive twin, and against the scorer and the compiled
table on random rolls.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_match, naive_score, naive_solve
from yz.rules import RulesError, compile_rules, load_rules, rules_from_text
from yz.rules.models import MAX_CATEGORIES, MAX_LAYER_STATES, RuleSet
from yz.rules.scoring import category_scores, first_roll_scores, pattern_match
from yz.solver import Model


@cache
def rules_of(name: str) -> RuleSet:
    return load_rules(name)


def counts_of(dice, faces: int = 6) -> np.ndarray:
    counts = np.zeros((1, faces), dtype=np.int64)
    for d in dice:
        counts[0, d - 1] += 1
    return counts


def score(rules: RuleSet, key: str, dice, first_roll: bool = False) -> int:
    """The scorer's points, checked against the naive twin on the way."""
    cat = rules.categories[rules.index_of(key)]
    counts = counts_of(dice, rules.faces)
    fast = (first_roll_scores if first_roll else category_scores)(cat, counts)
    naive = naive_score(cat, tuple(dice), first_roll=first_roll)
    assert int(fast[0]) == naive, f"scorer {int(fast[0])} != naive {naive} for {key} {dice}"
    return naive


def problems(tmp_path, text: str) -> str:
    f = tmp_path / "rules.yaml"
    f.write_text(text)
    with pytest.raises(RulesError) as info:
        load_rules(str(f))
    return str(info.value)


def loads(tmp_path, text: str) -> RuleSet:
    f = tmp_path / "rules.yaml"
    f.write_text(text)
    return load_rules(str(f))


TINY = ("name: tiny\ncategories:\n"
        "  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}\n"
        "  - {key: chance, pattern: any, score: sum_all}\n")


# ---------------------------------------------------------------- limits


def test_limits_do_not_depend_on_the_machine():
    assert MAX_CATEGORIES == 20
    assert MAX_LAYER_STATES == 1 << 29


def box_lines(n: int) -> str:
    return "".join(f"  - {{key: c{i}, pattern: any, score: sum_all}}\n" for i in range(n))


def test_twenty_boxes_accepted_twenty_one_refused(tmp_path):
    rules = loads(tmp_path, "name: big\ncategories:\n" + box_lines(20))
    assert len(rules.categories) == 20 and rules.state_count == 1 << 20
    msg = problems(tmp_path, "name: big\ncategories:\n" + box_lines(21))
    assert "categories: Tuple should have at most 20 items" in msg


def test_state_limit(tmp_path):
    # Maxi Yatzy with 5 rolls and saved rolls: layer 10 holds C(20, 10) box sets x 85 totals x
    # 41 banks (at most 4 saved per turn played), over 2^29.
    msg = problems(tmp_path, "extends: maxi-yatzy\nrolls: 5\nsaved_rolls: {}\n")
    assert "largest layer of the solver's state table" in msg
    assert f"{math.comb(20, 10) * 85 * 41:,} entries" in msg
    assert f"{MAX_LAYER_STATES:,}" in msg
    # A limit per layer, not on the whole table: with 3 rolls (banks up to 40) it fits, and
    # so does a threshold no upper total reaches (only reachable totals are ever stored).
    assert loads(tmp_path, "extends: maxi-yatzy\nsaved_rolls: {}\n").largest_layer_states \
        == math.comb(20, 10) * 85 * 21
    loads(tmp_path, "extends: maxi-yatzy-no-saved-rolls\nupper_bonus: {threshold: 1000, "
                    "amount: 5}\n")


def test_maxi_yatzy_fits_the_keep_limits():
    rules = rules_of("maxi-yatzy-no-saved-rolls")
    assert rules.dice == 6 and rules.faces == 6 and rules.upper_bonus.threshold == 84
    assert rules.state_count == (1 << 20) * 85
    assert compile_rules(rules).n_distinct_rolls == 462


def test_maxi_yatzy_is_the_game_with_saved_rolls():
    maxi, plain = rules_of("maxi-yatzy"), rules_of("maxi-yatzy-no-saved-rolls")
    assert maxi.categories == plain.categories and maxi.upper_bonus == plain.upper_bonus
    assert maxi.rolls == plain.rolls == 3 and plain.saved_rolls is None
    saved = maxi.saved_rolls
    assert saved.carry_unused and saved.start == 0 and saved.cap is None
    assert maxi.bank_sizes == 2 * 20 + 1  # banks 0 .. 40 (38 before the last turn)
    yatzy, with_saved = rules_of("yatzy"), rules_of("yatzy-saved-rolls")
    assert with_saved.categories == yatzy.categories and with_saved.saved_rolls == saved


# ---------------------------------------------------------------- order


def test_order_defaults_to_free_and_accepts_in_order(tmp_path):
    assert loads(tmp_path, TINY).order == "free"
    assert loads(tmp_path, TINY + "order: in_order\n").order == "in_order"
    assert loads(tmp_path, TINY + "order: free\n").order == "free"


def test_order_refuses_other_words(tmp_path):
    msg = problems(tmp_path, TINY + "order: random\n")
    assert "order: Input should be 'free' or 'in_order'" in msg


def test_yatzy_in_order_is_yatzy_with_the_order():
    yatzy, ordered = rules_of("yatzy"), rules_of("yatzy-in-order")
    assert ordered.order == "in_order" and yatzy.order == "free"
    assert ordered.categories == yatzy.categories
    assert ordered.upper_bonus == yatzy.upper_bonus
    assert ordered.state_count == yatzy.state_count
    assert "122.5585273964" in ordered.description


# ---------------------------------------------------------------- first_roll_bonus


def test_first_roll_bonus_default_and_good_values(tmp_path):
    rules = loads(tmp_path, "name: fr\ncategories:\n"
                  "  - {key: poker, pattern: {kind: of_a_kind, count: 4}, score: 40, "
                  "first_roll_bonus: 5}\n"
                  "  - {key: chance, pattern: any, score: sum_all}\n")
    assert [c.first_roll_bonus for c in rules.categories] == [5, 0]


def test_first_roll_bonus_with_one_roll_is_fine(tmp_path):
    rules = loads(tmp_path, "name: fr\nrolls: 1\ncategories:\n"
                  "  - {key: poker, pattern: {kind: of_a_kind, count: 4}, score: 40, "
                  "first_roll_bonus: 5}\n")
    assert rules.rolls == 1 and rules.categories[0].first_roll_bonus == 5


@pytest.mark.parametrize("value, expected", [
    ("-1", "categories[0].first_roll_bonus: Input should be greater than or equal to 0"),
    ("10001", "categories[0].first_roll_bonus: Input should be less than or equal to 10000"),
    ("'5'", "categories[0].first_roll_bonus: Input should be a valid integer"),
    ("2.5", "categories[0].first_roll_bonus: Input should be a valid integer"),
])
def test_first_roll_bonus_bad_values(tmp_path, value, expected):
    msg = problems(tmp_path, "name: fr\ncategories:\n"
                   f"  - {{key: full, pattern: {{kind: groups, sizes: [3, 2]}}, score: 30, "
                   f"first_roll_bonus: {value}}}\n")
    assert expected in msg


def test_first_roll_bonus_only_on_a_score_above_zero():
    rules = rules_of("generala")
    assert score(rules, "full", (5, 5, 5, 3, 3)) == 30
    assert score(rules, "full", (5, 5, 5, 3, 3), first_roll=True) == 35
    assert score(rules, "full", (5, 5, 5, 3, 2), first_roll=True) == 0
    assert score(rules, "poker", (2, 2, 2, 2, 6), first_roll=True) == 45
    assert score(rules, "escalera", (3, 1, 4, 5, 2), first_roll=True) == 25
    # no bonus on boxes without one: a served Generala scores 50 like any other
    assert score(rules, "generala", (4, 4, 4, 4, 4), first_roll=True) == 50
    assert score(rules, "fours", (4, 4, 4, 2, 6), first_roll=True) == 12


# One die of two faces, one box: a two scores 2, and 10 more from the turn's first roll.
ONE_ROLL = """\
name: one-roll
dice: 1
faces: 2
rolls: 1
categories:
  - {key: twos, pattern: {kind: face, face: 2}, score: face_total, first_roll_bonus: 10}
"""


@pytest.mark.parametrize("saved, expected", [
    # No saved rolls: the one throw is the first; a two pays 12, so 12 / 2.
    ("", 6.0),
    # One saved roll: a two on the first throw pays 12; after a one, the saved roll is worth
    # throwing again, where a two pays only 2 (not a first roll): 12 / 2 + (2 / 2) / 2. If
    # every throw were a first roll, the second two would pay 12 too: 9.
    ("saved_rolls: {carry_unused: false, start: 1}\n", 6.5),
    ("saved_rolls: {start: 1}\n", 6.5),
])
def test_with_one_roll_the_bonus_is_paid_on_the_turns_first_throw_only(saved, expected):
    """README: with `rolls: 1` and no saved rolls every throw is a turn's first; with saved
    rolls a turn may throw again, and a later throw earns no first-roll bonus."""
    rules = rules_from_text(ONE_ROLL + saved, "one-roll.yaml")
    assert naive_solve(rules) == pytest.approx(expected, abs=1e-12)
    assert Model(rules, use_cache=False).solve().expected_score == pytest.approx(
        expected, abs=1e-12)
    t = compile_rules(rules)
    two = t.roll_index([2])
    if saved:  # the bonus is kept apart, for the first throw
        assert int(t.SCORE[two, 0]) == 2 and int(t.FIRST_BONUS[0]) == 10
    else:  # the bonus is part of every score above zero
        assert int(t.SCORE[two, 0]) == 12 and int(t.FIRST_BONUS[0]) == 0


# ---------------------------------------------------------------- saved rolls: start and cap


def test_a_start_above_the_cap_is_refused_where_it_is_set(tmp_path):
    """README: `start` may not be above `cap` (yz refuses rather than lower the start or raise
    the cap); a start equal to the cap is a full bank from the first turn."""
    rules = loads(tmp_path, TINY + "saved_rolls: {start: 2, cap: 2}\n")
    assert rules.saved_rolls.start == rules.saved_rolls.cap == 2
    msg = problems(tmp_path, TINY + "saved_rolls:\n  start: 3\n  cap: 2\n")
    assert ("rules.yaml:6:3: saved_rolls.start: a game cannot start with 3 saved rolls when at "
            "most 2 may be saved (`cap`): lower `start` or raise `cap`") in msg


# ---------------------------------------------------------------- only_after

TWO_KINDS = ("name: oa\ncategories:\n"
             "  - {key: chance, pattern: any, score: sum_all}\n"
             "  - {key: generala, pattern: all_same, score: 50}\n"
             "  - {key: double_generala, pattern: all_same, score: 100, only_after: %s}\n")


def test_only_after_names_a_box(tmp_path):
    rules = loads(tmp_path, TWO_KINDS % "generala")
    assert rules.categories[2].only_after == "generala"
    assert rules.categories[0].only_after is None
    assert rules.flag_box_key == "generala"


def test_only_after_missing_box(tmp_path):
    msg = problems(tmp_path, TWO_KINDS % "generale")
    assert "categories[2].only_after: unknown category 'generale'" in msg
    assert "did you mean 'generala'?" in msg


def test_only_after_itself(tmp_path):
    msg = problems(tmp_path, TWO_KINDS % "double_generala")
    assert "categories[2].only_after: 'double_generala' cannot wait for itself" in msg


def test_only_after_must_name_one_box(tmp_path):
    msg = problems(tmp_path, (TWO_KINDS % "generala")
                   + "  - {key: triple, pattern: all_same, score: 200, only_after: chance}\n")
    assert "categories[3].only_after: 'chance' differs from 'generala'" in msg
    assert "categories[2].only_after" in msg and "remembers" in msg


def test_only_after_with_a_yahtzee_bonus_must_name_the_yahtzee_box(tmp_path):
    msg = problems(tmp_path, "extends: official-free-joker\ncategories:\n"
                   "  - {key: double, pattern: all_same, score: 100, only_after: chance}\n")
    assert "categories[13].only_after: with a Yahtzee bonus, `only_after` must name the " \
           "Yahtzee box 'yahtzee', not 'chance'" in msg
    rules = loads(tmp_path, "extends: official-free-joker\ncategories:\n"
                  "  - {key: double, pattern: all_same, score: 100, only_after: yahtzee}\n")
    assert rules.flag_box_key == "yahtzee"


def test_only_after_must_be_a_string(tmp_path):
    msg = problems(tmp_path, TWO_KINDS % "[generala]")
    assert "categories[2].only_after: Input should be a valid string" in msg


def test_state_count_doubles_with_only_after(tmp_path):
    plain = loads(tmp_path, TWO_KINDS.replace(", only_after: %s", ""))
    assert plain.flag_box_key is None and plain.state_count == 8
    assert loads(tmp_path, TWO_KINDS % "generala").state_count == 16
    generala = rules_of("generala")
    assert generala.flag_box_key == "generala" and generala.state_count == 2 * (1 << 11)
    # the Yahtzee bonus and only_after share the one flag
    both = loads(tmp_path, "extends: official-free-joker\ncategories:\n"
                 "  - {key: double, pattern: all_same, score: 100, only_after: yahtzee}\n")
    assert both.state_count == (1 << 14) * 64 * 2


def test_flag_box_key_of_the_older_built_ins():
    assert rules_of("official-free-joker").flag_box_key == "yahtzee"
    assert rules_of("yatzy").flag_box_key is None
    assert rules_of("no-yahtzee-bonus").flag_box_key is None
    assert rules_of("maxi-yatzy").flag_box_key is None


# ---------------------------------------------------------------- straights: any_of

STRAIGHT = ("name: st\ncategories:\n"
            "  - {key: chance, pattern: any, score: sum_all}\n"
            "  - {key: esc, pattern: {kind: straight, %s}, score: sum_matched}\n")


def test_any_of_accepted(tmp_path):
    rules = loads(tmp_path, STRAIGHT % "any_of: [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]")
    p = rules.categories[1].pattern
    assert p.any_of == ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)) and p.faces is None
    assert p.face_sets == p.any_of


@pytest.mark.parametrize("fields", [
    "", "length: 5, faces: [1, 2, 3, 4, 5]", "length: 5, any_of: [[1, 2, 3, 4, 5]]",
    "faces: [1, 2, 3, 4, 5], any_of: [[2, 3, 4, 5, 6]]",
])
def test_straight_needs_exactly_one_of_length_faces_any_of(tmp_path, fields):
    msg = problems(tmp_path, (STRAIGHT % fields).replace("straight, }", "straight}"))
    assert ("categories[1].pattern: Value error, give exactly one of `length` (a run), `faces` "
            "(an explicit set) or `any_of` (a list of accepted sets)") in msg


def test_any_of_face_beyond_the_die(tmp_path):
    msg = problems(tmp_path, "faces: 5\n" + STRAIGHT % "any_of: [[1, 2, 3], [4, 5, 6], [2, 7]]")
    assert "categories[1].pattern.any_of[1]: faces [6] do not exist on a 5-sided die" in msg
    assert "categories[1].pattern.any_of[2]: faces [7] do not exist on a 5-sided die" in msg
    assert "any_of[0]" not in msg


def test_any_of_set_larger_than_the_dice(tmp_path):
    msg = problems(tmp_path, "dice: 4\n" + STRAIGHT % "any_of: [[1, 2, 3, 4], [2, 3, 4, 5, 6]]")
    assert "categories[1].pattern.any_of[1]: 5 faces cannot show on 4 dice" in msg
    assert "any_of[0]" not in msg


@pytest.mark.parametrize("sets, expected", [
    ("[[1, 2, 3], [4, 4, 5]]", "categories[1].pattern.any_of[1]: Value error, the set repeats a "
                               "face: [4, 4, 5]"),
    ("[[1, 2, 3], [4]]", "categories[1].pattern.any_of[1]: Tuple should have at least 2 items"),
    ("[]", "categories[1].pattern.any_of: Tuple should have at least 1 item"),
    ("[[1, 2], [0, 3]]", "categories[1].pattern.any_of[1][0]: Input should be greater than or "
                         "equal to 1"),
])
def test_any_of_bad_sets(tmp_path, sets, expected):
    assert expected in problems(tmp_path, STRAIGHT % f"any_of: {sets}")


def test_any_of_matched_sum_is_the_best_set(tmp_path):
    sets = "any_of: [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [1, 3, 4, 5, 6]]"
    rules = loads(tmp_path, STRAIGHT % sets)
    p = rules.categories[1].pattern
    dice = [(1, 2, 3, 4, 5, 6), (1, 3, 4, 5, 6, 6), (1, 2, 3, 4, 5, 5), (1, 1, 2, 3, 4, 6)]
    ok, best = pattern_match(p, np.vstack([counts_of(d) for d in dice]))
    assert list(ok) == [True, True, True, False]
    assert list(best) == [20, 19, 15, 0]
    assert [naive_match(p, d) for d in dice] == [20, 19, 15, None]


# ---------------------------------------------------------------- Generala scoring

GENERALA_EXAMPLES = [
    # the article's examples
    ("fours", (4, 4, 4, 2, 6), 12), ("twos", (4, 4, 4, 2, 6), 2), ("sixes", (4, 4, 4, 2, 6), 6),
    ("full", (5, 5, 5, 3, 3), 30), ("poker", (2, 2, 2, 2, 6), 40),
    ("poker", (3, 3, 3, 3, 3), 40), ("generala", (3, 3, 3, 3, 3), 50),
    ("escalera", (1, 2, 3, 4, 5), 20), ("escalera", (6, 4, 2, 5, 3), 20),
    # decisions: five equal dice are not a Full; 3-4-5-6-1 is no Escalera without the house rule
    ("full", (3, 3, 3, 3, 3), 0), ("escalera", (3, 4, 5, 6, 1), 0),
    ("escalera", (1, 2, 3, 4, 4), 0), ("generala", (3, 3, 3, 3, 2), 0),
    # the box's own score; only_after is a rule of the position (the solver's)
    ("double_generala", (6, 6, 6, 6, 6), 100),
]


@pytest.mark.parametrize("key, dice, expected", GENERALA_EXAMPLES)
def test_generala_examples(key, dice, expected):
    assert score(rules_of("generala"), key, dice) == expected


@pytest.mark.parametrize("dice, plain, wrap", [
    ((3, 4, 5, 6, 1), 0, 20), ((1, 3, 4, 5, 6), 0, 20), ((1, 2, 3, 4, 5), 20, 20),
    ((2, 3, 4, 5, 6), 20, 20), ((1, 2, 4, 5, 6), 0, 0), ((1, 1, 3, 4, 5), 0, 0),
])
def test_generala_escalera_with_and_without_the_wraparound(dice, plain, wrap):
    assert score(rules_of("generala"), "escalera", dice) == plain
    wrapped = rules_of("example:generala-wraparound")
    assert score(wrapped, "escalera", dice) == wrap
    assert score(wrapped, "escalera", dice, first_roll=True) == (wrap + 5 if wrap else 0)


def test_wraparound_changes_only_the_escalera():
    base, wrapped = rules_of("generala"), rules_of("example:generala-wraparound")
    assert wrapped.name == "generala-wraparound"
    assert wrapped.keys == base.keys
    for a, b in zip(base.categories, wrapped.categories, strict=True):
        if a.key == "escalera":
            assert b.pattern.any_of[-1] == (1, 3, 4, 5, 6)
            assert (b.score, b.first_roll_bonus) == (a.score, a.first_roll_bonus)
        else:
            assert a == b


def test_generala_box_fields():
    rules = rules_of("generala")
    assert rules.upper_bonus is None and rules.yahtzee_bonus is None
    assert rules.joker.mode == "none" and rules.order == "free"
    bonus = {c.key: c.first_roll_bonus for c in rules.categories if c.first_roll_bonus}
    assert bonus == {"escalera": 5, "full": 5, "poker": 5}
    assert {c.key: c.only_after for c in rules.categories if c.only_after} == {
        "double_generala": "generala"}


# ---------------------------------------------------------------- Maxi Yatzy scoring

MAXI_EXAMPLES = [
    # the examples of the Maxi Yatzy rules page
    ("ones", (3, 1, 1, 6, 1, 4), 3), ("twos", (2, 5, 4, 3, 2, 6), 4),
    ("threes", (3, 2, 1, 3, 4, 3), 9), ("fours", (4, 4, 3, 4, 5, 4), 16),
    ("fives", (5, 1, 2, 5, 5, 4), 15), ("sixes", (4, 6, 3, 1, 6, 6), 18),
    ("one_pair", (6, 4, 2, 6, 5, 1), 12), ("two_pairs", (2, 1, 3, 3, 5, 5), 16),
    ("three_pairs", (2, 2, 5, 5, 6, 6), 26), ("three_of_a_kind", (4, 5, 3, 5, 5, 4), 15),
    ("four_of_a_kind", (2, 4, 2, 2, 5, 2), 8), ("five_of_a_kind", (3, 3, 2, 3, 3, 3), 15),
    ("small_straight", (1, 2, 3, 4, 5, 3), 15), ("large_straight", (2, 3, 4, 5, 6, 6), 20),
    ("full_straight", (1, 2, 3, 4, 5, 6), 21), ("full_house", (3, 4, 4, 6, 6, 6), 26),
    ("villa", (2, 2, 2, 5, 5, 5), 21), ("tower", (3, 3, 6, 6, 6, 6), 30),
    ("chance", (3, 4, 2, 6, 5, 4), 24),
    # six dice: the sixth die is left out of the house; the best way is taken
    ("full_house", (3, 3, 3, 5, 5, 6), 19), ("full_house", (6, 6, 6, 5, 5, 5), 28),
    ("full_house", (2, 2, 2, 2, 6, 6), 18), ("two_pairs", (2, 2, 5, 5, 6, 6), 22),
    ("two_pairs", (4, 4, 4, 4, 1, 2), 0), ("two_pairs", (5, 5, 5, 5, 2, 2), 14),
    ("one_pair", (5, 5, 5, 5, 2, 2), 10), ("tower", (5, 5, 5, 5, 2, 2), 24),
    ("three_pairs", (4, 4, 4, 4, 1, 1), 0), ("three_pairs", (1, 1, 2, 2, 3, 4), 0),
    ("villa", (4, 4, 4, 4, 4, 4), 0), ("villa", (1, 1, 1, 6, 6, 5), 0),
    ("tower", (6, 6, 6, 6, 6, 6), 0), ("tower", (6, 6, 6, 6, 6, 1), 0),
    ("tower", (1, 1, 1, 1, 6, 6), 16),
    ("five_of_a_kind", (6, 6, 6, 6, 6, 6), 30), ("five_of_a_kind", (6, 6, 6, 6, 5, 5), 0),
    ("four_of_a_kind", (6, 6, 6, 6, 6, 1), 24),
    ("full_straight", (1, 2, 3, 4, 5, 5), 0), ("small_straight", (1, 2, 3, 4, 5, 6), 15),
    ("large_straight", (1, 2, 3, 4, 5, 6), 20), ("large_straight", (1, 2, 3, 4, 5, 5), 0),
    ("maxi_yatzy", (2, 2, 2, 2, 2, 2), 100), ("maxi_yatzy", (2, 2, 2, 2, 2, 1), 0),
    ("chance", (6, 6, 6, 6, 6, 6), 36),
]


@pytest.mark.parametrize("key, dice, expected", MAXI_EXAMPLES)
def test_maxi_yatzy_examples(key, dice, expected):
    assert score(rules_of("maxi-yatzy"), key, dice) == expected


def test_maxi_yatzy_card():
    rules = rules_of("maxi-yatzy")
    assert rules.keys == (
        "ones", "twos", "threes", "fours", "fives", "sixes", "one_pair", "two_pairs",
        "three_pairs", "three_of_a_kind", "four_of_a_kind", "five_of_a_kind", "small_straight",
        "large_straight", "full_straight", "full_house", "villa", "tower", "chance", "maxi_yatzy")
    assert (rules.upper_bonus.threshold, rules.upper_bonus.amount) == (84, 100)
    assert rules.bonus_categories == ("ones", "twos", "threes", "fours", "fives", "sixes")
    assert rules.yahtzee_bonus is None and rules.joker.mode == "none"
    assert rules.rolls == 3 and rules.order == "free"


def test_maxi_yatzy_fifty_at_seventy_five_by_extends(tmp_path):
    rules = loads(tmp_path, "extends: maxi-yatzy\nupper_bonus: {threshold: 75, amount: 50}\n")
    assert (rules.upper_bonus.threshold, rules.upper_bonus.amount) == (75, 50)
    assert rules.categories == rules_of("maxi-yatzy").categories


# ---------------------------------------------------------------- scorer = naive, every box


def every_box_equals_naive(name: str, dice) -> None:
    rules = rules_of(name)
    counts = counts_of(dice, rules.faces)
    for cat in rules.categories:
        assert int(category_scores(cat, counts)[0]) == naive_score(cat, dice), (cat.key, dice)
        assert int(first_roll_scores(cat, counts)[0]) == naive_score(cat, dice, True), (
            cat.key, dice)


@pytest.mark.parametrize("name", ["maxi-yatzy", "generala", "example:generala-wraparound"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_scorer_equals_naive_on_random_rolls(name, data):
    rules = rules_of(name)
    dice = tuple(data.draw(st.lists(st.integers(1, rules.faces), min_size=rules.dice,
                                    max_size=rules.dice), label="dice"))
    every_box_equals_naive(name, dice)


@pytest.mark.parametrize("name", ["maxi-yatzy", "generala", "example:generala-wraparound"])
def test_compiled_table_equals_naive_on_every_roll(name):
    rules = rules_of(name)
    t = compile_rules(rules)
    for r in range(t.n_distinct_rolls):
        dice = tuple(int(d) for d in t.ROLL_DICE[r])
        for c, cat in enumerate(rules.categories):
            assert int(t.SCORE[r, c]) == naive_score(cat, dice), (cat.key, dice)
