"""The coach's game (`yz.solver.coach.Game`) and `yz play`, driven through its input stream."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import InputError, load_rules
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.coach import Game, find_box, parse_keep

runner = CliRunner()

TINY = """\
name: tiny-house
dice: 3
faces: 4
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: fours, pattern: {kind: face, face: 4}, score: face_total}
  - {key: pair, pattern: {kind: of_a_kind, count: 2}, score: sum_matched}
  - {key: triple, pattern: all_same, score: 20}
  - {key: chance, pattern: any, score: sum_all}
upper_bonus: {threshold: 8, amount: 10}
yahtzee_category: triple
"""


# One cache for the module: the games here solve the same small rule sets again and again.
SHARE_CACHE = True


@pytest.fixture(scope="module")
def no_bonus(shared_cache):
    import os

    old = os.environ.get("YZ_CACHE_DIR")
    os.environ["YZ_CACHE_DIR"] = str(shared_cache)
    try:
        return Model(load_rules("no-bonus")).solve()
    finally:
        if old is None:
            os.environ.pop("YZ_CACHE_DIR")
        else:
            os.environ["YZ_CACHE_DIR"] = old


def play_out(game: Game, every: int = 4) -> list[str]:
    """Play the game to its end (the best move, but every `every`-th decision the third
    option); return the lines a person would type for the same moves."""
    lines = []
    n = 0
    while not game.over:
        opts = game.options()
        n += 1
        pick = opts[min(2, len(opts) - 1)] if n % every == 0 else opts[0]
        if pick.kind == "keep":
            lines.append("all" if len(pick.keep) == len(game.dice) else
                         "".join(map(str, pick.keep)) or "none")
            game.keep(pick.keep)
        else:
            lines.append(pick.box.key)
            game.score(pick.box.key)
    return lines


def card_total(game: Game) -> int:
    b = game.bonuses()
    return sum(r["score"] for r in game.card()) + b["upper_bonus"] + b["yahtzee_bonus"]


# ---------------------------------------------------------------- the library


def test_a_whole_game_agrees_with_the_advisor(no_bonus):
    game = Game(no_bonus, seed=5)
    n = 0
    while not game.over:
        opts = game.options()
        advice = advise(no_bonus, game.position, game.dice, game.rolls_left, game.banked)
        assert opts[0].value == pytest.approx(advice.best.value, abs=1e-9)
        assert opts[0].label().split(" in ")[0] == advice.best.label().split(" in ")[0]
        n += 1
        pick = opts[2] if n % 3 == 0 and len(opts) > 2 else opts[0]
        decision = game.play({"keep": list(pick.keep)} if pick.kind == "keep"
                             else {"score": pick.box.key})
        assert decision.loss == pytest.approx(opts[0].value - pick.value)
    assert game.phase == "over"
    assert game.banked == card_total(game)
    assert game.lost() == pytest.approx(sum(d.loss for d in game.log))
    assert game.lost() > 0 and len(game.log) == n
    worst = game.worst(3)
    assert len(worst) == 3 and worst[0].loss >= worst[1].loss >= worst[2].loss
    replay = Game.from_state(no_bonus, game.state())
    assert replay.banked == game.banked and replay.lost() == pytest.approx(game.lost())
    review = game.review(Model(no_bonus.tables).distribution())
    assert 0 < review["p_at_most"] <= 1 and review["total"] == game.banked


def test_seeded_dice_are_reproducible(no_bonus):
    a, b = Game(no_bonus, seed=11), Game(no_bonus, seed=11)
    assert a.dice == b.dice and a.dice != Game(no_bonus, seed=12).dice
    first = a.dice
    a.keep(())
    b.keep(a.log[0].dice[:1])
    # Every turn's first roll depends on the seed and the turn only.
    a.score(next(c.key for c in no_bonus.rules.categories if not a.position.is_filled(c.key)))
    b.score("chance")
    assert a.dice == b.dice and first is not None


def test_undo_takes_back_the_last_decision(no_bonus):
    game = Game(no_bonus, seed=2)
    dice = game.dice
    game.keep(())
    game.score("chance")
    game.undo()
    assert game.turn == 1 and len(game.log) == 1 and game.rolls_left == 1
    game.undo()
    assert game.dice == dice and game.rolls_left == 2 and not game.log
    with pytest.raises(InputError, match="no decision"):
        game.undo()


def test_own_dice(no_bonus):
    game = Game(no_bonus, own_dice=True)
    assert game.phase == "dice" and game.options() == []
    with pytest.raises(InputError, match="dice"):
        game.enter_dice([1, 2, 3])
    game.enter_dice([6, 1, 6, 3, 2])
    assert game.dice == (1, 2, 3, 6, 6) and game.phase == "keep"
    game.keep([6, 6])
    with pytest.raises(InputError, match="does not contain the dice kept"):
        game.enter_dice([1, 1, 1, 1, 1])
    game.enter_dice([6, 5, 4])  # only the re-rolled dice
    assert game.dice == (4, 5, 6, 6, 6) and game.rolls_left == 1
    game.keep([4, 5, 6, 6, 6])  # keep all: nothing to type
    assert game.phase == "score"
    game.score("three_of_a_kind")
    assert game.banked == 27 and game.phase == "dice"
    with pytest.raises(InputError, match="rolls its own dice"):
        Game(no_bonus, seed=1).enter_dice([1, 1, 1, 1, 1])


def test_bad_moves_are_named(no_bonus):
    game = Game(no_bonus, seed=3)
    with pytest.raises(InputError, match="not among the dice"):
        game.keep([7])
    with pytest.raises(InputError, match="not a box"):
        game.score("sevens")
    with pytest.raises(InputError, match="not a move"):
        game.play({"jump": 1})
    with pytest.raises(InputError, match="list of whole numbers"):
        game.play({"keep": "66"})
    with pytest.raises(InputError, match="move 1"):
        Game.from_state(no_bonus, {"seed": 1, "moves": [{"score": "nope"}]})
    with pytest.raises(InputError, match="seed"):
        Game(no_bonus, seed=-1)


def test_typed_input():
    dice = (1, 3, 6, 6, 6)
    assert parse_keep("66", dice, 6) == (6, 6)
    assert parse_keep("6, 6 1", dice, 6) == (1, 6, 6)
    assert parse_keep("all", dice, 6) == dice and parse_keep("none", dice, 6) == ()
    assert parse_keep("chance", dice, 6) is None
    with pytest.raises(InputError):
        parse_keep("55", dice, 6)


def test_find_box(no_bonus):
    game = Game(no_bonus, seed=1)
    assert find_box("Full House", game) == "full_house"
    assert find_box("lar", game) == "large_straight"
    assert find_box("s", game) is None  # sixes, small straight: ambiguous


def test_view_json(no_bonus):
    game = Game(no_bonus, seed=4)
    view = game.view(with_options=True)
    assert view["phase"] == "keep" and len(view["dice"]) == 5
    assert view["options"][0]["loss"] == 0 and view["expected_final"] > 200
    assert {"card", "log", "state", "banked", "lost"} <= set(view)


# ---------------------------------------------------------------- yz play


def test_play_a_whole_seeded_game_through_stdin(no_bonus):
    expected = Game(no_bonus, seed=9)
    lines = play_out(expected)
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--seed", "9", "-q"],
                           input="hint\n" + "\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Traceback" not in out
    assert "expected final  loss    move" in out  # the hint
    assert "best move." in out and "not the best: the best was" in out
    assert re.search(rf"\n  Total +{expected.banked}\n", out), out
    assert f"total {expected.banked} (optimal play averages 229.64)" in out
    luck = expected.review()["luck"]
    assert f"your decisions cost {expected.lost():.2f} (each one's loss in expected final " \
           "score against the best move, added up) and the dice " \
           f"{'took' if luck < 0 else 'gave'} {abs(luck):.2f} (luck)" in " ".join(out.split())
    assert "worst decisions:" in out and "P(score <= " in out


def test_the_review_separates_decisions_from_luck(no_bonus):
    """The expected final score moves by the decisions' losses and by the dice alone, so the
    total is the start's expectation, less what the decisions cost, plus the luck: at every
    point of the game (before the end, with the expected final score for the total)."""
    game = Game(no_bonus, seed=8)
    play_out(game, every=3)
    review = game.review()
    assert review["lost"] == pytest.approx(game.lost()) and review["lost"] > 0
    assert review["total"] == review["expected_final"] == game.banked
    assert review["total"] == pytest.approx(review["expected_at_start"] - review["lost"]
                                            + review["luck"])
    game.undo()  # the last decision taken back: the review so far
    so_far = game.review()
    assert so_far["expected_final"] == pytest.approx(game.expected_final())
    assert so_far["expected_final"] == pytest.approx(
        so_far["expected_at_start"] - so_far["lost"] + so_far["luck"])


def test_keeping_every_die_stops_rolling_and_is_judged_once(no_bonus):
    """Keeping all with re-rolls left goes to scoring (the dice as after the last roll), and
    costs what stopping loses, once: not a roll spent and judged again for every roll."""
    game = Game(no_bonus, seed=3)
    game.score("large_straight")  # turn 2: dice 1 2 4 5 6, 2 re-rolls left
    assert game.dice == (1, 2, 4, 5, 6) and game.rolls_left == 2
    best = game.options()[0]
    stop = game.stop_value()
    listed = next(o for o in game.options() if o.kind == "keep" and not o.reroll)
    assert listed.value == pytest.approx(stop)  # the hint and the judge agree
    decision = game.keep(game.dice)
    assert game.phase == "score" and game.rolls_left == 0 and game.dice == (1, 2, 4, 5, 6)
    assert decision.chosen.label() == "keep all (stop rolling)"
    assert decision.loss == pytest.approx(best.value - stop) and decision.loss > 1
    assert game.options()[0].value == pytest.approx(stop)  # the boxes, as after the last roll
    with pytest.raises(InputError, match="no re-rolls are left"):
        game.keep(game.dice)
    game.score(game.options()[0].box.key)
    assert game.lost() == pytest.approx(best.value - stop)  # charged once in all
    replay = Game.from_state(no_bonus, game.state())
    assert replay.banked == game.banked and replay.lost() == pytest.approx(game.lost())


def test_play_keep_all_goes_to_scoring():
    result = runner.invoke(app, ["play", "--seed", "3", "-q"], input="large\nall\nall\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("keep all (stop rolling)") == 3, out  # once judged, once in the review
    assert "dice 1 2 4 5 6  (last roll)  box> all" in out
    assert "error: no re-rolls are left this turn: type the box to score." in out
    assert "cost 9.94 points" in out and "(1 re-roll left)" not in out


def test_play_coach_warns_before_a_costly_move():
    game = Game(Model(load_rules("no-bonus")).solve(), seed=9)
    worst = game.options()[-1]
    typed = "none" if worst.kind == "keep" and not worst.keep else (
        worst.box.key if worst.kind == "score" else "".join(map(str, worst.keep)))
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--seed", "9", "-q",
                                 "--coach-threshold", "0.5"], input=f"{typed}\nn\nq\n")
    assert result.exit_code == 0, result.output
    assert "coach: " in result.output and "play it anyway? [y/N]" in result.output
    assert "more than your coach threshold of 0.5 points; the best is" in result.output
    assert "game stopped at turn 1 with 0 points banked" in result.output
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--seed", "9", "-q",
                                 "--coach-threshold", "0.5"], input=f"{typed}\ny\n")
    assert "not the best" in result.output and "end of input" in result.output


def test_play_end_of_input_stops_cleanly():
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--seed", "1", "-q"],
                           input="66\n")
    assert result.exit_code == 0
    assert "end of input: the game stops at turn 1" in result.output
    assert "Traceback" not in result.output


def test_play_bad_answers_ask_again():
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--seed", "1", "-q"],
                           input="sevens\n9\nundo\nq\n")
    assert result.exit_code == 0
    assert "'sevens' is neither dice to keep nor an open box" in result.output
    assert "not among the dice showing" in result.output
    assert "undo: no decision to take back yet" in result.output


def test_play_own_dice():
    answers = "66612\n666\n12345\nyahtzee\n66\nyahtzee\n"
    result = runner.invoke(app, ["play", "-v", "no-bonus", "--own-dice", "-q"], input=answers)
    assert result.exit_code == 0, result.output
    assert "roll your 5 dice" in result.output and "roll the other 2 dice" in result.output
    assert "Turn 2 of 13: banked 50" in result.output
    assert "error: dice: 1 2 3 4 5 does not contain the dice kept (6 6 6)" in result.output


def test_play_any_rule_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    expected = Game(Model(load_rules(str(path))).solve(), seed=3)
    lines = play_out(expected, every=2)
    result = runner.invoke(app, ["play", "-v", str(path), "--seed", "3", "-q"],
                           input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    assert "yz play: tiny-house, 5 turns, seed 3" in result.output
    assert f"total {expected.banked} " in result.output and "Upper bonus" in result.output


def test_play_bad_options_exit_2():
    result = runner.invoke(app, ["play", "-v", "no-such-rules"])
    assert result.exit_code == 2 and "no-such-rules" in result.output
    result = runner.invoke(app, ["play", "--coach-threshold", "-1"])
    assert result.exit_code == 2


@pytest.mark.parametrize("command, needles", [
    ("play", ["--seed", "--coach-threshold", "--own-dice", "[default: official-free-joker]"]),
    ("serve", ["--port", "--host", "[default: 8765; 0<=x<=65535]", "[default: 127.0.0.1]",
               "yz[web]"]),
])
def test_help_pages(command, needles):
    result = runner.invoke(app, [command, "--help"], prog_name="yz")
    assert result.exit_code == 0 and f"Usage: yz {command} " in result.output
    flat = " ".join(result.output.split())
    for needle in needles:
        assert needle in flat, result.output


# ---------------------------------------------------------------- saved rolls


BANKED = TINY.replace("name: tiny-house", "name: tiny-banked") + "saved_rolls: {cap: 3}\n"


@pytest.fixture(scope="module")
def banked(shared_cache):
    from yz.rules import rules_from_text
    from yz.solver import Model

    return Model(rules_from_text(BANKED), use_cache=False).solve(with_sd=True)


def test_a_game_with_saved_rolls_carries_the_bank(banked):
    """Each turn has rolls - 1 + its saved rolls re-rolls, may stop at any roll, and the next
    starts with the rolls left unused (at most the cap); games played best average the exact
    value (the moves themselves are checked against the kernel's in test_saved_rolls)."""
    t = banked.tables
    totals = []
    for seed in range(300):
        game = Game(banked, seed=seed)
        while not game.over:
            opts = game.options()
            assert game.rolls_left <= t.rolls - 1 + game.saved_rolls
            pick = opts[0]
            if pick.kind == "keep":
                assert len(pick.keep) < t.n_dice  # keeping every die is never offered
                game.keep(pick.keep)
            else:
                left, turn = game.rolls_left, game.turn
                game.score(pick.box.key)
                assert game.saved_rolls == min(3, left) and pick.saved_rolls == min(3, left)
                assert game.over or (game.turn == turn + 1 and
                                     game.rolls_left == t.rolls - 1 + game.saved_rolls)
        assert game.banked == card_total(game)
        totals.append(game.banked)
    mean = sum(totals) / len(totals)
    assert abs(mean - banked.expected_score) < 4 * banked.sd / len(totals) ** 0.5, mean
    replay = Game.from_state(banked, game.state())
    assert replay.banked == game.banked and replay.saved_rolls == game.saved_rolls


def test_saved_rolls_in_a_game_undo_and_keep_all(banked):
    game = Game(banked, seed=4)
    with pytest.raises(InputError, match="keeping every die only spends a roll"):
        game.keep(game.dice)
    start = (game.dice, game.rolls_left)
    game.keep(())
    game.undo()
    assert (game.dice, game.rolls_left, game.saved_rolls) == (*start, 0)
    first = game.options()
    box = next(o for o in first if o.kind == "score").box.key
    game.score(box)  # on the first roll: one re-roll unused, saved
    assert game.saved_rolls == 1 and game.rolls_left == 2
    assert game.view()["saved_rolls"] == 1
    game.undo()
    assert game.saved_rolls == 0 and game.turn == 1


def test_play_a_game_with_saved_rolls_through_stdin(tmp_path, banked):
    path = tmp_path / "banked.yaml"
    path.write_text(BANKED)
    expected = Game(banked, seed=6)
    lines = play_out(expected, every=3)
    result = runner.invoke(app, ["play", "-v", str(path), "--seed", "6", "-q"],
                           input="hint\n" + "\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Turn 1 of 5: banked 0, 0 saved rolls" in out and "Turn 2 of 5: banked" in out
    assert re.search(r"Turn 3 of 5: banked \d+, [0-3] saved rolls?,", out), out
    assert f"total {expected.banked} " in out and "Traceback" not in out
    assert "P(score <= " in out  # (the exact distribution of a small game with saved rolls)
