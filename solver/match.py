"""Two-player games: two coach `Game`s played turn about, each seat a person or a bot.

A `Match` holds one `coach.Game` per seat (seat 0 and seat 1). Each seat's dice come from its
own stream of the match's seed (`seat_seed`), so they do not depend on who starts or on how
the other seat plays. Turns alternate, `first` starting: the seat to move is the one with fewer
boxes filled, `first` on a tie. A seat is a "person" (its moves come from `play`) or a bot:

- "optimal", "greedy", "heuristic": that strategy (`solver.strategies`), move by move as the
  advisor plays it with the strategy's values (ties broken as everywhere, `kernels.ties`);
- "win": at each decision the best move to win (`versus.WinTurn`, as `versus.advise_to_win`)
  against the other seat's final score, the other playing for the mean from its card.

**The live chance of winning** of a seat (P(win) + P(draw) / 2) is, for a seat that plays to
win (a person, a "win" bot), its best response from its position to the other seat's final
score: the other's points plus the exact rest of its game from its card (`Model.
final_score_from`, the card its current turn started from) under a fixed strategy: a fixed
bot's own, or expected-score play for a person or a "win" bot (which re-solves as it goes, so no
fixed strategy is exactly its own). A fixed bot facing a seat that plays to win has the rest:
1 - the other's chance. With dice showing the mover's chance is its best move's; a seat
waiting for the other to finish a turn keeps the chance of its own last move, which was solved
against the card that turn started from. It is exact against the strategy it assumes, not
the two-player optimum.

**Costs.** A seat that plays to win solves one `Model.win_turn` per turn (the other's card
has changed since its last one), over the states it can still reach: a fraction of a second
late in an official game, minutes early on (the empty card's is kept in the cache, so a
game's first turn against a given strategy is solved once per machine). `win_seconds` is the
most a turn may take by its estimate (`Model.win_seconds`): a turn estimated longer is judged
by the expected score instead (a "win" bot plays that turn for the mean), its chance left
unknown (None), and `skipped` says why. Every piece of such work goes through `compute(what,
seconds, make, key)` (`key`: equal for the same work), which the front ends use to announce it
(the terminal) or to run it on their solver's thread (the web page); by default it just runs
`make()`.

A match sits on top of a `Model` (it asks the model for the distributions and the solves, as a
front end does; no solver module calls it). A match is its moves: `state()` lists them with
the seed and the seats, in the order they were made, bots' included, and `Match.from_state`
replays them (a bot's recorded move is replayed as it is, never decided again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from yz.rules import InputError

from .advice import Action, Advice, advise, moves_to_show
from .budget import MAX_MOVES
from .coach import TIE, Decision, Game, check_seed
from .strategies import STRATEGIES

BOTS = ("optimal", "greedy", "heuristic", "win")
SEATS = ("person", *BOTS)
FIXED = STRATEGIES  # bots that play a fixed strategy


def seat_seed(seed: int, seat: int) -> int:
    """The seed of one seat's dice: its own stream of the match's seed (0 .. 2^63 - 1)."""
    state = np.random.SeedSequence([seed, seat]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def check_seats(kinds) -> tuple[str, str]:
    if not isinstance(kinds, list | tuple) or len(kinds) != 2 or \
            any(k not in SEATS for k in kinds):
        raise InputError(f"seats: give two seats, each one of {', '.join(SEATS)}.",
                         param="seats")
    if "person" not in kinds:
        raise InputError("seats: one seat at least is a person's (two bots play with yz "
                         "simulate and yz duel).", param="seats")
    return tuple(kinds)


@dataclass(frozen=True)
class MatchDecision(Decision):
    """A person's decision beside the best one (a coach `Decision` of one seat), by the chance
    of winning (`objective` "win": values are chances) or, where that was not computed, by the
    expected score ("mean": values are points still to come)."""

    chosen: Action  # (the advisor's actions, ranked by the objective: not coach Options)
    best: Action
    seat: int = 0
    objective: str = "win"

    def as_json(self) -> dict:
        def action(a: Action) -> dict:
            return a.to_dict(self.best.value, self.banked, objective=self.objective)

        return {"seat": self.seat, "turn": self.turn, "dice": list(self.dice),
                "rolls_left": self.rolls_left, "objective": self.objective,
                "chosen": action(self.chosen), "best": action(self.best), "loss": self.loss,
                "was_best": self.was_best}


@dataclass(frozen=True)
class BotMove:
    """One decision of a bot: the move and the option it is (its value: a chance of winning
    for a "win" bot playing to win, else points still to come under its strategy)."""

    seat: int
    turn: int
    dice: tuple[int, ...]
    rolls_left: int
    move: dict
    action: Action
    objective: str  # "win" or "mean" (a fixed strategy, or a win bot's turn over budget)

    def label(self) -> str:
        return self.action.label()

    def as_json(self) -> dict:
        return {"seat": self.seat, "turn": self.turn, "dice": list(self.dice),
                "rolls_left": self.rolls_left, "move": self.move, "label": self.label(),
                "objective": self.objective}


def _run(what: str, seconds: float, make: Callable[[], Any], key=None) -> Any:
    return make()


class Match:
    """Two seats playing one rule set turn about (see the module docstring)."""

    def __init__(self, model, seed: int = 0, seats=("person", "optimal"), first: int = 0,
                 own_dice: bool = False, win_chances: bool = True,
                 win_seconds: float | None = None,
                 compute: Callable[..., Any] = _run):
        """`model`: a `Model` (solved or not: it is solved here). `seats`: two of SEATS, one
        at least "person". `first`: the seat that starts (0 or 1). `win_chances`: judge the
        people's decisions by the chance of winning and show the chances (False: by the
        expected score, and no chance is computed for the people). `win_seconds`: the most
        a turn's chances may take by their estimate (None: no limit but the model's
        budget). `compute`: see the module docstring."""
        check_seed(seed)
        self.kinds = check_seats(seats)
        if first not in (0, 1) or isinstance(first, bool):
            raise InputError("first: the seat that starts is 0 or 1.", param="first")
        if not isinstance(win_chances, bool):
            raise InputError("win chances: true or false.", param="win_chances")
        if win_seconds is not None and not (isinstance(win_seconds, int | float) and
                                            not isinstance(win_seconds, bool) and
                                            win_seconds >= 0):
            raise InputError("win seconds: a number of seconds from 0 up.",
                             param="win_seconds")
        self.model = model
        self.solution = model.solve()
        self.seed, self.first, self.own_dice = seed, first, own_dice
        self.win_chances, self.win_seconds, self.compute = win_chances, win_seconds, compute
        self.games = [Game(self.solution, seat_seed(seed, i), own_dice) for i in (0, 1)]
        self.moves: list[dict] = []
        self.log: list[MatchDecision] = []
        self.bot_log: list[BotMove] = []
        self.skipped: dict[int, float] = {}  # seat: the estimated seconds of its turn skipped
        self._last: list[float | None] = [None, None]  # each seat's chance after its last move
        self._moved = [False, False]

    # ------------------------------------------------------------ the seats

    @property
    def tables(self):
        return self.solution.tables

    @property
    def over(self) -> bool:
        return all(g.over for g in self.games)

    @property
    def current(self) -> int:
        """The seat to move (the other one once the match is over: no one)."""
        a, b = (len(g.position.filled) for g in self.games)
        if a == b:
            return self.first
        return 0 if a < b else 1

    @property
    def game(self) -> Game:
        """The game of the seat to move."""
        return self.games[self.current]

    def is_bot(self, seat: int) -> bool:
        return self.kinds[seat] != "person"

    def plays_to_win(self, seat: int) -> bool:
        """Whether this seat plays (or is coached) to win: a "win" bot, or a person while the
        chances are on."""
        kind = self.kinds[seat]
        return kind == "win" or (kind == "person" and self.win_chances)

    def strategy_of(self, seat: int) -> str:
        """The fixed strategy the other seat assumes of this one: a fixed bot's own, else
        expected-score play."""
        kind = self.kinds[seat]
        return kind if kind in FIXED else "optimal"

    def name(self, seat: int) -> str:
        """How the front ends name a seat: "you" and "the optimal bot", or "player 1"."""
        if self.is_bot(seat):
            return f"the {self.kinds[seat]} bot"
        if self.kinds == ("person", "person"):
            return f"player {seat + 1}"
        return "you"

    # ------------------------------------------------------------ chances

    def opponent_of(self, seat: int):
        """The other seat's final score as `seat` plays against it (`versus.Opponent`): its
        points plus its exact rest of the game from the card its turn started from, under
        its fixed strategy (`strategy_of`)."""
        from .versus import Opponent

        other = self.games[1 - seat]
        strategy = self.strategy_of(1 - seat)
        model = self.model
        hit = model.final_score_cached(other.position, strategy, other.bonus_points)
        if hit is None:
            filled = len(other.position.filled)
            seconds = 2.0 ** -filled * model.budget.distribution_seconds()
            key = ("final score", model.final_score_key(other.position, strategy, other.banked))
            hit = self.compute(f"the final score of {self.name(1 - seat)}", seconds,
                               lambda: model.final_score_from(other.position, strategy,
                                                              other.bonus_points), key)
        return Opponent.of(hit)

    def win_turn(self, seat: int):
        """The seat's turn played to win against the other (`versus.WinTurn`), or None where
        it does not play to win or the turn's estimate is over `win_seconds` (then
        `skipped[seat]` holds the estimate)."""
        if not self.plays_to_win(seat) or self.games[seat].over:
            return None
        game, model = self.games[seat], self.model
        opponent = self.opponent_of(seat)
        hit = model.win_turn_cached(game.position, opponent, game.banked)
        if hit is not None:
            self.skipped.pop(seat, None)
            return hit
        seconds = model.win_seconds(game.position, opponent, game.banked)
        if self.win_seconds is not None and seconds > self.win_seconds:
            self.skipped[seat] = seconds
            return None
        self.skipped.pop(seat, None)
        key = ("win turn", model.win_turn_key(game.position, opponent, game.banked))
        return self.compute(f"the chances of winning of {self.name(seat)} this turn", seconds,
                            lambda: model.win_turn(game.position, opponent, game.banked), key)

    def win_advice(self, seat: int | None = None) -> Advice | None:
        """The moves of the seat to move ranked by the chance of winning, the moves the
        coach lists (`advice.moves_to_show`); None where not computed."""
        seat = self.current if seat is None else seat
        game = self.games[seat]
        if game.phase not in ("keep", "score"):
            return None
        turn = self.win_turn(seat)
        if turn is None:
            return None
        return moves_to_show(game.solution, game.dice, game.rolls_left,
                             lambda n: turn.advise(game.dice, n))

    def chances(self) -> list[float | None]:
        """Each seat's live chance of winning (P(win) + P(draw) / 2; see the module
        docstring), None where it is not computed."""
        if self.over:
            a, b = (g.banked for g in self.games)
            return [1.0 if a > b else 0.0 if a < b else 0.5,
                    1.0 if b > a else 0.0 if b < a else 0.5]
        out = [self._own_chance(seat) for seat in (0, 1)]
        for seat in (0, 1):
            other = 1 - seat
            if out[seat] is None and self.kinds[seat] in FIXED and \
                    self.plays_to_win(other) and out[other] is not None:
                out[seat] = 1.0 - out[other]
        return out

    def _own_chance(self, seat: int) -> float | None:
        if not self.plays_to_win(seat):
            return None
        game = self.games[seat]
        if seat == self.current:
            if game.phase in ("keep", "score"):
                advice = self.win_advice(seat)
                return None if advice is None else advice.best.value
            turn = self.win_turn(seat)  # before the roll (own dice)
            return None if turn is None else turn.position_value
        if self._moved[seat] or game.over:
            return self._last[seat]
        turn = self.win_turn(seat)  # not moved yet: its chance against the other's card
        return None if turn is None else turn.position_value

    # ------------------------------------------------------------ moves

    def play(self, move: dict) -> MatchDecision | BotMove | None:
        """Apply one move of the seat to move, given as data ({"keep": [...]}, {"score": box}
        or, with own dice, {"dice": [...]}): a person's decision is judged (`MatchDecision`),
        a bot's is recorded as it is (`BotMove`; `step` decides it)."""
        if self.over:
            raise InputError("the match is over.", param="move")
        if len(self.moves) >= 2 * MAX_MOVES:
            raise InputError(f"state: a match has at most {2 * MAX_MOVES} moves.",
                             param="state")
        seat, game = self.current, self.game
        if not isinstance(move, dict) or len(move) != 1:
            raise InputError('a move is one of {"keep": [dice]}, {"score": "box"}, '
                             '{"dice": [dice]}.', param="move")
        if "dice" in move:
            game.play(move)
            self.moves.append(dict(move))
            return None
        if self.is_bot(seat):
            return self._play_bot(seat, move, None)
        chosen, best, objective = self.judge(move)
        record = MatchDecision(game.turn, game.dice, game.rolls_left, chosen, best, game.banked,
                               seat=seat, objective=objective)
        self._apply(seat, move, chosen.value if objective == "win" else None)
        self.log.append(record)
        return record

    def judge(self, move: dict) -> tuple[Action, Action, str]:
        """(the option a person's move takes, the best option, "win" or "mean"), without
        playing it: by the chance of winning where it is computed, else by the expected
        score (the coach's `Game.judge`)."""
        game = self.game
        chosen, best = game.judge(move)  # (checks the move)
        advice = self.win_advice() if self.plays_to_win(self.current) else None
        if advice is None:
            return chosen, best, "mean"
        return _find(advice, chosen), advice.best, "win"

    def options(self) -> tuple[list[Action], str]:
        """Every move of the seat to move, best first, with what their values are ("win":
        chances of winning; "mean": points still to come)."""
        advice = self.win_advice() if self.plays_to_win(self.current) else None
        if advice is None:
            return list(self.game.options()), "mean"
        return advice.actions, "win"

    def bot_move(self) -> BotMove:
        """What the bot to move does now (not played: `step` plays it)."""
        seat, game = self.current, self.game
        if self.over or not self.is_bot(seat):
            raise InputError("no bot to move now.", param="move")
        if game.phase == "dice":
            raise InputError(f"type the dice of {self.name(seat)} first.", param="dice")
        kind = self.kinds[seat]
        objective = "mean"
        if kind == "win":
            advice = self.win_advice(seat)
            if advice is not None:
                objective = "win"
                action = advice.best
        if objective == "mean":
            action = self._strategy_move(seat, "optimal" if kind == "win" else kind)
        move = {"keep": list(action.keep)} if action.kind == "keep" else {"score": action.box.key}
        return BotMove(seat, game.turn, game.dice, game.rolls_left, move, action, objective)

    def step(self) -> BotMove:
        """Play the bot's next decision (`bot_move`)."""
        chosen = self.bot_move()
        self._play_bot(chosen.seat, chosen.move, chosen)
        return chosen

    def _play_bot(self, seat: int, move: dict, chosen: BotMove | None) -> BotMove:
        game = self.game
        if chosen is None:  # a recorded move, replayed
            option, _best = game.judge(move)
            win = self.win_advice(seat) if self.kinds[seat] == "win" else None
            action, objective = (option, "mean") if win is None else (_find(win, option),
                                                                      "win")
            chosen = BotMove(seat, game.turn, game.dice, game.rolls_left, dict(move), action,
                             objective)
        self._apply(seat, move, chosen.action.value if chosen.objective == "win" else None)
        self.bot_log.append(chosen)
        return chosen

    def _apply(self, seat: int, move: dict, chance: float | None) -> None:
        self.games[seat].play(move)
        self.moves.append(dict(move))
        self._last[seat] = chance
        self._moved[seat] = True

    def _strategy_move(self, seat: int, strategy: str) -> Action:
        """The move `strategy` makes now, as the advisor ranks it with its values; keeping
        every die stops rolling, as in the coach."""
        game, model = self.games[seat], self.model
        if strategy == "optimal":
            return game.options()[0]
        if model.has_strategy_solution(strategy):
            solution = model.strategy_solution(strategy)
        else:  # (the heuristic's box weights: one-box games solved by the DP)
            solution = self.compute(f"the {strategy} strategy", 1.0,
                                    lambda: model.strategy_solution(strategy),
                                    ("strategy", strategy))
        return advise(solution, game.position, game.dice, game.rolls_left).best

    def undo(self) -> None:
        """Take back the last decision of a person (and every move after it: the bots'
        replies, the dice typed in)."""
        seats = self._seats_of_moves()
        decisions = [i for i, (seat, m) in enumerate(zip(seats, self.moves, strict=True))
                     if "dice" not in m and not self.is_bot(seat)]
        if not decisions:
            raise InputError("undo: no decision of yours to take back yet.", param="move")
        replay = Match.from_state(self.model, {**self.state(),
                                               "moves": self.moves[: decisions[-1]]},
                                  self.win_seconds, self.compute)
        self.__dict__.update(replay.__dict__)

    def _seats_of_moves(self) -> list[int]:
        """The seat each move was made by (a replay without judging)."""
        games = [Game(self.solution, g.seed, self.own_dice) for g in self.games]
        seats = []
        for move in self.moves:
            a, b = (len(g.position.filled) for g in games)
            seat = self.first if a == b else (0 if a < b else 1)
            seats.append(seat)
            games[seat].play(move)
        return seats

    # ------------------------------------------------------------ state

    def state(self) -> dict:
        """What replays this match (`Match.from_state`)."""
        return {"seed": self.seed, "seats": list(self.kinds), "first": self.first,
                "own_dice": self.own_dice, "win_chances": self.win_chances,
                "moves": [dict(m) for m in self.moves]}

    @classmethod
    def from_state(cls, model, state: dict, win_seconds: float | None = None,
                   compute: Callable = _run) -> Match:
        """Replay a match's moves; InputError naming the first move that does not fit."""
        if not isinstance(state, dict):
            raise InputError("state: give an object with seed, seats, first, own_dice, "
                             "win_chances and moves.", param="state")
        moves = state.get("moves", [])
        if not isinstance(moves, list) or len(moves) > 2 * MAX_MOVES:
            raise InputError(f"state: moves must be a list of at most {2 * MAX_MOVES} moves.",
                             param="state")
        match = cls(model, state.get("seed", 0), state.get("seats", ("person", "optimal")),
                    state.get("first", 0), state.get("own_dice", False),
                    state.get("win_chances", True), win_seconds, compute)
        for i, move in enumerate(moves):
            try:
                match.play(move)
            except InputError as exc:
                raise InputError(f"state: move {i + 1} ({move!r}) does not fit the match: "
                                 f"{exc}", param="state") from None
        return match

    # ------------------------------------------------------------ views

    def view(self, with_options: bool = False) -> dict:
        """The match as JSON: the seat to move's game (`Game.view`: dice, phase, card,
        options...) at the top, and `match`: both seats (kind, name, card, points, chance),
        the decisions judged, the bots' moves, the state; at the end the review."""
        seat = self.current
        game = self.games[seat]
        out = game.view()
        out.pop("log", None)
        out.pop("review", None)
        chances = self.chances()
        seats = []
        for i, g in enumerate(self.games):
            seats.append({"seat": i, "kind": self.kinds[i], "name": self.name(i),
                          "card": g.card(), **g.bonuses(), "banked": g.banked,
                          "turn": g.turn, "over": g.over, "chance": chances[i],
                          "expected_final": g.expected_final(),
                          "plays_to_win": self.plays_to_win(i),
                          "skipped_seconds": self.skipped.get(i)})
        out["match"] = {"seats": seats, "current": seat, "first": self.first,
                        "bot_to_move": not self.over and self.is_bot(seat),
                        "over": self.over, "log": [d.as_json() for d in self.log],
                        "bot_moves": [b.as_json() for b in self.bot_log],
                        "win_chances": self.win_chances, "state": self.state()}
        out["state"] = self.state()
        out["log"] = [d.as_json() for d in self.log]
        if with_options and game.phase in ("keep", "score") and not self.is_bot(seat):
            opts, objective = self.options()
            best = opts[0].value if opts else 0.0
            out["objective"] = objective
            out["options"] = [dict(o.to_dict(best, game.banked, objective=objective),
                                   tie=abs(o.value - best) <= TIE and (
                                       i > 0 or (len(opts) > 1 and
                                                 abs(opts[1].value - best) <= TIE)))
                              for i, o in enumerate(opts)]
        if self.over:
            out["match"]["review"] = self.review()
        return out

    def review(self) -> dict:
        """The totals, the winner (None: a draw), and for each person: the decisions, how
        many were best, the chance of winning they cost (each one's loss in chance, added
        up), the points the ones judged by the expected score cost, and the worst ones."""
        totals = [g.banked for g in self.games]
        winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        people = []
        for seat in (0, 1):
            if self.is_bot(seat):
                continue
            mine = [d for d in self.log if d.seat == seat]
            costly = sorted((d for d in mine if not d.was_best),
                            key=lambda d: (d.objective != "win", -d.loss))
            people.append({"seat": seat, "decisions": len(mine),
                           "best_decisions": sum(d.was_best for d in mine),
                           "lost_chance": sum(d.loss for d in mine if d.objective == "win"),
                           "lost_points": sum(d.loss for d in mine if d.objective == "mean"),
                           "worst": [d.as_json() for d in costly[:3]]})
        return {"totals": totals, "winner": winner, "people": people}


def _find(advice: Advice, chosen: Action) -> Action:
    """The option of `advice` that is the same move as `chosen` (a keep of the same dice or
    the same box)."""
    for a in advice.actions:
        if a.kind == chosen.kind and (a.box.key == chosen.box.key if a.kind == "score"
                                      else a.keep == chosen.keep):
            return a
    raise InputError(f"{chosen.label()} is not a move here.", param="move")
