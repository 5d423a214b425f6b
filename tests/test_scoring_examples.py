"""Every worked example of the rule documents (seeds 000, 003, 004), for its built-in variant.

Each normal-scoring example is checked twice: in the compiled score table and by the naive
twin. The Joker and the extra Yahtzee bonus (seeds 000 and 004) are checked through
``naive_box_points`` and through a small interpreter of the fast tables (JOKER_SCORE,
YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER) for both Joker variants.
"""

from __future__ import annotations

from functools import cache

import pytest
from naive import naive_box_points, naive_card_total, naive_play, naive_score
from yz.rules import compile_rules, load_rules
from yz.rules.position import Position, box_choices


@cache
def rules_of(name: str):
    return load_rules(name)


@cache
def tables_of(name: str):
    return compile_rules(rules_of(name))


def fast_score(name: str, dice, key: str) -> int:
    t, rules = tables_of(name), rules_of(name)
    return int(t.SCORE[t.roll_index(dice), rules.index_of(key)])


def check(name: str, dice, key: str, expected: int) -> None:
    rules = rules_of(name)
    cat = rules.categories[rules.index_of(key)]
    assert naive_score(cat, tuple(dice)) == expected, "naive twin disagrees with the seed"
    assert fast_score(name, dice, key) == expected, "compiled table disagrees with the seed"


def table_box_points(t, dice, key: str, filled: frozenset[str], yahtzee_full: bool):
    """The position-aware scorer (`box_choices`, the NumPy twin of the solver's transition)
    on the compiled tables: the points of the box plus the Yahtzee bonus (None: not allowed)."""
    rules = t.rules
    if key in filled:
        return None
    mask = sum(1 << rules.index_of(k) for k in filled)
    pos = Position(filled=dict.fromkeys(filled, 0), mask=mask, yahtzee_full=yahtzee_full)
    choice = next(c for c in box_choices(t, t.roll_index(dice), pos) if c.key == key)
    return choice.points + choice.yahtzee_bonus if choice.legal else None


def both_box_points(name, dice, key, filled, yahtzee_full):
    """naive_box_points and the table interpreter, which must agree."""
    filled = frozenset(filled)
    naive = naive_box_points(rules_of(name), tuple(dice), key, filled, yahtzee_full)
    fast = table_box_points(tables_of(name), dice, key, filled, yahtzee_full)
    assert naive == fast, f"naive {naive} != tables {fast}"
    return naive


# ---------------------------------------------------------------- seed 003: the kata gist

GIST_EXAMPLES = [
    # the introduction
    ("fives", (5, 6, 5, 5, 2), 15),
    # Chance
    ("chance", (1, 1, 3, 3, 6), 14),
    ("chance", (4, 5, 5, 6, 1), 21),
    # Yahtzee
    ("yahtzee", (1, 1, 1, 1, 1), 50),
    ("yahtzee", (1, 1, 1, 2, 1), 0),
    # Ones .. Sixes
    ("fours", (1, 1, 2, 4, 4), 8),
    ("twos", (2, 3, 2, 5, 1), 4),
    ("ones", (3, 3, 3, 4, 5), 0),
    # Pair
    ("pair", (3, 3, 3, 4, 4), 8),
    ("pair", (1, 1, 6, 2, 6), 12),
    ("pair", (3, 3, 3, 4, 1), 0),
    ("pair", (3, 3, 3, 3, 1), 0),
    # Two pairs
    ("two_pairs", (1, 1, 2, 3, 3), 8),
    ("two_pairs", (1, 1, 2, 3, 4), 0),
    ("two_pairs", (1, 1, 2, 2, 2), 0),
    # Three of a kind
    ("three_of_a_kind", (3, 3, 3, 4, 5), 9),
    ("three_of_a_kind", (3, 3, 4, 5, 6), 0),
    ("three_of_a_kind", (3, 3, 3, 3, 1), 0),
    # Four of a kind
    ("four_of_a_kind", (2, 2, 2, 2, 5), 8),
    ("four_of_a_kind", (2, 2, 2, 5, 5), 0),
    ("four_of_a_kind", (2, 2, 2, 2, 2), 0),
    # Small and large straight
    ("small_straight", (1, 2, 3, 4, 5), 15),
    ("large_straight", (2, 3, 4, 5, 6), 20),
    # Full house
    ("full_house", (1, 1, 2, 2, 2), 8),
    ("full_house", (2, 2, 3, 3, 4), 0),
    ("full_house", (4, 4, 4, 4, 4), 0),
]


