"""The solved strategies behind `yz serve`: loaded from yz's cache, or solved one at a time.

A rule set solved before (by this server or on the command line) is loaded from the disk cache
in the thread of the request that needs it, so it never waits behind a solve. A rule set never
solved is queued for the one worker thread, which solves one at a time (each solve uses every
core; two at once would only share them). At most `max_queued` solves
wait or run; more is refused (the page says to try again). The page polls a solve's status
while it waits; a solve nobody has polled for `abandon_after` seconds is cancelled between two
parts of its work (an exception raised in the model's progress report aborts it, and nothing
is cached).

A rule set the server was given a store of (`WebSettings.stores`, opened by `web.rulesets`) is
always ready: its values are read from the store's folder, a few rows per position, and it is
played without the exact distribution.

A strategy is a table of numbers keyed by the digest of the game's scoring, so rule sets that
score alike share it. Its names (boxes, description) are never shared: every answer is given
with the tables of the request's own rule set.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from yz.rules import YzError
from yz.solver import Model
from yz.solver.report import Reporter

from .settings import WebSettings

KEPT_SOLUTIONS = 8  # strategies kept in memory (least recently used dropped)


class NotReady(Exception):
    """The rule set is not solved yet: the page asks /api/prepare and waits."""

    def __init__(self, status: dict):
        super().__init__("not solved yet")
        self.status = status


class Busy(YzError):
    """Too many solves are waiting: the request is refused, to be tried again later."""


class Abandoned(Exception):
    """Raised in a solve's progress callback when nobody waits for the solve any more."""


@dataclass
class Job:
    """One queued or running solve, and what the page is told about it."""

    model: Model
    solve_estimate: float  # seconds of the solve, kernels compiled (`Budget.values_seconds`)
    distribution_estimate: float  # of the exact distribution after it (0: none computed)
    compile_estimate: float  # seconds of compiling first (0 when compiled)
    last_polled: float
    future: Future | None = None
    stage: str = "queued"
    done: int = 0
    total: int | None = None
    stage_started: float = field(default_factory=time.monotonic)
    shown: float = 0.0  # the largest share shown so far: progress never goes back

    def report(self, stage: str, done: int = 0, total: int | None = None) -> None:
        if stage != self.stage:
            self.stage_started = time.monotonic()
        self.stage, self.done, self.total = stage, int(done), total

    def view(self, ahead: int) -> dict:
        """The status the page shows: the stage, its progress, the whole solve's percentage
        and the estimated seconds left."""
        spans = {"compiling": self.compile_estimate, "solving": self.solve_estimate,
                 "distribution": self.distribution_estimate}
        fraction = self.done / self.total if self.total else 0.0
        if self.stage == "compiling":  # no progress reports: the time spent, capped
            elapsed = time.monotonic() - self.stage_started
            fraction = min(0.95, elapsed / max(1.0, self.compile_estimate))
        order = list(spans)
        before = order.index(self.stage) if self.stage in spans else 0
        spent = sum(spans[s] for s in order[:before]) + fraction * spans.get(self.stage, 0.0)
        whole = sum(spans.values())
        # (a stage's estimate can be long, and the next stage then starts below it)
        self.shown = max(self.shown, spent / whole if whole else 0.0)
        spent = self.shown * whole
        out = {"status": "solving", "stage": self.stage, "done": self.done, "total": self.total,
               "percent": round(100 * self.shown, 1),
               "eta_seconds": round(max(0.0, whole - spent), 1),
               "estimate_seconds": round(whole, 1)}
        if self.stage == "queued":
            out["ahead"] = ahead
        return out


