"""The FastAPI app of `yz serve`: one page (package data, no build step) and a JSON API.

Every game request carries the rule set (`{"variant": name}` or `{"yaml": text}`) and the
game's state (`{"seed", "own_dice", "moves"}`); the server replays the moves with
`yz.solver.coach.Game` (NumPy only, memoised per position) and answers with the game's view.
So the server keeps no games: two tabs or two people never share one.

What the server does keep is the solved strategies, in memory (a few, least recently used
dropped) and in yz's disk cache. Solving runs in one worker thread, one job at a time, so no two
numba parallel regions ever run at once whatever threading layer numba picked; a rule set too
big to solve quickly is refused before any work, from its state count.

Safety: a pasted rule set may only `extends` a built-in or a shipped example, never a path on
the server; bodies, rule texts and move lists have size limits; every bad request gets a 4xx
JSON answer `{"error": "..."}` naming the problem.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from yz.rules import InputError, RulesError, RuleTables, YzError

MAX_BODY = 256 * 1024  # bytes of a request body
MAX_YAML = 64 * 1024  # characters of a pasted rule set
MAX_MOVES = 400
MAX_ROLLS = 5_000  # distinct rolls (multisets of the dice): tables build in well under a second
MAX_STATES = 1_500_000  # entries of the value table: Yatzy, the biggest built-in, has 1.08 M
MAX_DISTRIBUTION_MEMORY = 4 << 30
KEPT_SOLUTIONS = 8
PASTED = "<pasted rules>"


class NotReady(Exception):
    """The rule set is not solved yet: the page asks /api/prepare and waits."""

    def __init__(self, status: dict):
        super().__init__("not solved yet")
        self.status = status


# ---------------------------------------------------------------- request bodies


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesRef(Strict):
    """A built-in rule set by name, or the YAML text of a rule set."""

    variant: str | None = Field(None, max_length=200, examples=["no-bonus"])
    yaml: str | None = Field(None, max_length=MAX_YAML)


class GameState(Strict):
    """A game as the browser keeps it: the seed, whether the dice are typed in, the moves."""

    seed: int = Field(0, ge=0, lt=2**63)
    own_dice: bool = False
    moves: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_MOVES)


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
    move: dict[str, Any] = Field(description='{"keep": [dice]}, {"score": "box"} or, with '
                                 'own dice, {"dice": [dice]}', examples=[{"keep": [6, 6]}])
    coach_threshold: float | None = Field(None, ge=0, description="refuse (with a warning) a "
                                          "decision that costs more than this, unless confirm")
    confirm: bool = False


# ---------------------------------------------------------------- rule sets and solving


class Solver:
    """Solved strategies and their exact distributions, solved one at a time in one thread."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yz-solver")
        self._lock = threading.Lock()
        self._jobs: dict[str, tuple[Future, dict]] = {}
        self._ready: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self._tables: OrderedDict[tuple, RuleTables] = OrderedDict()

    # rule sets --------------------------------------------------------------

    def tables(self, ref: RulesRef) -> RuleTables:
        """The compiled tables of a rule reference (checked, size-limited, memoised)."""
        if (ref.variant is None) == (ref.yaml is None):
            raise InputError("rules: give either variant (a built-in name) or yaml (the text "
                             "of a rule set), one of them.", param="rules")
        key = ("variant", ref.variant) if ref.variant is not None else \
            ("yaml", hashlib.sha256(ref.yaml.encode()).hexdigest())
        with self._lock:
            hit = self._tables.get(key)
            if hit is not None:
                self._tables.move_to_end(key)
                return hit
        t = build_tables(ref)
        with self._lock:
            self._tables[key] = t
            while len(self._tables) > 64:
                self._tables.popitem(last=False)
        return t

    # solving ----------------------------------------------------------------

    def status(self, t: RuleTables, start: bool = True) -> dict:
        """"ready", or the stage of the solve (started if need be), or the error it met."""
        with self._lock:
            if t.digest in self._ready:
                return {"status": "ready"}
            job = self._jobs.get(t.digest)
            if job is None:
                if not start:
                    return {"status": "unsolved"}
                progress = {"stage": "queued", "done": 0, "total": None}
                future = self._pool.submit(self._prepare, t, progress)
                job = self._jobs[t.digest] = (future, progress)
        future, progress = job
        if future.done():
            with self._lock:
                self._jobs.pop(t.digest, None)
            exc = future.exception()
            if exc is not None:
                if isinstance(exc, YzError):
                    raise exc
                raise YzError(f"solving {t.rules.name} failed: {exc}") from exc
            return {"status": "ready"}
        return {"status": "solving", **progress}

    def get(self, t: RuleTables):
        """(solution, distribution), waiting when they are only a cache load away; NotReady
        when a real solve is needed (the page then calls /api/prepare)."""
        with self._lock:
            hit = self._ready.get(t.digest)
            if hit is not None:
                self._ready.move_to_end(t.digest)
                return hit
        if not _cached_on_disk(t):
            raise NotReady(self.status(t, start=False))
        # Solved before (by this server or the command line): a load from the cache, done by
        # the worker like every solve.
        self.status(t)
        with self._lock:
            job = self._jobs.get(t.digest)
        if job is not None:
            try:
                job[0].result(timeout=30)
            except FutureTimeout:
                raise NotReady(self.status(t)) from None
            except Exception:
                pass  # status() below raises it as the answer's error
            self.status(t)
        with self._lock:
            return self._ready[t.digest]

    def _prepare(self, t: RuleTables, progress: dict) -> None:
        from yz.solver import Model

        model = Model(t, report=_StatusReporter(progress))
        progress.update(stage="solving", done=0, total=None)
        solution = model.solve()
        progress.update(stage="distribution", done=0, total=None)
        dist = model.distribution()
        with self._lock:
            self._ready[t.digest] = (solution, dist)
            while len(self._ready) > KEPT_SOLUTIONS:
                self._ready.popitem(last=False)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _cached_on_disk(t: RuleTables) -> bool:
    from yz.solver import Model

    model = Model(t)
    return model.is_solved() and model.has_distribution()


