"""The built-in Crag (`variants/crag.yaml`): its boxes scored as the sources word them, its
solitaire value against the independent twin (`naive.NaiveMultisetGame`: a random slice of late
positions by default, the whole game with `-m slow`), and the figures the README states."""

from __future__ import annotations

import numpy as np
import pytest
from naive import NaiveMultisetGame, naive_score
from yz.rules import compile_rules, load_rules
from yz.rules.scoring import category_scores
from yz.solver import Model

# The README's built-in table (yz compare crag).
CRAG_VALUE = 149.8476


@pytest.fixture(scope="module")
def crag():
    return load_rules("crag")


@pytest.fixture(scope="module")
def solution(crag):
    return Model(crag, use_cache=False).solve()


def score(rules, key: str, dice) -> int:
    """The box's points: the scorer, the compiled table and the twin agree."""
    cat = rules.categories[rules.index_of(key)]
    counts = np.zeros((1, rules.faces), dtype=np.int64)
    for d in dice:
        counts[0, d - 1] += 1
    fast = int(category_scores(cat, counts)[0])
    t = compile_rules(rules)
    table = int(t.SCORE[t.roll_index(dice), rules.index_of(key)])
    assert fast == table == naive_score(cat, tuple(dice)), (key, dice)
    return fast


@pytest.mark.parametrize("key, dice, points", [
    ("crag", (6, 6, 1), 50), ("crag", (4, 5, 4), 50), ("crag", (3, 5, 5), 50),
    ("crag", (2, 5, 6), 0), ("crag", (6, 6, 2), 0),
    ("thirteen", (6, 6, 1), 26),  # a Crag may be scored as Thirteen (the file's decision)
    ("thirteen", (2, 5, 6), 26), ("thirteen", (6, 6, 2), 0),
    ("three_of_a_kind", (3, 3, 3), 25), ("three_of_a_kind", (6, 6, 6), 25),
    ("three_of_a_kind", (6, 6, 5), 0),
    ("low_straight", (3, 1, 2), 20), ("high_straight", (6, 4, 5), 20),
    ("odd_straight", (5, 1, 3), 20), ("even_straight", (4, 6, 2), 20),
    ("low_straight", (1, 2, 4), 0), ("odd_straight", (1, 3, 3), 0),
    ("even_straight", (2, 4, 5), 0),
    ("ones", (1, 1, 5), 2), ("sixes", (6, 6, 6), 18), ("fours", (1, 2, 3), 0),
])
def test_crags_boxes(crag, key, dice, points):
    assert score(crag, key, dice) == points


def test_crags_card(crag):
    assert (crag.dice, crag.faces, crag.rolls, len(crag.categories)) == (3, 6, 2, 13)
    assert crag.upper_bonus is None and crag.yahtzee_bonus is None
    assert compile_rules(crag).highest_score == 244  # 63 + 4 x 20 + 25 + 26 + 50
    assert "may also be scored as Thirteen" in crag.description


def test_crags_value(solution):
    assert round(solution.expected_score, 4) == CRAG_VALUE
    assert solution.states == 2 ** 13 - 1  # no upper total, no flag: one per box set


def late_masks(n_boxes: int, rng, count: int) -> list[int]:
    masks = []
    while len(masks) < count:
        filled = rng.choice(n_boxes, size=int(rng.integers(9, n_boxes)), replace=False)
        masks.append(int(sum(1 << int(c) for c in filled)))
    return masks


def test_late_positions_are_the_twins(crag, solution):
    """A random slice of positions with 9 to 12 boxes filled (the twin recurses only over
    what follows them): the value of each, to 1e-9."""
    twin = NaiveMultisetGame(crag)
    keys = crag.keys
    for mask in late_masks(13, np.random.default_rng(2026), 12):
        filled = frozenset(k for c, k in enumerate(keys) if mask >> c & 1)
        assert solution.value(mask) == pytest.approx(twin.value(filled, 0, False), abs=1e-9)


@pytest.mark.slow
def test_the_whole_game_is_the_twins(crag, solution):
    """Every position (about a minute of the twin's plain Python)."""
    assert solution.expected_score == pytest.approx(
        NaiveMultisetGame(crag).value(frozenset(), 0, False), abs=1e-9)
