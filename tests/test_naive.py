"""Self-tests of the naive oracle against values worked out by hand."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from naive import naive_box_points, naive_score, naive_solve
from yz.rules.models import Category, RuleSet

CHANCE = {"key": "chance", "name": "Chance", "section": "lower", "pattern": "any",
          "score": "sum_all"}


def _rules(categories, **extra) -> RuleSet:
    return RuleSet.model_validate({"name": "tiny", "categories": categories, **extra})


def _face(key: str, face: int, section: str = "upper", **score) -> dict:
    return {"key": key, "name": key, "section": section, "pattern": {"kind": "face", "face": face},
            "score": score or "face_total"}


@pytest.mark.parametrize(("rolls", "expected"), [
    (1, 3.5),           # one throw of a die
    (2, 4.25),          # keep 4-6, else re-throw: 15/6 + 3.5/2
    (3, 14 / 3),        # keep 5-6, else the 2-roll game: 11/6 + 4.25 * 4/6
    (4, 4.944444444444445),  # keep 5-6, else the 3-roll game: 11/6 + 14/3 * 4/6 = 89/18
])
def test_one_die_chance(rolls, expected):
    rules = _rules([CHANCE], dice=1, faces=6, rolls=rolls)
    assert naive_solve(rules) == pytest.approx(expected, abs=1e-12)


def test_two_dice_all_same_one_roll():
    cat = {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
           "score": {"kind": "fixed", "points": 10}}
    assert naive_solve(_rules([cat], dice=2, faces=6, rolls=1)) == pytest.approx(10 / 6)


def test_two_dice_all_same_two_rolls():
    # Keep one die if no pair, so a pair after two rolls has probability 1/6 + 5/6 * 1/6.
    cat = {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
           "score": {"kind": "fixed", "points": 36}}
    assert naive_solve(_rules([cat], dice=2, faces=6, rolls=2)) == pytest.approx(6 + 5)


def test_two_dice_chance_two_rolls_sums_two_independent_dice():
    # With keeps by position, each die is its own one-die game: 2 * 4.25.
    assert naive_solve(_rules([CHANCE], dice=2, faces=6, rolls=2)) == pytest.approx(8.5)


def test_upper_bonus_two_boxes():
    # One two-faced die, one roll, boxes Ones and Twos. Without a bonus: a 1 goes in Ones
    # (1 + E[Twos] = 2) and a 2 in Twos (2 + E[Ones] = 2.5): 2.25. With 10 points at 3, the
    # bonus comes exactly when the second roll fills the other box: 1 + (12/2) = 7 after a 1 and
    # 2 + (11/2) = 7.5 after a 2: 7.25.
    cats = [_face("ones", 1), _face("twos", 2)]
    assert naive_solve(_rules(cats, dice=1, faces=2, rolls=1)) == pytest.approx(2.25)
    bonus = {"threshold": 3, "amount": 10}
    assert naive_solve(_rules(cats, dice=1, faces=2, rolls=1,
                              upper_bonus=bonus)) == pytest.approx(7.25)


def test_yahtzee_bonus_one_die():
    # With one die every roll is a Yahtzee roll. Without a bonus a 2 goes in Chance first
    # (2 + 5) and a 1 in Yahtzee (5 + 1.5): 6.75. With it, Yahtzee first (5) and Chance next
    # earns the 100 bonus: 5 + 1.5 + 100.
    cats = [{"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 5}}, CHANCE]
    assert naive_solve(_rules(cats, dice=1, faces=2, rolls=1)) == pytest.approx(6.75)
    assert naive_solve(_rules(cats, dice=1, faces=2, rolls=1,
                              yahtzee_bonus={"amount": 100})) == pytest.approx(106.5)


@pytest.mark.parametrize(("mode", "expected"), [("none", 15.25), ("free", 17.0), ("forced", 17.0)])
def test_joker_one_die(mode, expected):
    # Lucky (lower) scores 7 for a 2. Without a Joker a first 2 goes in Lucky (7 + 10) and a
    # first 1 in Yahtzee (10 + 3.5): 15.25. With a Joker (and no upper box) a roll after the
    # Yahtzee box is filled scores 7 in Lucky whatever it shows: 10 + 7.
    cats = [{"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 10}},
            {"key": "lucky", "name": "Lucky", "section": "lower",
             "pattern": {"kind": "face", "face": 2, "min_count": 1},
             "score": {"kind": "fixed", "points": 7}}]
    joker = {"mode": mode, "full_value": ["lucky"]}
    assert naive_solve(_rules(cats, dice=1, faces=2, rolls=1, joker=joker)) == pytest.approx(
        expected)


def test_forced_joker_one_die():
    # Boxes: Ones (upper), Yahtzee (10), Lucky (lower, 7 for a 2, Joker full value), 1 die of 2
    # faces, one roll, forced Joker; every roll is a Yahtzee roll. Worked by hand:
    # - Yahtzee filled first (10): next a 1 must go in Ones (1), then Lucky scores 7 in full:
    #   8; a 2 has no upper box, so a lower box: Lucky 7, then the last roll fills Ones (a 1 is
    #   forced there, a 2 scores 0 in the only open box): 7.5. So 10 + 7.75 = 17.75.
    # - Ones filled first with a 1 (1): then Yahtzee (10), then Lucky in full (7): 18.
    # - with a 2: Ones 0 + 17 = 17, Yahtzee 17.75, Lucky 7 + 10 + 0.5 = 17.5: best 17.75.
    # So (18 + 17.75) / 2 = 17.875.
    cats = [_face("ones", 1),
            {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 10}},
            {"key": "lucky", "name": "Lucky", "section": "lower",
             "pattern": {"kind": "face", "face": 2, "min_count": 1},
             "score": {"kind": "fixed", "points": 7}}]
    rules = _rules(cats, dice=1, faces=2, rolls=1, joker={"mode": "forced",
                                                           "full_value": ["lucky"]})
    assert naive_solve(rules) == pytest.approx(17.875)
    # the position checks behind it
    yfilled = frozenset({"yahtzee"})
    assert naive_box_points(rules, (1,), "ones", yfilled, True) == 1
    assert naive_box_points(rules, (1,), "lucky", yfilled, True) is None
    assert naive_box_points(rules, (2,), "ones", yfilled, True) is None
    assert naive_box_points(rules, (2,), "lucky", yfilled, True) == 7
    assert naive_box_points(rules, (1,), "lucky", yfilled | {"ones"}, True) == 7


def test_naive_score_basics():
    def cat(pattern, score):
        return Category.model_validate({"key": "x", "name": "x", "section": "lower",
                                        "pattern": pattern, "score": score})

    two_pairs = cat({"kind": "groups", "sizes": [2, 2]}, "sum_matched")
    assert naive_score(two_pairs, (5, 5, 5, 5, 6)) == 0
    loose = cat({"kind": "groups", "sizes": [2, 2], "distinct": False}, "sum_matched")
    assert naive_score(loose, (5, 5, 5, 5, 6)) == 20
    assert naive_score(loose, (6, 5, 5, 5, 5, 6)) == 22
    run3 = cat({"kind": "straight", "length": 3}, "sum_matched")
    assert naive_score(run3, (1, 2, 3, 4, 5)) == 12
    assert naive_score(run3, (1, 2, 4, 5, 6)) == 15
    assert naive_score(run3, (1, 2, 4, 5, 1)) == 0


def test_tiny_games_solve():
    # The oracle must stay usable on a 3-box, 3-dice, 4-face, 3-roll game (well under a second
    # on a quiet machine; only a hang fails here).
    cats = [_face("ones", 1), _face("fours", 4),
            {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 20}}]
    rules = _rules(cats, dice=3, faces=4, rolls=3, upper_bonus={"threshold": 8, "amount": 5},
                   yahtzee_bonus={"amount": 30}, joker={"mode": "free"})
    start = time.perf_counter()
    value = naive_solve(rules)
    assert time.perf_counter() - start < 60
    assert 0 < value < 20 + 12 + 3 + 5 + 60


# ---------------------------------------------------------------- saved rolls (a bank)


def _saved(carry_unused: bool = True, start: int = 0, cap: int | None = None):
    return SimpleNamespace(carry_unused=carry_unused, start=start, cap=cap)


CHANCE_TWICE = [CHANCE, {**CHANCE, "key": "chance2", "name": "Chance 2"}]


@pytest.mark.parametrize(("saved", "expected"), [
    # One two-faced die, two Chance boxes, two rolls a turn. A last turn with b saved rolls
    # rolls until it shows a 2, at most 2 + b times: W(b) = 2 - 2^-(2 + b), so W(0) = 1.75,
    # W(1) = 1.875, W(2) = 1.9375. Without a bank: 2 * W(0).
    (None, 3.5),
    # Carried: a first-roll 2 stops (2 + W(1) = 3.875 against 1.5 + W(0) = 3.25); a 1 throws
    # again (3.25 against 1 + W(1) = 2.875). (3.875 + 3.25) / 2 = 57/16.
    (_saved(), 57 / 16),
    (_saved(cap=0), 3.5),  # a bank capped at 0 is no bank
    (_saved(carry_unused=False), 3.5),  # nothing carried, nothing to start with
    # Carried, one saved at the start: three rolls in the first turn; stopping with L left
    # leaves L. Third roll: 1.5 + W(0) = 3.25. Second: a 2 stops (3.875), a 1 goes on (3.25):
    # 3.5625. First: a 2 stops (2 + W(2) = 3.9375), a 1 goes on (3.5625): 3.75.
    (_saved(start=1), 3.75),
    # One extra roll for the game, unused rolls lost: the bank after the first turn is
    # min(1, L). Third roll: 3.25; second: a 2 stops (2 + W(1)), a 1 goes on: 3.5625; first:
    # a 2 stops (3.875), a 1 goes on (3.5625): 119/32.
    (_saved(carry_unused=False, start=1), 119 / 32),
])
def test_saved_rolls_by_hand(saved, expected):
    rules = _rules(CHANCE_TWICE, dice=1, faces=2, rolls=2)
    assert naive_solve(rules, saved) == pytest.approx(expected, abs=1e-12)


def test_a_bank_that_never_holds_a_roll_changes_nothing():
    """Saved rolls that can never be more than none: any roll may end the turn, yet the
    values are those of the game without saved rolls (stopping early is keeping every die)."""
    cats = [_face("ones", 1), _face("threes", 3),
            {"key": "yahtzee", "name": "Y", "section": "lower", "pattern": "all_same",
             "score": {"kind": "fixed", "points": 20}}]
    rules = _rules(cats, dice=2, faces=3, rolls=3, upper_bonus={"threshold": 5, "amount": 7},
                   yahtzee_bonus={"amount": 30}, joker={"mode": "free"})
    plain = naive_solve(rules)
    for saved in (_saved(carry_unused=False), _saved(cap=0)):
        assert naive_solve(rules, saved) == pytest.approx(plain, abs=1e-12)


def test_a_larger_bank_is_worth_more():
    rules = _rules([_face("ones", 1), _face("twos", 2), CHANCE], dice=2, faces=3, rolls=2,
                   upper_bonus={"threshold": 4, "amount": 5})
    by_cap = [naive_solve(rules, _saved(cap=cap)) for cap in (0, 1, 2, None)]
    assert naive_solve(rules) == pytest.approx(by_cap[0], abs=1e-12)
    assert by_cap[0] < by_cap[1] <= by_cap[2] <= by_cap[3] + 1e-12
    assert naive_solve(rules, _saved(carry_unused=False, start=1)) < \
        naive_solve(rules, _saved(carry_unused=False, start=2))
