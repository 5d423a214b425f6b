"""The exact DP solver for any rule set yz can express, with a verified on-disk cache.

    solve(rules)                      the optimal values of every turn-start state (cached)
    exact_moments(solution, strategy) the exact mean and SD of a strategy's final score
    exact_figures(solution, strategy) and its per-box means, zero rates and bonus rates
    simulate(solution, games, ...)    sampled games (solver.simulate)
    advise(solution, position, ...)   ranked moves in a position (solver.advice)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import replace

from yz.rules import RuleSet, RuleTables, compile_rules

from . import cache
from .distribution import Distribution
from .dp import SOLVER_VERSION, Solution, solve_tables
from .exact import ExactFigures, Moments
from .layout import StateLayout, build_layout
from .strategies import STRATEGIES, check_strategy

__all__ = ["SOLVER_VERSION", "STRATEGIES", "Distribution", "ExactFigures", "Moments", "Solution",
           "distribution", "exact_figures", "exact_moments", "solve", "solve_tables", "targets"]


def solve(rules: RuleSet | RuleTables, use_cache: bool = True,
          progress: Callable[[int, int], None] | None = None, with_sd: bool = False,
          threads: int | None = None, max_memory: int | None = None,
          layout: StateLayout | None = None) -> Solution:
    """Solve a rule set exactly, reusing a verified cached table when there is one.

    With `with_sd`, a fresh solve also computes the exact SD of the final score in the same
    sweeps (about twice the work); a cached table brings the SD it was stored with, if any.
    A cache file that fails verification is reported in `Solution.cache_note`, recomputed and
    replaced; it is never used. `threads` caps the threads the kernels use (default: all).
    A game whose tables need more than `max_memory` bytes (default: three quarters of this
    machine's memory) is refused up front with the estimate. `layout`: the tables' state
    layout when the caller already built it (`solver.layout.build_layout`).
    """
    from .limits import check_solve_memory

    t = rules if isinstance(rules, RuleTables) else compile_rules(rules)
    note = None
    layout = build_layout(t) if layout is None else layout
    check_solve_memory(t, layout, with_sd, max_memory, threads)
    if use_cache:
        start = time.perf_counter()
        try:
            hit = cache.load(t, layout.size)
        except cache.CorruptCache as exc:
            hit, note = None, f"ignored a damaged cache file and recomputed: {exc}"
        if hit is not None:
            return Solution(t, layout, hit.values, time.perf_counter() - start, hit.states,
                            cached=True, sd=hit.sd)
    solution = solve_tables(t, progress, with_sd, threads, layout)
    if use_cache:
        try:
            cache.store(t, solution.values, solution.states, solution.expected_score,
                        solution.sd)
        except OSError as exc:
            note = (note + "; " if note else "") + f"could not write the cache: {exc}"
    if note:
        solution = replace(solution, cache_note=note)
    return solution


def exact_moments(solution: Solution, strategy: str = "optimal", use_cache: bool = True,
                  threads: int | None = None) -> Moments:
    """Exact mean and SD of the final score under `strategy` (cached beside the table)."""
    from . import exact

    check_strategy(strategy)
    if strategy == "optimal" and solution.sd is not None:
        return Moments(strategy, solution.expected_score, solution.sd, cached=True)
    t = solution.tables
    for what in (strategy, f"moments-{strategy}"):
        cached = cache.load_figures(t, what) if use_cache else None
        with contextlib.suppress(KeyError, TypeError, ValueError):
            if cached is not None:
                return Moments(strategy, float(cached["expected_score"]), float(cached["sd"]),
                               cached=True)
    moments = exact.exact_moments(solution, strategy, threads)
    if use_cache:
        # Figures are cheap to redo: a read-only cache folder is not an error here.
        with contextlib.suppress(OSError):
            cache.store_figures(t, f"moments-{strategy}",
                                {"expected_score": moments.expected_score, "sd": moments.sd})
    return moments


def exact_figures(solution: Solution, strategy: str = "optimal", use_cache: bool = True,
                  threads: int | None = None) -> ExactFigures:
    """Exact mean, SD and per-box figures of `strategy` (cached beside the table)."""
    from . import exact

    check_strategy(strategy)
    t = solution.tables
    cached = cache.load_figures(t, strategy) if use_cache else None
    if cached is not None:
        with contextlib.suppress(TypeError):
            return ExactFigures(**cached)
    figures = exact.exact_figures(solution, strategy, threads)
    if use_cache:
        with contextlib.suppress(OSError):
            cache.store_figures(t, strategy, figures.as_dict())
    return figures


def distribution(solution: Solution, strategy: str = "optimal", use_cache: bool = True,
                 progress: Callable[[int, int], None] | None = None,
                 threads: int | None = None) -> Distribution:
    """The exact final-score distribution of `strategy` (cached beside the table)."""
    import numpy as np

    from .distribution import score_distribution

    check_strategy(strategy)
    t = solution.tables
    what = f"pmf-{strategy}"
    cached = cache.load_figures(t, what) if use_cache else None
    with contextlib.suppress(KeyError, TypeError, ValueError):
        if cached is not None:
            probs = np.asarray(cached["probabilities"], dtype=np.float64)
            scores = np.arange(int(cached["first_score"]), int(cached["first_score"]) + len(probs))
            return Distribution(t.rules.name, strategy, scores, probs, float(cached["seconds"]))
    dist = score_distribution(solution, strategy, progress, threads)
    if use_cache:
        with contextlib.suppress(OSError):
            cache.store_figures(t, what, {"first_score": int(dist.scores[0]),
                                          "probabilities": dist.probabilities.tolist(),
                                          "seconds": dist.seconds})
    return dist


def targets(solution: Solution, max_target: int, use_cache: bool = True,
            progress: Callable[[int, int], None] | None = None, threads: int | None = None,
            solve_up_to: int | None = None):
    """The target-play table up to at least `max_target` (solver.target), from the cache when
    a table of this or a higher maximum is there; else solved up to `solve_up_to` (default
    `max_target`) and cached."""
    from .target import TargetTable, check_max_target, check_target_memory, solve_targets

    check_max_target(max_target)
    t = solution.tables
    if use_cache:
        start = time.perf_counter()
        for have in _cached_targets(t):
            if have < max_target:
                continue
            try:
                table = cache.load_array(t, f"targets-{have}")
            except cache.CorruptCache:
                continue  # recomputed below, and replaced
            if table is not None:
                return TargetTable(solution, have, table, time.perf_counter() - start, True)
    top = max(max_target, solve_up_to or max_target)
    check_target_memory(t, top)
    table = solve_targets(solution, top, progress, threads)
    if use_cache:
        with contextlib.suppress(OSError):
            cache.store_array(t, f"targets-{top}", table.W)
    return table


def _cached_targets(t: RuleTables) -> list[int]:
    """The maximum targets of the target tables cached for these rules, smallest first."""
    stem = cache.cache_stem(t)
    found = []
    for path in stem.parent.glob(f"{stem.name}.targets-*.json"):
        with contextlib.suppress(ValueError):
            found.append(int(path.name[len(stem.name) + len(".targets-"): -len(".json")]))
    return sorted(found)
