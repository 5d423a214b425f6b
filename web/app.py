"""The FastAPI app of `yz serve`: one page (package data, no build step) and a JSON API.

Every game request carries the rule set (`{"variant": name}` or `{"yaml": text}`) and the
game's state (`{"seed", "own_dice", "moves"}`); the server replays the moves with
`yz.solver.coach.Game` (NumPy only, memoised per position) and answers with the game's view.
So the server keeps no games: two tabs or two people never share one.

What the server does keep is the compiled rule sets (`web.rulesets`) and the solved
strategies (`web.solving`: from yz's disk cache, or solved one at a time in one worker thread,
or read from the store of a layered solve the server was given).
Every request first passes the guards (`web.guards`: Host and origin, body size, security
headers); every bad request gets a 4xx JSON answer `{"error": "..."}` naming the problem.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import fastapi_offline  # Swagger UI's files, for /docs without a CDN
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from yz.rules import InputError, YzError
from yz.solver import Model
from yz.solver.budget import MAX_MOVES
from yz.solver.report import SILENT, Reporter

from .guards import BodyLimit, SecurityHeaders, TrustedHosts
from .rulesets import RuleSets, rules_json
from .settings import MAX_YAML_CHARS, WebSettings
from .solving import Busy, NotReady, Solver

# ---------------------------------------------------------------- request and error bodies


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# The most a move's parts can be: a die shows at most a few digits, a box key is a short name.
MOVE_NUMBER_DIGITS = 6
MOVE_TEXT_CHARS = 100
MOVE_LIST_ITEMS = 20


def small_move(move: dict[str, Any]) -> dict[str, Any]:
    """Refuse a move too big to be one before the game reads it: the game's own messages
    quote what they refuse, and a number of 4,000 digits or a key of 60,000 characters has
    no place in an error message."""
    for key, value in move.items():
        items = value if isinstance(value, list) else [value]
        if len(key) > MOVE_TEXT_CHARS or len(items) > MOVE_LIST_ITEMS:
            raise ValueError('too big to be a move (a move is {"keep": [dice]}, '
                             '{"score": "box"} or {"dice": [dice]}).')
        for item in items:
            if isinstance(item, int) and abs(item) >= 10**MOVE_NUMBER_DIGITS:
                raise ValueError(f"{key}: a number of more than {MOVE_NUMBER_DIGITS} digits is "
                                 "no die's face.")
            if isinstance(item, str) and len(item) > MOVE_TEXT_CHARS:
                raise ValueError(f"{key}: a text of {len(item):,} characters is no box's "
                                 f"key (a key has at most {MOVE_TEXT_CHARS}).")
    return move


Move = Annotated[dict[str, Any], AfterValidator(small_move)]


class RulesRef(Strict):
    """A built-in rule set by name, or the YAML text of a rule set."""

    variant: str | None = Field(None, max_length=200, examples=["no-bonus"])
    yaml: str | None = Field(None, max_length=MAX_YAML_CHARS)


class GameState(Strict):
    """A game as the browser keeps it: the seed, whether the dice are typed in, the moves."""

    seed: int = Field(0, ge=0, lt=2**63)
    own_dice: bool = False
    moves: list[Move] = Field(default_factory=list, max_length=MAX_MOVES)


class RulesRequest(Strict):
    rules: RulesRef


class NewGameRequest(Strict):
    rules: RulesRef
    seed: int | None = Field(None, ge=0, lt=2**63, description="default: a random seed")
    own_dice: bool = False


class StateRequest(Strict):
    rules: RulesRef
    state: GameState


class MoveRequest(Strict):
    rules: RulesRef
    state: GameState
    move: Move = Field(description='{"keep": [dice]}, {"score": "box"} or, with own dice, '
                       '{"dice": [dice]}', examples=[{"keep": [6, 6]}])
    coach_threshold: float | None = Field(None, ge=0, allow_inf_nan=False,
                                          description="refuse (with a warning) a decision "
                                          "that costs more than this, unless confirm")
    confirm: bool = False


class ErrorBody(BaseModel):
    """Every refusal: what is wrong, and which field when one is at fault."""

    error: str
    param: str | None = None
    problems: list[str] | None = None


def _errors(*statuses: int) -> dict:
    return {s: {"model": ErrorBody} for s in (400, 403, 411, 413, 421, 422, *statuses)}


NOT_SOLVED = {409: {"model": ErrorBody, "description": "the rule set is not solved yet: "
                    "POST it to /api/prepare and poll until ready"}}


# ---------------------------------------------------------------- the app


def static_dir() -> Path:
    return Path(str(resources.files("yz.web").joinpath("static")))


def create_app(settings: WebSettings | None = None, report: Reporter = SILENT) -> FastAPI:
    """The app of `yz serve` (page at /, API under /api, its documentation at /docs); the
    settings' stores are checked and opened first (StoreError when one is not a finished
    layered solve of its rule set), saying to `report` what takes a while."""
    settings = settings or WebSettings()
    rule_sets = RuleSets(settings, report)
    solver = Solver(settings, rule_sets.stores)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        solver.shutdown()

    app = FastAPI(title="yz: play along with the optimal strategy",
                  description="Play a Yahtzee-family game (any rule set yz can express) with "
                  "the exact optimal strategy watching. The game's state lives with the "
                  "client: send the rules and the state with every request.",
                  version="1", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.solver = solver
    app.state.rule_sets = rule_sets
    _add_error_handlers(app)
    _add_pages(app)
    _add_rule_routes(app, rule_sets, solver)
    _add_game_routes(app, rule_sets, solver)
    from .match_routes import add_match_routes  # (two-player games)

    add_match_routes(app, rule_sets, solver)
    # The last added runs first: hosts, then headers on every answer, then the body's size.
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(TrustedHosts, settings=settings)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    """Every refusal as `{"error": ...}`: 422 for bad input, 429 when busy, 409 not solved."""

    @app.exception_handler(YzError)
    async def yz_error(request: Request, exc: YzError):
        return _error(422, public_message(str(exc)), exc.param)

    @app.exception_handler(Busy)
    async def busy(request: Request, exc: Busy):
        return _error(429, public_message(str(exc)), exc.param, headers={"Retry-After": "30"})

    @app.exception_handler(NotReady)
    async def not_ready(request: Request, exc: NotReady):
        return JSONResponse({"error": "the rule set is not solved yet: POST the rules to "
                             "/api/prepare and poll it until it says ready.", **exc.status},
                            status_code=409)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        problems = []
        for err in exc.errors():
            if err.get("type") == "json_invalid":
                where = err.get("loc", ("body", 0))[-1]
                reason = (err.get("ctx") or {}).get("error", "")
                problems.append(f"body: not valid JSON (at character {where}: {reason}).")
                continue
            loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            problems.append(public_message(f"{loc or 'body'}: {msg}"))
        return JSONResponse({"error": "; ".join(problems[:10]), "problems": problems[:50]},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        detail = str(exc.detail)
        cause = exc.__cause__
        if exc.status_code == 400 and isinstance(cause, ValueError):
            # FastAPI's answer to a body JSON cannot read for a reason other than its syntax
            # (a number of more digits than Python converts): say which.
            detail = f"body: not readable as JSON ({cause})."
        return _error(exc.status_code, public_message(detail), headers=exc.headers)  # Allow


def _add_pages(app: FastAPI) -> None:
    """The page, its files, and the API's documentation from local files (no CDN)."""
    static = static_dir()
    docs_files = Path(str(resources.files(fastapi_offline).joinpath("static")))
    app.mount("/static/docs", StaticFiles(directory=docs_files), name="docs-files")
    app.mount("/static", StaticFiles(directory=static), name="static")
    docs = get_swagger_ui_html(openapi_url="/openapi.json", title=f"{app.title}: API",
                               swagger_js_url="/static/docs/swagger-ui-bundle.js",
                               swagger_css_url="/static/docs/swagger-ui.css",
                               swagger_favicon_url="/static/docs/favicon.png")
    # Swagger UI starts from one inline script: allowed by its hash, and nothing else inline.
    scripts = re.findall(rb"<script>(.*?)</script>", docs.body, re.S)
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'"
                      for s in scripts)
    docs_policy = (f"default-src 'none'; script-src 'self' {hashes}; style-src 'self' "
                   "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri "
                   "'none'; form-action 'none'; frame-ancestors 'none'")
    docs.headers["content-security-policy"] = docs_policy

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(static / "index.html", media_type="text/html")

    @app.get("/docs", include_in_schema=False)
    def api_docs():
        return docs


