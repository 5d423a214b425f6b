"""Two-player games (`yz.solver.match.Match`, `yz play --opponent` / `--players 2`): whole
seeded games against every kind of bot, the live chances of winning checked against the same
figures computed independently (a model of its own, `final_score_from` and
`versus.advise_to_win`), the terminal in a pseudo-terminal and through a pipe."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
from dataclasses import replace

import pytest
from test_terminal import ANSI, default_sigint, yz_command
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import InputError, rules_from_text
from yz.rules.position import Position
from yz.solver import Model
from yz.solver.match import BOTS, Match, seat_seed
from yz.solver.versus import Opponent, advise_to_win

runner = CliRunner()
SHARE_CACHE = True  # the games here solve the same small rule set again and again

# Three dice of four faces, five boxes, two rolls: a whole match plays in a fraction of a
# second, with every part of a real game (an upper bonus, a Yahtzee box, keeps, a last roll).
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


@pytest.fixture(scope="module")
def tiny(shared_cache):
    old = os.environ.get("YZ_CACHE_DIR")
    os.environ["YZ_CACHE_DIR"] = str(shared_cache)
    try:
        model = Model(rules_from_text(TINY))
        model.solve()
        return model
    finally:
        if old is None:
            os.environ.pop("YZ_CACHE_DIR")
        else:
            os.environ["YZ_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "tiny.yaml"
    path.write_text(TINY)
    return path


def typed(option) -> str:
    """What a person types for an option."""
    if option.kind == "score":
        return option.box.key
    if not option.reroll:
        return "all"
    return "".join(map(str, option.keep)) or "none"


def as_move(option) -> dict:
    return {"score": option.box.key} if option.kind == "score" else {"keep": list(option.keep)}


def person_pick(match, n: int):
    """The best move by the match's own ranking, but every third decision the second."""
    options, _objective = match.options()
    return options[min(1, len(options) - 1)] if n % 3 == 2 else options[0]


def independent_chance(seat: int, match, rules: str = TINY) -> float:
    """The chance of winning of a seat that plays to win, from scratch: a model of its own
    (nothing remembered), the other seat's final score from its card under the strategy it
    is taken to play, and the best response from the seat's position (its best move with
    the dice showing; before the roll the position's value)."""
    fresh = Model(rules_from_text(rules))
    other = match.games[1 - seat]
    strategy = match.kinds[1 - seat] if match.kinds[1 - seat] in ("optimal", "greedy",
                                                                     "heuristic") else "optimal"
    final = fresh.final_score_from(other.position, strategy, other.bonus_points)
    game = match.games[seat]
    if game.over:  # a finished card against the other's final score
        u, _win, _tie = Opponent.of(final).outcome(max(game.banked, int(final.scores[-1])))
        return float(u[game.banked])
    if seat == match.current and game.phase in ("keep", "score"):
        advice = advise_to_win(fresh.solve(), game.position, game.dice, game.rolls_left,
                               game.banked, Opponent.of(final))
        return advice.best.value
    return advise_to_win(fresh.solve(), game.position, None, None, game.banked,
                         Opponent.of(final)).position_value


# ---------------------------------------------------------------- the library


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("first", [0, 1])
def test_a_whole_match_against_each_bot(tiny, bot, first):
    match = Match(tiny, seed=7, seats=("person", bot), first=first)
    checked = n = 0
    while not match.over:
        seat = match.current
        if match.is_bot(seat):
            move = match.step()
            assert move.objective == ("win" if bot == "win" else "mean")
            continue
        chances = match.chances()
        if n % 2 == 0:  # (every other decision: each check solves from scratch)
            mine = independent_chance(0, match)
            assert chances[0] == pytest.approx(mine, abs=1e-12)
            if bot == "win":
                assert chances[1] == pytest.approx(independent_chance(1, match), abs=1e-12)
            else:
                assert chances[1] == pytest.approx(1.0 - mine, abs=1e-12)
            checked += 1
        decision = match.play(as_move(person_pick(match, n)))
        assert decision.objective == "win" and decision.seat == 0
        n += 1
    assert checked >= 5
    totals = [g.banked for g in match.games]
    assert match.chances() == [1.0 if totals[0] > totals[1] else 0.0 if totals[0] < totals[1]
                               else 0.5, 1.0 if totals[1] > totals[0] else
                               0.0 if totals[1] < totals[0] else 0.5]
    review = match.review()
    assert review["totals"] == totals and len(review["people"]) == 1
    assert review["people"][0]["decisions"] == len(match.log) == n
    # A replay of the moves (the bot's as recorded) is the same match.
    again = Match.from_state(tiny, match.state())
    assert again.review() == review and again.moves == match.moves
    assert [d.as_json() for d in again.log] == [d.as_json() for d in match.log]


