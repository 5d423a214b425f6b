"""Saved rolls (a bank carried between turns): the rule field, the layout of banked states and
the DP's value against the brute-force twin (random rule sets: tests/test_random_rules.py)."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import NaiveGame, NaiveMoments, NaiveTarget, naive_solve, naive_target
from random_rules import QUICK, as_yaml, rule_documents
from yz.rules import InputError, RulesError, WorkTooLong, rules_from_text
from yz.rules.position import parse_filled
from yz.solver import Model
from yz.solver.advice import advise

HANG_GUARD = 120  # seconds; only catches a hang

TINY = """\
name: banked
dice: 2
faces: 3
rolls: 2
saved_rolls: {saved}
upper_bonus: {{threshold: 4, amount: 5}}
categories:
  - {{key: ones, section: upper, pattern: {{kind: face, face: 1}}, score: face_total}}
  - {{key: threes, section: upper, pattern: {{kind: face, face: 3}}, score: face_total}}
  - {{key: pair, pattern: {{kind: of_a_kind, count: 2}}, score: sum_all, first_roll_bonus: 4}}
"""


@pytest.mark.parametrize("saved", ["{}", "{cap: 2}", "{start: 1}",
                                   "{carry_unused: false, start: 2}", "{cap: 0}"])
def test_every_banked_state_has_its_own_place_in_its_layer(saved):
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    layout, t = model.layout, model.tables
    seen = []
    for k in range(t.n_categories + 1):
        rows = layout.rows(k)
        assert len(set(rows.BANK.tolist())) == t.banks_in_layer(k)
        for out, nu in zip(rows.OUT, rows.NU, strict=True):
            assert layout.LAYER_PTR[k] <= out and out + nu <= layout.LAYER_PTR[k + 1]
            seen.extend(range(out, out + nu))
    assert sorted(seen) == list(range(layout.size))  # each entry once, none left over
    assert np.all(np.diff(layout.LAYER_PTR) >= 0)


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}"])
def test_the_value_is_the_twins(saved):
    rules = rules_from_text(TINY.format(saved=saved))
    assert Model(rules, use_cache=False).solve().expected_score == pytest.approx(
        naive_solve(rules), rel=1e-12)


def test_more_saved_rolls_are_worth_more():
    values = [Model(rules_from_text(TINY.format(saved=s)), use_cache=False).solve().expected_score
              for s in ("{cap: 0}", "{cap: 1}", "{cap: 2}", "{}")]
    assert values == sorted(values) and values[0] < values[-1]


def test_a_start_above_the_cap_is_refused():
    with pytest.raises(RulesError, match="cannot start with 3 saved rolls when at most 2"):
        rules_from_text(TINY.format(saved="{start: 3, cap: 2}"))


def sd_bounds(rules) -> tuple[float, float, float]:
    """The twin's mean and the range of the SD over every tie-breaking rule."""
    mean, low, high = NaiveMoments(rules).start_moments()
    return mean, np.sqrt(max(0.0, low - mean * mean)), np.sqrt(max(0.0, high - mean * mean))


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}"])
def test_the_sd_is_the_twins(saved):
    rules = rules_from_text(TINY.format(saved=saved))
    mean, low, high = sd_bounds(rules)
    solution = Model(rules, use_cache=False).solve(with_sd=True)
    assert solution.expected_score == pytest.approx(mean, rel=1e-12)
    assert low - 1e-9 <= solution.sd <= high + 1e-9, (low, solution.sd, high)


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}", "{cap: 0}"])
def test_target_play_is_the_twins(saved):
    """P(final score >= T) under target play for every T up to one past the top score, and at
    random positions and banks the chance of every move at every count of re-rolls left (the
    twin's expectimax over chances, the bank in its state)."""
    rules = rules_from_text(TINY.format(saved=saved))
    model = Model(rules, use_cache=False)
    table = model.targets()
    assert table.max_target == table.ceiling  # (capped at the top score)
    twin = NaiveTarget(rules)
    for target in range(1, table.max_target + 2):
        assert table.p_reach(target) == pytest.approx(naive_target(rules, target, twin),
                                                      abs=2e-6), target  # float32 tables
    t, rng = model.tables, random.Random(saved)
    rolls = list(itertools.combinations_with_replacement(range(1, rules.faces + 1), rules.dice))
    for _ in range(6):
        pos = random_position(t, rng)
        state = (frozenset(pos.filled), min(pos.upper_total, t.upper_threshold),
                 pos.yahtzee_full)
        bank, target = pos.saved_rolls, rng.randrange(1, table.max_target + 1)
        for dice in rolls:
            for left in range(rules.rolls + bank):
                got = model.advise(pos, dice, left, target=target)
                need = target - got.banked
                want = {("score", k): v
                        for k, v in twin.score_now(state, need, dice, left, bank).items()}
                if left:
                    want.update({("keep", k): v for k, v in twin.keep_chances(
                        state, need, dice, left, bank).items()
                        if len(k) < len(dice) or not t.has_bank})  # keep-all: see advice
                have = {(a.kind, a.box.key if a.kind == "score" else a.keep): a.value
                        for a in got.actions}
                assert got.best.value == pytest.approx(twin.hold(state, need, dice, left, bank),
                                                       abs=2e-6)
                if t.has_bank:  # (else only the keeps and first-roll stops are listed)
                    assert have.keys() == want.keys(), (pos, dice, left)
                for move, chance in have.items():
                    assert chance == pytest.approx(want[move], abs=2e-6), (pos, dice, left, move)