@pytest.mark.parametrize(("key", "dice", "expected"), GIST_EXAMPLES)
def test_gist_seed_003(key, dice, expected):
    check("gist", dice, key, expected)


def test_gist_examples_cover_the_card():
    # the gist gives examples for every box but Threes and Sixes (its "Ones ... Sixes" rule)
    assert set(rules_of("gist").keys) - {key for key, _, _ in GIST_EXAMPLES} == {"threes",
                                                                                "sixes"}


# ---------------------------------------------------------------- seed 004: Yatzy

YATZY_EXAMPLES = [
    ("one_pair", (5, 5, 4, 4, 1), 10),
    ("two_pairs", (5, 5, 4, 4, 1), 18),
    ("four_of_a_kind", (5, 5, 5, 5, 6), 20),
    ("three_of_a_kind", (5, 5, 5, 5, 6), 15),
    ("small_straight", (1, 2, 3, 4, 5), 15),
    ("large_straight", (2, 3, 4, 5, 6), 20),
    # a Yatzy of sixes
    ("one_pair", (6, 6, 6, 6, 6), 12),
    ("three_of_a_kind", (6, 6, 6, 6, 6), 18),
    ("four_of_a_kind", (6, 6, 6, 6, 6), 24),
    ("sixes", (6, 6, 6, 6, 6), 30),
    ("chance", (6, 6, 6, 6, 6), 30),
    ("two_pairs", (6, 6, 6, 6, 6), 0),
    ("full_house", (6, 6, 6, 6, 6), 0),
    ("small_straight", (6, 6, 6, 6, 6), 0),
    ("large_straight", (6, 6, 6, 6, 6), 0),
    # the variant's stated decision: 5-5-5-4-4 has a pair of fives and two pairs worth 18
    ("one_pair", (5, 5, 5, 4, 4), 10),
    ("two_pairs", (5, 5, 5, 4, 4), 18),
    # "In the Two Pair category, the pairs must be different"
    ("two_pairs", (5, 5, 5, 5, 6), 0),
]


@pytest.mark.parametrize(("key", "dice", "expected"), YATZY_EXAMPLES)
def test_yatzy_seed_004(key, dice, expected):
    check("yatzy", dice, key, expected)


def test_yatzy_has_no_yahtzee_extras():
    # "There are no Yahtzee bonuses or Joker rule": a second Yatzy of sixes scores normally.
    rules = rules_of("yatzy")
    filled = frozenset({"yatzy"})
    assert both_box_points("yatzy", (6,) * 5, "full_house", filled, True) == 0
    assert both_box_points("yatzy", (6,) * 5, "one_pair", filled, True) == 12
    assert rules.upper_bonus.threshold == 63
    assert rules.upper_bonus.amount == 50


# ---------------------------------------------------------------- seeds 000 and 004: official

OFFICIAL = ("official-free-joker", "official-forced-joker", "no-bonus", "no-upper-bonus",
            "no-yahtzee-bonus")

