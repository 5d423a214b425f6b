"""Two players both playing to win (`solver.minimax`): the exact two-player solve against the
independent twin (`naive.NaiveDuel`) on tiny games, with and without an upper bonus, and on
rule sets drawn at random from the rule language; against the one-player best response of
`solver.versus` where one player has no choice left; the joint layout; the refusal of a joint
state too big; the command."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from naive import NaiveDuel
from random_rules import Size, as_yaml, rule_documents
from test_versus import GAME as WITH_BONUS  # (2 dice, an upper bonus, a first-roll bonus)
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import InputError, RulesError, load_rules, rules_from_text
from yz.solver import Model, Reporter
from yz.solver.distribution import Distribution
from yz.solver.joint import all_bounds, build_layer, joint_order, layer_size, peak_entries
from yz.solver.minimax import BOTH, BR_FIRST, BR_SECOND, FIRST, SECOND
from yz.solver.versus import Opponent, blind_best_response

ONE_DIE = """
name: one-die-duel
dice: 1
faces: 4
rolls: 2
categories:
  - {key: low, pattern: {kind: total, max: 2}, score: sum_all}
  - {key: high, pattern: {kind: total, min: 3}, score: sum_all}
  - {key: any, pattern: any, score: sum_all}
"""


FOUR_BOXES = """
name: four-box-duel
dice: 2
faces: 3
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: twos, pattern: {kind: face, face: 2}, score: face_total}
  - {key: pair, pattern: {kind: of_a_kind, count: 2}, score: 6}
  - {key: sum, pattern: any, score: sum_all}
upper_bonus: {threshold: 3, amount: 4}
"""

TINY = Size(max_dice=2, max_boxes=3, max_rolls_kinds=6, max_threshold=6)
TOL = 1e-9


def local(model: Model, state) -> int:
    """yz's place of a twin's state (filled keys, upper total, flag) in its layer."""
    filled, upper, flag = state
    keys = model.rules.keys
    mask = sum(1 << keys.index(k) for k in filled)
    layout = model.layout
    return layout.index(mask, int(flag), upper) - int(layout.LAYER_PTR[len(filled)])


def yz_at(duel, model, track: str, mover, other, d: int) -> tuple[float, float]:
    """yz's (score, chance of a draw) of a joint state, from the layers the solve kept; the
    state must be stored, or decided (the twin's states are all reachable)."""
    layer, tables = duel.layers[(len(mover[0]), len(other[0]))]
    score, draw = tables[track]
    i, j = local(model, mover), local(model, other)
    p = i * layer.n_o + j
    decided = d > layer.other.most[j] or d < -layer.mover.most[i]
    assert decided or layer.LO[p] <= d < layer.LO[p] + layer.WIDTH[p], (mover, other, d)
    return (layer.read(score.array, i, j, d),
            None if draw is None else layer.read(draw.array, i, j, d, (0.0, 0.0)))


TRACKS = {"first": FIRST, "second": SECOND, "br-first": BR_FIRST, "br-second": BR_SECOND}


def check_against_twin(rules, every_state: bool = True, seats: bool = True) -> int:
    """Compare yz with the twin; how many joint states the twin met (and yz matched)."""
    model = Model(rules, use_cache=False)
    duel = model.minimax(chances=True, against_optimal=seats, keep=True, best_response=seats)
    twin = NaiveDuel(rules)
    start = (frozenset(), 0, False)
    value, d_lo, d_hi = twin.minimax(start, start, 0)
    assert duel.value == pytest.approx(value, abs=TOL)
    c = duel.minimax
    assert c.win + c.draw + c.loss == pytest.approx(1.0, abs=1e-12)
    assert d_lo - TOL <= c.draw <= d_hi + TOL, (c.draw, d_lo, d_hi)
    if seats:
        (s_lo, s_hi), (dr_lo, dr_hi) = twin.versus("first", start, start, 0)
        got = duel.minimax_first
        assert s_lo - TOL <= got.score <= s_hi + TOL, (got.score, s_lo, s_hi)
        assert dr_lo - TOL <= got.draw <= dr_hi + TOL
        (s_lo, s_hi), (dr_lo, dr_hi) = twin.versus("second", start, start, 0)
        got = duel.minimax_second  # (B's chances: A's score is 1 - B's)
        assert 1 - s_hi - TOL <= got.score <= 1 - s_lo + TOL, (got.score, s_lo, s_hi)
        assert dr_lo - TOL <= got.draw <= dr_hi + TOL
        for seat, got in (("br-first", duel.best_response_first),
                          ("br-second", duel.best_response_second)):
            (s_lo, s_hi), (dr_lo, dr_hi) = twin.versus(seat, start, start, 0)
            if seat == "br-second":
                s_lo, s_hi = 1 - s_hi, 1 - s_lo
            assert s_lo - TOL <= got.score <= s_hi + TOL, (seat, got.score, s_lo, s_hi)
            assert dr_lo - TOL <= got.draw <= dr_hi + TOL, (seat, got.draw, dr_lo, dr_hi)
        # Minimax play guarantees the game's value in its seat whatever the other does, and
        # the best response to expected-score play gets at least what minimax gets against it.
        assert duel.minimax_first.score >= duel.value - 1e-12
        assert duel.minimax_second.score >= 1 - duel.value - 1e-12
        assert duel.best_response_first.score >= duel.minimax_first.score - 1e-12
        assert duel.best_response_second.score >= duel.minimax_second.score - 1e-12
        # Seeing the card, it does at least as well as the blind best response (which sees
        # nothing of it: `solver.versus`, another code path), in either seat.
        blind = blind_best_response(model.solve(), Opponent.of(
            model.final_score_from(None, "optimal")))[0].score
        assert duel.best_response_first.score >= blind - 1e-9
        assert duel.best_response_second.score >= blind - 1e-9
    if not every_state:
        return 0
    for key, found in list(twin.memo.items()):
        if key[0] != "m":
            continue
        (_m, mover, other, d), (v, lo, hi) = key, found
        got_v, got_d = yz_at(duel, model, BOTH, mover, other, d)
        assert got_v == pytest.approx(v, abs=TOL), (mover, other, d)
        assert lo - TOL <= got_d <= hi + TOL, (mover, other, d, got_d, lo, hi)
    for key, found in list(twin.memo.items()):
        if key[0] != "v" or not seats:
            continue
        (_v, seat, mover, other, d), ((s_lo, s_hi), (dr_lo, dr_hi)) = key, found
        got_s, got_d = yz_at(duel, model, TRACKS[seat], mover, other, d)
        assert s_lo - TOL <= got_s <= s_hi + TOL, (seat, mover, other, d)
        assert dr_lo - TOL <= got_d <= dr_hi + TOL, (seat, mover, other, d)
    return len(twin.memo)


@pytest.mark.parametrize("game", [ONE_DIE, WITH_BONUS])
def test_every_joint_state_is_the_twins(game):
    """Every joint state the twin's recursion meets from the start, in all three tracks:
    minimax against minimax, and minimax against expected-score play in either seat."""
    assert check_against_twin(rules_from_text(game)) > 500


def test_four_boxes_with_an_upper_bonus():
    """Four boxes: the start, minimax against minimax (every state and both seats: -m slow)."""
    check_against_twin(rules_from_text(FOUR_BOXES), every_state=False, seats=False)


@pytest.mark.slow
def test_four_boxes_every_joint_state():
    assert check_against_twin(rules_from_text(FOUR_BOXES)) > 20_000


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=rule_documents(TINY))
def test_random_tiny_rule_sets_against_the_twin(doc):
    """Most tiny rule sets have a few hundred joint entries and take 0.1 s; one large draw
    once took 54 s of the twin's recursion. Bigger games are the fixed ones
    above (four boxes: 10,323 entries; every state under -m slow)."""
    try:
        rules = rules_from_text(as_yaml(doc))
    except RulesError:
        return
    budget = Model(rules, use_cache=False).budget
    assume(sum(s.entries for s in budget.minimax_estimate(True, refuse=False)[2]) <= 3000)
    check_against_twin(rules)