@pytest.mark.parametrize("saved", ["{start: 2}", "{carry_unused: false, start: 1}"])
def test_target_play_with_several_runs_of_needs_per_state(saved, monkeypatch):
    """A state's needs split into several rows (runs of NEED_RUN): the rows of every bank
    still line up for the sweep that serves them all."""
    from yz.solver import target

    monkeypatch.setattr(target, "NEED_RUN", 3)
    rules = rules_from_text(TINY.format(saved=saved))
    table, twin = Model(rules, use_cache=False).targets(), NaiveTarget(rules)
    for need in range(1, table.max_target + 2):
        assert table.p_reach(need) == pytest.approx(naive_target(rules, need, twin), abs=2e-6)


def test_mean_plays_chances_are_left_out_where_its_distribution_is_not_computed():
    from yz.cli import data, render

    table = Model(rules_from_text(TINY.format(saved="{}")), use_cache=False).targets()
    rows = [(10, table.p_reach(10), None)]
    text = render.target_text(table, rows)
    assert text.splitlines()[-2].split()[2:] == ["-", "-"], text
    assert "its exact distribution is too big to compute here" in text
    # Not computed: left out and named (null means "no such thing" in yz's JSON).
    assert data.target_json(table, rows)["targets"][0] == {
        "target": 10, "p_target_optimal": table.p_reach(10), "not_computed": ["p_mean_optimal"]}


def test_target_play_too_long_or_too_big_is_refused_before_any_work():
    model = Model("yatzy-saved-rolls", use_cache=False, max_memory=16 * 2**30)  # (10 minutes)
    with pytest.raises(WorkTooLong, match="target play of yatzy-saved-rolls would take about"):
        model.targets(100)  # (12.3 GiB: it fits in 16)
    with pytest.raises(InputError, match=r"up to 200 needs about 24\.6 GiB, more than the 16\.0"):
        model.advise(target=200)
    assert not model.is_solved()


def test_target_play_with_saved_rolls_from_the_command_line(tmp_path):
    """`yz target` and `yz advise --target` on a game with saved rolls, on a pty and as JSON:
    the model's chances, the bank shown and left."""
    from test_terminal import run_in_pty

    game = tmp_path / "banked.yaml"
    game.write_text(TINY.format(saved="{}"))
    model = Model(rules_from_text(TINY.format(saved="{}")), use_cache=False)
    table, dist = model.targets(), model.distribution()
    pos = model.position({"ones": 1}, saved_rolls=1)
    want = model.advise(pos, (1, 3), 2, target=12)
    advise = ["advise", "-v", str(game), "--filled", "ones=1", "--saved-rolls", "1", "-d", "1,3",
              "-r", "2", "--target", "12"]
    run = run_in_pty(advise, 100)
    assert run.code == 0 and "Traceback" not in run.text, run
    assert "1 saved roll at the turn's start" in run.text
    assert f"best: {want.best.label()}  (chance of 12 or more" in run.text, run
    assert "saved rolls left" in run.text
    run = run_in_pty(["target", "-v", str(game), "--targets", "10,15"], 100)
    assert run.code == 0 and "mean play" in run.text and "Traceback" not in run.text, run
    for cmd in (advise, ["target", "-v", str(game), "--targets", "10,15"]):
        out = subprocess.run([sys.executable, "-m", "yz.cli.main", *cmd, "--json"],
                             capture_output=True, text=True, timeout=HANG_GUARD)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        if cmd is advise:
            assert data["best"]["p_target"] == pytest.approx(want.best.value, abs=1e-12)
            continue
        for row in data["targets"]:
            assert row["p_target_optimal"] == pytest.approx(table.p_reach(row["target"]))
            assert row["p_mean_optimal"] == pytest.approx(dist.p_at_least(row["target"]))
            assert row["p_target_optimal"] >= row["p_mean_optimal"] - 1e-6