class _StatusReporter:
    """The library's notes and stages, into a solve's status (what /api/prepare answers)."""

    def __init__(self, progress: dict):
        self.progress = progress

    def note(self, message: str) -> None:
        if message.startswith("compiling"):
            self.progress.update(stage="compiling", done=0, total=None)

    @contextlib.contextmanager
    def stage(self, label: str, unit: str):
        stage = "distribution" if label.startswith("distribution") else "solving"
        self.progress.update(stage=stage, done=0, total=None)

        def step(done: int, total: int) -> None:
            self.progress.update(stage=stage, done=int(done), total=int(total))

        yield step


def build_tables(ref: RulesRef) -> RuleTables:
    """Load, check and compile a rule reference; refuse what is too big before compiling."""
    from yz.rules import builtin_names, compile_rules, example_names, load_rules, rules_from_text
    from yz.rules.loader import parse_yaml
    from yz.solver.distribution import check_distribution_memory
    from yz.solver.layout import build_layout

    names = builtin_names()
    examples = [f"example:{n}" for n in example_names()]
    if ref.variant is not None:
        if ref.variant not in names and ref.variant not in examples:
            raise RulesError(f"variant: '{ref.variant}' is not a built-in rule set; the "
                             f"built-ins are {', '.join(names + examples)} (paste a rule set's "
                             "text to play your own).", param="rules")
        rules = load_rules(ref.variant)
    else:
        data, _ = parse_yaml(ref.yaml, PASTED, "rule set", RulesError)
        parent = data.get("extends") if isinstance(data, dict) else None
        if parent is not None and parent not in names and parent not in examples:
            raise RulesError(f"{PASTED}: extends: a pasted rule set may only extend a built-in "
                             f"({', '.join(names + examples)}), not {parent!r}.",
                             param="rules")
        if isinstance(data, dict) and "name" not in data:
            raise RulesError(f"{PASTED}: name: give the rule set a name on a line of its own, "
                             "e.g. name: my-house.", param="rules")
        rules = rules_from_text(ref.yaml, PASTED)
    rolls = math.comb(rules.dice + rules.faces - 1, rules.dice)
    if rolls > MAX_ROLLS:
        raise RulesError(f"{rules.name}: {rules.dice} dice of {rules.faces} faces make "
                         f"{rolls:,} distinct rolls; this server plays games of up to "
                         f"{MAX_ROLLS:,} (fewer dice or faces), use yz on the command line "
                         "for bigger ones.", param="rules")
    t = compile_rules(rules)
    layout = build_layout(t)
    if layout.size > MAX_STATES:
        raise RulesError(f"{rules.name}: its strategy table has {layout.size:,} entries (2^boxes "
                         f"x upper totals x Yahtzee flag); this server solves up to "
                         f"{MAX_STATES:,}, which is too long a wait for a web page; use yz "
                         "solve on the command line.", param="rules")
    check_distribution_memory(t, layout, MAX_DISTRIBUTION_MEMORY)
    return t


def rules_json(t: RuleTables) -> dict:
    r = t.rules
    return {"variant": r.name, "description": r.description, "dice": r.dice,
            "faces": r.faces, "rolls": r.rolls,
            "categories": [{"key": c.key, "name": c.name, "section": c.section}
                           for c in r.categories],
            "upper_bonus": {"threshold": t.upper_threshold, "amount": t.upper_bonus}
            if t.upper_threshold else None,
            "yahtzee_bonus": t.yahtzee_bonus or None, "joker": r.joker.mode}


def distribution_json(dist) -> dict:
    return {"scores": dist.scores.tolist(), "probabilities": dist.probabilities.tolist(),
            "expected_score": dist.expected_score, "median": dist.median,
            "percentiles": dist.percentiles()}


# ---------------------------------------------------------------- the app


def static_dir() -> Path:
    return Path(str(resources.files("yz.web").joinpath("static")))


