"""The kernels and the NumPy advisor make the same decision, decision by decision.

The tie rule is written once (`yz.solver.kernels.ties`); the decision kernel records every
choice a strategy makes (the box for each final roll, the keep from each roll with re-rolls
left, a stop for a first-roll bonus) and the advisor ranks every action of a position. For
rule sets drawn at random and for the official rules, at states drawn at random, every roll
with every number of re-rolls left gets the same best move from both.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_rules import QUICK, as_yaml, rule_documents
from yz.rules import rules_from_text
from yz.rules.position import Position
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.kernels.bundle import States
from yz.solver.simulate import strategy_choices


def check_decisions(solution, states: States, rolls: np.ndarray | None = None) -> int:
    """Compare every decision at `states` (sorted by mask, flag, total) for every roll (or
    the distinct rolls `rolls`); the count made."""
    t = solution.tables
    if rolls is None:
        rolls = np.arange(t.n_distinct_rolls)
    choice = strategy_choices(solution, "optimal", states)
    n_keep = t.n_keeps
    made = 0
    for i in range(len(states.MASK)):
        pos = Position(mask=int(states.MASK[i]), upper_total=int(states.UPPER[i]),
                       yahtzee_full=bool(states.FLAG[i]))
        for r in rolls:
            dice = tuple(int(d) for d in t.ROLL_DICE[r])
            for left in range(t.rolls):
                best = advise(solution, pos, dice, left).best
                kernel = int(choice[i, left, r])
                where = (pos, dice, left)
                if left == 0:
                    assert best.kind == "score" and best.box.box == kernel, where
                elif kernel >= n_keep:  # stop after the first roll for a first-roll bonus
                    assert left == t.rolls - 1, where
                    assert best.kind == "score" and best.box.box == kernel - n_keep, where
                else:
                    assert best.kind == "keep" and t.keep_index(best.keep) == kernel, where
                made += 1
    return made


def random_states(solution, rng: np.random.Generator, count: int) -> States:
    """`count` stored turn-start states (the full card excluded), sorted as the kernels need."""
    layout = solution.layout
    last = int(layout.LAYER_PTR[-2])
    index = np.unique(rng.integers(0, last, size=count))
    mask, flag, u = layout.states_at(index)
    return States(mask.astype(np.int64), flag.astype(np.int64), u.astype(np.int64),
                  np.zeros(len(mask), dtype=np.int64))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(QUICK), st.integers(0, 2**31))
def test_random_rule_sets_decide_alike(doc, seed):
    solution = Model(rules_from_text(as_yaml(doc)), use_cache=False).solve()
    assert check_decisions(solution, random_states(solution, np.random.default_rng(seed), 6))


@pytest.mark.parametrize("name", ["official-free-joker", "generala", "yatzy-in-order"])
def test_builtins_decide_alike(name):
    """Big games: 12 states drawn at random, every roll (the advisor memoises a position's
    turn tables, so a state's 756 decisions cost about one advice)."""
    solution = Model(name, use_cache=False).solve()
    states = random_states(solution, np.random.default_rng(7), 12)
    assert check_decisions(solution, states) > 12 * 700


def test_the_coachs_first_move_is_the_kernels_in_crag():
    """The bots of `yz play` and the duels move by the coach's first option
    (`coach.Game.options`, which values keeping every die at the best box now), not by the
    advisor: in Crag, whose 3 dice make many exact ties, it takes the kernel's recorded
    choice at 40 states drawn at random, for every roll and number of re-rolls left."""
    from yz.solver.coach import Game

    solution = Model("crag", use_cache=False).solve()
    t = solution.tables
    states = random_states(solution, np.random.default_rng(11), 40)
    choice = strategy_choices(solution, "optimal", states)
    made = 0
    for i in range(len(states.MASK)):
        pos = Position(mask=int(states.MASK[i]), upper_total=int(states.UPPER[i]),
                       yahtzee_full=bool(states.FLAG[i]))
        for r in range(t.n_distinct_rolls):
            dice = tuple(int(d) for d in t.ROLL_DICE[r])
            for left in range(t.rolls):
                best = Game(solution, 0, position=pos, dice=dice, rolls_left=left).options()[0]
                kernel = int(choice[i, left, r])
                if left == 0 or kernel >= t.n_keeps:
                    box = kernel if left == 0 else kernel - t.n_keeps
                    assert best.kind == "score" and best.box.box == box, (pos, dice, left)
                else:
                    assert best.kind == "keep" and t.keep_index(best.keep) == kernel, \
                        (pos, dice, left)
                made += 1
    assert made == len(states.MASK) * t.n_distinct_rolls * t.rolls