def point(score: int) -> Distribution:
    return Distribution("finished", "given", np.array([score]), np.ones(1))


@pytest.mark.parametrize("game", [ONE_DIE, WITH_BONUS, FOUR_BOXES,
                                  WITH_BONUS + "saved_rolls: {cap: 1}\n",
                                  WITH_BONUS + "saved_rolls: {carry_unused: false, start: 1}\n"])
def test_with_no_choice_left_it_is_versus_best_response(game):
    """When the first player's card is full (A has no choice left), the second player's last
    turn is the one-player best response against A's exact final score (a single score):
    `versus` from B's position (`advise` with an opponent), with every bank of saved rolls B
    can hold (the twin plays no saved rolls: this is their check)."""
    model = Model(rules_from_text(game), use_cache=False)
    duel = model.minimax(chances=False, keep=True)
    n = model.tables.n_categories
    layer, tables = duel.layers[(n - 1, n)]
    score = tables[BOTH][0]
    keys = model.rules.keys
    finished = all_bounds(model.tables, model.layout)[n]  # A's full cards: what each banked
    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(4):
        open_box = int(rng.integers(n))
        filled = {k: int(rng.choice(model.tables.BOX_SCORES[c]))
                  for c, k in enumerate(keys) if c != open_box}
        for bank in range(model.layout.banks[n - 1]):
            position = model.position(filled, saved_rolls=bank)
            banked = position.banked(model.tables)
            i = model.layout.index(position.mask, int(position.yahtzee_full),
                                   position.upper_total, bank) - \
                int(model.layout.LAYER_PTR[n - 1])
            for a_final in (banked - 3, banked, banked + 2, banked + 9):
                # A full card that can hold a_final (the joint state stores what is reachable).
                full = np.flatnonzero((finished.low <= a_final) & (a_final <= finished.high))
                if a_final < 0 or len(full) == 0:
                    continue
                want = model.advise(position, opponent=point(a_final)).position_value
                got = layer.read(score.array, i, int(full[0]), banked - a_final)
                assert got == pytest.approx(want, abs=TOL), (filled, bank, a_final)
                compared += 1
    assert compared >= 8


def test_a_one_box_game_is_blind_best_response_for_the_second_player():
    rules = rules_from_text("name: one-box\ndice: 2\nfaces: 4\nrolls: 3\ncategories:\n"
                            "  - {key: pair, pattern: {kind: of_a_kind, count: 2}, "
                            "score: sum_matched}\n")
    model = Model(rules, use_cache=False)
    duel = model.minimax(chances=False, keep=True)
    layer, tables = duel.layers[(0, 1)]
    solution = model.solve()
    for a_score in range(0, 10):
        got = layer.read(tables[BOTH][0].array, 0, 0, -a_score)
        want = blind_best_response(solution, Opponent.of(point(a_score)), tail=0.0)[1]
        assert got == pytest.approx(want, abs=TOL), a_score


# ---------------------------------------------------------------- the joint layout


def test_joint_layers_and_their_sizes():
    model = Model("crag", use_cache=False)
    t, layout = model.tables, model.layout
    assert joint_order(2) == [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]
    bounds = all_bounds(t, layout)
    pairs = sum(len(bounds[km]) * len(bounds[ko]) for km, ko in joint_order(13))
    assert pairs == 20_058_300  # (the count: k/k boxes and k + 1/k)
    size = layer_size(bounds, 2, 3)  # grouped: every pair's width, without building it
    built = build_layer(bounds, 2, 3)
    assert size.entries == built.size and size.pairs == built.pairs
    assert size.mover_blocks.sum() == size.other_columns.sum() == built.size
    after = layer_size(bounds, 3, 3)
    assert max(size.entries, after.entries) <= peak_entries(size, after, True) <= \
        peak_entries(size, after, False) == size.entries + after.entries


def test_crags_estimate_is_said_and_fits_here():
    """Crag's two-player solve: its memory estimate (no solve), under 16 GB with its chances."""
    model = Model("crag", use_cache=False)
    need, seconds, sizes = model.budget.minimax_estimate(True)
    assert sum(s.entries for s in sizes) == 3_996_560_388
    assert need < 16e9 and seconds > 0