def naive_banked_pmf(solution) -> dict[int, float]:
    """The final score's distribution by brute force: every turn's dice followed through the
    advisor's best moves (the kernel's choices: see the test below) with the odds of each
    throw, every position kept apart by its boxes, totals, flag and bank."""
    from collections import defaultdict
    from itertools import product

    t, rules = solution.tables, solution.rules

    def throws(n: int) -> dict[tuple[int, ...], float]:
        out: dict = defaultdict(float)
        for faces in product(range(1, rules.faces + 1), repeat=n):
            out[tuple(sorted(faces))] += rules.faces ** -n
        return out

    def turn(pos, dice, left, p, out):
        best = advise(solution, pos, dice, left).best
        if best.kind == "score":
            top = rules.rolls - 1 + pos.saved_rolls
            after, choice = pos.after(t, t.roll_index(dice), best.box.key, left == top, left)
            key = (after.mask, min(after.upper_total, t.upper_threshold), after.yahtzee_full,
                   after.saved_rolls)
            out[key, choice.total] = out.get((key, choice.total), (after, 0.0))[0], \
                out.get((key, choice.total), (after, 0.0))[1] + p
            return
        for rest, q in throws(rules.dice - len(best.keep)).items():
            turn(pos, tuple(sorted(best.keep + rest)), left - 1, p * q, out)

    start = parse_filled(None, t)
    layer = {("start",): (start, {0: 1.0})}
    for _ in range(t.n_categories):
        nxt: dict = {}
        for pos, pmf in layer.values():
            moves: dict = {}
            for dice, p in throws(rules.dice).items():
                turn(pos, dice, rules.rolls - 1 + pos.saved_rolls, p, moves)
            for (key, gain), (after, p) in moves.items():
                _, target = nxt.setdefault(key, (after, defaultdict(float)))
                for score, q in pmf.items():
                    target[score + gain] += p * q
        layer = nxt
    final: dict = defaultdict(float)
    for _, pmf in layer.values():
        for score, q in pmf.items():
            final[score] += q
    return final


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 2}"])
def test_the_distribution_is_the_brute_forces(saved):
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    solution = model.solve(with_sd=True)
    dist = model.distribution()
    want = naive_banked_pmf(solution)
    got = {int(s): float(p) for s, p in zip(dist.scores, dist.probabilities, strict=True) if p}
    assert got.keys() == {s for s, p in want.items() if p > 0}
    for score, p in want.items():
        assert got.get(score, 0.0) == pytest.approx(p, abs=1e-13), score
    assert dist.expected_score == pytest.approx(solution.expected_score, rel=1e-12)
    assert dist.sd == pytest.approx(solution.sd, rel=1e-9)
    figures = model.figures()  # the per-box figures come from the same walk
    assert sum(figures.box_mean.values()) + 5 * figures.p_upper_bonus == pytest.approx(
        solution.expected_score, rel=1e-12)
    a_wins, draw, b_wins = model.duel(model)
    assert a_wins == pytest.approx(b_wins, abs=1e-12) and draw > 0