class Solver:
    """Solved strategies and their exact distributions (see the module docstring)."""

    def __init__(self, settings: WebSettings, stores: dict | None = None) -> None:
        self.settings = settings
        self.stores = stores or {}  # tables digest -> Solution read from a store
        self._pool: ThreadPoolExecutor | None = None  # made at the first solve
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._ready: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self._loading: dict[str, threading.Lock] = {}
        self._work: dict = {}  # key: (future, started, estimated seconds) of `work`

    # ------------------------------------------------------------ answers

    def status(self, model: Model, start: bool = True) -> dict:
        """"ready", or the stage of the solve (queued first if need be and `start`), or the
        error it met. Each call counts as someone still waiting for the solve."""
        if self._solved(model) is not None:
            return {"status": "ready"}
        with self._lock:
            job = self._jobs.get(model.tables.digest)
            if job is not None:
                job.last_polled = time.monotonic()
        if job is None:
            if not start:
                return {"status": "unsolved"}
            job = self._enqueue(model)
        if job.future is not None and job.future.done():
            return self._finished(model, job)
        return job.view(self._position(job))

    def get(self, model: Model):
        """(solution, distribution) with `model`'s names; NotReady when a solve is needed."""
        hit = self._solved(model)
        if hit is None:
            raise NotReady(self.status(model, start=False))
        return hit

    def work(self, key, what: str, seconds: float, make) -> dict:
        """Run `make()` (numba work, such as a turn's chances of winning) on the solver's one
        thread, after the solves and work before it; its status now: {"status": "working",
        "what", "eta_seconds"}. `key` names the work: asked again while it runs, the same
        job is reported; asked again once it is done, its error is raised (a YzError as it
        is), or, the result having been used or let go, it is run again. Busy when
        `max_work` pieces already wait."""
        with self._lock:
            job = self._work.get(key)
            if job is not None and job[0].done():
                del self._work[key]
                exc = job[0].exception()
                if exc is not None:
                    raise exc if isinstance(exc, YzError) else YzError(
                        f"{what} failed: {exc}") from exc
                job = None
            if job is None:
                waiting = sum(1 for f, _s, _w in self._work.values() if not f.done())
                if waiting >= self.settings.max_work:
                    raise Busy(f"the server is working on {waiting} other pieces of work, "
                               "its most at once; try again in a moment.", param="state")
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=1,
                                                    thread_name_prefix="yz-solver")
                job = (self._pool.submit(make), time.monotonic(), seconds)
                self._work[key] = job
        _future, started, estimate = job
        left = max(0.0, estimate - (time.monotonic() - started))
        return {"status": "working", "what": what, "eta_seconds": round(left, 1),
                "estimate_seconds": round(estimate, 1)}

    def shutdown(self) -> None:
        """Cancel every solve (a running one stops at its next progress report)."""
        with self._lock:
            for job in self._jobs.values():
                job.last_polled = float("-inf")
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ memory and disk

    def _solved(self, model: Model):
        """The strategy from memory, or loaded from the disk cache in this thread (one load
        per rule set at a time), with `model`'s names; None when it must be solved."""
        t = model.tables
        stored = self.stores.get(t.digest)
        if stored is not None:
            return _named((stored, None), model)
        with self._lock:
            hit = self._ready.get(t.digest)
            if hit is not None:
                self._ready.move_to_end(t.digest)
                return _named(hit, model)
            loading = self._loading.setdefault(t.digest, threading.Lock())
        with loading:
            with self._lock:
                hit = self._ready.get(t.digest)
            if hit is None:
                hit = load_cached(model)
                if hit is not None:
                    self._keep(t.digest, hit)
        with self._lock:
            self._loading.pop(t.digest, None)
        return _named(hit, model) if hit is not None else None

    def _keep(self, digest: str, hit: tuple) -> None:
        with self._lock:
            self._ready[digest] = hit
            while len(self._ready) > KEPT_SOLUTIONS:
                self._ready.popitem(last=False)

    # ------------------------------------------------------------ the queue

    def _enqueue(self, model: Model) -> Job:
        t = model.tables
        # (what `rulesets` checked against the limit: `Budget.prepare_seconds`)
        solving = model.budget.values_seconds()
        distribution = model.budget.distribution_seconds() if with_distribution(model) else 0.0
        compiling = model.budget.compile_seconds("solve", "distribution")
        with self._lock:
            job = self._jobs.get(t.digest)
            if job is not None:
                return job
            for digest, old in list(self._jobs.items()):  # errors nobody came back for
                if old.future is not None and old.future.done() and self._abandoned(old):
                    del self._jobs[digest]
            waiting = sum(1 for j in self._jobs.values()
                          if j.future is None or not j.future.done())
            if waiting >= self.settings.max_queued:
                raise Busy(f"the server is solving {waiting} other rule sets, its most at "
                           "once; try again in a minute (games of rule sets solved before are "
                           "not affected).", param="rules")
            job = Job(model, solving, distribution, compiling, last_polled=time.monotonic())
            self._jobs[t.digest] = job
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yz-solver")
            job.future = self._pool.submit(self._run, job)
        return job

    def _position(self, job: Job) -> int:
        """How many solves run or wait before this one (the queue is first come, first
        served: the jobs in the order they were added)."""
        with self._lock:
            ahead = 0
            for other in self._jobs.values():
                if other is job:
                    break
                ahead += other.future is not None and not other.future.done()
        return ahead

    def _finished(self, model: Model, job: Job) -> dict:
        t = model.tables
        with self._lock:
            if self._jobs.get(t.digest) is job:
                del self._jobs[t.digest]
        if job.future.cancelled():  # the server stopped before it ran: queue it again
            return self.status(model)
        exc = job.future.exception()
        if isinstance(exc, YzError):
            raise exc
        if isinstance(exc, Abandoned):  # given up just as the page came back: start again
            return self.status(model)
        if exc is not None:
            raise YzError(f"solving {t.rules.name} failed: {exc}") from exc
        return {"status": "ready"}

    def _run(self, job: Job) -> None:
        """The worker: solve (compiling first if need be), then the exact distribution,
        checking at every progress report that someone still waits."""
        t = job.model.tables
        # A model of the worker's own, reporting to the job: the request's model is shared
        # with other requests, and its reporter stays silent.
        model = Model(t, max_seconds=None, report=_JobReporter(self, job))  # checked before
        try:
            self._check_waited_for(job)
            # Everything the job will compile, first and at once: one compile stage, the one
            # its progress weighs (a second one, after the solve, would go back).
            model.ensure_compiled("solve", *(("distribution",) if with_distribution(model)
                                             else ()))
            solution = model.solve()
            self._check_waited_for(job)
            # (None for games with saved rolls: the page plays them without it)
            dist = model.distribution() if with_distribution(model) else None
            self._keep(t.digest, (solution, dist))
        except BaseException:
            with self._lock:  # keep the job only to tell its error to the next poll
                if self._jobs.get(t.digest) is job and self._abandoned(job):
                    del self._jobs[t.digest]
            raise
        with self._lock:
            if self._jobs.get(t.digest) is job:
                del self._jobs[t.digest]

    def _abandoned(self, job: Job) -> bool:
        return time.monotonic() - job.last_polled > self.settings.abandon_after

    def _check_waited_for(self, job: Job) -> None:
        if self._abandoned(job):
            raise Abandoned(f"nobody waited for {job.model.name} any more")


