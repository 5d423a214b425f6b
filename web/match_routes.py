"""The two-player game of `yz serve`: a person against a bot, or two people at one device.

As the one-player game, a match lives in the browser: every request carries the rules and the
match's state (`{"seed", "seats", "first", "own_dice", "win_chances", "moves"}`, the bots'
moves among the moves) and the server replays it with `yz.solver.match.Match`. A bot's moves
are asked for one at a time (`/api/match/bot`), so the page shows them one by one.

The chances of winning are numba work (a need sweep, the distribution of the other's final
score): never run in a request's thread, but on the solver's one thread (`Solver.work`), one
piece at a time. A request that needs a piece not yet computed answers 202 with `pending`
(what, and the seconds left by the estimate) and the page sends it again until it is done; a
turn estimated over the server's `win_seconds` is judged by the expected score instead.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import Field
from yz.rules import InputError
from yz.solver.budget import MAX_MOVES

from .app import NOT_SOLVED, Move, RulesRef, Strict, _errors, model_of
from .rulesets import RuleSets
from .solving import Solver

Seat = Literal["person", "optimal", "greedy", "heuristic", "win"]


class MatchState(Strict):
    """A match as the browser keeps it: the seed, the two seats (the first is a person),
    who starts, whether the dice are typed in and the chances computed, every move in turn."""

    seed: int = Field(0, ge=0, lt=2**63)
    seats: tuple[Seat, Seat] = ("person", "optimal")
    first: int = Field(0, ge=0, le=1)
    own_dice: bool = False
    win_chances: bool = True
    moves: list[Move] = Field(default_factory=list, max_length=2 * MAX_MOVES)


class NewMatchRequest(Strict):
    rules: RulesRef
    seed: int | None = Field(None, ge=0, lt=2**63, description="default: a random seed")
    seats: tuple[Seat, Seat] = Field(("person", "optimal"), description="seat 0 and seat 1: "
                                     "a person, a bot, or two people")
    first: int = Field(0, ge=0, le=1, description="the seat that starts")
    own_dice: bool = False
    win_chances: bool = Field(True, description="judge the people's decisions by the chance "
                              "of winning and show the chances (false: by the expected score)")


class MatchRequest(Strict):
    rules: RulesRef
    state: MatchState


class MatchMoveRequest(Strict):
    rules: RulesRef
    state: MatchState
    move: Move = Field(description='{"keep": [dice]}, {"score": "box"} or, with own dice, '
                       '{"dice": [dice]}', examples=[{"keep": [6, 6]}])
    coach_threshold: float | None = Field(None, ge=0, allow_inf_nan=False, description=
                                          "refuse (with a warning) a decision that costs more "
                                          "than this (percentage points of the chance of "
                                          "winning; points where it is judged by the expected "
                                          "score), unless confirm")
    confirm: bool = False


class Pending(Exception):
    """A piece of numba work the answer needs and that is not done yet."""

    def __init__(self, what: str, seconds: float, make, key) -> None:
        super().__init__(what)
        self.what, self.seconds, self.make, self.key = what, seconds, make, key


def _pending(what: str, seconds: float, make, key=None):
    raise Pending(what, seconds, make, key)


def add_match_routes(app: FastAPI, rule_sets: RuleSets, solver: Solver) -> None:
    """The two-player game's routes, under /api/match."""
    from yz.solver.match import Match

    errors = {**_errors(429), **NOT_SOLVED,
              202: {"description": "a piece of work the answer needs is running: send the "
                    "same request again (`pending`: what, and the seconds left)"}}
    settings = solver.settings

    def answer(rules: RulesRef, state: dict, then) -> Any:
        """`then(match)` on the match replayed; 202 while the work it needs runs."""
        model = model_of(rule_sets, rules)
        solver.get(model)  # (NotReady: the page prepares the rules first)
        try:
            match = Match.from_state(model, state, settings.win_seconds, _pending)
            return then(match)
        except Pending as work:
            key = (model.tables.digest, work.key)
            status = solver.work(key, work.what, work.seconds, work.make)
            return JSONResponse({"pending": status}, status_code=202)

    @app.post("/api/match/new", summary="Start a two-player game (a person against a bot, "
              "or two people)", responses=errors)
    def new_match(req: NewMatchRequest) -> dict:
        import secrets

        seed = req.seed if req.seed is not None else secrets.randbelow(2**31)
        state = {"seed": seed, "seats": list(req.seats), "first": req.first,
                 "own_dice": req.own_dice, "win_chances": req.win_chances, "moves": []}
        return answer(req.rules, state, lambda match: {"game": match.view()})

    @app.post("/api/match/state", summary="The view of a match: the seat to move's dice, "
              "both cards, the chances of winning", responses=errors)
    def match_state(req: MatchRequest) -> dict:
        return answer(req.rules, req.state.model_dump(), lambda match: {"game": match.view()})

    @app.post("/api/match/hint", summary="Every option of the person to move, by the chance "
              "of winning (or the expected final score)", responses=errors)
    def match_hint(req: MatchRequest) -> dict:
        def hint(match) -> dict:
            view = match.view(with_options=True)
            return {"options": view.pop("options", []), "objective": view.get("objective"),
                    "game": view}

        return answer(req.rules, req.state.model_dump(), hint)

    @app.post("/api/match/move", summary="A person's move: keep dice, score a box, or type "
              "in dice", description="With coach_threshold, a decision costing more than it "
              "is not played unless confirm is true: the answer then has a warning instead.",
              responses=errors)
    def match_move(req: MatchMoveRequest) -> dict:
        def move(match) -> dict:
            if match.over or (match.is_bot(match.current) and "dice" not in req.move):
                raise InputError("it is not a person's turn to move: ask /api/match/bot for "
                                 "the bot's move.", param="move")
            if req.coach_threshold is not None and not req.confirm and "dice" not in req.move:
                chosen, best, objective = match.judge(req.move)
                loss = best.value - chosen.value
                limit = req.coach_threshold / (100 if objective == "win" else 1)
                if loss > limit:
                    banked = match.game.banked
                    return {"warning": {
                        "chosen": chosen.to_dict(best.value, banked, objective=objective),
                        "best": best.to_dict(best.value, banked, objective=objective),
                        "loss": loss, "objective": objective,
                        "threshold": req.coach_threshold}, "game": match.view()}
            decision = match.play(req.move)
            return {"decision": decision.as_json() if decision else None,
                    "game": match.view()}

        return answer(req.rules, req.state.model_dump(), move)

    @app.post("/api/match/bot", summary="The bot's next decision, played (one at a time)",
              responses=errors)
    def match_bot(req: MatchRequest) -> dict:
        def step(match) -> dict:
            moved = match.step()
            return {"bot": moved.as_json(), "game": match.view()}

        return answer(req.rules, req.state.model_dump(), step)

    @app.post("/api/match/undo", summary="Take back the last decision of a person (and the "
              "bot's replies)", responses=errors)
    def match_undo(req: MatchRequest) -> dict:
        def undo(match) -> dict:
            match.undo()
            return {"game": match.view()}

        return answer(req.rules, req.state.model_dump(), undo)
