"""Play to win (`solver.versus`): the best response to an opponent's distribution and the
clairvoyant ceiling, against the brute-force twin (`naive.NaiveUtility`) on tiny games and on
rule sets drawn at random from the rule language, saved rolls included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import NaiveUtility
from random_rules import Size, as_yaml, rule_documents
from yz.rules import InputError, RulesError, rules_from_text
from yz.solver import Model
from yz.solver.distribution import Distribution
from yz.solver.target import need_sweep, solve_targets
from yz.solver.versus import (
    Opponent,
    blind_best_response,
    chances_of,
    clairvoyant_ceiling,
)

TINY = Size(max_dice=2, max_boxes=3, max_rolls_kinds=10, max_threshold=8)

GAME = """
name: tiny-duel
dice: 2
faces: 3
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: threes, pattern: {kind: face, face: 3}, score: face_total}
  - {key: pair, pattern: all_same, score: 8, first_roll_bonus: 2}
upper_bonus: {threshold: 4, amount: 5}
"""


def opponent_of(scores, probs, field: int = 1) -> Opponent:
    dist = Distribution("opponent", "given", np.asarray(scores, dtype=np.int64),
                        np.asarray(probs, dtype=np.float64))
    return Opponent.of(dist, field)


def field_utility(opponent: Opponent):
    """u, P(win outright), P(tie for the top) of a final score, written plainly: every
    combination of the field's scores (as many as there are: the twin's own reading)."""
    pmf = dict(zip(opponent.scores.tolist(), opponent.probabilities.tolist(), strict=True))

    def chances(x: int) -> tuple[float, float, float]:
        below = sum(p for s, p in pmf.items() if s < x)
        at = pmf.get(x, 0.0)
        n = opponent.field
        u = win = tie = 0.0
        # k of the n opponents on x, the rest below, none above: a share of 1 / (k + 1).
        from math import comb
        for k in range(n + 1):
            p = comb(n, k) * at ** k * below ** (n - k)
            u += p / (k + 1)
            if k == 0:
                win += p
            else:
                tie += p
        return u, win, tie

    return (lambda x: chances(x)[0], lambda x: chances(x)[1], lambda x: chances(x)[2])


def check_against_twin(rules, opponent: Opponent, ceiling: bool = True) -> None:
    solution = Model(rules, use_cache=False).solve()
    got, value, _top = blind_best_response(solution, opponent, tail=0.0)
    u, win, tie = field_utility(opponent)
    expected, (w_lo, w_hi), (d_lo, d_hi) = NaiveUtility(rules, u, (win, tie)).start()
    assert value == pytest.approx(expected, abs=1e-9), (value, expected)
    assert got.win + got.draw + got.loss == pytest.approx(1.0, abs=1e-12)
    if opponent.field == 1:
        assert got.score == pytest.approx(value, abs=1e-9)  # a draw: half a win
    assert w_lo - 1e-9 <= got.win <= w_hi + 1e-9, (got.win, w_lo, w_hi)
    assert d_lo - 1e-9 <= got.draw <= d_hi + 1e-9, (got.draw, d_lo, d_hi)
    if ceiling and opponent.field == 1:
        above = clairvoyant_ceiling(solution, opponent, tail=0.0)
        expected = 0.0
        for t, p in zip(opponent.scores.tolist(), opponent.probabilities.tolist(), strict=True):
            twin = NaiveUtility(rules, lambda x, t=t: (x > t) + 0.5 * (x == t))
            expected += p * twin.start()[0]
        assert above.score == pytest.approx(expected, abs=1e-9)
        assert above.score >= got.score - 1e-12  # knowing T never hurts


@pytest.mark.parametrize("field", [1, 2, 3])
def test_best_response_is_the_twins(field):
    rules = rules_from_text(GAME)
    opponent = opponent_of([3, 6, 8, 11, 14], [0.1, 0.3, 0.25, 0.25, 0.1], field)
    check_against_twin(rules, opponent)


def test_best_response_with_saved_rolls_is_the_twins():
    rules = rules_from_text(GAME + "saved_rolls: {cap: 1}\n")
    check_against_twin(rules, opponent_of([4, 9, 12], [0.3, 0.4, 0.3]))


def test_the_order_of_the_figures_and_the_mean_plays_duel():
    """Best response >= expected-score play (the mean's strategy is one of A's strategies) and
    the ceiling >= the best response; expected-score play's chances are the exact duel's."""
    model = Model(rules_from_text(GAME), use_cache=False)
    opponent_dist = model.distribution()
    opponent = Opponent.of(opponent_dist)
    response = model.best_response(opponent_dist)
    from yz.solver.distribution import duel

    mine = chances_of(model.distribution(), opponent)
    assert (mine.win, mine.draw, mine.loss) == pytest.approx(duel(opponent_dist, opponent_dist),
                                                             abs=1e-15)
    assert response.expected_score_play.score <= response.best_response.score + 1e-12
    assert response.best_response.score <= response.ceiling.score + 1e-12
    assert response.best_response.score > 0.5 - 1e-12  # at least a coin toss vs its own play


def test_a_step_utility_gives_the_target_tables_numbers_to_the_bit():
    """The utility 1 from T on is target play: its sweep, every need or only the start's
    window, gives the target table's chances (the table keeps them as float32: compare the
    float64 layers)."""
    model = Model(rules_from_text(GAME + "saved_rolls: {start: 1}\n"), use_cache=False)
    solution = model.solve()
    target = 12
    step_row = np.zeros(target + 1)
    step_row[0] = 1.0
    start = solution.layout.start
    got = {}

    def at_start(name):
        def keep(k, here, table, _payloads, first):
            if k == 0:  # (every need from `first` on; needs 1 .. first - 1 are worth 0)
                got[name] = np.concatenate([np.zeros(first), table[start - here.start]])
        return keep

    need_sweep(solution, target + 1, step_row, 1.0, at_start("all"))
    # One utility 1 from T on, its top at T: only the start's window is swept.
    need_sweep(solution, target + 1, step_row, 1.0, at_start("window"), windows=True)
    table = solve_targets(solution, target)
    assert got["window"][target] == got["all"][target]
    assert np.float32(got["all"][target]) == table.W[start, target]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=rule_documents(TINY, saved_rolls=True), data=st.data())
def test_random_rule_sets_against_the_twin(doc, data):
    try:
        rules = rules_from_text(as_yaml(doc))
    except RulesError:
        return
    scores = data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=6, unique=True))
    weights = data.draw(st.lists(st.integers(1, 9), min_size=len(scores),
                                 max_size=len(scores)))
    total = sum(weights)
    order = np.argsort(scores)
    lo, hi = min(scores), max(scores)
    dense = np.zeros(hi - lo + 1)
    for i in order:
        dense[scores[i] - lo] = weights[i] / total
    opponent = opponent_of(np.arange(lo, hi + 1), dense, data.draw(st.integers(1, 2)))
    check_against_twin(rules, opponent, ceiling=opponent.field == 1)


def test_an_opponent_from_the_csv_yz_distribution_writes(tmp_path):
    from typer.testing import CliRunner
    from yz.cli.main import app

    path = tmp_path / "b.csv"
    result = CliRunner().invoke(app, ["distribution", "-v", "no-bonus", "--csv", str(path),
                                      "-q"])
    assert result.exit_code == 0, result.output
    read = Opponent.from_csv(path)
    dist = Model("no-bonus").distribution()
    assert read.scores.tolist() == dist.scores.tolist()
    assert np.allclose(read.probabilities, dist.probabilities, rtol=0, atol=1e-15)
    (tmp_path / "bad.csv").write_text("score,probability\n10,0.5\nten,0.5\n")
    with pytest.raises(InputError, match=r"bad\.csv:3"):
        Opponent.from_csv(tmp_path / "bad.csv")
    (tmp_path / "sum.csv").write_text("10,0.5\n11,0.4\n")
    with pytest.raises(InputError, match="add up to"):
        Opponent.from_csv(tmp_path / "sum.csv")


def state_of(rules, position):
    """The twin's state of a position: (filled keys, upper total capped, flag)."""
    upper = position.upper_total
    if rules.upper_bonus is not None:
        upper = min(upper, rules.upper_bonus.threshold)
    return frozenset(position.filled), upper, position.yahtzee_full