def test_a_joint_state_too_big_is_refused_at_once(monkeypatch):
    """Official Yahtzee is refused before anything is solved or compiled, with its size; a
    tiny game is refused too under a tiny memory budget, with its estimate."""
    from yz.solver import minimax as minimax_module

    def never(*_args, **_kwargs):
        raise AssertionError("nothing may be solved before the refusal")

    monkeypatch.setattr(minimax_module, "solve_minimax", never)
    monkeypatch.setattr(Model, "solve", never)
    monkeypatch.setattr(Model, "ensure_compiled", never)
    with pytest.raises(InputError, match=r"official-free-joker needs at least [\d,.]+ GiB"):
        Model("official-free-joker", use_cache=False).duel_exact()
    with pytest.raises(InputError, match=r"needs about [\d.]+ GiB .* more than the 0.0 GiB"):
        Model(rules_from_text(ONE_DIE), use_cache=False, max_memory=1000).minimax()


# ---------------------------------------------------------------- the command


def test_duel_exact_on_the_command_line(tmp_path):
    game = tmp_path / "one-die.yaml"
    game.write_text(ONE_DIE)
    runner = CliRunner()
    result = runner.invoke(app, ["duel", str(game), str(game), "--exact", "--json"])
    assert result.exit_code == 0, result.output
    told = json.loads(result.stdout)
    assert told["strategy"] == "minimax" and told["variant"] == "one-die-duel"
    for key in ("minimax", "minimax_first", "minimax_second"):
        c = told[key]
        assert c["win"] + c["draw"] + c["loss"] == pytest.approx(1.0, abs=1e-12)
    want = Model(rules_from_text(ONE_DIE), use_cache=False).duel_exact()
    assert told["minimax"]["win"] == want.minimax.win
    text = runner.invoke(app, ["duel", str(game), "--exact"])
    assert text.exit_code == 0 and "minimax seated second" in text.stdout
    other = runner.invoke(app, ["duel", str(game), "no-bonus", "--exact"])
    assert other.exit_code == 2 and "same rule set" in other.stderr
    assert told["best_response_first"] is None
    mixed = runner.invoke(app, ["duel", str(game), str(game), "--exact", "--field", "2"])
    assert mixed.exit_code == 2 and "--exact" in mixed.stderr
    seeing = runner.invoke(app, ["duel", str(game), "--exact", "--best-response", "--json"])
    assert seeing.exit_code == 0, seeing.output
    told = json.loads(seeing.stdout)
    want = Model(rules_from_text(ONE_DIE), use_cache=False).duel_exact(best_response=True)
    assert told["best_response_first"]["win"] == want.best_response_first.win
    assert told["best_response_second"]["score"] >= told["minimax_second"]["score"] - 1e-12
    shown = runner.invoke(app, ["duel", str(game), "--exact", "--best-response"])
    assert shown.exit_code == 0 and "best response seated second (B) to optimal" in shown.stdout
    both = runner.invoke(app, ["duel", str(game), "--exact", "--best-response",
                               "--minimax-only"])
    assert both.exit_code == 2 and "--minimax-only" in both.stderr
    alone = runner.invoke(app, ["duel", str(game), "--exact", "--minimax-only", "--json"])
    assert alone.exit_code == 0, alone.output
    told = json.loads(alone.stdout)
    assert told["minimax"]["win"] == want.minimax.win and told["minimax_first"] is None
    lost = runner.invoke(app, ["duel", str(game), str(game), "--minimax-only"])
    assert lost.exit_code == 2 and "go with --exact" in lost.stderr


# ---------------------------------------------------------------- minimax play


def play_best_turn(me, advise):
    """Play `me`'s turn (a coach `Game`) by the best move `advise(dice, rolls_left)` ranks
    first each time (keeping every die: scoring now); the box move made."""
    while True:
        best = advise(me.dice, me.rolls_left).best
        if best.kind == "keep" and best.reroll:
            me.keep(list(best.keep))
            continue
        if best.kind == "keep":
            best = advise(me.dice, 0).best
        me.score(best.box.key)
        return best


@pytest.mark.parametrize("game", [ONE_DIE, WITH_BONUS])
def test_minimax_play_reads_the_joint_values(game):
    """Both players play minimax's best move in seeded games: at every turn start the best
    move's chance, averaged over the first roll, is the stored V of the joint state, and the
    move played is worth 1 - V of the joint state the cards then show. Out-of-turn
    positions are refused."""
    from yz.solver.coach import Game
    from yz.solver.minimax import MinimaxPlay

    model = Model(rules_from_text(game), use_cache=False)
    solution = model.solve()
    play = MinimaxPlay(solution, model.minimax(chances=True, keep=True))
    t = solution.tables
    checked = 0
    for seed in range(6):
        games = [Game(solution, seed * 2 + s) for s in (0, 1)]
        mover = 0
        while not games[1].over:
            me, other = games[mover], games[1 - mover]
            lead = me.banked - other.banked
            want = play.value(me.position, other.position, lead)
            rolls = np.flatnonzero(t.ROLL_PROB)
            got = sum(t.ROLL_PROB[r] * play.advise(
                me.position, other.position, lead, tuple(int(x) for x in t.ROLL_DICE[r]),
                t.rolls - 1).best.value for r in rolls)
            assert got == pytest.approx(want, abs=1e-9), (seed, me.position, lead)
            checked += 1
            best = play_best_turn(me, lambda dice, left, me=me, other=other, lead=lead:
                                  play.advise(me.position, other.position, lead, dice, left))
            # The move's chance is 1 - V where it led, read at the other's turn start with
            # the points the card now holds (bonuses included).
            after = play.value(other.position, me.position, other.banked - me.banked)
            assert best.value == pytest.approx(1 - after, abs=1e-9)
            mover = 1 - mover
    assert checked >= 6 * len(rules_from_text(game).keys) * 2
    from yz.rules import SolverError

    start = Game(solution, 1).position
    with pytest.raises(SolverError, match="one fewer"):
        play.value(games[0].position, start, 0)


