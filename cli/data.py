"""The CLI's JSON for what no record renders itself (a record's own `to_dict` is used where
there is one: `Distribution`, `Advice`, `BoxChoice`): rows of tables that compare rule sets,
the cache's files, a duel, a target table. The keys are the README's "JSON output" table."""

from __future__ import annotations

from . import quick

TYPE_CHECKING = False  # (the rule models load only where a command uses them)
if TYPE_CHECKING:
    from yz.rules import RuleSet


def variant_summary(rules: RuleSet) -> dict:
    ub = rules.upper_bonus
    return {
        "variant": rules.name,
        "boxes": len(rules.categories),
        "categories": list(rules.keys),
        "upper_bonus": f"{ub.amount} at {ub.threshold}" if ub else None,
        "yahtzee_bonus": rules.yahtzee_bonus.amount if rules.yahtzee_bonus else None,
        "joker": rules.joker.mode,
        "dice": f"{rules.dice}d{rules.faces} x{rules.rolls}",
        "description": rules.description,
    }


def solution_json(s, moments=None) -> dict:
    return quick.solution_json(s.rules.name, s.expected_score,
                               moments.sd if moments is not None else None, s.states,
                               s.seconds, s.cached)


def layered_json(s) -> dict:
    return {**quick.solution_json(s.name, s.expected_score, s.sd, s.states, s.seconds, False),
            "store": str(s.folder), "chunks_solved": s.solved_chunks,
            "chunks_found_finished": s.resumed_chunks}


def compare_rows(solutions, risks=None) -> list[dict]:
    """One row per rule set: the mean, its difference to the first, and (with `risks`, a
    (Distribution or None, ExactFigures or None) pair per rule set) the spread and the upper
    bonus rate, as far as they are known: the distribution's median, mode and percentiles
    where it is at hand, P(upper bonus) where the per-box figures are (`ExactFigures.per_box`).
    A figure not computed is left out and named in the row's `not_computed`; `p_upper_bonus`
    is null only for a game without an upper bonus."""
    base = solutions[0].expected_score if solutions else 0.0
    rows = []
    for i, s in enumerate(solutions):
        row = {"variant": s.rules.name, "expected_score": s.expected_score,
               "difference": s.expected_score - base, "states": s.states,
               "seconds": s.seconds, "cached": s.cached}
        if risks is not None:
            dist, figures = risks[i]
            missing = []
            row["sd"] = dist.sd if dist is not None else figures.sd
            if dist is not None:
                row.update(median=dist.median, mode=dist.mode, percentiles=dist.percentiles())
            else:
                missing += ["median", "mode", "percentiles"]
            if figures is not None and figures.per_box:
                row["p_upper_bonus"] = figures.p_upper_bonus
            else:
                missing.append("p_upper_bonus")
            if missing:
                row["not_computed"] = missing
        rows.append(row)
    return rows


def cache_json(root, entries, kernels=()) -> dict:
    return {"cache_dir": str(root), "entries": [
        {"variant": e.variant, "kind": e.kind, "status": e.status, "bytes": e.size_bytes,
         "expected_score": e.expected_score, "states": e.states, "created": e.created,
         "path": str(e.path)} for e in entries],
        "kernel_folders": [_kernel_folder(k) for k in kernels]}


def _kernel_folder(k) -> dict:
    return {"path": str(k.path), "bytes": k.size_bytes, "current": k.current,
            "in_use": k.in_use}


def kernels_cleared_json(root, removed) -> dict:
    """What `yz cache clear --kernels` removed (the folders as `cache list` shows them)."""
    return {"kernel_dir": str(root), "removed": len(removed),
            "kernel_folders": [_kernel_folder(k) for k in removed]}


def duel_json(a, b, result) -> dict:
    p_a, p_draw, p_b = result
    side = lambda d: {"variant": d.variant, "strategy": d.strategy,  # noqa: E731
                      "expected_score": d.expected_score, "median": d.median, "mode": d.mode}
    return {"a": side(a), "b": side(b), "p_a_wins": p_a, "p_draw": p_draw, "p_b_wins": p_b}


def target_json(table, rows) -> dict:
    """The target table's chances (`rows`: target, under target play, under mean play or
    None where mean play's distribution is not computed: left out and named in the row's
    `not_computed`)."""
    def row(t: int, p: float, q: float | None) -> dict:
        if q is None:
            return {"target": t, "p_target_optimal": p, "not_computed": ["p_mean_optimal"]}
        return {"target": t, "p_target_optimal": p, "p_mean_optimal": q}

    return {"variant": table.solution.rules.name, "max_target": table.max_target,
            "targets": [row(*r) for r in rows], "states": table.solution.states,
            "seconds": table.seconds, "cached": table.cached}