def with_distribution(model: Model) -> bool:
    """Whether this server computes the game's exact distribution: always without saved
    rolls (a game whose distribution does not fit is refused: `rulesets`); with them where it
    fits in the server's MAX_DISTRIBUTION_MEMORY (their moves are many), else the game is
    played without it."""
    from .rulesets import MAX_DISTRIBUTION_MEMORY

    return model.budget.figures_fit(MAX_DISTRIBUTION_MEMORY) and model.budget.figures_fit()


# A model's stages, by the unit they count in, as the page names them.
JOB_STAGES = {"kernels": "compiling", "states": "solving", "boxes": "distribution"}


class _JobReporter(Reporter):
    """A solve's progress as the page's stages: compiling, solving, the distribution."""


    def __init__(self, solver: Solver, job: Job) -> None:
        self.solver, self.job = solver, job

    @contextlib.contextmanager
    def stage(self, label: str, unit: str):
        name = JOB_STAGES.get(unit, unit)
        self.job.report(name)

        def step(done: int, total: int) -> None:
            self.job.report(name, done, total)
            self.solver._check_waited_for(self.job)

        yield step


def load_cached(model: Model):
    """(solution, distribution) from yz's disk cache, None when either is missing or fails
    its check (then it is solved again). Never runs a kernel: safe beside a running solve."""
    if not model.load_cached(with_pmf=with_distribution(model)):
        return None
    return model.solve(), model.distribution() if with_distribution(model) else None


def _named(hit: tuple, model: Model) -> tuple:
    """A strategy and distribution with the names of `model`, the request's own rule set (a
    strategy is shared by every rule set that scores alike; its names never are)."""
    solution, dist = hit
    if solution.problem is model.problem:
        return hit
    return replace(solution, problem=model.problem), dist and replace(dist, variant=model.name)
