"""The model of a rule set: everything yz computes about one game, as methods of one object.

    model = Model("official-free-joker")       # a name, a rule file, a RuleSet or RuleTables
    model.solve().expected_score               # 254.5896... (and the value of every state)
    model.moments("greedy")                    # the exact mean and SD of a strategy
    model.figures()                            # + per-box means, zero rates, bonus rates
    model.distribution()                       # the exact distribution of the final score
    model.targets(300).p_reach(300)            # play for a target
    model.advise(position, dice, rolls_left)   # the best move and what the others lose
    model.simulate(10_000, seed=1)             # sampled games
    model.duel(Model("yatzy"))                 # P(a player of this beats a player of that)
    model.coach(seed=1)                        # a game played along with the strategy
    model.match(seed=1, seats=("person", "win"))  # a two-player game against a bot

A model is built once from rules. Below it is its `Problem` (`solver.problem`: the compiled
tables, the state layout, the kernels' bundles, threads and work sizes), which the solver's
modules take; the model adds what a user of the library wants around them: the cache of solved
tables, the `Budget` (memory and time: what is refused, what is announced), the compile
warm-up, the `Reporter`, and a memo, so that a second call costs nothing. Each method knows
which kernels it compiles, which cache entries it reads and writes, what it checks before it
starts and what it reports while it runs; the front ends (the CLI, the web page) build a model
and call methods. No solver module imports this one: calls go down from here, never back.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from yz.rules import InputError, RuleSet, RuleTables, compile_rules, load_rules

from . import budget as budgets
from . import cache
from .budget import LONG_WORK_SECONDS, Budget
from .dp import Solution
from .exact import ExactFigures, Moments
from .problem import Memo, Problem
from .report import SILENT, Reporter
from .state import StateLayout
from .strategies import check_strategy

# Tables of a game with more keeps than this take a few seconds to build: say so first.
SLOW_TABLES_KEEPS = 5_000
# Memory for the turns played to win kept in memory (`win_turn`): a few hundred turns.
WIN_MEMO_BYTES = 64 << 20
FINAL_MEMO_BYTES = 16 << 20  # and the final-score distributions from a card


class Model:
    """A rule set ready to solve: see the module docstring."""

    def __init__(self, rules: RuleSet | RuleTables | str | Path, *, use_cache: bool = True,
                 threads: int | None = None, max_memory: int | None = None,
                 max_seconds: float | None = LONG_WORK_SECONDS,
                 report: Reporter = SILENT):
        """`max_seconds`: the budget of one piece of work (a solve, a distribution, figures):
        work estimated to take longer is refused before it starts (`yz.rules.WorkTooLong`);
        None for no budget. `max_memory` (bytes): what a solve, a distribution or a target
        table may take (default: three quarters of this machine's memory for a solve, half
        for the others)."""
        if isinstance(rules, str | Path):
            rules = load_rules(rules)
        self.report = report
        tables = rules if isinstance(rules, RuleTables) else tables_of(rules, report)
        self.problem = Problem.of(tables, threads)
        self.budget = Budget(self.problem, max_memory, max_seconds, report)
        self.use_cache = use_cache
        self._memo = Memo()

    def __repr__(self) -> str:
        return f"Model({self.rules.name!r})"

    @property
    def tables(self) -> RuleTables:
        return self.problem.tables

    @property
    def layout(self) -> StateLayout:
        return self.problem.layout

    @property
    def threads(self) -> int:
        return self.problem.threads

    @property
    def max_memory(self) -> int | None:
        return self.budget.max_memory

    @property
    def max_seconds(self) -> float | None:
        return self.budget.max_seconds

    @property
    def rules(self) -> RuleSet:
        return self.tables.rules

    @property
    def name(self) -> str:
        return self.tables.rules.name

    def remember(self, key: str, make):
        """`make()`, computed once per model (thread-safe: a web server asks from several)."""
        return self._memo.remember(key, make)

    def _cached(self, key: str):
        return self._memo.get(key)

    def ensure_compiled(self, *works: str) -> None:
        """Compile what these kinds of work need on this game, once per installation, saying
        so to `report` first, in one stage (`warmup.ensure_compiled`): a caller that will do
        several kinds compiles them together, so its progress has one compile stage."""
        from .warmup import ensure_compiled, work_families

        ensure_compiled(tuple(f for work in works for f in work_families(work, self.layout)),
                        self.report)

    def load_cached(self, with_pmf: bool | None = None) -> bool:
        """Load the values and the exact distribution of optimal play from the cache, never
        computing: True when both are there and intact (then `solve()` and `distribution()`
        answer at once), False otherwise (a damaged file is left for `solve` to heal). Where
        there is no distribution (`with_pmf` False; by default `has_distribution_of_play`:
        games with saved rolls too big for it), the values are enough."""
        need_pmf = self.has_distribution_of_play if with_pmf is None else with_pmf
        if self._cached("solution") is not None and (
                not need_pmf or self._cached("pmf:optimal") is not None):
            return True
        if not self.use_cache or (need_pmf and self._load_figures("pmf-optimal") is None):
            return False
        try:
            hit = cache.load(self.tables, self.layout.size)
        except cache.CorruptCache:
            return False
        if hit is None:
            return False
        dist = self._cached_distribution("optimal") if need_pmf else None
        if need_pmf and dist is None:
            return False
        self._memo.remember("solution", lambda: Solution(self.problem, hit.values, 0.0,
                                                         hit.states, cached=True, sd=hit.sd))
        if dist is not None:
            self._memo.remember("pmf:optimal", lambda: dist)
        return True

    @property
    def has_distribution_of_play(self) -> bool:
        """Whether the exact distribution of final scores is computed along with this game's
        other results (the coach's rank, `compare`, mean play beside target play): always
        without saved rolls; with them where a forward pass holding a layer's moves (the
        per-box figures) fits in memory here (`distribution.distribution_bytes`). The big
        ones (Yatzy with saved rolls) get it only when asked (`distribution()`: streamed, it
        needs less memory but takes long), Maxi Yatzy not at all."""
        return self.budget.figures_fit()

    def has_distribution(self, strategy: str = "optimal") -> bool:
        """Whether the exact distribution is at hand (in memory or in the cache)."""
        return self._cached(f"pmf:{strategy}") is not None or \
            self._load_figures(f"pmf-{strategy}") is not None

    def is_solved(self) -> bool:
        """Whether the values are at hand (in memory or in the cache) without solving."""
        return self._cached("solution") is not None or (
            self.use_cache and cache.meta_path(self.tables).exists())

    # ------------------------------------------------------------ solving

    def solve(self, with_sd: bool = False) -> Solution:
        """The value of every turn-start state under optimal play, from the cache when it is
        there (verified; a damaged file is noted, recomputed and replaced); `with_sd` adds the
        exact SD of the final score (the same sweeps, 2 to 3 times the work)."""
        with self._memo.lock:
            have = self._memo.get("solution")
            if have is not None and (have.sd is not None or not with_sd):
                return have
            self.budget.check_solve_memory(with_sd)
            solution, damage = self._load()
            if solution is None:
                solution = self._compute(with_sd)
                if damage is not None:
                    note = f"{damage}; {solution.cache_note}" if solution.cache_note else damage
                    solution = replace(solution, cache_note=note)
            if have is not None and np.array_equal(have.values, solution.values):
                # The SD's solve makes the same values: keep the array already handed out, and
                # what was kept with it (the advisor's turn tables).
                solution = replace(solution, values=have.values, memo=have.memo)
            self._memo.put("solution", solution)
            return solution

    def _load(self) -> tuple[Solution | None, str | None]:
        """The cached solution (None when there is none), and a note when a damaged cache
        file was found (then recomputed and replaced)."""
        if not self.use_cache:
            return None, None
        start = time.perf_counter()
        try:
            hit = cache.load(self.tables, self.layout.size)
        except cache.CorruptCache as exc:
            return None, self._note_damage(exc)
        if hit is None:
            return None, None
        return Solution(self.problem, hit.values, time.perf_counter() - start, hit.states,
                        cached=True, sd=hit.sd), None

    def _compute(self, with_sd: bool) -> Solution:
        from .dp import solve_values

        self.budget.check_time("solving", self.budget.values_seconds(with_sd))
        self.ensure_compiled("solve-sd" if with_sd else "solve")
        start = time.perf_counter()
        with self.report.stage(f"solving {self.name}", "states") as step:
            # The DP counts stored entries; a person reads the reachable states the summary
            # names, so the bar counts those.
            reachable, stored = self.layout.reachable, max(1, int(self.layout.LAYER_PTR[-2]))
            values, sd = solve_values(self.problem, with_sd, lambda done, total: step(
                done * reachable // stored, reachable))
        solution = Solution(self.problem, values, time.perf_counter() - start,
                            self.layout.reachable, sd=sd)
        if self.use_cache:
            try:
                cache.store(self.tables, values, solution.states, solution.expected_score, sd)
            except OSError as exc:
                self.report.note(f"could not write the cache: {exc}")
                solution = replace(solution, cache_note=f"could not write the cache: {exc}")
        return solution

    def solve_layered(self, folder, with_sd: bool = False, scheduler=None,
                      workers: int | None = None, chunk_states: int | None = None):
        """Solve layer by layer into `folder`, resumable, here, on a Dask cluster
        (`scheduler`: an address or a `distributed.Client`) or on `workers` local Dask
        worker processes: see `solver.layered`. The
        values stay in the folder (two layers in memory at a time); returns a
        `LayeredSolution` with the game's value and, with `with_sd`, its SD."""
        from . import layered

        self.budget.check_solve_memory(
            with_sd, layered=True, threads=1 if scheduler is not None or workers else None,
            processes=workers if workers and workers > 1 else 1)
        layered.check_store(self.problem, folder, with_sd)  # a folder it refuses: before the time
        left = layered.share_left(self.problem, folder, with_sd)  # a resumed solve's work left
        self.budget.check_time("solving" if left == 1.0 else "finishing",
                               left * self.budget.values_seconds(with_sd))
        self.ensure_compiled("solve-sd" if with_sd else "solve")
        with self.report.stage(f"solving {self.name} into {folder}", "states") as step:
            return layered.solve_layered(self.problem, folder, with_sd, scheduler,
                                         chunk_states or budgets.CHUNK_STATES, step, workers)

    def _note_damage(self, exc: Exception) -> str:
        message = f"ignored a damaged cache file and recomputed: {exc}"
        self.report.note(message)
        return message

    # ------------------------------------------------------------ exact figures

    def moments(self, strategy: str = "optimal") -> Moments:
        """The exact mean and SD of the final score under `strategy` (cached)."""
        from .exact import exact_moments
        from .strategies import strategy_values

        check_strategy(strategy)
        if strategy == "optimal":
            solution = self.solve()
            if solution.sd is not None:
                return Moments(strategy, solution.expected_score, solution.sd, cached=True)
        for what in (strategy, f"moments-{strategy}"):
            found = self._load_figures(what)
            with contextlib.suppress(KeyError, TypeError, ValueError):
                if found is not None:
                    return Moments(strategy, float(found["expected_score"]),
                                   float(found["sd"]), cached=True)

        def compute() -> Moments:
            solution = self.play_solution(strategy)
            self.budget.check_time(f"the exact SD of {strategy} play of",
                                   self.budget.moments_seconds())
            self.ensure_compiled("sd" if strategy == "optimal" else "moments")
            with self.report.stage(f"the SD of {self.name}", "states") as step:
                moments = exact_moments(solution, strategy_values(solution, strategy),
                                        strategy, step)
            self._store_figures(f"moments-{strategy}", {"expected_score":
                                                        moments.expected_score,
                                                        "sd": moments.sd})
            return moments

        return self.remember(f"moments:{strategy}", compute)

    def figures_wait(self, strategy: str = "optimal") -> float | None:
        """The seconds `figures(strategy)` would take now when that is long enough to leave
        them out unasked (`when_quick`); None when they are at hand or quick."""
        if self._cached(f"figures:{strategy}") is not None or \
                not self.has_distribution_of_play or \
                self._load_figures(strategy) is not None:
            return None  # (saved rolls, too many moves: only the mean and SD exist)
        wait = self.budget.figures_seconds()
        return wait if wait > budgets.AUTO_FIGURES_SECONDS else None

    def figures(self, strategy: str = "optimal", when_quick: bool = False,
                ) -> ExactFigures | None:
        """Exact mean, SD, per-box means and zero rates, bonus and Joker rates of `strategy`
        (cached). With `when_quick`, figures estimated to take minutes are left out unless
        cached: optimal play then gets what needs no further pass (the mean, the SD when
        known), any other strategy None."""
        from .exact import exact_figures, known_figures
        from .strategies import strategy_values

        if not self.has_distribution_of_play:  # (saved rolls, too many moves): mean and SD
            check_strategy(strategy)
            if when_quick and strategy == "optimal":
                return known_figures(self.solve())
            if when_quick and self.budget.moments_seconds() > \
                    budgets.AUTO_FIGURES_SECONDS and self._load_figures(
                        f"moments-{strategy}") is None:
                return None
            moments = self.moments(strategy)
            return ExactFigures(strategy, moments.expected_score, moments.sd, {}, {}, None,
                                None, None, 0.0)

        check_strategy(strategy)
        found = self._load_figures(strategy)
        if found is not None:
            with contextlib.suppress(TypeError):
                return ExactFigures(**found)
        if when_quick and self.budget.figures_seconds() > budgets.AUTO_FIGURES_SECONDS:
            return known_figures(self.solve()) if strategy == "optimal" else None

        def compute() -> ExactFigures:
            self.budget.check_time("the exact figures of", self.budget.figures_seconds())
            moments = self.moments(strategy)
            self.ensure_compiled("figures")
            with self.report.stage(f"figures of {self.name}", "boxes") as step:
                solution = self.play_solution(strategy)
                figures = exact_figures(solution, strategy_values(solution, strategy),
                                        strategy, moments, step)
            self._store_figures(strategy, figures.as_dict())
            return figures

        return self.remember(f"figures:{strategy}", compute)

    def distribution(self, strategy: str = "optimal"):
        """The exact distribution of the final score under `strategy` (cached)."""
        from .distribution import score_distribution

        check_strategy(strategy)
        what = f"pmf-{strategy}"
        found = self._cached(f"pmf:{strategy}") or self._cached_distribution(strategy)
        if found is not None:
            return found
        self.budget.check_distribution_memory(streamed=True)

        def compute():
            self.budget.check_time("the exact distribution of",
                                   self.budget.distribution_seconds())
            solution = self.play_solution(strategy)
            self.ensure_compiled("distribution")
            with self.report.stage(f"distribution of {self.name}", "boxes") as step:
                dist = score_distribution(solution, strategy, step, self.max_memory)
            self._store_figures(what, {"first_score": int(dist.scores[0]),
                                       "probabilities": dist.probabilities.tolist(),
                                       "seconds": dist.seconds})
            return dist

        return self.remember(f"pmf:{strategy}", compute)

    def _cached_distribution(self, strategy: str):
        """The distribution from the cache (None when absent or unreadable)."""
        from .distribution import Distribution

        found = self._load_figures(f"pmf-{strategy}")
        with contextlib.suppress(KeyError, TypeError, ValueError):
            if found is not None:
                probs = np.asarray(found["probabilities"], dtype=np.float64)
                first = int(found["first_score"])
                return Distribution(self.name, strategy, np.arange(first, first + len(probs)),
                                    probs, float(found["seconds"]), cached=True,
                                    states=self.layout.reachable)
        return None

    def duel(self, other: Model, strategy: str = "optimal", other_strategy: str = "optimal"):
        """The exact chances that a player of this rule set (and strategy) beats, draws with
        and loses to a player of `other`: (P(win), P(draw), P(loss))."""
        from .distribution import duel

        return duel(self.distribution(strategy), other.distribution(other_strategy))

    def best_response(self, opponent, opponent_strategy: str = "optimal", field: int = 1,
                      ceiling: bool = True, tail: float | None = None):
        """Play to win against `opponent`: a `Model` (played with `opponent_strategy`), an
        exact `Distribution` of its final score, or a `versus.Opponent` (from a CSV file, for
        one); with `field`, against the best of that many such opponents. Returns a
        `versus.BestResponse`: the exact win, draw and loss chances of the strategy that
        maximises P(win) + P(draw) / 2 not seeing the opponent's card, beside expected-score
        play's and (against one opponent, with `ceiling`) the clairvoyant ceiling's. Every
        figure is within `tail` (default 1e-12) of the exact one (see `solver.versus`)."""
        from .distribution import Distribution
        from .versus import (
            TAIL,
            BestResponse,
            Opponent,
            blind_best_response,
            chances_of,
            check_field,
            clairvoyant_ceiling,
        )

        check_field(field)
        tail = TAIL if tail is None else tail
        if isinstance(opponent, Model):
            check_strategy(opponent_strategy)
            opponent = opponent.distribution(opponent_strategy)
        if isinstance(opponent, Distribution):
            opponent = Opponent.of(opponent, field)
        elif isinstance(opponent, Opponent) and opponent.field != field:
            opponent = replace(opponent, field=field)
        elif not isinstance(opponent, Opponent):
            raise InputError(f"opponent: {type(opponent).__name__} is not an opponent; give a "
                             "Model, a Distribution or an Opponent.", param="opponent")
        top = opponent.top_score(tail)
        ceiling = ceiling and opponent.field == 1
        last = int(opponent.scores[-1]) + 2
        self.budget.check_need_memory(max(top + 1, last if ceiling else 0), 3,
                                      "playing to win in")
        seconds = self.budget.need_seconds(top + 1, True, True) + (
            self.budget.need_seconds(last, False, True) if ceiling else 0.0)
        mean_play = self.distribution()  # (before the estimate: its own work is checked)
        self.budget.check_time("playing to win in", seconds)
        solution = self.solve()
        self.ensure_compiled("versus")
        begin = time.perf_counter()
        with self.report.stage(f"playing {self.name} to win", "columns") as step:
            response, value, top = blind_best_response(solution, opponent, tail, step)
        above = None
        if ceiling:
            with self.report.stage("the clairvoyant ceiling", "columns") as step:
                above = clairvoyant_ceiling(solution, opponent, tail, step)
        return BestResponse(self.name, opponent.name, opponent.field, response, value,
                            chances_of(mean_play, opponent), above, top, tail,
                            time.perf_counter() - begin)

    def minimax(self, chances: bool = True, against_optimal: bool = False,
                keep: bool = False, best_response: bool = False,
                checkpoint: str | Path | None = None, checkpoint_seconds: float | None = None,
                scheduler=None, workers: int | None = None):
        """Two players of this rule set, both playing to win and each seeing the other's card
        (`minimax`, kept apart from `optimal`, which plays for the expected score): the exact
        value of the game for the first player, A, and with `chances` A's exact win, draw and
        loss (`solver.minimax.ExactDuel`). With `against_optimal`, also minimax against
        expected-score play, seated first and seated second (the minimax player's chances).
        Only for games whose joint states (both players' turn-start states and the score
        difference) fit in `max_memory`: the estimate (memory and time) is announced first,
        and a game that does not fit is refused at once (InputError, with the estimate).
        Where minimax with all its seats at once does not fit, the seats are solved two or
        one at a time beside minimax's values. With `best_response`, also the
        full-information best response to expected-score play, seated first and second: the
        most a player seeing the other's card gets against it. `keep`: every joint
        layer's tables come along in `ExactDuel.layers` (tests, tiny games). `checkpoint`: a
        folder where the solve keeps its progress (every `checkpoint_seconds`, by default
        10 minutes, and each pass's result): run again with it, a stopped solve goes on from
        there (`minimax.Checkpoint`). `scheduler` (a Dask address or client) or `workers`
        (local Dask worker processes, more than one): each joint layer's columns are solved
        on Dask, from the layer after it saved in `checkpoint` after every layer
        (`solver.joint_tasks`; the workers must see that folder at the same path)."""
        from .minimax import (
            BOTH,
            BR_FIRST,
            BR_SECOND,
            CHECKPOINT_SECONDS,
            FIRST,
            SECOND,
            Checkpoint,
            ExactDuel,
            chances_of,
            solve_minimax,
            work_left,
        )

        key = ("minimax", chances, against_optimal, best_response)
        have = self._cached(key)
        if have is not None and not keep:
            return have
        seats = ((FIRST, SECOND) if against_optimal else ()) + \
            ((BR_FIRST, BR_SECOND) if best_response else ())
        passes = [(chances, seats)]
        on_dask = scheduler is not None or workers is not None
        if on_dask:
            from .joint_tasks import check_workers

            check_workers(scheduler, workers)
            if keep or checkpoint is None:
                raise InputError("checkpoint: a two-player solve on Dask keeps its joint "
                                 "layers in a checkpoint folder, where the workers read them; "
                                 "give one (and not keep).", param="checkpoint")
            checkpoint = Path(checkpoint).expanduser().resolve()  # (the workers' path too)
        # (On Dask, its workers started here count in this machine's memory.)
        here = None if not on_dask else 0 if scheduler is not None else workers
        need, seconds, sizes = self.budget.minimax_estimate(chances, seats=len(seats),
                                                            refuse=not seats, dask_workers=here)
        pass_seconds = [seconds]
        limit = budgets.memory_limit(self.max_memory)
        for size in (2, 1):  # fewer seats a pass, each beside minimax's values solved again
            if need <= limit or size >= len(seats):
                continue
            groups = [seats[i:i + size] for i in range(0, len(seats), size)]
            passes = [(chances, ()), *((False, group) for group in groups)]
            estimates = [self.budget.minimax_estimate(c, seats=len(g), refuse=size == 1,
                                                      dask_workers=here) for c, g in passes]
            need = max(e[0] for e in estimates)
            pass_seconds = [e[1] for e in estimates]
            seconds = sum(pass_seconds)
        if keep and len(passes) > 1:
            raise InputError("keep: every joint layer is kept only in a solve of one pass "
                             "(small games).", param="keep")
        if keep and checkpoint is not None:
            raise InputError("checkpoint: a solve that keeps every joint layer in memory "
                             "(keep) has no progress to save.", param="checkpoint")
        if keep:
            need = max(need, budgets.minimax_kept_bytes(self.tables, self.layout, sizes,
                                                        budgets.minimax_tables(chances, 0)))
            limit = budgets.memory_limit(self.max_memory)
            if need > limit:
                reason = (f"{self.name}: playing minimax reads its two-player solve with every "
                          f"joint layer kept in memory, about {need / 2**30:,.1f} GiB, more "
                          f"than the {limit / 2**30:.1f} GiB allowed; minimax play is for "
                          "games whose joint layers all fit, such as house games of a few "
                          "boxes")
                raise InputError(f"{reason} (or keep them in a folder: `minimax_store`).",
                                 param="keep", reason=reason)

        def saved_in(with_chances: bool, group: tuple) -> Checkpoint | None:
            if checkpoint is None:
                return None
            name = ("chances" if with_chances else "value") + "-" + ("-".join(group) or BOTH)
            every = CHECKPOINT_SECONDS if checkpoint_seconds is None else checkpoint_seconds
            return Checkpoint(Path(checkpoint) / name, self.tables.digest, with_chances, group,
                              every)

        entries = sum(s.entries for s in sizes)
        pairs = sum(s.pairs for s in sizes)
        points = [saved_in(c, group) for c, group in passes]  # (the folder checked first)
        left = sum(s * work_left(self.problem, point)
                   for s, point in zip(pass_seconds, points, strict=True))
        resumed = f", {budgets.duration(left)} of it left (resumed from {checkpoint})" \
            if left < seconds else ""
        self.report.note(
            f"two players of {self.name} both playing to win: {pairs:,} pairs of turn-start "
            f"states, {entries:,} joint states; about {need / 2**30:.2f} GiB of memory and "
            f"{budgets.duration(seconds)} on this machine"
            + (f", in {len(passes)} passes" if len(passes) > 1 else "") + resumed)
        self.budget.check_time("the two-player solve of" if not resumed else
                               "finishing the two-player solve of", left,
                               f"from its {entries:,} joint states")
        solution = self.solve() if seats else self.stand_in()
        self.ensure_compiled("minimax-optimal" if seats else
                             "minimax" if chances else "minimax-value")
        begin = time.perf_counter()
        found: dict = {}
        runner = None
        if on_dask:
            from .joint_tasks import JointRunner

            runner = JointRunner(scheduler, workers, self.problem,
                                 solution.values if any(group for _c, group in passes)
                                 else None)
        try:
            for number, (with_chances, seats) in enumerate(passes, 1):
                label = f"two players of {self.name} playing to win" + (
                    f" (pass {number} of {len(passes)})" if len(passes) > 1 else "")
                with self.report.stage(label, "joint states") as step:
                    result = solve_minimax(solution, with_chances, seats, step, keep,
                                           points[number - 1], runner=runner)
                if points[number - 1] is not None and points[number - 1].failed:
                    self.report.note(f"the progress could not be saved in {checkpoint} "
                                     f"({points[number - 1].failed}); the solve went on "
                                     "without")
                found.update({k: v for k, v in result.items() if k != BOTH or number == 1})
        finally:
            if runner is not None:
                runner.close()
        value, draw = found[BOTH]

        def seated(first_seat: str, second_seat: str) -> tuple:
            if first_seat not in found:
                return None, None
            a_score, a_draw = found[second_seat]  # (A plays for the expected score: B's)
            return chances_of(*found[first_seat]), chances_of(1.0 - a_score, a_draw)

        first, second = seated(FIRST, SECOND)
        br_first, br_second = seated(BR_FIRST, BR_SECOND)
        duel = ExactDuel(self.name, value, None if draw is None else chances_of(value, draw),
                         first, second, found["pairs"], found["states"], need,
                         time.perf_counter() - begin, found.get("layers", {}), br_first,
                         br_second)
        if not keep:
            self._memo.put(key, duel)
        return duel

    def minimax_store(self, folder: str | Path):
        """Solve the two-player game (minimax's values only) into `folder`, every joint layer
        a file (`joint_store.JointStore`), to play minimax from (`advise_minimax(...,
        store=folder)`): for games whose joint layers fit on disk though not in memory, such
        as Crag. The memory, disk and time estimates are checked and announced first; a
        folder already holding the finished layers of this rule set is read, not solved
        again, and one holding another solve's is refused. Returns the store, opened for
        reading."""
        import shutil

        from .joint_store import JointStore
        from .minimax import solve_minimax

        folder = Path(folder)
        if JointStore(folder, self.tables.digest).finished:  # (another solve's: refused)
            return JointStore.reading(folder, self.tables.digest)
        need, seconds, sizes = self.budget.minimax_estimate(False, seats=0)
        entries = sum(s.entries for s in sizes)
        disk = entries * 8
        existing = next(p for p in (folder, *folder.resolve().parents) if p.exists())
        free = shutil.disk_usage(existing).free
        if disk > free:
            raise InputError(f"store: the joint layers of {self.name} take about "
                             f"{disk / 2**30:,.1f} GiB on disk, more than the "
                             f"{free / 2**30:,.1f} GiB free in {existing}; give a folder on a "
                             "bigger disk.", param="store")
        self.report.note(
            f"two players of {self.name} both playing to win, into {folder}: "
            f"{entries:,} joint states; about {need / 2**30:.2f} GiB of memory, "
            f"{disk / 2**30:.2f} GiB on disk and {budgets.duration(seconds)} on this machine")
        self.budget.check_time("the two-player solve of", seconds,
                               f"from its {entries:,} joint states")
        store = JointStore.writing(folder, self.tables.digest)
        self.ensure_compiled("minimax-value")
        with self.report.stage(f"two players of {self.name} playing to win",
                               "joint states") as step:
            solve_minimax(self.stand_in(), False, (), step, store=store)
        return JointStore.reading(folder, self.tables.digest)

    def duel_exact(self, best_response: bool = False, checkpoint: str | Path | None = None,
                   scheduler=None, workers: int | None = None):
        """`minimax(chances=True, against_optimal=True)`: the first player's exact chances
        when both play to win, and minimax against expected-score play seated first and
        second (`yz duel A A --exact`); with `best_response`, also the full-information best
        response to expected-score play in either seat (`--exact --best-response`);
        `checkpoint`, `scheduler` and `workers` as `minimax` takes them."""
        return self.minimax(chances=True, against_optimal=True, best_response=best_response,
                            checkpoint=checkpoint, scheduler=scheduler, workers=workers)

    def _load_figures(self, what: str) -> dict | None:
        if not self.use_cache:
            return None
        try:
            return cache.load_figures(self.tables, what, strict=True)
        except cache.CorruptCache as exc:
            with self._memo.lock:
                noted = self._memo.remember("damage noted", set)
                if what not in noted:  # once: several calls may look for the same file
                    noted.add(what)
                    self._note_damage(exc)
            return None

    def _store_figures(self, what: str, figures: dict) -> None:
        if self.use_cache:
            # Figures are cheap to redo: a read-only cache folder is not an error here.
            with contextlib.suppress(OSError):
                cache.store_figures(self.tables, what, figures)

    # ------------------------------------------------------------ target play

    def targets(self, max_target: int | None = None, param: str = "max_target"):
        """The target-play table for every need up to `max_target` (default 500), built no
        higher than the game's highest possible score (above it every chance is 0). From
        memory, or the cache when a table that high is there, else solved. The cache keeps
        one table per game: a higher one replaces the lower ones. A damaged cached table is
        noted and recomputed, also when the damage shows only as its rows are read. `param`
        names what asked for this maximum in a refusal (a caller's own parameter)."""
        from .target import DEFAULT_MAX_TARGET, check_max_target

        max_target = DEFAULT_MAX_TARGET if max_target is None else max_target
        check_max_target(max_target, param)
        ceiling = self.tables.highest_score
        top = min(max_target, ceiling)
        have = self._cached("targets")
        if have is not None and have.max_target >= top:
            return have
        self.budget.check_target_memory(top, param)  # before any solving
        checked = not (self.use_cache and
                       any(m >= top for m in cache.cached_target_maxima(self.tables)))
        if checked:
            self.budget.check_time("target play of", self.budget.target_seconds(top))
        solution = self.solve()
        table = self._load_targets(solution, top, ceiling)
        if table is None:
            table = self._solve_targets(solution, top, ceiling, checked)
        self._memo.put("targets", table)
        return table

    def _solve_targets(self, solution: Solution, top: int, ceiling: int,
                       checked: bool = False):
        """The table up to `top`, solved and cached; its time is checked against the budget
        first unless `checked` (as when a cached table turns out damaged)."""
        from dataclasses import replace as with_fields

        from .target import solve_targets

        if not checked:
            self.budget.check_time("target play of", self.budget.target_seconds(top))

        self.ensure_compiled("targets")
        with self.report.stage(f"target play, {self.name}", "columns") as step:
            table = with_fields(solve_targets(solution, top, step), ceiling=ceiling)
        if self.use_cache:
            with contextlib.suppress(OSError):
                cache.store_array(self.tables, f"targets-{top}", table.W)
                for lower in cache.cached_target_maxima(self.tables):
                    if lower < top:
                        cache.remove_array(self.tables, f"targets-{lower}")
        return table

    def _load_targets(self, solution: Solution, top: int, ceiling: int):
        from .target import TargetTable

        if not self.use_cache:
            return None
        start = time.perf_counter()
        for have in cache.cached_target_maxima(self.tables):
            if have < top:
                continue
            try:
                table = cache.load_array(self.tables, f"targets-{have}")
            except cache.CorruptCache as exc:
                self._note_damage(exc)
                cache.remove_array(self.tables, f"targets-{have}")
                continue
            if table is not None:
                def heal(exc: Exception, have: int = have):
                    self._note_damage(exc)
                    cache.remove_array(self.tables, f"targets-{have}")
                    return self._solve_targets(solution, have, ceiling)

                return TargetTable(solution, have, table, time.perf_counter() - start, True,
                                   ceiling, heal)
        return None

    # ------------------------------------------------------------ play

    def simulate(self, games: int, seed: int = 0, strategy: str = "optimal",
                 keep_scores: bool = False):
        """Play `games` games with `strategy` (the same seed, the same games, whatever the
        thread count); `solver.simulate.Simulation`."""
        from .simulate import check_simulation, estimate_seconds, simulate

        check_simulation(games, seed, strategy)
        what = f"playing {games:,} games of"
        floor = self.budget.simulate_floor_seconds(games)
        if self.max_seconds is not None and floor > self.max_seconds:  # before any solve
            self.budget.check_time(what, floor, "from the time a turn takes to play here, "
                                   "before any of its choices", at_least=True, here_now=True)
        solution = self.play_solution(strategy)
        self.ensure_compiled("simulate")
        seconds, timed = estimate_seconds(solution, games, strategy, self.report.note)
        if timed:
            self.budget.check_time(what, seconds, f"from {timed:,} games timed here just now",
                                   here_now=True)
        with self.report.stage(f"playing {games:,} games", "games") as step:
            return simulate(solution, games, seed, strategy, step, keep_scores)

    def play_solution(self, strategy: str) -> Solution:
        """What `strategy` is played and evaluated from: optimal play's solved values (solved
        first when they are not at hand); greedy and heuristic play never read them (their
        value tables are their own: `strategies.strategy_values`), so nothing is solved for
        them: they get a stand-in whose values are zeros."""
        check_strategy(strategy)
        if strategy == "optimal":
            return self.solve()
        if strategy == "heuristic":  # (its box weights are one-box games, solved by the DP)
            self.ensure_compiled("solve")
        return self.stand_in()

    def stand_in(self) -> Solution:
        """A solution whose values are zeros, for work that reads only the game's tables and
        layout (greedy and heuristic play, the two-player solve), built once: nothing is
        solved for it."""
        return self.remember("stand-in solution", lambda: Solution(
            self.problem, np.zeros(self.layout.size), 0.0, self.layout.reachable))

    def strategy_solution(self, strategy: str) -> Solution:
        """The solution with `strategy`'s values in place of the optimal ones: the advisor
        ranks moves with it as the strategy plays them (a bot's moves). Kept."""
        from .strategies import strategy_values

        check_strategy(strategy)
        if strategy == "optimal":
            return self.solve()
        return self.remember(f"strategy solution:{strategy}", lambda: replace(
            self.play_solution(strategy),
            values=strategy_values(self.play_solution(strategy), strategy)))

    def has_strategy_solution(self, strategy: str) -> bool:
        """Whether `strategy_solution` needs no kernel: optimal play once solved, greedy
        play (its values are zeros), or a strategy already built."""
        return strategy == "greedy" or self._cached(f"strategy solution:{strategy}") \
            is not None or (strategy == "optimal" and self._cached("solution") is not None)

    def final_score_from(self, position=None, strategy: str = "optimal",
                         bonus_points: int = 0):
        """The exact distribution of the final score of a player at `position` (a Position,
        or the boxes filled as `position()` takes them, a full card included; every filled
        box's score given; `bonus_points`: extra Yahtzee bonuses already won) who plays
        `strategy` from there: the points on the card plus the points still to come
        (`Distribution`). Kept in memory: a second call costs nothing."""
        check_strategy(strategy)
        if position is None or isinstance(position, str | dict):
            position = self.position(position, finished=True)
        banked = position.banked(self.tables, bonus_points)
        if banked is None:
            raise InputError("filled: the final score of a card needs the score of every "
                             "filled box.", param="filled")
        hit = self.final_score_cached(position, strategy, bonus_points)
        if hit is not None:
            return hit
        return self._final_memo().bounded(
            self.final_score_key(position, strategy, banked),
            lambda: self._final_score(position, strategy, banked), FINAL_MEMO_BYTES,
            lambda d: d.probabilities.nbytes + d.scores.nbytes + 200)

    def final_score_cached(self, position, strategy: str = "optimal", bonus_points: int = 0):
        """`final_score_from` when it needs no work (in memory, or the empty card's
        distribution at hand), else None."""
        banked = position.banked(self.tables, bonus_points)
        if banked is None:
            return None
        hit = self._final_memo().peek(self.final_score_key(position, strategy, banked))
        if hit is not None or len(position.filled) == self.tables.n_categories:
            return hit if hit is not None else self._final_score(position, strategy, banked)
        if self._starts(position) and self.has_distribution(strategy):
            return self._final_score(position, strategy, banked)
        return None

    def _final_memo(self):
        return self.remember("final scores", Memo)

    @staticmethod
    def final_score_key(position, strategy: str, banked: int) -> tuple:
        """What names one `final_score_from` (equal keys, the same distribution)."""
        return (position.mask, position.upper_total, position.yahtzee_full,
                position.saved_rolls, banked, strategy)

    def _starts(self, position) -> bool:
        return not position.filled and position.saved_rolls == self.layout.start_bank

    def _final_score(self, position, strategy: str, banked: int):
        from .distribution import Distribution, score_distribution

        n = len(position.filled)
        name = f"{self.name} from {n} box{'es' if n != 1 else ''} filled"
        if len(position.filled) == self.tables.n_categories:
            return Distribution(name, "finished", np.array([banked]), np.ones(1))
        if self._starts(position):
            rest = self.distribution(strategy)
        else:
            start = self.layout.index(position.mask, int(position.yahtzee_full),
                                      position.upper_total, position.saved_rolls)
            self.budget.check_distribution_memory()
            solution = self.play_solution(strategy)
            self.ensure_compiled("distribution")
            with self.report.stage(f"the rest of a game of {self.name}", "boxes") as step:
                rest = score_distribution(solution, strategy, step, self.max_memory, start)
        return Distribution(name, strategy, rest.scores + banked, rest.probabilities,
                            rest.seconds)

    def position(self, filled: str | dict | None = None, upper_total: int | None = None,
                 saved_rolls: int | None = None, finished: bool = False):
        """A position of this game from the boxes filled ('ones=3,yahtzee=50' or a mapping;
        `upper_total` instead of each upper score; `saved_rolls` at the turn's start in games
        that save rolls): `yz.rules.position.Position`."""
        from yz.rules.position import parse_filled

        return parse_filled(filled, self.tables, upper_total, saved_rolls=saved_rolls,
                            finished=finished)

    def advise(self, position=None, dice=None, rolls_left: int | None = None,
               bonus_points: int | None = None, target: int | None = None,
               saved_rolls: int | None = None, store=None, opponent=None):
        """Every move in a position ranked (`solver.advice.Advice`): by the expected final
        score, or with `target` by the chance of finishing with at least `target` points.
        `position`: a Position, or the boxes filled as `position()` takes them (default: the
        game's start). Without dice, only the position's value. `store`: a folder of a
        finished layered solve (`solve_layered`) to read the values from, instead of solving
        (only the rows the position needs are read: `store_solution`). `opponent`: rank the
        moves by the chance of beating it instead (a `versus.Opponent`, or the `Distribution`
        of its final score: `final_score_from` its card), the best response from here to its
        fixed strategy (`versus.advise_to_win`). Everything is checked before any solve."""
        from yz.rules.position import check_bonus_points, check_saved_rolls, most_rolls_left

        from .advice import advise, advise_target, check_rolls_left, check_target

        t = self.tables
        if position is None or isinstance(position, str | dict):
            position = self.position(position, saved_rolls=saved_rolls)
        elif saved_rolls is not None:
            raise InputError("saved rolls: a Position holds its own saved rolls "
                             "(Position.saved_rolls); give them there, or the boxes filled "
                             "as text with saved_rolls.", param="saved_rolls")
        else:
            check_saved_rolls(t, len(position.filled), position.saved_rolls)
        if dice is not None and rolls_left is None:
            rolls_left = most_rolls_left(t, position)
        check_rolls_left(t, dice, rolls_left, position)
        banked = position.banked(t, check_bonus_points(t, position, bonus_points))
        if target is not None and store is not None:
            raise InputError("store: a target is played from its own tables, not from a "
                             "layered solve's folder; leave out one of them.", param="store")
        if opponent is not None:
            return self._advise_to_win(position, dice, rolls_left, banked, opponent, target,
                                       store)
        if target is None:
            solution = self.solve() if store is None else self.store_solution(store)
            return advise(solution, position, dice, rolls_left, banked)
        from .target import check_max_target

        check_max_target(target, "target")
        check_target(t, position, banked, target)
        self.budget.check_target_memory(min(target, t.highest_score), param="target")
        return advise_target(self.targets(target), position, dice, rolls_left, banked, target)

    def _advise_to_win(self, position, dice, rolls_left, banked, opponent, target, store):
        from .versus import as_opponent

        if target is not None or store is not None:
            raise InputError("opponent: playing to win is played from its own tables; leave out "
                             "the target and the store.", param="opponent")
        if banked is None:
            raise InputError("opponent: playing to win needs your points on the card: give the "
                             "score of every filled box.", param="opponent")
        turn = self.win_turn(position, as_opponent(opponent), banked=banked)
        return turn.advise(dice, rolls_left)

    def advise_minimax(self, position, opponent, dice=None, rolls_left: int | None = None,
                       bonus_points: int | None = None,
                       opponent_bonus_points: int | None = None,
                       store: str | Path | None = None):
        """The moves of a position ranked by the mover's chance (P(win) + P(draw) / 2) when
        both players play to win seeing each other's card (`minimax`), against the
        opponent's card `opponent` (a Position of this rule set, or its boxes as
        `position()` takes them): `minimax.MinimaxPlay`, read from the two-player solve of
        the whole game (`minimax(keep=True)`, solved once per model; refused at once, with
        its estimate, where its joint layers do not all fit in memory), or with `store` from
        that folder's joint layers (`minimax_store`, which solves into it first when it does
        not hold them yet). It is the mover's turn: the mover has as many boxes filled as the
        opponent (seated first) or one fewer (seated second), and every filled box's score
        is known on both cards."""
        from yz.rules.position import (
            Position,
            check_bonus_points,
            check_saved_rolls,
            most_rolls_left,
        )

        from .advice import check_rolls_left
        from .minimax import MinimaxPlay

        t = self.tables
        cards = []
        for card, name, bonus, whose in ((position, "position", bonus_points, "your"),
                                         (opponent, "opponent", opponent_bonus_points,
                                          "the opponent's")):
            card = self.position(card) if card is None or isinstance(card, str | dict) \
                else card
            if not isinstance(card, Position):
                raise InputError(f"{name}: {type(card).__name__} is not a card; give a "
                                 "Position or the boxes filled.", param=name)
            try:
                check_saved_rolls(t, len(card.filled), card.saved_rolls)
                banked = card.banked(t, check_bonus_points(t, card, bonus))
            except InputError as exc:  # (named by the card it is about)
                raise InputError(f"{name}: {whose} card: {exc}", param=name) from None
            if banked is None:
                raise InputError(f"{name}: playing minimax needs the points on both cards: "
                                 f"give the score of every filled box of {whose} card.",
                                 param=name)
            cards.append((card, banked))
        (mine, banked), (theirs, their_banked) = cards
        if dice is not None and rolls_left is None:
            rolls_left = most_rolls_left(t, mine)
        check_rolls_left(t, dice, rolls_left, mine)
        n_cat, km, ko = t.n_categories, len(mine.filled), len(theirs.filled)
        if km >= n_cat:
            raise InputError("position: the card is full; the game is over.", param="position")
        if ko not in (km, km + 1):
            raise InputError(
                f"opponent: it is not your turn: you have {km} of {n_cat} boxes filled and the "
                f"opponent {ko}; in a two-player game the mover has as many boxes filled as "
                "the opponent (playing first) or one fewer (playing second).", param="opponent")
        # Minimax play reads only the tables of the one-player game, not its values: the
        # two-player solve's own checks (memory, time) come first, and nothing else is solved.
        if store is None:
            play = self.remember("minimax-play", lambda: MinimaxPlay(
                self.stand_in(), self.minimax(chances=False, keep=True)))
        else:
            play = self.remember(("minimax-play", str(Path(store).resolve())), lambda: MinimaxPlay(
                self.stand_in(), store=self.minimax_store(store)))
        advice = play.advise(mine, theirs, banked - their_banked, dice, rolls_left)
        return replace(advice, banked=banked, target=None)  # (the reading's own "need" aside)

    def win_seconds(self, position, opponent, banked: int | None = None) -> float:
        """A rough estimate of the seconds `win_turn` takes to solve here (0 when it is in
        memory or the cache): the need sweep over the states `position` can still reach,
        about 2^-k of the game's with k boxes filled, and a quarter more (their windows of
        banked points are wider than the average: measured 13.3 to 14.3 s with 4 filled on
        the official game, against 12.8 s for 2^-4 of the whole sweep's estimate)."""
        from .versus import TAIL

        if self.win_turn_cached(position, opponent, banked) is not None:
            return 0.0
        banked = position.banked(self.tables) if banked is None else banked
        top = max(opponent.top_score(TAIL), banked + 1)
        return 1.25 * 2.0 ** -len(position.filled) * self.budget.need_seconds(top + 1, True,
                                                                              False)

    def win_turn(self, position, opponent, banked: int | None = None):
        """A player's turn at `position` (a Position; `banked`: the points on its card, extra
        Yahtzee bonuses included, default the card's) played to win against `opponent` (a
        `versus.Opponent`): a `versus.WinTurn`, which ranks the moves of every roll of the
        turn by the chance of winning. From memory, or for the empty card (where every game
        starts) from the cache; else solved, over the states the position can still reach,
        its time checked against the budget and announced when long (`win_seconds`)."""
        import time as clock

        from .versus import TAIL, WinTurn, table_to_win

        banked = position.banked(self.tables) if banked is None else banked
        hit = self.win_turn_cached(position, opponent, banked)
        if hit is not None:
            return hit
        key = self.win_turn_key(position, opponent, banked)
        top = max(opponent.top_score(TAIL), banked + 1)
        self.budget.check_need_memory(top + 1, 1, "playing to win in")
        self.budget.check_time("playing to win in", self.win_seconds(position, opponent, banked))
        solution = self.solve()
        self.ensure_compiled("targets")
        begin = clock.perf_counter()
        with self.report.stage(f"playing {self.name} to win from here", "columns") as step:
            table = table_to_win(solution, position, banked, opponent, TAIL, step)
        turn = WinTurn.of(table, position, banked, clock.perf_counter() - begin)
        del table
        self._win_memo().bounded(key, lambda: turn, WIN_MEMO_BYTES, lambda t: t.nbytes)
        if self._starts_game(position, banked, opponent):
            self._store_figures(self._win_start_name(opponent), turn.to_json())
        return turn

    def win_turn_cached(self, position, opponent, banked: int | None = None):
        """`win_turn` when it is in memory or the cache, else None (nothing is solved)."""
        from .versus import WinTurn

        banked = position.banked(self.tables) if banked is None else banked
        key = self.win_turn_key(position, opponent, banked)
        memo = self._win_memo()
        hit = memo.peek(key)
        if hit is not None:
            return hit
        if not self._starts_game(position, banked, opponent):
            return None
        found = self._load_figures(self._win_start_name(opponent))
        if found is None:
            return None
        try:
            turn = WinTurn.from_json(self.solve(), position, banked, found)
        except (KeyError, TypeError, ValueError):
            return None
        return memo.bounded(key, lambda: turn, WIN_MEMO_BYTES, lambda t: t.nbytes)

    def _win_memo(self):
        return self.remember("win turns", Memo)

    def win_turn_key(self, position, opponent, banked: int) -> tuple:
        """What names one `win_turn` (equal keys, the same turn)."""
        return (position.mask, position.upper_total, position.yahtzee_full,
                position.saved_rolls, banked, opponent.digest)

    def _starts_game(self, position, banked: int, opponent) -> bool:
        """Whether this is the first turn of a game against a whole game of this rule set
        (both cards empty): what every game starts from, so kept in the cache."""
        if not self._starts(position) or banked != 0 or opponent.field != 1:
            return False
        from .strategies import STRATEGIES
        from .versus import Opponent

        return any(self.has_distribution(s) and
                   Opponent.of(self.distribution(s)).digest == opponent.digest
                   for s in STRATEGIES)

    @staticmethod
    def _win_start_name(opponent) -> str:
        return f"win-start-{opponent.digest[:20]}"

    def store_solution(self, folder) -> Solution:
        """The values of the finished layered solve (`solve_layered`) of these rules in
        `folder`, read where they lie: nothing is loaded, and each question reads only the
        rows it needs, checking only the blocks they are in (`solver.store.StoreValues`).
        StoreError, with the reason, for a folder that is not such a store; a folder of an
        older yz is checked whole once first (said to `report`). The last store opened is
        kept: the positions of a game share it (and the advisor's memo with it)."""
        from .store import StoreValues

        key = str(Path(folder).expanduser().resolve())
        with self._memo.lock:
            have = self._memo.get("store")
            if have is not None and have[0] == key:
                return have[1]
            start = time.perf_counter()
            values = StoreValues(self.problem, folder, self.report)
            solution = Solution(self.problem, values, time.perf_counter() - start,
                                self.layout.reachable, cached=True)
            self._memo.put("store", (key, solution))  # (the one before is let go)
            return solution

    def store_figures(self, folder) -> ExactFigures:
        """Optimal play's exact figures from the finished layered solve in `folder`: the
        value and SD it holds (the SD None when solved without it), and each box's mean and
        zero rate and the bonus rates from a forward pass over its values, a layer in memory
        at a time (`layered.store_figures`): every state's turn followed through its rolls,
        (`budget.store_figures_seconds`; where saved rolls are carried, the banks of a box
        set, flag and total as one). For games whose moves are too many for `figures` (Maxi
        Yatzy). The pass keeps where it stands in the folder, so a stopped one goes on from its
        last layer, and its figures once done, so the next call answers at once. StoreError,
        with the reason, for a folder that is not a finished store of these rules."""
        from .exact import figures_of_walk
        from .layered import figures_share_left, store_figures

        left = figures_share_left(self.problem, folder)
        if left > 0:  # (0: the folder keeps them, from a pass that finished)
            self.budget.check_streamed_figures_memory()
            self.budget.check_time("the exact figures from a store of",
                                   left * self.budget.store_figures_seconds())
            self.ensure_compiled("figures")
        begin = time.perf_counter()
        with self.report.stage(f"the figures of {self.name} from {folder}", "states") as step:
            value, sd, walk = store_figures(self.problem, folder, step, self.report)
        return figures_of_walk(self.tables, "optimal", value, sd, walk,
                               time.perf_counter() - begin)

    def coach(self, seed: int = 0, own_dice: bool = False, store=None):
        """A game of this rule set played along with the optimal strategy (`coach.Game`);
        with `store`, its values are read from that layered solve's folder
        (`store_solution`) instead of solved."""
        from .coach import Game

        return Game(self.solve() if store is None else self.store_solution(store), seed,
                    own_dice)

    def match(self, seed: int = 0, seats=("person", "optimal"), first: int = 0,
              own_dice: bool = False, win_chances: bool = True,
              win_seconds: float | None = None, compute=None):
        """A two-player game of this rule set, turn about (`match.Match`): a person against
        an optimal, greedy, heuristic or win bot, or two people; each person's decisions
        judged by the chance of winning, both players' live chances."""
        from .match import Match, _run

        return Match(self, seed, seats, first, own_dice, win_chances, win_seconds,
                     compute or _run)


def tables_of(rules: RuleSet, report: Reporter = SILENT) -> RuleTables:
    """The rule set's compiled tables, saying so first when building them takes a while."""
    from math import comb

    if comb(rules.dice + rules.faces, rules.dice) > SLOW_TABLES_KEEPS:
        report.note(f"building the tables of {rules.name} ({rules.dice} dice of "
                    f"{rules.faces} faces): a few seconds")
    return compile_rules(rules)