@pytest.mark.parametrize("game", [ONE_DIE, WITH_BONUS, "example:quick-duel"])
def test_minimax_advice_is_the_twins_value_at_every_turn_of_seeded_games(game):
    """`Model.advise_minimax` (what `yz advise --opponent-strategy minimax` prints) at every
    turn start of seeded games, each player seated first or second: the position's chance
    is the twin's minimax value of the two cards and the lead, and every move of a roll is
    ranked as the kept two-player solve with its chances ranks it (this method solves
    without them)."""
    from yz.solver.coach import Game
    from yz.solver.minimax import MinimaxPlay

    rules = load_rules(game) if game.startswith("example:") else rules_from_text(game)
    model = Model(rules, use_cache=False)
    solution = model.solve()
    t = solution.tables
    twin = NaiveDuel(rules)
    with_chances = MinimaxPlay(solution, model.minimax(chances=True, keep=True))

    def state(pos):
        upper = min(pos.upper_total, t.upper_threshold) if t.upper_threshold else 0
        return frozenset(pos.filled), upper, bool(pos.yahtzee_full)

    checked = 0
    for seed in range(4):
        games = [Game(solution, seed * 2 + s) for s in (0, 1)]
        mover = 0
        while not games[1].over:
            me, other = games[mover], games[1 - mover]
            lead = me.banked - other.banked
            told = model.advise_minimax(me.position, other.position)
            want = twin.minimax(state(me.position), state(other.position), lead)[0]
            assert told.position_value == pytest.approx(want, abs=TOL), (seed, lead)
            assert told.banked == me.banked and told.objective == "win"
            ranked = model.advise_minimax(me.position, other.position, me.dice, me.rolls_left)
            kept = with_chances.advise(me.position, other.position, lead, me.dice,
                                       me.rolls_left)
            assert [a.label() for a in ranked.actions] == [a.label() for a in kept.actions]
            assert [a.value for a in ranked.actions] == pytest.approx(
                [a.value for a in kept.actions], abs=1e-12)
            checked += 1
            play_best_turn(me, lambda dice, left, me=me, other=other:
                           model.advise_minimax(me.position, other.position, dice, left))
            mover = 1 - mover
    assert checked == 4 * 2 * len(rules.keys)
    start = games[0].position
    with pytest.raises(InputError, match="not your turn"):
        model.advise_minimax(Game(solution, 1).position, start)
    with pytest.raises(InputError, match="game is over"):
        model.advise_minimax(games[0].position, games[1].position)
    with pytest.raises(InputError, match="score of every filled box"):
        first = rules.keys[-1]  # (not an upper box, whose score the position needs)
        model.advise_minimax(model.position({first: None}), model.position(None))


def test_minimax_play_from_a_store_of_joint_layers(tmp_path, monkeypatch):
    """`Model.minimax_store` writes every joint layer to a folder; advice read from it (entry
    by entry, each block checked) is the advice of the solve kept in memory, move by move,
    at every turn start of seeded games. A finished store is read, not solved again; a store
    of another game, an unfinished one and a damaged block are refused with the reason; a
    file yz did not write stays."""
    import os

    from yz.solver.coach import Game
    from yz.solver.joint_store import MANIFEST, JointStore

    rules = rules_from_text(WITH_BONUS)
    model = Model(rules, use_cache=False)
    solution = model.solve()
    folder = tmp_path / "duel"
    folder.mkdir()
    (folder / "mine.txt").write_text("not yz's")
    store = model.minimax_store(folder)
    assert store.layers and (folder / MANIFEST).exists() and (folder / "mine.txt").exists()
    checked = 0
    for seed in range(3):
        games = [Game(solution, seed * 2 + s) for s in (0, 1)]
        mover = 0
        while not games[1].over:
            me, other = games[mover], games[1 - mover]
            args = (me.position, other.position, me.dice, me.rolls_left)
            kept, stored = model.advise_minimax(*args), model.advise_minimax(*args, store=folder)
            assert [(a.label(), a.value) for a in stored.actions] == \
                [(a.label(), a.value) for a in kept.actions]
            assert stored.position_value == kept.position_value
            checked += 1
            play_best_turn(me, lambda dice, left, me=me, other=other: model.advise_minimax(
                me.position, other.position, dice, left, store=folder))
            mover = 1 - mover
    assert checked == 3 * 2 * len(rules.keys)

    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    Model(rules, use_cache=False).minimax_store(folder)  # finished: read, not written again
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before

    with pytest.raises(InputError, match="another two-player solve"):
        Model(rules_from_text(ONE_DIE), use_cache=False).minimax_store(folder)
    # A layer too big for its sidecar to list a checksum per block gets bigger blocks (the
    # whole Crag's largest is 4.8 GiB): here 4 KiB of values, blocks of 64 bytes, at most 8.
    from yz.solver import joint_store

    monkeypatch.setattr(joint_store, "STORE_BLOCK", 64)
    monkeypatch.setattr(joint_store, "MOST_BLOCKS", 8)
    wide = JointStore.writing(tmp_path / "wide", model.tables.digest)
    wide.save(0, 0, np.arange(512, dtype=np.float64))
    wide.finish(0.5)
    entries = JointStore.reading(tmp_path / "wide", model.tables.digest).table(0, 0)
    assert entries.data.block_bytes == 512 and len(entries.data.sums) == 8
    assert [entries[k] for k in (0, 100, 511)] == [0.0, 100.0, 511.0]
    unfinished = JointStore.writing(tmp_path / "half", model.tables.digest)
    unfinished.save(2, 2, np.zeros(3))
    with pytest.raises(InputError, match="did not finish"):
        JointStore.reading(tmp_path / "half", model.tables.digest)
    # A flipped byte in the largest layer is found when a position reads its block.
    km, ko = max(store.layers, key=lambda layer: os.path.getsize(
        folder / f"joint-{layer[0]}-{layer[1]}.npy"))
    path = folder / f"joint-{km}-{ko}.npy"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    damaged = JointStore.reading(folder, model.tables.digest).table(km, ko)
    with pytest.raises(InputError, match="fails its checksum"):
        damaged[damaged.size - 1]
    assert (folder / "mine.txt").read_text() == "not yz's"


def test_a_released_part_of_a_joint_table_is_handed_back():
    """`joint.Table.release` gives the pages back to the system: what was released reads as
    0 afterwards (a shared mapping would keep it, and keep the memory: the system frees a
    shared mapping's pages only when the mapping goes), what was not keeps its values."""
    import mmap

    from yz.solver.joint import Table

    if not Table.releases:
        pytest.skip("this system cannot hand pages back")
    per_page = mmap.PAGESIZE // 8
    table = Table(8 * per_page)
    table.array[:] = 1.0
    table.release(2 * per_page, 6 * per_page)
    assert (table.array[2 * per_page:6 * per_page] == 0.0).all()
    assert (table.array[:2 * per_page] == 1.0).all() and (table.array[6 * per_page:] == 1.0).all()


