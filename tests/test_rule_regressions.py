"""Minimal rule files that random rule sets found wrong once, each with its brute-force value.

Every value here is the twin's (`naive.py`), and where the issue that found it gave one, the
independent brute force's too.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from naive import naive_solve
from yz.rules import RulesError, SolverError, compile_rules, load_rules, rules_from_text
from yz.rules.position import Position, box_choices
from yz.solver import Model
from yz.solver.dp import check_values
from yz.solver.target import solve_targets

# With `rolls: 1` every roll is a first roll: the first-roll bonus is part of every score.
ONE_ROLL_SERVED = """
name: one-roll-served
dice: 1
rolls: 1
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: served, pattern: {kind: of_a_kind, count: 1}, score: sum_all, first_roll_bonus: 8}
"""

# A first-roll bonus on a box that counts toward the upper bonus counts toward the upper total
# (it is part of the box's score): 25.7147, not 20.3746 (not counted) or yz's old 29.2570.
SERVED_UPPER = """
name: served-upper
dice: 2
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total, first_roll_bonus: 10}
  - {key: twos, pattern: {kind: face, face: 2}, score: face_total}
  - {key: chance, pattern: any, score: sum_all}
upper_bonus: {threshold: 4, amount: 10}
"""

# In order, the forced Joker chooses among the boxes the turn may fill: with the upper box of
# the face open but not next, a Yahtzee goes in the next box (it printed -6.25e299 once).
IN_ORDER_FORCED = """
name: in-order-forced
dice: 2
faces: 2
rolls: 1
order: in_order
categories:
  - {key: yahtzee, pattern: all_same, score: 10}
  - {key: any_two, pattern: any, score: sum_all}
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: twos, pattern: {kind: face, face: 2}, score: face_total}
joker: {mode: forced, full_value: [any_two]}
yahtzee_bonus: {amount: 5}
"""


@pytest.mark.parametrize(("text", "value"), [
    (ONE_ROLL_SERVED, 12.5),
    (SERVED_UPPER, 25.7147214925),
    (IN_ORDER_FORCED, 14.75),
])
def test_found_once_now_matches_brute_force(text, value):
    rules = rules_from_text(text)
    solution = Model(rules, use_cache=False).solve(with_sd=True)
    assert solution.expected_score == pytest.approx(value, abs=1e-9)
    assert solution.expected_score == pytest.approx(naive_solve(rules), abs=1e-9)
    table = solve_targets(solution, 20)
    assert 0.0 <= table.p_reach(10) <= 1.0


def test_a_one_roll_game_scores_the_bonus_in_every_box_and_offers_no_early_stop():
    t = compile_rules(rules_from_text(ONE_ROLL_SERVED))
    served = t.rules.index_of("served")
    assert list(t.SCORE[:, served]) == [9, 10, 11, 12, 13, 14]
    assert not t.FIRST_BONUS.any() and not t.has_first_roll_bonus
    assert list(t.BOX_SCORES[served]) == [9, 10, 11, 12, 13, 14]


def test_the_per_box_bounds_include_the_first_roll_bonus():
    t = compile_rules(rules_from_text(SERVED_UPPER))
    ones = t.rules.index_of("ones")
    assert list(t.BOX_SCORES[ones]) == [0, 1, 2, 11, 12]  # 1 or 2 ones, +10 when served
    assert t.BOX_MAX[ones] == 12 and t.UPPER_MAX[ones] == 12
    assert t.UPPER_MAX[t.rules.index_of("chance")] == 0


def test_the_forced_joker_in_order_scores_the_next_box():
    t = compile_rules(rules_from_text(IN_ORDER_FORCED))
    roll = t.roll_index((1, 1))
    pos = Position(filled={"yahtzee": 10}, mask=1, upper_total=0, yahtzee_full=True)
    legal = [c for c in box_choices(t, roll, pos) if c.legal]
    # The Yahtzee bonus is won; the next box scores normally (its face's upper box is open).
    assert [(c.key, c.points, c.yahtzee_bonus) for c in legal] == [("any_two", 2, 5)]


def test_a_value_below_any_score_is_an_error_naming_the_state():
    solution = Model(load_rules("no-bonus"), use_cache=False).solve()
    values = solution.values.copy()
    index = solution.layout.index(0b101, 0, 0)
    values[index] = -1.0e300
    with pytest.raises(SolverError, match=r"ones, threes filled.*bug in yz"):
        check_values(solution.tables, solution.layout, values, "expected points to come", 0.0)
    values[index] = np.nan
    with pytest.raises(SolverError, match="nan"):
        check_values(solution.tables, solution.layout, values, "expected points to come", 0.0)


def test_forty_thousand_unknown_keys_are_refused_in_one_short_paragraph(tmp_path):
    path = tmp_path / "many.yaml"
    lines = ["name: many", "categories:", "  - {key: chance, pattern: any, score: sum_all}"]
    path.write_text("\n".join(lines + [f"k{i:05d}: 1" for i in range(40_000)]) + "\n")
    with pytest.raises(RulesError, match=r"many.yaml:4:1: \(top level\): 40,000 unknown "
                                         r"fields.*'k00000'") as info:
        load_rules(str(path))
    assert len(str(info.value)) < 600
    run = subprocess.run([sys.executable, "-m", "yz.cli.entry", "rules", "validate", str(path)],
                         capture_output=True, text=True, timeout=60)  # a hang guard only
    assert run.returncode == 2 and run.stderr.startswith("error:") and not run.stdout
    assert run.stderr.count("\n") <= 2


def test_thousands_of_problems_are_counted_after_the_first_twenty(tmp_path):
    path = tmp_path / "bad.yaml"
    boxes = [f"  - {{key: b{i}, pattern: {{kind: face, face: 99}}, score: face_total}}"
             for i in range(30)]
    path.write_text("name: bad\ncategories:\n" + "\n".join(boxes) + "\n")
    with pytest.raises(RulesError) as info:
        load_rules(str(path))
    text = str(info.value)
    assert "problems in the rule set" in text
    assert text.count("\n  ") == 21 and "... and " in text and "more (fix these first)" in text


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\ufffe"])
def test_a_control_character_is_one_line_naming_where_it_is(char):
    with pytest.raises(RulesError) as info:
        rules_from_text(f"name: x\ndescription: a{char}b\n", "pasted.yaml")
    text = str(info.value)
    assert text.startswith(f"pasted.yaml:2:15: the character U+{ord(char):04X}")
    assert "\n" not in text