OFFICIAL_EXAMPLES = [
    # seed 004, upper section: "four sixes ... 6 up", "two twos ... 2 down" (any other dice)
    ("sixes", (6, 6, 6, 6, 1), 24),
    ("twos", (2, 2, 1, 3, 5), 4),
    # seed 004, Small Straight: "1-2-3-4, 2-3-4-5, or 3-4-5-6" (the fifth die is free)
    ("small_straight", (1, 2, 3, 4, 1), 30),
    ("small_straight", (2, 3, 4, 5, 2), 30),
    ("small_straight", (3, 4, 5, 6, 6), 30),
    ("small_straight", (6, 5, 4, 3, 1), 30),
    ("small_straight", (1, 2, 3, 5, 6), 0),
    # seed 004, Large Straight: "1-2-3-4-5 or 2-3-4-5-6"
    ("large_straight", (1, 2, 3, 4, 5), 40),
    ("large_straight", (6, 5, 4, 3, 2), 40),
    ("large_straight", (1, 2, 3, 4, 6), 0),
    # seed 004: "the official rule is that a Full House is three of one number and two of
    # another"; seed 000: a, a, a, b, b with a<>b
    ("full_house", (3, 3, 3, 3, 3), 0),
    ("full_house", (2, 2, 3, 3, 3), 25),
    ("full_house", (3, 3, 3, 3, 2), 0),
    # seed 004: 11166 kept is "a guaranteed score of 15" in Three-Of-A-Kind
    ("three_of_a_kind", (1, 1, 1, 6, 6), 15),
    # seed 004: with 23446 use the Chance box "even though it only scores 19"
    ("chance", (2, 3, 4, 4, 6), 19),
    # seed 004: "the lowest possible score is 5 ... Chance ... a minimum of 5"
    ("chance", (1, 1, 1, 1, 1), 5),
    # seed 000: three / four of a kind count "3 or more" / "4 or more" equals; all dice score
    ("three_of_a_kind", (2, 2, 2, 4, 5), 15),
    ("three_of_a_kind", (4, 4, 4, 4, 6), 22),
    ("three_of_a_kind", (5, 5, 5, 5, 5), 25),
    ("four_of_a_kind", (4, 4, 4, 4, 6), 22),
    ("four_of_a_kind", (5, 5, 5, 5, 5), 25),
    ("four_of_a_kind", (4, 4, 4, 6, 6), 0),
    ("three_of_a_kind", (4, 4, 6, 6, 1), 0),
    # seed 000: Yahtzee "5 equals" 50; the upper boxes "total value of all" that face
    ("yahtzee", (2, 2, 2, 2, 2), 50),
    ("yahtzee", (2, 2, 2, 2, 3), 0),
    ("ones", (1, 1, 1, 5, 1), 4),
    ("fives", (5, 1, 5, 2, 5), 15),
]


@pytest.mark.parametrize("name", OFFICIAL)
@pytest.mark.parametrize(("key", "dice", "expected"), OFFICIAL_EXAMPLES)
def test_official_boxes_seed_000_004(name, key, dice, expected):
    check(name, dice, key, expected)


@pytest.mark.parametrize("name", OFFICIAL)
def test_minimum_score_games_seed_004(name):
    """The two low-score games of seed 004 (no Yahtzee, so the same for every official box set)."""
    rules = rules_of(name)
    # "throw 11223 each round ... 2 in the 1s box, 4 in the 2s box, 3 in the 3s box and 9 for
    # the Chance category": 18
    cautious = [((1, 1, 2, 2, 3), key) for key in rules.keys]
    assert naive_play(rules, cautious) == 18
    t = tables_of(name)
    assert int(t.SCORE[t.roll_index((1, 1, 2, 2, 3))].sum()) == 18
    # 12355 in 1s (1) and 2s (2); 11226 in 4-of-a-kind, Yahtzee and 3s (0 each); 11223 in the
    # other eight boxes, of which only Chance scores (9): 12
    minimum = [((1, 2, 3, 5, 5), "ones"), ((1, 2, 3, 5, 5), "twos"),
               ((1, 1, 2, 2, 6), "four_of_a_kind"), ((1, 1, 2, 2, 6), "yahtzee"),
               ((1, 1, 2, 2, 6), "threes")]
    rest = [k for k in rules.keys if k not in {key for _, key in minimum}]
    assert len(rest) == 8
    game = minimum + [((1, 1, 2, 2, 3), key) for key in rest]
    assert naive_play(rules, game) == 12
    assert sum(fast_score(name, dice, key) for dice, key in game) == 12


# ---------------------------------------------------------------- Joker and extra bonus

JOKERS = ("official-free-joker", "official-forced-joker")
Y4 = (4, 4, 4, 4, 4)
LOWER = ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
         "yahtzee", "chance")


@pytest.mark.parametrize("name", JOKERS)
def test_joker_tables(name):
    """The tables carry what the Joker needs: faces of Yahtzee rolls, upper boxes, full values."""
    t, rules = tables_of(name), rules_of(name)
    assert t.yahtzee_bonus == 100
    assert t.yahtzee_box == rules.index_of("yahtzee")
    assert t.joker_mode == {"official-free-joker": 1, "official-forced-joker": 2}[name]
    assert set(rules.joker.full_value) == {"full_house", "small_straight", "large_straight"}
    for v, key in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1):
        r = t.roll_index((v,) * 5)
        assert t.YAHTZEE_FACE[r] == v - 1
        assert t.UPPER_BOX_OF_FACE[v - 1] == rules.index_of(key)
        for box, full in (("full_house", 25), ("small_straight", 30), ("large_straight", 40)):
            c = rules.index_of(box)
            assert t.SCORE[r, c] == 0  # not a full house nor a straight by the normal rules
            assert t.JOKER_SCORE[r, c] == full  # "scored in full" as a Joker
        for box in ("three_of_a_kind", "four_of_a_kind", "chance"):
            c = rules.index_of(box)
            assert t.JOKER_SCORE[r, c] == t.SCORE[r, c] == 5 * v
    for dice in ((1, 1, 1, 1, 2), (2, 3, 4, 5, 6), (6, 6, 6, 5, 5)):
        assert t.YAHTZEE_FACE[t.roll_index(dice)] == -1
    assert [int(x) for x in t.IS_LOWER] == [0] * 6 + [1] * 7