@pytest.mark.parametrize("game", [WITH_BONUS, FOUR_BOXES])
def test_a_solve_that_hands_blocks_back_is_the_solve_that_keeps_them(game):
    """The two-player solve hands each block of the layer after back once it has read it for
    the last time (not when every layer is kept, as the twin's comparisons keep them): it
    must never read one again, so its figures are the kept solve's, in every seat."""
    rules = rules_from_text(game)
    handed_back = Model(rules, use_cache=False).minimax(chances=True, against_optimal=True,
                                                        best_response=True)
    kept = Model(rules, use_cache=False).minimax(chances=True, against_optimal=True,
                                                 best_response=True, keep=True)
    for seat in ("minimax", "minimax_first", "minimax_second", "best_response_first",
                 "best_response_second"):
        assert getattr(handed_back, seat) == getattr(kept, seat), seat
    assert handed_back.value == kept.value


def test_seats_split_into_passes_when_memory_is_short():
    """Minimax against expected-score play and the best response (four seats): all at once,
    two seats a pass, or one, as memory allows; the figures are the same."""
    from yz.solver.report import Reporter

    class Notes(Reporter):
        def __init__(self):
            self.said = []

        def note(self, message: str) -> None:
            self.said.append(message)

    rules = rules_from_text(WITH_BONUS)
    budget = Model(rules, use_cache=False).budget
    def need(chances: bool, seats: int) -> int:
        return budget.minimax_estimate(chances, seats=seats, refuse=False)[0]

    # (Passes after the first carry minimax's values only, not its chances.)
    assert max(need(True, 0), need(False, 1)) < need(False, 2) < need(True, 4)
    runs = {}
    for limit, passes in ((need(True, 4), ""), (need(True, 4) - 1, "in 3 passes"),
                          (need(False, 2) - 1, "in 5 passes")):
        notes = Notes()
        duel = Model(rules, use_cache=False, max_memory=limit, report=notes).duel_exact(
            best_response=True)
        assert passes in notes.said[0] and (passes or "passes" not in notes.said[0]), notes.said
        runs[passes] = duel
    one = runs[""]
    for duel in runs.values():
        for name in ("minimax", "minimax_first", "minimax_second", "best_response_first",
                     "best_response_second"):
            got, want = getattr(duel, name), getattr(one, name)
            assert got.score == pytest.approx(want.score, abs=1e-12), name
            assert got.draw == pytest.approx(want.draw, abs=1e-12), name
    with pytest.raises(InputError, match="one pass"):
        Model(rules, use_cache=False, max_memory=need(True, 4) - 1).minimax(
            against_optimal=True, best_response=True, keep=True)


class _Stop(Exception):
    """Stands for Ctrl-C or a crash in the middle of a solve."""


class _StopHalfway(Reporter):
    """Stops the two-player pass (`label`) half way through its joint states (with `stop`),
    and records where each of its stages began."""

    def __init__(self, label: str, stop: bool = True, at: str = "half"):
        self.label, self.stop, self.began, self.notes = label, stop, [], []
        self.at = at  # "half": half way; "start": at the first states solved

    def note(self, message):
        self.notes.append(message)

    @contextlib.contextmanager
    def stage(self, label, unit):
        def step(done, total):
            if self.label not in label:
                return
            if len(self.began) == calls:
                self.began.append(done)
            if self.stop and (total // 2 if self.at == "half" else 1) <= done < total:
                raise _Stop

        calls = len(self.began)
        yield step


def test_a_stopped_solve_goes_on_from_its_checkpoint_to_the_same_figures(tmp_path):
    """A two-player solve keeps its progress in a folder (every layer here); stopped in the
    middle of a pass, it goes on from the last layer saved and ends with the figures of a
    solve never stopped, bit for bit; run once more, it reads the finished passes. A damaged
    table or another game's progress is refused, and nothing else in the folder is
    touched."""
    from yz.solver.minimax import Checkpoint, solve_minimax, work_left

    rules = rules_from_text(FOUR_BOXES)
    fresh = _StopHalfway("playing to win", stop=False)
    whole = Model(rules, use_cache=False, report=fresh).duel_exact(best_response=True)
    folder = tmp_path / "progress"
    folder.mkdir()
    (folder / "mine.txt").write_text("not yz's")
    names = ("value", "minimax", "minimax_first", "minimax_second", "best_response_first",
             "best_response_second")
    stopped = Model(rules, use_cache=False, report=_StopHalfway("playing to win"))
    with pytest.raises(_Stop):
        stopped.minimax(True, True, best_response=True, checkpoint=folder,
                        checkpoint_seconds=0)
    (progress,) = [p for p in folder.iterdir() if p.is_dir()]
    saved = json.loads((progress / "checkpoint.json").read_text())
    assert "layer" in saved and "result" not in saved  # (a layer's tables, not the end)
    assert any(progress.glob("layer-*.npy"))
    # What is left is what the time check judges and the note says.
    left = work_left(stopped.problem, Checkpoint(progress, stopped.tables.digest,
                                                 saved["chances"], tuple(saved["seats"])))
    assert 0.0 < left < 1.0
    watch = _StopHalfway("playing to win", stop=False)
    again = Model(rules, use_cache=False, report=watch).minimax(
        True, True, best_response=True, checkpoint=folder, checkpoint_seconds=0)
    assert watch.began[0] > fresh.began[0] == 0  # (it went on from the layers saved)
    assert any(f"of it left (resumed from {folder})" in n for n in watch.notes), watch.notes
    assert not any("resumed" in n for n in fresh.notes), fresh.notes
    for name in names:
        assert getattr(again, name) == getattr(whole, name), name
    assert sorted(p.name for p in progress.iterdir()) == ["checkpoint.json"]
    # Finished: the pass's result is read, not solved again.
    third = Model(rules, use_cache=False, report=_StopHalfway("playing to win")).minimax(
        True, True, best_response=True, checkpoint=folder)
    for name in names:
        assert getattr(third, name) == getattr(whole, name), name
    assert (folder / "mine.txt").read_text() == "not yz's"

    # Another game's progress in the folder: refused, with the reason.
    model = Model(rules, use_cache=False)
    solution = model.solve()
    other = Model(rules_from_text(ONE_DIE), use_cache=False)
    with pytest.raises(InputError, match="another two-player solve"):
        other.minimax(True, True, best_response=True, checkpoint=folder)
    # A damaged table: refused, not read.
    damaged = tmp_path / "damaged"

    def stop(done, total):
        if total // 2 <= done < total:
            raise _Stop

    with pytest.raises(_Stop):
        solve_minimax(solution, True, (), stop, checkpoint=Checkpoint(
            damaged, model.tables.digest, True, (), every=0))
    table = next(damaged.glob("layer-*-score.npy"))
    raw = bytearray(table.read_bytes())
    raw[-3] ^= 0xFF
    table.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="damaged"):
        solve_minimax(solution, True, (), checkpoint=Checkpoint(damaged, model.tables.digest,
                                                                True, (), every=0))