@pytest.mark.parametrize("filled, dice, left", [
    ("ones=1,threes=3", (1, 3), 0), ("ones=1,threes=3", (2, 2), 1), ("ones=2,pair=10", (3, 3), 1),
    ("threes=6", (1, 1), 1), ("pair=0", None, None), ("", (1, 2), 1)])
def test_live_advice_is_the_twins(filled, dice, left):
    """Each position's best move (or value before the roll) by the chance of beating an
    opponent whose final score is known in distribution: the twin's expectimax from that
    position (at the last turn, every game enumerated)."""
    rules = rules_from_text(GAME)
    model = Model(rules, use_cache=False)
    opponent = opponent_of([3, 6, 8, 11, 14], [0.1, 0.3, 0.25, 0.25, 0.1])
    advice = model.advise(filled, dice, left, opponent=opponent)
    position = model.position(filled)
    banked = position.banked(model.tables)
    u, _w, _t = field_utility(opponent)
    twin = NaiveUtility(rules, u)
    state = state_of(rules, position)
    if dice is None:
        assert advice.position_value == pytest.approx(twin.value(state, banked)[0], abs=1e-9)
        return
    assert advice.objective == "win"
    assert advice.best.value == pytest.approx(twin.best(state, banked, dice, left)[0],
                                              abs=1e-9)
    as_data = advice.to_dict()
    assert as_data["best"]["p_win"] == advice.best.value and "value" not in as_data["best"]