def _add_rule_routes(app: FastAPI, rule_sets: RuleSets, solver: Solver) -> None:
    """Listing, checking and preparing (solving) rule sets."""

    @app.get("/api/variants", summary="The built-in rule sets and shipped examples",
             description="Each says whether this server plays it (`playable`) and, if not, "
             "why (`why`: too long to solve here, with the estimate).", responses=_errors())
    def variants() -> list[dict]:
        return rule_sets.listing()

    @app.post("/api/rules", summary="Check a rule set (a built-in or pasted YAML)",
              responses=_errors(429))
    def check_rules(req: RulesRequest) -> dict:
        model = model_of(rule_sets, req.rules)
        return {"rules": rules_json(model, rule_sets.from_store(model)),
                **solver.status(model, start=False)}

    @app.post("/api/prepare", summary="Solve a rule set (once; later from the cache)",
              description="Starts the solve and the exact distribution if needed and answers "
              "at once: status 'solving' with the stage, its progress, the whole solve's "
              "percent and the estimated seconds left (eta_seconds), or 'ready' with the "
              "distribution of final scores. Poll until ready: a solve nobody polls for a "
              "while is cancelled. 429 when the server is solving its most at once.",
              responses=_errors(429))
    def prepare(req: RulesRequest) -> dict:
        model = model_of(rule_sets, req.rules)
        status = solver.status(model)
        out = {"rules": rules_json(model, rule_sets.from_store(model)), **status}
        if status["status"] == "ready":
            solution, dist = solver.get(model)
            out.update(expected_score=solution.expected_score,
                       distribution=distribution_json(dist))
        return out