def test_a_solve_stopped_while_saving_leaves_no_file_behind(tmp_path, monkeypatch):
    """Stopped between writing a layer's tables and naming them in the manifest, a solve
    goes on from the layer saved before, and the files of the interrupted save are removed
    by the next one; a folder that cannot be written stops the saving, not the solve."""
    from yz.solver import sealed
    from yz.solver.minimax import Checkpoint, solve_minimax

    model = Model(rules_from_text(FOUR_BOXES), use_cache=False)
    solution = model.solve()
    whole = solve_minimax(solution, True, ())
    folder = tmp_path / "progress"
    real_save, calls = sealed.save_table, []

    def save_then_stop(path, array, block):
        calls.append(path.name)
        out = real_save(path, array, block)
        if len(calls) == 4:  # (the second layer's draw table written, the manifest not yet)
            raise _Stop
        return out

    monkeypatch.setattr(sealed, "save_table", save_then_stop)
    with pytest.raises(_Stop):
        solve_minimax(solution, True, (), checkpoint=Checkpoint(folder, model.tables.digest,
                                                                True, (), every=0))
    monkeypatch.setattr(sealed, "save_table", real_save)
    assert len(list(folder.glob("layer-*.npy"))) == 4  # (two layers' tables on disk)
    again = solve_minimax(solution, True, (), checkpoint=Checkpoint(  # (no more saves)
        folder, model.tables.digest, True, (), every=1e9))
    assert again[BOTH] == whole[BOTH]
    assert sorted(p.name for p in folder.iterdir()) == ["checkpoint.json"]

    def full(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sealed, "save_table", full)
    point = Checkpoint(tmp_path / "full", model.tables.digest, True, (), every=0)
    assert solve_minimax(solution, True, (), checkpoint=point)[BOTH] == whole[BOTH]
    assert "No space left" in point.failed


def test_advise_against_a_card_played_minimax_on_the_command_line(tmp_path, monkeypatch):
    """`yz advise --opponent-strategy minimax`: the moves by the chance of winning when both
    play to win seeing each other's card, from a real process in another folder (JSON) and
    as text; out-of-turn cards, a game whose kept solve does not fit, a target, another rule
    set's card and minimax without a card are refused with exit code 2."""
    import subprocess
    import sys
    import time

    game = tmp_path / "one-die.yaml"
    game.write_text(ONE_DIE)
    args = ["advise", "-v", str(game), "--filled", "low=2", "-d", "3", "-r", "1",
            "--opponent-filled", "low=1", "--opponent-strategy", "minimax"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([sys.executable, "-m", "yz.cli.entry", *args, "--json"],
                         capture_output=True, text=True, cwd=elsewhere, timeout=120)
    assert run.returncode == 0, run.stderr
    told = json.loads(run.stdout)
    model = Model(rules_from_text(ONE_DIE), use_cache=False)
    want = model.advise_minimax(model.position("low=2"), model.position("low=1"), (3,), 1)
    assert told["objective"] == "win" and told["banked"] == 2 and told["target"] is None
    assert told["best"]["label"] == want.best.label() and told["best"]["p_win"] == want.best.value
    assert told["opponent"] == {"variant": "one-die-duel", "strategy": "minimax",
                                "filled": {"low": 1}, "upper_total": 0, "points": 1}
    assert told["mean_play"]["objective"] == "mean"
    runner = CliRunner()
    for _built_then_read in range(2):
        stored = runner.invoke(app, [*args, "--json", "--store", str(tmp_path / "joint")])
        assert stored.exit_code == 0, stored.output
        assert json.loads(stored.stdout)["best"] == told["best"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "you lead by 1" in text.stdout and "(minimax)" in text.stdout
    assert f"{100 * want.best.value:.3f}%" in text.stdout
    for extra, said in ((["--opponent-filled", "low=1,high=3,any=2"], "not your turn"),
                        (["--target", "5"], "leave out --target"),
                        (["--opponent-card", "-"], "one rule set")):
        refused = runner.invoke(app, [*args, *extra], input="variant: no-bonus\n")
        assert refused.exit_code == 2 and said in refused.stderr, (extra, refused.output)
    alone = runner.invoke(app, [*args[:9], "--opponent-strategy", "minimax"])
    assert alone.exit_code == 2 and "opponent's card" in alone.stderr
    from yz.solver import budget

    monkeypatch.setattr(budget, "machine_memory", lambda: 24 << 30)  # (as this machine's)
    start = time.perf_counter()
    crag = runner.invoke(app, ["advise", "-v", "crag", "--opponent-filled", "",
                               "--opponent-strategy", "minimax"])
    assert crag.exit_code == 2 and "GiB" in crag.stderr and "minimax play is for" in crag.stderr
    assert "--store FOLDER" in crag.stderr and "minimax_store" not in crag.stderr
    assert crag.stderr.count("\n") == 1  # (one paragraph)
    assert time.perf_counter() - start < 60  # (refused by its estimate: a hang guard only)


def test_the_command_keeps_its_progress_in_a_checkpoint_folder(tmp_path):
    folder = tmp_path / "progress"
    (tmp_path / "game.yaml").write_text(FOUR_BOXES)
    args = ["duel", str(tmp_path / "game.yaml"), "--exact", "--minimax-only", "--json",
            "--checkpoint", str(folder)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    manifest = folder / "chances-minimax" / "checkpoint.json"
    assert json.loads(manifest.read_text())["result"]
    written = manifest.stat().st_mtime_ns
    stale = folder / "chances-minimax" / ".tmp-yz-killed.npy"  # (a killed save's leftover)
    stale.write_bytes(b"x" * 100)
    os.utime(stale, (1e9, 1e9))
    (folder / "chances-minimax" / "notes.txt").write_text("mine")
    second = CliRunner().invoke(app, args)
    assert json.loads(second.stdout)["minimax"] == json.loads(first.stdout)["minimax"]
    assert manifest.stat().st_mtime_ns == written  # (read, not solved and saved again)
    assert not stale.exists() and (folder / "chances-minimax" / "notes.txt").exists()
    (tmp_path / "a-file").write_text("not a folder")
    refused = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "a-file")])
    assert refused.exit_code == 2 and "is not a folder yz can write to" in refused.stderr
    assert "Traceback" not in refused.output
    lost = CliRunner().invoke(app, ["duel", str(tmp_path / "game.yaml"), "--checkpoint",
                                    str(folder)])
    assert lost.exit_code == 2 and "go with --exact" in lost.stderr