def check_moves_within_the_bound(model) -> None:
    """Every state of every layer ends its turn with no more distinct moves, under optimal
    play, than `distribution.moves_per_state` allows (the memory check counts on it); every
    window of banked points the forward pass makes lies within the one
    `distribution.state_windows` sets aside for its state (the streamed distribution writes
    into those); and the streamed distribution is the held one's, bit for bit."""
    from yz.solver.budget import moves_per_state, window_bytes
    from yz.solver.distribution import state_windows
    from yz.solver.forward import _Windows, distinct, layer_outcomes, walk

    solution, layout, t = model.solve(), model.layout, model.tables
    # The memory check adds the windows up row by row; the pass sets them aside state by state.
    assert window_bytes(t, layout).tolist() == [
        int(state_windows(t, layout, k)[1].sum()) * 8 for k in range(t.n_categories + 1)]
    for k in range(t.n_categories):
        here = layout.layer_slice(k)
        src, _ = layer_outcomes(model.problem, solution.values, np.arange(here.start, here.stop),
                                ("target",))
        most = int(np.bincount(src).max())
        assert 0 < most <= moves_per_state(t, layout, k), (k, most)
    index = np.array([layout.start], dtype=np.int64)
    windows = _Windows.start()
    for k in range(t.n_categories):
        src, out = layer_outcomes(model.problem, solution.values, index, ("target", "gain", "prob"))
        index, slot = distinct(out["target"])
        windows = windows.convolve(src, slot, out["gain"], out["prob"], len(index), 1)
        lo, width = state_windows(t, layout, k + 1)
        at = index - layout.LAYER_PTR[k + 1]
        assert (windows.lo >= lo[at]).all(), k + 1
        assert (windows.lo + windows.width <= lo[at] + width[at]).all(), k + 1
    held = walk(solution, solution.values, pmf=True, figures=True)
    streamed = walk(solution, solution.values, pmf=True, figures=False)
    assert np.array_equal(held.scores, streamed.scores)
    assert np.array_equal(held.probabilities, streamed.probabilities)


@pytest.mark.parametrize("dice, rolls", [(2, 2), (3, 2), (2, 1), (3, 3)])
@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 2}"])
def test_a_states_moves_are_within_the_memory_checks_bound(dice, rolls, saved):
    check_moves_within_the_bound(Model(rules_from_text(
        CHOICES_GAME.format(dice=dice, rolls=rolls, saved=saved)), use_cache=False))


BONUS_GAME = """\
name: banked-bonus
dice: 2
faces: 3
rolls: 2
{saved}
upper_bonus: {{threshold: 4, amount: 5}}
yahtzee_bonus: {{amount: 20}}
joker: {{mode: free, full_value: [run]}}
categories:
  - {{key: ones, section: upper, pattern: {{kind: face, face: 1}}, score: face_total}}
  - {{key: threes, section: upper, pattern: {{kind: face, face: 3}}, score: face_total}}
  - {{key: run, pattern: {{kind: straight, length: 2}}, score: 7}}
  - {{key: yahtzee, pattern: all_same, score: 10}}
"""


@pytest.mark.parametrize("saved", ["", "saved_rolls: {}", "saved_rolls: {cap: 1}"])
def test_the_windows_hold_every_total_with_yahtzee_bonuses(saved):
    """A Yahtzee bonus is won only once the flag box has scored: the windows of states
    without the flag leave the bonuses out, and still hold every total play reaches."""
    check_moves_within_the_bound(Model(rules_from_text(BONUS_GAME.format(saved=saved)),
                                       use_cache=False))


def test_a_distribution_too_big_for_memory_is_refused_before_the_work():
    from yz.rules import InputError, load_rules

    model = Model(load_rules("yatzy-saved-rolls"), use_cache=False, max_memory=2 << 30)
    assert not model.has_distribution_of_play
    with pytest.raises(InputError, match=r"may need up to .* GiB, more than the 2.0 GiB"):
        model.distribution()
    assert model._cached("solution") is None  # refused before solving
    assert model.figures("greedy", when_quick=True) is None  # (its moments take a minute)
    # With the memory (its windows: 7.0 GiB), the time: about 8 minutes, over a 5-minute
    # budget.
    roomy = Model(load_rules("yatzy-saved-rolls"), use_cache=False, max_memory=16 << 30,
                  max_seconds=300, threads=2)
    with pytest.raises(WorkTooLong, match="the exact distribution of yatzy-saved-rolls"):
        roomy.distribution()
    assert roomy._cached("solution") is None
    assert 300 < roomy.budget.distribution_seconds() < 1200