@pytest.mark.parametrize("name", JOKERS)
def test_extra_yahtzee_bonus_seed_000(name):
    """100 for a further Yahtzee 'no matter for what pattern it is scored, provided that the
    Yahtzee pattern has already been scored with 50'."""
    y50 = {"yahtzee"}
    # the v box filled too, so both Joker rules allow every open box (lower ones in full)
    both = y50 | {"fours"}
    assert both_box_points(name, Y4, "chance", both, True) == 20 + 100
    assert both_box_points(name, Y4, "three_of_a_kind", both, True) == 20 + 100
    assert both_box_points(name, Y4, "full_house", both, True) == 25 + 100
    assert both_box_points(name, Y4, "small_straight", both, True) == 30 + 100
    assert both_box_points(name, Y4, "large_straight", both, True) == 40 + 100
    # the v box open: the 4s box takes it (the forced rule's only choice) with the bonus
    assert both_box_points(name, Y4, "fours", y50, True) == 20 + 100
    # Yahtzee box holding 0: "they do not get a Yahtzee bonus", the Joker still applies
    assert both_box_points(name, Y4, "chance", both, False) == 20
    assert both_box_points(name, Y4, "full_house", both, False) == 25
    assert both_box_points(name, Y4, "fours", y50, False) == 20
    # Yahtzee box open: no bonus and no Joker; the Yahtzee box scores 50
    assert both_box_points(name, Y4, "yahtzee", set(), False) == 50
    assert both_box_points(name, Y4, "full_house", set(), False) == 0
    assert both_box_points(name, Y4, "full_house", {"fours"}, False) == 0
    # not a Yahtzee roll: no bonus even with the Yahtzee box at 50
    assert both_box_points(name, (4, 4, 4, 4, 3), "chance", both, True) == 19
    assert both_box_points(name, (4, 4, 4, 3, 3), "full_house", both, True) == 25


def test_free_joker_seed_004():
    """Free choice: any open box; FH/SS/LS in full only once the v box is used."""
    name = "official-free-joker"
    y = {"yahtzee"}
    # v box open: "the Yahtzee would score 0 if the Full House, Small Straight or Large
    # Straight categories were chosen", but any box may be chosen
    assert both_box_points(name, Y4, "full_house", y, True) == 0 + 100
    assert both_box_points(name, Y4, "small_straight", y, False) == 0
    assert both_box_points(name, Y4, "large_straight", y, False) == 0
    assert both_box_points(name, Y4, "chance", y, False) == 20
    assert both_box_points(name, Y4, "sixes", y, False) == 0
    # v box used ("zeroes are OK"): in full
    assert both_box_points(name, Y4, "full_house", y | {"fours"}, False) == 25
    assert both_box_points(name, Y4, "small_straight", y | {"fours"}, False) == 30
    assert both_box_points(name, Y4, "large_straight", y | {"fours"}, False) == 40
    # an upper box of another face is allowed and scores 0
    assert both_box_points(name, Y4, "twos", y | {"fours"}, True) == 0 + 100