# ---------------------------------------------------------------- Dask


DUEL_FIGURES = ("value", "minimax", "minimax_first", "minimax_second", "best_response_first",
                "best_response_second")


def _kept_by_worker() -> int:
    """What a Dask worker still holds of a two-player solve's (run on each worker)."""
    from yz.solver import joint_tasks, layered

    return len(joint_tasks._KEPT) + len(layered._PROBLEM) + len(layered._LAYER)


def test_a_two_player_solve_on_dask_is_the_one_process_solve_bit_for_bit(tmp_path, cluster):
    """On 2 local Dask workers (each joint layer cut into chunks of columns, the layer after
    read from the checkpoint folder), every figure of every pass is the one-process solve's,
    bit for bit, in one pass and split into several (seats beside minimax's values); the
    folder then holds the result only: no chunk, no table. Stopped half way, the solve goes
    on from the last layer saved, on Dask or in one process."""
    distributed = pytest.importorskip("distributed")
    for text, limit in ((FOUR_BOXES, None), (WITH_BONUS, "split")):
        rules = rules_from_text(text)
        max_memory = dask_memory = None
        if limit:  # (too little memory for minimax with its 4 seats at once: 5 passes)
            budget = Model(rules, use_cache=False).budget
            max_memory = budget.minimax_estimate(False, seats=2, refuse=False)[0] - 1
            dask_memory = budget.minimax_estimate(False, seats=2, refuse=False,
                                                  dask_workers=0)[0] - 1
        whole = Model(rules, use_cache=False, max_memory=max_memory).duel_exact(
            best_response=True)
        folder = tmp_path / rules.name
        notes = _StopHalfway("playing to win", stop=False)
        with distributed.get_task_stream(cluster) as tasks:
            on_dask = Model(rules, use_cache=False, max_memory=dask_memory, report=notes
                            ).duel_exact(best_response=True, checkpoint=folder,
                                         scheduler=cluster)
        ran = [t for t in tasks.data if str(t["key"]).startswith("yz-joint-")]
        assert len({t["worker"] for t in ran}) == 2, ran  # (columns solved by both workers)
        assert ("5 passes" in notes.notes[0]) == bool(limit), notes.notes
        for name in DUEL_FIGURES:
            assert getattr(on_dask, name) == getattr(whole, name), (rules.name, name)
        for progress in folder.iterdir():
            assert sorted(p.name for p in progress.iterdir()) == ["checkpoint.json"]
        # The workers let go of what the solve gave them: its layers and compiled problem.
        assert set(cluster.run(_kept_by_worker).values()) == {0}, rules.name

    rules = rules_from_text(FOUR_BOXES)
    whole = Model(rules, use_cache=False).duel_exact(best_response=True)
    on_dask = {"scheduler": cluster}
    # Stopped half way on Dask, or in one process, or on Dask with only the full cards
    # saved; each goes on on Dask or in one process.
    for stop_at, stopped_on, resume in (("half", on_dask, on_dask), ("half", on_dask, {}),
                                        ("half", {}, on_dask), ("start", on_dask, on_dask)):
        folder = tmp_path / f"stopped-{stop_at}-{len(stopped_on)}-{len(resume)}"
        with pytest.raises(_Stop):
            Model(rules, use_cache=False, report=_StopHalfway("playing to win", at=stop_at)
                  ).minimax(True, True, best_response=True, checkpoint=folder,
                            checkpoint_seconds=0, **stopped_on)
        (progress,) = folder.iterdir()
        saved = json.loads((progress / "checkpoint.json").read_text())
        assert "layer" in saved and (saved["layer"] == [4, 4]) == (stop_at == "start")
        watch = _StopHalfway("playing to win", stop=False)
        again = Model(rules, use_cache=False, report=watch).duel_exact(
            best_response=True, checkpoint=folder, **resume)
        assert (watch.began[0] > 0) == (stop_at == "half"), watch.began  # (went on)
        for name in DUEL_FIGURES:
            assert getattr(again, name) == getattr(whole, name), (stop_at, resume, name)
        # Chunks a task still running wrote after the stop were named for removal: gone.
        assert sorted(p.name for p in progress.iterdir()) == ["checkpoint.json"]