def create_app() -> FastAPI:
    """The app of `yz serve` (page at /, API under /api, its documentation at /docs)."""
    from yz.solver.coach import Game

    app = FastAPI(title="yz: play along with the optimal strategy",
                  description="Play a Yahtzee-family game (any rule set yz can express) with "
                  "the exact optimal strategy watching. The game's state lives with the "
                  "client: send the rules and the state with every request.",
                  version="1")
    solver = Solver()
    app.state.solver = solver
    app.router.on_shutdown.append(solver.shutdown)

    @app.middleware("http")
    async def limit_body(request: Request, call_next):
        if request.method in ("POST", "PUT", "PATCH"):
            length = request.headers.get("content-length")
            if length is None:
                return _error(411, "body: send a Content-Length (chunked bodies are not "
                              "accepted).")
            if not length.isdigit() or int(length) > MAX_BODY:
                return _error(413, f"body: larger than {MAX_BODY:,} bytes; a rule set is at "
                              f"most {MAX_YAML:,} characters and a game {MAX_MOVES} moves.")
        return await call_next(request)

    @app.exception_handler(YzError)
    async def yz_error(request: Request, exc: YzError):
        return _error(422, str(exc), exc.param)

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
            problems.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
        return JSONResponse({"error": "; ".join(problems[:10]), "problems": problems[:50]},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return _error(exc.status_code, str(exc.detail))

    static = static_dir()
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(static / "index.html", media_type="text/html")

    listing: list[dict] = []

    @app.get("/api/variants", summary="The built-in rule sets and shipped examples")
    def variants() -> list[dict]:
        from yz.rules import builtin_names, example_names, load_rules

        if not listing:  # shipped files: read once (two first requests both read them)
            fresh = []
            for name in [*builtin_names(), *(f"example:{n}" for n in example_names())]:
                rules = load_rules(name)
                fresh.append({"variant": name, "name": rules.name,
                              "boxes": len(rules.categories), "description": rules.description})
            listing[:] = fresh
        return listing

    @app.post("/api/rules", summary="Check a rule set (a built-in or pasted YAML)")
    def check_rules(req: RulesRequest) -> dict:
        t = solver.tables(req.rules)
        return {"rules": rules_json(t), **solver.status(t, start=False)}

    @app.post("/api/prepare", summary="Solve a rule set (once; later from the cache)",
              description="Starts the solve and the exact distribution if needed and answers "
              "at once: status 'solving' with the stage and progress, or 'ready' with the "
              "distribution of final scores. Poll until ready.")
    def prepare(req: RulesRequest) -> dict:
        t = solver.tables(req.rules)
        status = solver.status(t)
        out = {"rules": rules_json(t), **status}
        if status["status"] == "ready":
            solution, dist = solver.get(t)
            out.update(expected_score=solution.expected_score,
                       distribution=distribution_json(dist))
        return out

    def replay(req) -> tuple[Any, Any, Game]:
        t = solver.tables(req.rules)
        solution, dist = solver.get(t)
        return solution, dist, Game.from_state(solution, req.state.model_dump())

    def view(game: Game, dist, with_options: bool = False) -> dict:
        out = game.view(with_options)
        if game.over:
            out["review"] = game.review(dist)
        return out

    @app.post("/api/new", summary="Start a game (the first roll is made)")
    def new_game(req: NewGameRequest) -> dict:
        import secrets

        t = solver.tables(req.rules)
        solution, dist = solver.get(t)
        seed = req.seed if req.seed is not None else secrets.randbelow(2**31)
        return {"game": view(Game(solution, seed, req.own_dice), dist)}

    @app.post("/api/state", summary="The view of a game (its card, dice, log)")
    def game_state(req: StateRequest) -> dict:
        _, dist, game = replay(req)
        return {"game": view(game, dist)}

    @app.post("/api/hint", summary="Every option now, with its expected final score and loss")
    def hint(req: StateRequest) -> dict:
        _, dist, game = replay(req)
        out = view(game, dist, with_options=True)
        return {"options": out.pop("options"), "game": out}

    @app.post("/api/move", summary="Make a move: keep dice, score a box, or type in dice",
              description="With coach_threshold, a decision costing more than it is not "
              "played unless confirm is true: the answer then has a warning instead.")
    def move(req: MoveRequest) -> dict:
        _, dist, game = replay(req)
        if len(req.state.moves) >= MAX_MOVES:
            raise InputError(f"state: a game has at most {MAX_MOVES} moves.", param="state")
        if req.coach_threshold is not None and not req.confirm and "dice" not in req.move:
            chosen, best = game.judge(req.move)
            loss = best.value - chosen.value
            if loss > req.coach_threshold:
                return {"warning": {"chosen": chosen.as_json(best.value, game.banked),
                                    "best": best.as_json(best.value, game.banked),
                                    "loss": loss, "threshold": req.coach_threshold},
                        "game": view(game, dist)}
        decision = game.play(req.move)
        return {"decision": decision.as_json() if decision else None, "game": view(game, dist)}

    @app.post("/api/undo", summary="Take back the last decision")
    def undo(req: StateRequest) -> dict:
        _, dist, game = replay(req)
        game.undo()
        return {"game": view(game, dist)}

    return app


def _error(status: int, message: str, param: str | None = None) -> JSONResponse:
    body = {"error": message}
    if param:
        body["param"] = param
    return JSONResponse(body, status_code=status)