def test_an_opponents_card_gives_its_final_score():
    """The opponent's final score from its card: the points on it plus the exact rest of its
    game under its strategy (mean: the solved value), a finished card a single score."""
    model = Model(rules_from_text(GAME), use_cache=False)
    position = model.position("ones=2,threes=3")
    dist = model.final_score_from(position)
    solution = model.solve()
    value = solution.value(position.mask, position.upper_total, False)
    assert dist.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    banked = position.banked(model.tables)
    assert banked == 10  # 2 + 3, and the upper bonus (5 at 4) made
    assert dist.expected_score == pytest.approx(banked + value, abs=1e-9)
    done = model.final_score_from("ones=2,threes=3,pair=10")
    assert done.scores.tolist() == [20] and done.probabilities.tolist() == [1.0]
    # Against a finished card (T = 20) the utility is P(A > 20) + P(A = 20) / 2.
    advice = model.advise("ones=1,threes=3", (3, 3), 1, opponent=done)
    twin = NaiveUtility(model.rules, lambda x: (x > 20) + 0.5 * (x == 20))
    state = state_of(model.rules, model.position("ones=1,threes=3"))
    assert advice.best.value == pytest.approx(twin.best(state, 9, (3, 3), 1)[0], abs=1e-9)


@pytest.mark.parametrize("variant", ["example:quick-duel",
                                     pytest.param("gist", marks=pytest.mark.slow)])  # (44 s)
def test_a_windowed_sweep_stores_each_layer_from_its_first_need_on(variant):
    """With windows a layer's table holds only the needs from the lowest any of its states is
    swept at (`need_rows`' first; the kernels read the needs below it as 0): every entry it
    holds is the one the sweep over every need computes, and it is narrower where the game's
    late layers start high."""
    from yz.solver.target import need_rows

    model = Model(variant, use_cache=False)
    solution = model.solve()
    opponent = Opponent.of(model.distribution())
    top = opponent.top_score(1e-12)
    u, _win, tie = opponent.outcome(top)
    row, t, layout = u[::-1].copy(), solution.tables, solution.layout
    reach = max(0, top - int(opponent.scores[0]))
    tables = {}

    def keep(name):
        def on_layer(k, here, table, payloads, first):
            tables[name, k] = (table.copy(), payloads[0].copy(), first)
        return on_layer

    carried = (tie[::-1].copy(), float(tie[top]), None, 0.0)
    need_sweep(solution, top + 1, row, float(u[top]), keep("every"), reach=reach,
               payloads=carried)
    need_sweep(solution, top + 1, row, float(u[top]), keep("window"), windows=True,
               reach=reach, payloads=carried)
    firsts = []
    for k in range(t.n_categories):
        full, full_draw, zero = tables["every", k]
        narrow, narrow_draw, first = tables["window", k]
        assert zero == 0 and narrow.shape == (full.shape[0], top + 1 - first)
        rows, need0, lowest = need_rows(t, layout, k, top + 1, reach, True)
        assert lowest == first
        firsts.append(first)
        state = (rows.OUT - need0 + first) // (top + 1 - first)  # (each row's state)
        for i, n0, nu in zip(state, need0, rows.NU, strict=True):
            assert np.array_equal(narrow[i, n0 - first: n0 - first + nu], full[i, n0: n0 + nu])
            assert np.array_equal(narrow_draw[i, n0 - first: n0 - first + nu],
                                  full_draw[i, n0: n0 + nu])
    assert max(firsts) > 1, firsts  # (the narrower tables are exercised)


def test_live_advice_reads_its_narrow_layer_as_the_sweep_over_every_need():
    """`table_to_win` keeps the layer after A's turn from its first need on: its chances are
    the full sweep's entries where the position can lead, and 0 below its first need."""
    from yz.rules.position import Position
    from yz.solver.target import need_rows
    from yz.solver.versus import table_to_win

    model = Model("example:quick-duel", use_cache=False)
    solution = model.solve()
    t, layout = solution.tables, solution.layout
    opponent = Opponent.of(model.distribution())
    position, _ = Position().after(t, t.roll_index((5, 6)), "high")
    banked = position.filled["high"]
    table = table_to_win(solution, position, banked, opponent)
    top, k = table.top, table.layer
    u = opponent.outcome(top)[0]
    reach = max(0, top - int(opponent.scores[0]))
    full = {}
    need_sweep(solution, top + 1, u[::-1].copy(), float(u[top]),
               lambda layer, _here, tab, _p, first: full.__setitem__(layer, (tab.copy(), first)),
               reach=reach)
    every, zero = full[k]
    rows, need0, first = need_rows(t, layout, k, top + 1, reach, True, (position.mask, banked))
    assert zero == 0 and first == table.first > 1 and len(rows.NU)
    mask, flag, upper, index = layout.state_arrays(k)
    at = dict(zip((index - layout.LAYER_PTR[k]).tolist(), range(len(index)), strict=True))
    place = (rows.OUT - need0 + first) // (top + 1 - first)  # (each row's place in the layer)
    for i, n0, nu in zip(place, need0, rows.NU, strict=True):
        state = (mask[at[i]], upper[at[i]], bool(flag[at[i]]))
        for need in range(n0, n0 + nu):
            assert table.chance(*state, need) == every[i, need]
        assert table.chance(*state, first - 1) == 0.0