def test_a_damaged_layer_is_refused_by_the_dask_worker_that_reads_it(tmp_path, cluster):
    """A block of the saved layer changed after it was written: refused with the reason when
    the solve goes on (the coordinator checks what it reads back), and by a task reading it
    (no value computed from it); the Dask path needs its checkpoint folder, and more than
    one worker."""
    from yz.solver.joint_tasks import solve_columns
    from yz.solver.layered import solver_stamp
    from yz.solver.minimax import Checkpoint

    rules = rules_from_text(FOUR_BOXES)
    folder = tmp_path / "progress"
    with pytest.raises(_Stop):
        Model(rules, use_cache=False, report=_StopHalfway("playing to win")).minimax(
            checkpoint=folder, scheduler=cluster)
    (table,) = [p for p in (folder / "chances-minimax").glob("layer-*-score.npy")]
    raw = bytearray(table.read_bytes())
    raw[-3] ^= 0xFF
    table.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="fails its checksum"):  # (a worker's check)
        Model(rules, use_cache=False).minimax(checkpoint=folder, scheduler=cluster)
    with pytest.raises(InputError, match="is damaged or missing"):  # (in one process)
        Model(rules, use_cache=False).minimax(checkpoint=folder)
    model = Model(rules, use_cache=False)
    point = Checkpoint(folder / "chances-minimax", model.tables.digest, True, ())
    km, ko = json.loads(point.manifest_path.read_text())["layer"]
    before = next(layer for layer in joint_order(4) if joint_order(4).index(layer) ==
                  joint_order(4).index((km, ko)) - 1)
    with pytest.raises(InputError, match="fails its checksum"):
        solve_columns(rules.model_dump(mode="json"), solver_stamp(model.problem), None, True,
                      [], *before, 0, build_layer(all_bounds(model.tables, model.layout),
                                                  *before).n_o, point.table_files(),
                      str(point.folder))
    with pytest.raises(InputError, match="checkpoint folder"):
        Model(rules, use_cache=False).minimax(scheduler=cluster)
    with pytest.raises(InputError, match="more than one"):
        Model(rules, use_cache=False).minimax(checkpoint=tmp_path / "one", workers=1)


def test_a_layer_changed_since_a_worker_mapped_it_is_checked_anew(tmp_path):
    """A worker keeps the saved layer mapped for the tasks that read it, each block checked
    once. The same file changed on disk after that (a solve stopped, the file damaged, the
    solve run again with the same manifest) is mapped and checked again, not trusted because
    its blocks were intact before. (Seen as a flaky DID NOT RAISE in the Dask test above,
    whichever worker had read the layer before the stop.)"""
    from yz.solver import joint_tasks, sealed

    table = np.arange(2048, dtype=np.float64)
    facts = {**sealed.save_table(tmp_path / "t.npy", table, 4096), "file": "t.npy",
             "entries": table.size}
    files = {"minimax": [facts, None]}
    try:
        (score, _draw), = joint_tasks._mapped(tmp_path, files).values()
        score.check(0, table.size)  # (every block found intact, once)
        raw = bytearray((tmp_path / "t.npy").read_bytes())
        raw[-3] ^= 0xFF
        time.sleep(0.01)  # (a later modification time, on any file system's clock)
        (tmp_path / "t.npy").write_bytes(bytes(raw))
        (again, _draw), = joint_tasks._mapped(tmp_path, files).values()
        assert again is not score
        with pytest.raises(InputError, match="fails its checksum"):
            again.check(0, table.size)
    finally:
        joint_tasks.forget()


def test_the_command_solves_on_local_dask_workers(tmp_path):
    """`yz duel A --exact --workers 2 --checkpoint FOLDER`, run as a person runs it (a real
    process in another folder): the figures of the solve in one process; without the
    folder, refused at once."""
    game = tmp_path / "game.yaml"
    game.write_text(FOUR_BOXES)
    run = [sys.executable, "-m", "yz.cli.entry", "duel", str(game), "--exact",
           "--best-response", "--json"]
    env = {**os.environ, "YZ_CACHE_DIR": str(tmp_path / "cache")}
    # (the one-process solve, as the command's JSON has it)
    here = json.loads(json.dumps(Model(rules_from_text(FOUR_BOXES), use_cache=False)
                                 .duel_exact(best_response=True).to_dict()))
    there = json.loads(subprocess.run(
        [*run, "--workers", "2", "--checkpoint", "progress"], capture_output=True, text=True,
        check=True, env=env, cwd=tmp_path, timeout=120).stdout)
    for name in DUEL_FIGURES:
        assert there[name] == here[name], name
    assert (tmp_path / "progress").is_dir()
    lost = subprocess.run([*run, "--workers", "2"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert lost.returncode == 2 and lost.stderr.startswith("error: --checkpoint: a two-player "
                                                           "solve on Dask"), lost.stderr
    assert len(lost.stderr.strip().splitlines()) == 1


def test_the_memory_of_a_solve_on_dask_is_estimated_for_this_machine():
    """On Dask this process holds the layer being solved whole, and each worker started here
    a chunk and a sweep's scratch: the estimate grows with the local workers, a cluster
    elsewhere adds none of theirs, and a solve that does not fit is refused saying why."""
    budget = Model("crag").budget
    alone = budget.minimax_estimate(True, refuse=False)[0]
    elsewhere, two, three = (budget.minimax_estimate(True, refuse=False, dask_workers=n)[0]
                             for n in (0, 2, 3))
    assert elsewhere < two < three and three - two == (two - elsewhere) // 2  # (per worker)
    largest = max(s.entries for s in budget.minimax_estimate(True, refuse=False)[2])
    assert elsewhere > largest * 8 * 2 > alone * 0.8  # (the largest layer's 2 tables, whole)
    small = Model("crag", max_memory=elsewhere - 1).budget
    with pytest.raises(InputError, match="largest joint layer is solved on Dask"):
        small.minimax_estimate(True, dask_workers=0)


def test_the_time_of_a_solve_on_dask_counts_what_dask_adds():
    """Starting the local workers, a round trip per joint layer and every layer saved and
    checked: even a tiny game's estimate on Dask says the seconds its cluster takes."""
    from yz.solver import budget as budgets

    budget = Model("example:quick-duel").budget
    alone = budget.minimax_estimate(True, refuse=False)[1]
    elsewhere, two = (budget.minimax_estimate(True, refuse=False, dask_workers=n)[1]
                      for n in (0, 2))
    sizes = budget.minimax_estimate(True, refuse=False)[2]
    assert elsewhere - alone == pytest.approx(budgets.minimax_dask_seconds(sizes, 2, 0))
    assert two - elsewhere == pytest.approx(2 * budgets.DASK_SECONDS_PER_LOCAL_WORKER)
    assert elsewhere - alone >= budgets.DASK_START_SECONDS + len(sizes) * \
        budgets.DASK_SECONDS_PER_LAYER