def test_a_match_of_a_game_with_saved_rolls(tiny):
    """Saved rolls: a turn may stop at any roll, and the bank is part of each card."""
    rules = TINY + "saved_rolls: {}\n"
    match = Match(Model(rules_from_text(rules)), seed=5, seats=("person", "win"))
    n = 0
    while not match.over:
        if match.is_bot(match.current):
            assert match.step().objective == "win"
            continue
        if n % 3 == 0:
            chances = match.chances()
            assert chances[0] == pytest.approx(independent_chance(0, match, rules), abs=1e-12)
            assert chances[1] == pytest.approx(independent_chance(1, match, rules), abs=1e-12)
        match.play(as_move(person_pick(match, n)))
        n += 1
    assert match.games[0].solution.layout.saves_rolls and n >= 5


# Three rolls and a first-roll bonus: keeping every die before the last roll is worth more
# than stopping there, and a first roll's claim of its bonus ranks among the keeps.
SERVED = TINY.replace("rolls: 2", "rolls: 3").replace(
    "score: sum_matched}", "score: sum_matched, first_roll_bonus: 5}")


def coachs_layout(t, advice, now) -> list[tuple]:
    """The moves the coach shows, written out plainly from the advice with the rolls left
    (`advice`) and with none (`now`): keeps and first-roll claims by value, keeping every die
    worth the best box now, ties by rank (a claim by its box, before the keeps by index);
    then every other box by value, ties in card order."""
    n_boxes, stop = t.n_categories, max(a.value for a in now.actions)
    ahead = []
    for a in advice.actions:
        if a.kind == "score":
            ahead.append((-a.value, a.box.box, a))
        else:
            value = a.value if a.reroll else stop
            ahead.append((-value, n_boxes + t.keep_index(a.keep), replace(a, value=value)))
    claimed = {a.box.key for a in advice.actions if a.kind == "score"}
    rest = sorted(((-a.value, a.box.box, a) for a in now.actions if a.box.key not in claimed),
                  key=lambda item: item[:2])
    return [(a.kind, a.keep, a.box and a.box.key, a.value)
            for _, _, a in sorted(ahead, key=lambda item: item[:2]) + rest]


@pytest.mark.parametrize("rules", [TINY, SERVED], ids=["two-rolls", "first-roll-bonus"])
def test_win_advice_and_the_coach_list_the_moves_in_the_coachs_layout(rules):
    """Playing to win, a person is shown the moves the coach shows (`Game.options`), ranked
    by the chance of winning; both are `coachs_layout` of their advisor's moves."""
    import random

    from yz.solver.advice import advise

    model = Model(rules_from_text(rules), use_cache=False)
    t, seen = model.tables, 0
    for seed in range(4):
        pick = random.Random(seed)
        match = Match(model, seed=seed, seats=("person", "win"))
        while not match.over:
            if match.is_bot(match.current):
                match.step()
                continue
            game, turn = match.game, match.win_turn(match.current)
            shown = [(a.kind, a.keep, a.box and a.box.key, a.value)
                     for a in match.win_advice().actions]
            assert shown == coachs_layout(t, turn.advise(game.dice, game.rolls_left),
                                          turn.advise(game.dice, 0))
            options = [(o.kind, o.keep, o.box and o.box.key, o.value) for o in game.options()]
            assert options == coachs_layout(
                t, advise(game.solution, game.position, game.dice, game.rolls_left),
                advise(game.solution, game.position, game.dice, 0))
            seen += game.rolls_left > 0
            move = pick.choice(game.options())
            match.play(as_move(move))
    assert seen >= 10


