"""Patterns on the dice total (`total`).

Scores are checked against hand-worked numbers, each through the scorer, the compiled table
and the naive twin; Crag's "Thirteen" box is one line of a rule file; a total no roll can have
is refused where it is written, or where the user's file made it so.
"""

from __future__ import annotations

import numpy as np
import pytest
from naive import naive_score
from yz.rules import RulesError, compile_rules, load_rules, rules_from_text
from yz.rules.models import RuleSet
from yz.rules.scoring import category_scores


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


# ---------------------------------------------------------------- Crag's Thirteen

# Crag (3 dice, 13 boxes): "Thirteen" is any three dice totalling 13 (26 points).
THIRTEEN = """\
name: crag-thirteen
dice: 3
faces: 6
rolls: 3
categories:
  - {key: thirteen, pattern: {kind: total, equals: 13}, score: 26}
  - {key: chance, pattern: any, score: sum_all}
"""


@pytest.mark.parametrize("dice, thirteen", [
    ((6, 6, 1), 26), ((1, 6, 6), 26), ((4, 4, 5), 26), ((5, 5, 3), 26), ((6, 5, 2), 26),
    ((6, 4, 3), 26), ((6, 6, 2), 0), ((4, 4, 4), 0), ((1, 1, 1), 0), ((6, 6, 6), 0),
])
def test_thirteen_scores_as_worked_by_hand(dice, thirteen):
    assert score(rules_from_text(THIRTEEN, "crag.yaml"), "thirteen", dice) == thirteen


def test_thirteen_rolls_counted_by_hand():
    """Of the 216 ordered throws of 3 dice, 21 total 13: the 6 orders of 6-5-2 and of 6-4-3,
    the 3 of 6-6-1, 5-5-3 and 5-4-4."""
    t = compile_rules(rules_from_text(THIRTEEN, "crag.yaml"))
    assert float(t.ROLL_PROB[t.SCORE[:, 0] > 0].sum()) == pytest.approx(21 / 216, abs=1e-15)


SUMS = """\
name: sums
dice: 5
categories:
  - {key: box, pattern: %s, score: sum_matched}
"""


@pytest.mark.parametrize("pattern, dice, points", [
    # all the dice form it
    ("{kind: total, equals: 13}", (1, 2, 3, 3, 4), 13),
    ("{kind: total, min: 20}", (6, 6, 4, 3, 1), 20),
    ("{kind: total, min: 20}", (6, 6, 4, 2, 1), 0),
    ("{kind: total, max: 10}", (1, 1, 2, 3, 3), 10),
    ("{kind: total, max: 10}", (1, 1, 2, 3, 4), 0),
    ("{kind: total, min: 12, max: 14}", (1, 2, 3, 3, 4), 13),
    ("{kind: total, min: 12, max: 14}", (1, 2, 3, 3, 6), 0),
])
def test_a_total_is_formed_by_all_the_dice(pattern, dice, points):
    assert score(rules_from_text(SUMS % pattern, "sums.yaml"), "box", dice) == points


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
    (tmp_path / "crag.yaml").write_text(THIRTEEN)
    house = tmp_path / "house.yaml"
    house.write_text("extends: crag.yaml\ndice: 2\n")
    with pytest.raises(RulesError) as info:
        load_rules(str(house))
    text = str(info.value)
    assert text.startswith(f"{house}: 1 problem in the rule set:")
    assert (f"{house}:2:1: categories[0].pattern.equals: no roll totals 13: 2 dice of 6 faces "
            f"total 2 to 12 (because of dice here; the box comes from "
            f"{tmp_path / 'crag.yaml'}:6:") in text, text