def test_a_banked_distribution_past_the_worst_case_bound_is_streamed_when_it_fits():
    """The held forward pass's worst-case bound refuses it, the streamed pass's bound lets it
    through (the game's automatic figures still leave it out), and the distribution is the
    same, bit for bit."""
    from yz.solver.budget import banked_distribution_bytes, distribution_bytes

    text = CHOICES_GAME.format(dice=3, rolls=2, saved="{}")
    free = Model(rules_from_text(text), use_cache=False)
    expected = free.distribution()
    streamed = banked_distribution_bytes(free.tables, free.layout)
    worst = distribution_bytes(free.tables, free.layout)
    assert streamed < worst
    tight = Model(rules_from_text(text), use_cache=False, max_memory=(streamed + worst) // 2)
    assert not tight.has_distribution_of_play
    got = tight.distribution()
    assert np.array_equal(got.scores, expected.scores)
    assert np.array_equal(got.probabilities, expected.probabilities)
    assert got.expected_score == pytest.approx(tight.solve().expected_score, rel=1e-12)


@pytest.mark.parametrize("strategy", ["greedy", "heuristic"])
@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{carry_unused: false, start: 2}"])
def test_other_strategies_simulate_as_their_exact_moments_say(saved, strategy):
    # Two different paths over the same decisions: the backward pass carrying the moments of
    # the strategy's play, and games played from its recorded choices.
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    exact = model.moments(strategy)
    optimal = model.solve().expected_score
    assert exact.expected_score < optimal
    games = model.simulate(100_000, seed=5, strategy=strategy, keep_scores=True).scores
    sem = games.std() / np.sqrt(len(games))
    assert abs(games.mean() - exact.expected_score) < 4 * sem, (games.mean(), sem)
    assert games.std() == pytest.approx(exact.sd, rel=0.02)


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 2}", "{cap: 0}"])
def test_simulated_games_agree_with_the_exact_mean_and_sd(saved):
    # Play the recorded choices (a stop at any throw, the bank it leaves, the first-roll bonus
    # of the turn's first throw): 100,000 games, a fixed seed.
    model = Model(rules_from_text(TINY.format(saved=saved)), use_cache=False)
    exact = model.solve(with_sd=True)
    games = model.simulate(100_000, seed=3, keep_scores=True).scores
    sem = games.std() / np.sqrt(len(games))
    assert abs(games.mean() - exact.expected_score) < 4 * sem, (games.mean(), sem)
    assert games.std() == pytest.approx(exact.sd, rel=0.02)


def test_rules_show_prints_the_bank():
    from yz.cli.render import rules_text

    text = rules_text(rules_from_text(TINY.format(saved="{carry_unused: false, start: 2}")))
    assert "saved rolls:   2 at the start; unused rolls are lost" in text
    assert "saved rolls" not in rules_text(rules_from_text(TINY.replace(
        "saved_rolls: {saved}\n", "").format()))


# ---------------------------------------------------------------- advice


def random_position(t, rng: random.Random):
    """Some boxes filled with scores they can hold, and a bank a turn can start with then."""
    keys = list(t.rules.keys)
    n = rng.randrange(len(keys))
    chosen = keys[:n] if t.in_order else rng.sample(keys, n)
    filled = {}
    for key in chosen:
        c = keys.index(key)
        filled[key] = int(rng.choice(t.SCORE[t.SCORE[:, c] >= 0, c].tolist()))
    return parse_filled(filled, t, saved_rolls=rng.randrange(t.banks_in_layer(n)))