def test_forced_joker_seed_004():
    """Forced: the v box if unused; else a lower box (FH/SS/LS in full); else an upper box."""
    name = "official-forced-joker"
    rules = rules_of(name)
    y = {"yahtzee"}
    # "If the corresponding Upper Section box is unused then that category must be used."
    for key in rules.keys:
        points = both_box_points(name, Y4, key, y, True)
        if key == "fours":
            assert points == 20 + 100
        elif key == "yahtzee":
            assert points is None  # filled
        else:
            assert points is None, key
    # "If the corresponding Upper Section box has been used already, a Lower Section box must
    # be used ... Full House, Small Straight and Large Straight ... 25, 30 or 40"
    used = y | {"fours"}
    expected = {"three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25,
                "small_straight": 30, "large_straight": 40, "chance": 20}
    for key in rules.keys:
        points = both_box_points(name, Y4, key, used, False)
        assert points == expected.get(key), key
    # "If the corresponding Upper Section box and all Lower Section boxes have been used an
    # unused Upper Section box must be used, scoring 0."
    all_lower = set(LOWER) | {"fours"}
    for key in ("ones", "twos", "threes", "fives", "sixes"):
        assert both_box_points(name, Y4, key, all_lower, False) == 0
        assert both_box_points(name, Y4, key, all_lower, True) == 0 + 100
    # the Yahtzee box holding 0 does not stop the forced rule
    assert both_box_points(name, Y4, "ones", y, False) is None
    # before the Yahtzee box is filled no Joker applies: free choice, normal scores
    assert both_box_points(name, Y4, "full_house", set(), False) == 0
    assert both_box_points(name, Y4, "sixes", set(), False) == 0


@pytest.mark.parametrize("name", JOKERS)
def test_maximum_score_1575_seed_004(name):
    """13 Yahtzees: Yahtzee 50, the six upper boxes in full (105 + 35), sixes in 3K, 4K and
    Chance (30 each) and Jokers in FH, SS, LS (25, 30, 40): 375, plus 12 bonuses of 100."""
    game = [((6,) * 5, "yahtzee")]
    game += [((v,) * 5, key) for v, key in
             enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)]
    game += [((6,) * 5, key) for key in ("three_of_a_kind", "four_of_a_kind", "full_house",
                                         "small_straight", "large_straight", "chance")]
    rules = rules_of(name)
    assert naive_play(rules, game) == 1575
    # the same through the tables
    filled: set[str] = set()
    total = upper = 0
    yfull = False
    for dice, key in game:
        points = table_box_points(tables_of(name), dice, key, frozenset(filled), yfull)
        assert points is not None
        total += points
        if key in rules.bonus_categories:
            upper += points % 100  # seed 000: upper scores "taken modulo" the extra bonus
        yfull = yfull or (key == "yahtzee" and points > 0)
        filled.add(key)
    assert upper == 105
    assert total + (35 if upper >= 63 else 0) == 1575


@pytest.mark.parametrize("name", ("no-bonus", "no-yahtzee-bonus"))
def test_no_joker_variants_score_a_second_yahtzee_normally(name):
    both = {"yahtzee", "fours"}
    assert both_box_points(name, Y4, "full_house", both, True) == 0
    assert both_box_points(name, Y4, "large_straight", both, True) == 0
    assert both_box_points(name, Y4, "chance", both, True) == 20
    assert both_box_points(name, Y4, "ones", {"yahtzee"}, True) == 0


def test_no_upper_bonus_keeps_joker_and_bonus():
    name = "no-upper-bonus"
    assert rules_of(name).upper_bonus is None
    assert both_box_points(name, Y4, "full_house", {"yahtzee", "fours"}, True) == 125


# ---------------------------------------------------------------- seed 004: the score card

CARD_004 = {"ones": 2, "twos": 8, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
            "three_of_a_kind": 21, "four_of_a_kind": 26, "full_house": 25,
            "small_straight": 30, "large_straight": 40, "yahtzee": 0, "chance": 22}


@pytest.mark.parametrize("name", ("official-free-joker", "official-forced-joker",
                                  "no-yahtzee-bonus"))
def test_completed_score_card_seed_004(name):
    rules = rules_of(name)
    assert set(CARD_004) == set(rules.keys)
    upper = sum(CARD_004[k] for k in rules.bonus_categories)
    assert upper == 64  # TOTAL SCORE
    bonus = rules.upper_bonus.amount if upper >= rules.upper_bonus.threshold else 0
    assert bonus == 35  # BONUS
    assert upper + bonus == 99  # TOTAL Upper Section
    lower = sum(v for k, v in CARD_004.items() if k not in rules.bonus_categories)
    assert lower == 164  # TOTAL Lower Section
    assert naive_card_total(rules, CARD_004) == 263  # GRAND TOTAL
    # one point less in the upper section would miss the bonus
    assert naive_card_total(rules, {**CARD_004, "ones": 0}) == 263 - 2 - 35 + 0


def test_score_card_without_upper_bonus():
    rules = rules_of("no-upper-bonus")
    assert naive_card_total(rules, CARD_004) == 263 - 35