def test_moves_shown_with_equal_values_follow_the_tie_rule():
    """Where every move is worth the same (a lost game's chances, all 0), the moves shown
    follow yz's tie rule, not the order the values had before: a first-roll claim, then the
    keeps by index (keeping every die first), then the other boxes in card order."""
    from yz.solver.advice import advise, moves_to_show

    model = Model(rules_from_text(SERVED), use_cache=False)
    solution, t = model.solve(), model.tables
    position, dice = Position(), (2, 2, 4)

    def lost(n):
        advice = advise(solution, position, dice, n)
        return replace(advice, actions=[replace(a, value=0.0) for a in advice.actions])

    shown = moves_to_show(solution, dice, 2, lost).actions
    keeps = [a.keep for a in shown if a.kind == "keep"]
    assert [a.box.key for a in shown[:1]] == ["pair"] and shown[0].box.first_roll_bonus
    assert keeps == sorted(keeps, key=t.keep_index) and keeps[0] == dice
    boxes = [a.box.box for a in shown[1 + len(keeps):]]
    assert boxes == sorted(boxes) and len(shown) == 1 + len(keeps) + len(boxes)


def test_own_dice_through_a_pipe(tiny, tiny_file):
    """Real dice for both seats: the person types the bot's dice too."""
    mirror = Match(tiny, seed=0, seats=("person", "optimal"), own_dice=True)
    lines, n = [], 0
    while not mirror.over:
        game = mirror.game
        if game.phase == "dice":
            free = game.tables.n_dice - len(game.kept)
            dice = [1 + (n + i) % 4 for i in range(free)]
            lines.append(" ".join(map(str, dice)))
            mirror.play({"dice": dice})
            n += 1
        elif mirror.is_bot(mirror.current):
            mirror.step()
        else:
            pick = mirror.options()[0][0]
            lines.append(typed(pick))
            mirror.play(as_move(pick))
    result = runner.invoke(app, ["play", "-v", str(tiny_file), "--opponent", "optimal",
                                 "--own-dice", "--quiet"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    assert "roll the optimal bot's 3 dice and type them>" in result.output
    totals = mirror.review()["totals"]
    assert f"{max(totals)} to {min(totals)}" in result.output or \
        f"a draw at {totals[0]}" in result.output, result.output


def test_bots_play_their_strategies(tiny):
    """The optimal bot plays the coach's best move, the win bot the best response's, the
    greedy bot the most points this turn when it scores."""
    for bot in BOTS:
        match = Match(tiny, seed=11, seats=("person", bot), first=1)
        while not match.over:
            if not match.is_bot(match.current):
                match.play(as_move(match.options()[0][0]))
                continue
            game = match.game
            move = match.bot_move()
            if bot == "optimal":
                assert move.move == as_move(game.options()[0])
            elif bot == "win":
                best = independent_chance(match.current, match)
                assert move.action.value == pytest.approx(best, abs=1e-12)
            elif bot == "greedy" and move.move.get("score") and game.rolls_left == 0:
                points = {c.key: c.total for c, _v in _box_values(match)}
                assert points[move.move["score"]] == max(points.values())
            assert match.step().move == move.move


def _box_values(match):
    from yz.solver.advice import box_values

    game = match.game
    return box_values(match.solution, game.position, game.tables.roll_index(game.dice))


def test_the_moves_are_the_coachs_and_a_box_may_be_scored_before_the_last_roll(tiny):
    """Ranked by the chance of winning, the moves are those the coach lists: every keep, and
    before the last roll every box too (scoring stops rolling), which a person may choose."""
    match = Match(tiny, seed=13, seats=("person", "optimal"))
    options, objective = match.options()
    game = match.game
    assert objective == "win" and game.rolls_left > 0
    assert sorted(map(str, map(as_move, options))) == sorted(map(str, map(as_move,
                                                                           game.options())))
    early = next(o for o in options if o.kind == "score")
    now = match.win_turn(0).advise(game.dice, 0)  # what it is worth: the box after the roll
    assert early.value == next(a.value for a in now.actions if a.box.key == early.box.key)
    decision = match.play({"score": early.box.key})
    assert decision.objective == "win" and decision.chosen.box.key == early.box.key
    assert match.current == 1


def test_seats_dice_do_not_depend_on_who_starts(tiny):
    a = Match(tiny, seed=5, seats=("person", "optimal"), first=0)
    b = Match(tiny, seed=5, seats=("person", "optimal"), first=1)
    assert a.games[0].dice == b.games[0].dice and a.games[1].dice == b.games[1].dice
    assert a.games[0].seed == seat_seed(5, 0) != seat_seed(5, 1) == a.games[1].seed
    assert a.current == 0 and b.current == 1


def test_two_people_each_judged_and_undo(tiny):
    match = Match(tiny, seed=2, seats=("person", "person"))
    for _ in range(4):
        match.play(as_move(match.options()[0][0]))
    seats = [d.seat for d in match.log]
    assert set(seats) == {0, 1}
    for seat in (0, 1):  # each person's chance is the best response's against the other
        assert match.chances()[seat] == pytest.approx(independent_chance(seat, match),
                                                      abs=1e-12)
    before = match.state()["moves"]
    match.undo()
    assert match.state()["moves"] == before[:-1] and len(match.log) == 3


def test_undo_takes_back_the_bots_replies_too(tiny):
    match = Match(tiny, seed=4, seats=("person", "optimal"))
    while match.current == 0:
        match.play(as_move(match.options()[0][0]))
    mine = len(match.moves)
    while match.current == 1:
        match.step()
    assert len(match.moves) > mine
    match.undo()
    assert len(match.moves) == mine - 1 and match.current == 0


def test_without_win_chances_the_coach_judges_by_the_mean(tiny):
    match = Match(tiny, seed=3, seats=("person", "win"), win_chances=False)
    decision = match.play(as_move(match.options()[0][0]))
    assert decision.objective == "mean" and match.chances()[0] is None
    while match.current == 1:
        assert match.step().objective == "win"  # the bot still plays to win


def test_a_turn_over_the_time_allowed_is_judged_by_the_mean(tmp_path, monkeypatch):
    monkeypatch.setenv("YZ_CACHE_DIR", str(tmp_path))  # nothing solved to win yet
    seen = []

    def compute(what, seconds, make, key):
        seen.append((what, seconds))
        return make()

    match = Match(Model(rules_from_text(TINY)), seed=3, seats=("person", "win"),
                  win_seconds=0.0, compute=compute)
    assert match.chances() == [None, None] and 0 in match.skipped and 1 in match.skipped
    decision = match.play(as_move(match.options()[0][0]))
    assert decision.objective == "mean"
    while match.current == 1:
        assert match.step().objective == "mean"  # a win bot over budget plays for the mean
    assert not any("chances of winning" in what for what, _s in seen)


def test_the_start_of_the_game_is_solved_once_and_cached(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("YZ_CACHE_DIR", str(tmp_path))
    model = Model(rules_from_text(TINY))
    works = []

    def compute(what, seconds, make, key):
        works.append(what)
        return make()

    first = Match(model, seed=1, seats=("person", "optimal"), compute=compute)
    chance = first.chances()[0]
    assert any("chances of winning" in w for w in works)
    again = Match(Model(rules_from_text(TINY)), seed=2, seats=("person", "optimal"),
                  compute=lambda what, seconds, make, key: pytest.fail(f"worked on {what}"))
    assert again.chances()[0] == chance  # a new process: from the cache, no work


def test_bad_matches_are_named(tiny):
    with pytest.raises(InputError, match="seats"):
        Match(tiny, seats=("optimal", "greedy"))
    with pytest.raises(InputError, match="seats"):
        Match(tiny, seats=("person", "clever"))
    with pytest.raises(InputError, match="first"):
        Match(tiny, first=2)
    match = Match(tiny, seed=1)
    with pytest.raises(InputError, match="no bot to move"):
        match.bot_move()
    with pytest.raises(InputError, match="undo"):
        match.undo()
    with pytest.raises(InputError, match="move 1"):
        Match.from_state(tiny, {"seed": 1, "moves": [{"score": "nowhere"}]})


def test_the_view_has_both_cards_and_the_chances(tiny):
    match = Match(tiny, seed=9, seats=("person", "heuristic"), first=1)
    match.step()
    view = match.view(with_options=True)
    seats = view["match"]["seats"]
    assert [s["kind"] for s in seats] == ["person", "heuristic"]
    assert view["match"]["bot_to_move"] is True and view["match"]["current"] == 1
    assert seats[0]["chance"] + seats[1]["chance"] == pytest.approx(1.0)
    assert "options" not in view  # (a bot's turn: nothing to choose)
    while match.current == 1:
        match.step()
    view = match.view(with_options=True)
    assert view["objective"] == "win" and view["options"][0]["p_win"] == \
        pytest.approx(view["match"]["seats"][0]["chance"])


# ---------------------------------------------------------------- the terminal


def test_two_people_through_a_pipe(tiny, tiny_file):
    mirror = Match(tiny, seed=6, seats=("person", "person"), first=1)
    lines, n = [], 0
    while not mirror.over:
        pick = person_pick(mirror, n)
        lines.append(typed(pick))
        mirror.play(as_move(pick))
        n += 1
    result = runner.invoke(app, ["play", "-v", str(tiny_file), "--players", "2", "--seed", "6",
                                 "--opponent-first", "--quiet"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "player 1 against player 2, seed 6; player 2 starts" in out
    review = mirror.review()
    a, b = review["totals"]
    assert "final: " in out and (f"{a} to {b}" in out or f"{b} to {a}" in out
                                 or f"a draw at {a}" in out)
    assert "player 1's decisions:" in out and "player 2's decisions:" in out
    assert len(re.findall(r"^  (best move \(|not the best:)", out, re.M)) == n
    assert re.search(r"chances of winning: player 1 \d+\.\d\d%, player 2 \d+\.\d\d%", out)


def test_play_options_that_go_together(tiny_file):
    for args, needle in [(["--opponent", "clever"], "not a bot"),
                         (["--opponent", "win", "--players", "2"], "one of them"),
                         (["--opponent-first"], "two-player game")]:
        result = runner.invoke(app, ["play", "-v", str(tiny_file), "--seed", "1", *args],
                               input="")
        assert result.exit_code == 2 and needle in result.output, result.output


def drive_in_pty(args: list[str], answer, timeout: float = 120.0) -> str:
    """Run `yz ARGS` on a pty and answer each prompt (a line ending in '> ') with
    `answer(text so far)`; the whole output, as a person reads it."""
    master, slave = os.openpty()
    env = {**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm-256color"}
    proc = subprocess.Popen([*yz_command(), *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True, start_new_session=True,
                            preexec_fn=default_sigint)
    os.close(slave)
    out = bytearray()
    answered = 0
    deadline = time.monotonic() + timeout
    try:
        while True:
            assert time.monotonic() < deadline, out.decode(errors="replace")[-2000:]
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:  # (the program waits: for an answer, when the text ends in a prompt)
                text = ANSI.sub("", out.decode(errors="replace")).replace("\r", "")
                if text.rstrip(" ").endswith(">") and text.count("> ") > answered:
                    answered = text.count("> ")
                    os.write(master, (answer(text) + "\n").encode())
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=30) == 0, out.decode(errors="replace")[-2000:]
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return ANSI.sub("", out.decode(errors="replace")).replace("\r\n", "\n")


@pytest.mark.parametrize("bot", BOTS)
def test_a_whole_game_against_each_bot_in_a_terminal(tiny, tiny_file, bot):
    """A person in a real terminal: the prompts answered as the mirror (a Match of the same
    seed in this process) decides, the bot's moves and both chances printed as it plays."""
    from yz.cli.match_cmd import chances_text

    first = int(bot in ("greedy", "win"))
    mirror = Match(tiny, seed=12, seats=("person", bot), first=first)
    expected = []
    state = {"n": 0}

    def bots() -> None:
        while not mirror.over and mirror.is_bot(mirror.current):
            mirror.step()
            if mirror.current == 0 and not mirror.over:  # (under the next turn's heading)
                expected.append(chances_text(mirror))

    def answer(_text: str) -> str:
        bots()
        pick = person_pick(mirror, state["n"])
        state["n"] += 1
        mirror.play(as_move(pick))
        if mirror.current == 1 and not mirror.over:
            expected.append(chances_text(mirror))
        return typed(pick)

    text = drive_in_pty(["play", "-v", str(tiny_file), "--opponent", bot, "--seed", "12",
                         *(["--opponent-first"] if first else [])], answer)
    bots()  # (its last turn, when it plays second)
    assert "Traceback" not in text, text
    assert f"you against the {bot} bot, seed 12" in text
    assert text.count(f"the {bot} bot: dice ") == len(mirror.bot_log)
    for line in expected:
        if line:
            assert line in text, f"{line!r} missing:\n{text}"
    totals = mirror.review()["totals"]
    assert f"{max(totals)} to {min(totals)}" in text or f"a draw at {totals[0]}" in text