def check_advice(rules, rng: random.Random, positions: int, every_roll: bool = False) -> None:
    """At random positions and banks: the position's value is the kernel's and the twin's;
    every move after a roll (a keep, or filling a box now, which leaves the bank the twin
    says) is valued as the twin values it, at every count of re-rolls left."""
    solution = Model(rules, use_cache=False).solve()
    t, twin = solution.tables, NaiveGame(rules)
    for _ in range(positions):
        pos = random_position(t, rng)
        state = (frozenset(pos.filled), min(pos.upper_total, t.upper_threshold),
                 pos.yahtzee_full)
        bank = pos.saved_rolls
        value = advise(solution, pos).position_value
        assert value == pytest.approx(solution.value(pos.mask, pos.upper_total,
                                                     pos.yahtzee_full, bank), rel=1e-12)
        assert value == pytest.approx(twin.value(*state, bank), rel=1e-12, abs=1e-12)
        rolls = list(itertools.combinations_with_replacement(range(1, rules.faces + 1),
                                                             rules.dice))
        for dice in rolls if every_roll else rng.sample(rolls, min(3, len(rolls))):
            for left in range(rules.rolls + bank):
                got = advise(solution, pos, dice, left)
                boxes = twin.box_values(*state, dice, first=twin.is_first(left, bank),
                                        bank=bank, left=left)
                want = {("score", key): v for key, v in boxes.items()}
                if left:
                    keeps = twin.keep_values(*state, dice, left, bank=bank)
                    want.update({("keep", k): v for k, v in keeps.items() if len(k) < len(dice)})
                    # Keeping every die only spends a roll: never better than the best move.
                    assert max(keeps.values()) <= got.best.value + 1e-9
                assert got.best.value == pytest.approx(max(want.values()), rel=1e-12)
                have = {(a.kind, a.box.key if a.kind == "score" else a.keep): a.value
                        for a in got.actions}
                if not t.has_bank:  # a bank that never holds a roll: the game without one
                    assert all(have[m] == pytest.approx(v, rel=1e-12, abs=1e-12)
                               for m, v in want.items() if m in have and m[0] == "keep")
                    continue
                assert have.keys() == want.keys(), (pos, dice, left)
                for move, v in want.items():
                    assert have[move] == pytest.approx(v, rel=1e-12, abs=1e-12), move
                for a in got.actions:
                    if a.kind == "score":
                        assert a.saved_rolls == twin.next_bank(bank, left)


@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}", "{cap: 0}"])
def test_advice_with_saved_rolls_is_the_twins(saved):
    check_advice(rules_from_text(TINY.format(saved=saved)), random.Random(saved), 6,
                 every_roll=True)


@settings(max_examples=25, deadline=None, derandomize=True, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_documents(QUICK, saved_rolls=True), st.integers(0, 2**31))
def test_advice_in_random_rule_sets_with_saved_rolls_is_the_twins(doc, seed):
    check_advice(rules_from_text(as_yaml(doc), "random.yaml"), random.Random(seed), 3)


def test_saved_rolls_in_a_position_are_checked():
    t = Model(rules_from_text(TINY.format(saved="{cap: 2}")), use_cache=False).tables
    assert parse_filled({"ones": 1}, t, saved_rolls=1).saved_rolls == 1
    assert parse_filled({"ones": 1}, t).saved_rolls == 0  # the game's start: none
    with pytest.raises(InputError, match="at most 1"):  # one turn of 2 rolls saves one
        parse_filled({"ones": 1}, t, saved_rolls=2)
    with pytest.raises(InputError, match="at most 0"):
        parse_filled(None, t, saved_rolls=1)
    with pytest.raises(InputError, match="not a whole number"):
        parse_filled(None, t, saved_rolls=-1)
    start = Model(rules_from_text(TINY.format(saved="{carry_unused: false, start: 2}")),
                  use_cache=False).tables
    assert parse_filled(None, start).saved_rolls == 2
    plain = Model(rules_from_text(TINY.replace("saved_rolls: {saved}\n", "").format()),
                  use_cache=False).tables
    with pytest.raises(InputError, match="saves no rolls"):
        parse_filled(None, plain, saved_rolls=1)
    assert parse_filled(None, plain, saved_rolls=0).saved_rolls == 0


def test_a_move_leaves_the_bank_the_rules_say():
    t = Model(rules_from_text(TINY.format(saved="{cap: 2}")), use_cache=False).tables
    pos = parse_filled(None, t)
    roll = t.roll_index((3, 3))
    after, _ = pos.after(t, roll, "pair", first=True, left=1)
    assert after.saved_rolls == 1
    again, _ = after.after(t, roll, "threes", left=2)
    assert again.saved_rolls == 2


