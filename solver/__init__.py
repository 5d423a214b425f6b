"""The exact DP solver for any rule set yz can express, with a verified on-disk cache."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import replace

from yz.rules import RuleSet, RuleTables, compile_rules

from . import cache
from .dp import SOLVER_VERSION, Solution, solve_tables, state_space

__all__ = ["SOLVER_VERSION", "Solution", "exact_figures", "solve", "solve_tables",
           "state_space"]


def solve(rules: RuleSet | RuleTables, use_cache: bool = True,
          progress: Callable[[int, int], None] | None = None, with_sd: bool = False) -> Solution:
    """Solve a rule set exactly, reusing a verified cached table when there is one.

    With `with_sd`, a fresh solve also computes the exact SD of the final score in the same
    sweeps (about twice the work); a cached table brings the SD it was stored with, if any.
    A cache file that fails verification is reported in `Solution.cache_note`, recomputed and
    replaced; it is never used.
    """
    t = rules if isinstance(rules, RuleTables) else compile_rules(rules)
    note = None
    if use_cache:
        start = time.perf_counter()
        try:
            hit = cache.load(t)
        except cache.CorruptCache as exc:
            hit, note = None, f"ignored a damaged cache file and recomputed: {exc}"
        if hit is not None:
            values, meta = hit
            return Solution(t, values, time.perf_counter() - start, int(meta["states"]),
                            cached=True, sd=meta.get("sd"))
    solution = solve_tables(t, progress, with_sd)
    if use_cache:
        try:
            cache.store(t, solution.values, solution.states, solution.sd)
        except OSError as exc:
            note = (note + "; " if note else "") + f"could not write the cache: {exc}"
    if note:
        solution = replace(solution, cache_note=note)
    return solution


def exact_figures(solution: Solution, strategy: str = "optimal", full: bool = True,
                  use_cache: bool = True) -> dict:
    """Exact mean and SD of a strategy, and with `full` its per-box figures (cached)."""
    from .exact import exact_moments, exact_stats

    t = solution.tables
    if not full and strategy == "optimal" and solution.sd is not None:
        return {"strategy": strategy, "mean": solution.expected_score, "sd": solution.sd}
    cached = cache.load_stats(t, strategy) if use_cache else None
    if cached is not None and (not full or "box_mean" in cached):
        return cached
    if full:
        figures = exact_stats(solution, strategy).as_dict()
    else:
        mean, sd = exact_moments(solution, strategy)
        figures = {"strategy": strategy, "mean": mean, "sd": sd}
    if use_cache:
        # Figures are cheap to redo: a read-only cache folder is not an error here.
        with contextlib.suppress(OSError):
            cache.store_stats(t, strategy, figures)
    return figures