def _add_game_routes(app: FastAPI, rule_sets: RuleSets, solver: Solver) -> None:
    """A game: start, view, hint, move, undo; the state travels with every request."""
    from yz.solver.coach import Game

    errors = {**_errors(429), **NOT_SOLVED}

    def replay(req) -> tuple[Any, Game]:
        solution, dist = solver.get(model_of(rule_sets, req.rules))
        return dist, Game.from_state(solution, req.state.model_dump())

    @app.post("/api/new", summary="Start a game (the first roll is made)", responses=errors)
    def new_game(req: NewGameRequest) -> dict:
        import secrets

        solution, dist = solver.get(model_of(rule_sets, req.rules))
        seed = req.seed if req.seed is not None else secrets.randbelow(2**31)
        return {"game": game_view(Game(solution, seed, req.own_dice), dist)}

    @app.post("/api/state", summary="The view of a game (its card, dice, log)",
              responses=errors)
    def game_state(req: StateRequest) -> dict:
        dist, game = replay(req)
        return {"game": game_view(game, dist)}

    @app.post("/api/hint", summary="Every option now, with its expected final score and loss",
              responses=errors)
    def hint(req: StateRequest) -> dict:
        dist, game = replay(req)
        out = game_view(game, dist, with_options=True)
        return {"options": out.pop("options"), "game": out}

    @app.post("/api/move", summary="Make a move: keep dice, score a box, or type in dice",
              description="With coach_threshold, a decision costing more than it is not "
              "played unless confirm is true: the answer then has a warning instead.",
              responses=errors)
    def move(req: MoveRequest) -> dict:
        dist, game = replay(req)
        if len(req.state.moves) >= MAX_MOVES:
            raise InputError(f"state: a game has at most {MAX_MOVES} moves.", param="state")
        if req.coach_threshold is not None and not req.confirm and "dice" not in req.move:
            chosen, best = game.judge(req.move)
            loss = best.value - chosen.value
            if loss > req.coach_threshold:
                return {"warning": {"chosen": chosen.as_json(best.value, game.banked),
                                    "best": best.as_json(best.value, game.banked),
                                    "loss": loss, "threshold": req.coach_threshold},
                        "game": game_view(game, dist)}
        decision = game.play(req.move)
        return {"decision": decision.as_json() if decision else None,
                "game": game_view(game, dist)}

    @app.post("/api/undo", summary="Take back the last decision", responses=errors)
    def undo(req: StateRequest) -> dict:
        dist, game = replay(req)
        game.undo()
        return {"game": game_view(game, dist)}


def model_of(rule_sets: RuleSets, ref: RulesRef) -> Model:
    return rule_sets.model(ref.variant, ref.yaml)


def game_view(game, dist, with_options: bool = False) -> dict:
    out = game.view(with_options)
    if game.over:
        out["review"] = game.review(dist)
    return out


def distribution_json(dist) -> dict | None:
    """The exact distribution (`Distribution.to_dict`); None for games with saved rolls too
    big for it."""
    return None if dist is None else dist.to_dict()


# Python's own words when it refuses to convert a number of too many digits, which tell the
# reader to call a Python function: said here in the page's words.
INT_DIGITS_LIMIT = re.compile(
    r"Exceeds the limit \((\d+) digits\) for integer string conversion"
    r"(?:: value has (\d+) digits)?(?:; use sys\.set_int_max_str_digits\(\) to increase the "
    r"limit)?")
LONG_NUMBER = re.compile(r"\d{31,}")
LONG_WORD = re.compile(r"\S{81,}")
MAX_MESSAGE = 4_000  # characters of an error message


def public_message(text: str) -> str:
    """An error message as a person should read it, whatever it quotes: Python's advice on
    long numbers in words, a long number or word quoted back (a seed of 4,000 digits, a key of
    60,000 characters) shortened to its start and its length, and at most MAX_MESSAGE
    characters in all."""
    def digits_limit(m: re.Match) -> str:
        has = f": this one has {int(m[2]):,}" if m[2] else ""
        return f"a number has more than {int(m[1]):,} digits{has}"

    text = INT_DIGITS_LIMIT.sub(digits_limit, text)
    text = LONG_NUMBER.sub(lambda m: f"{m[0][:12]}… (a number of {len(m[0]):,} digits)", text)
    text = LONG_WORD.sub(lambda m: f"{m[0][:40]}… ({len(m[0]):,} characters)", text)
    return text if len(text) <= MAX_MESSAGE else f"{text[:MAX_MESSAGE]}… (cut short)"


def _error(status: int, message: str, param: str | None = None,
           headers: dict | None = None) -> JSONResponse:
    body = {"error": message}
    if param:
        body["param"] = param
    return JSONResponse(body, status_code=status, headers=headers)