def test_advise_with_saved_rolls_from_the_command_line(tmp_path):
    """`yz advise --saved-rolls`, from another folder: on a terminal, with --json, from a
    scorecard, and refused (exit 2, one paragraph) where the bank does not fit."""
    from test_terminal import run_in_pty

    game = tmp_path / "banked.yaml"
    game.write_text(TINY.format(saved="{}"))
    args = ["advise", "-v", str(game), "--filled", "ones=1", "--saved-rolls", "1", "-d", "3,3"]
    run = run_in_pty(args, 100)
    assert run.code == 0, run
    assert "1 saved roll at the turn's start" in run.text
    assert "dice 3 3, 2 re-rolls left" in run.text
    assert "best: score 10 in pair (first roll: +4), 2 saved rolls left" in run.text, run
    model = Model(rules_from_text(TINY.format(saved="{}")), use_cache=False)
    pos = model.position({"ones": 1}, saved_rolls=1)
    card = tmp_path / "card.yaml"
    card.write_text("variant: banked.yaml\nfilled: {ones: 1}\nsaved_rolls: 1\ndice: [1, 3]\n"
                    "rolls_left: 1\n")
    for cmd in (["advise", "-v", str(game), "--filled", "ones=1", "--saved-rolls", "1", "-d",
                 "1,3", "-r", "1", "--json"], ["advise", "--card", str(card), "--json"]):
        out = subprocess.run([sys.executable, "-m", "yz.cli.main", *cmd], capture_output=True,
                             text=True, cwd=tmp_path.parent, timeout=HANG_GUARD)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        want = model.advise(pos, (1, 3), 1)
        assert data["saved_rolls"] == 1 and data["rolls_left"] == 1
        assert data["best"]["value"] == want.best.value
        stops = [a for a in data["alternatives"] + [data["best"]] if a["kind"] == "score"]
        assert stops and all(a["saved_rolls_after"] == 1 for a in stops)
    for bad, needle in ((["--saved-rolls", "5"], "at most 1"),
                        (["--saved-rolls", "1", "-d", "1,3", "-r", "3"], "0 to 2")):
        out = subprocess.run([sys.executable, "-m", "yz.cli.main", "advise", "-v", str(game),
                              "--filled", "ones=1", *bad], capture_output=True, text=True,
                             timeout=HANG_GUARD)
        assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr
        assert out.stderr.count("\n") == 1, out.stderr
    # A card's saved rolls are named by the card, an option's by the option.
    card.write_text("variant: banked.yaml\nsaved_rolls: 7\n")
    for extra, named in (([], f"{card}: saved rolls: 7"), (["--saved-rolls", "8"],
                                                          "--saved-rolls: 8")):
        out = subprocess.run([sys.executable, "-m", "yz.cli.main", "advise", "--card", str(card),
                              "--filled", "ones=1", *extra], capture_output=True, text=True,
                             timeout=HANG_GUARD)
        assert out.returncode == 2 and named in out.stderr, out.stderr
    out = subprocess.run([sys.executable, "-m", "yz.cli.main", "score", "--card", str(card), "1",
                          "3"], capture_output=True, text=True, timeout=HANG_GUARD)
    assert out.returncode == 2 and f"{card}: saved rolls: 7" in out.stderr, out.stderr


CHOICES_GAME = """\
name: banked
dice: {dice}
faces: 3
rolls: {rolls}
saved_rolls: {saved}
upper_bonus: {{threshold: 4, amount: 5}}
categories:
  - {{key: ones, section: upper, pattern: {{kind: face, face: 1}}, score: face_total}}
  - {{key: threes, section: upper, pattern: {{kind: face, face: 3}}, score: face_total}}
  - {{key: pair, pattern: {{kind: of_a_kind, count: 2}}, score: sum_all, first_roll_bonus: 4}}
  - {{key: chance, pattern: any, score: sum_all}}
"""


@pytest.mark.parametrize("dice, rolls", [(2, 2), (3, 2), (2, 1)])
@pytest.mark.parametrize("saved", ["{}", "{cap: 1}", "{start: 2}",
                                   "{carry_unused: false, start: 1}", "{cap: 0}"])
def test_the_advisors_best_move_is_the_kernels_choice(dice, rolls, saved):
    """The advisor (NumPy) and the decision kernel (what simulations play) make the same move,
    ties included, in every state, roll and count of re-rolls left."""
    from yz.rules.position import Position
    from yz.solver.kernels.bundle import States
    from yz.solver.simulate import strategy_choices

    rules = rules_from_text(CHOICES_GAME.format(dice=dice, rolls=rolls, saved=saved))
    solution = Model(rules, use_cache=False).solve()
    t = solution.tables
    states = sorted((int(b), int(m), int(f), u)
                    for k in range(t.n_categories) for m, f, b, u0, nu, _ in
                    zip(*solution.layout.rows(k), strict=True) for u in range(u0, u0 + nu))
    choice = strategy_choices(solution, "optimal", States(
        *[np.array([s[i] for s in states], dtype=np.int64) for i in (1, 2, 3, 0)]))
    for i, (bank, mask, flag, u) in enumerate(states):
        filled = {rules.categories[c].key: None for c in range(t.n_categories) if mask >> c & 1}
        pos = Position(filled, mask, u, bool(flag), bank)
        for r in range(t.n_distinct_rolls):
            dice_ = tuple(int(d) for d in t.ROLL_DICE[r])
            for left in range(t.rolls + bank):
                best = advise(solution, pos, dice_, left).best
                c = int(choice[i, left, r])
                want = ("score", c) if left == 0 else ("score", c - t.n_keeps) \
                    if c >= t.n_keeps else ("keep", c)
                got = ("score", best.box.box) if best.kind == "score" else \
                    ("keep", t.keep_index(best.keep))
                assert got == want, (bank, mask, u, dice_, left)


def test_compare_takes_a_game_with_saved_rolls(tmp_path):
    game = tmp_path / "banked.yaml"
    game.write_text(TINY.format(saved="{}"))
    plain = tmp_path / "plain.yaml"
    plain.write_text(TINY.replace("saved_rolls: {saved}\n", "").format().replace(
        "name: banked", "name: plain"))
    out = subprocess.run([sys.executable, "-m", "yz.cli.main", "compare", str(plain), str(game),
                          "--json"], capture_output=True, text=True, timeout=HANG_GUARD)
    assert out.returncode == 0, out.stderr
    rows = {r["variant"]: r for r in json.loads(out.stdout)}
    exact = Model(rules_from_text(TINY.format(saved="{}")), use_cache=False).solve(with_sd=True)
    assert rows["banked"]["sd"] == pytest.approx(exact.sd, rel=1e-12)
    assert rows["banked"]["median"] is not None  # (its distribution fits: a small game)
    text = subprocess.run([sys.executable, "-m", "yz.cli.main", "compare", str(plain),
                           str(game)], capture_output=True, text=True, timeout=HANG_GUARD)
    assert text.returncode == 0 and f"{exact.sd:.2f}" in text.stdout, text.stderr


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(rule_documents(QUICK, saved_rolls=True), st.integers(1, 5), st.booleans())
def test_the_forward_pass_shares_choices_between_banks_only_where_they_are_the_same(
        doc, block, force_sharing):
    """A store's forward pass (`forward.streamed_figures`) makes the choices of a (mask, flag,
    total) once for all its banks where saved rolls are carried and no first roll has a bonus
    of its own (`forward._shared_choices`): its figures are those of each bank making its own,
    on random games with saved rolls (capped, with a start bank, or not carried: then not
    shared), in blocks of a few states; `force_sharing` makes the game one that shares."""
    from yz.solver import forward

    if force_sharing:
        doc = {**doc, "saved_rolls": {**doc["saved_rolls"], "carry_unused": True},
               "categories": [{k: v for k, v in box.items() if k != "first_roll_bonus"}
                              for box in doc["categories"]]}
    model = Model(rules_from_text(as_yaml(doc)), use_cache=False, threads=2)
    values = np.array(model.solve().values)
    model.problem.__dict__["outcome_block"] = block  # (cached properties: small blocks)
    model.problem.__dict__["merged_block"] = block
    said = []
    shared = forward.streamed_figures(model.problem, lambda k: values,
                                      lambda done, total: said.append(done), share=True)
    own = forward.streamed_figures(model.problem, lambda k: values, lambda *_: None,
                                   share=False)
    assert said == sorted(said) and said[-1] == model.layout.LAYER_PTR[-2]  # (never back)
    for a, b in ((shared.box_mean, own.box_mean), (shared.box_zero_rate, own.box_zero_rate),
                 (shared.events, own.events)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
