"""Text and JSON rendering for the CLI. Pure formatting: no game logic lives here."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import textwrap
from collections.abc import Callable, Iterator

from yz.rules import RuleSet, RuleTables
from yz.rules.models import (
    FacePattern,
    Fixed,
    GroupsPattern,
    OfAKindPattern,
    StraightPattern,
)

from . import quick


def _table(headers: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


# ---------------------------------------------------------------- variants and rules


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


def variants_table(rows: list[dict]) -> str:
    body = []
    for r in rows:
        first = textwrap.shorten(r["description"], 60, placeholder="...")
        body.append([r["variant"], str(r["boxes"]), r["upper_bonus"] or "-",
                     str(r["yahtzee_bonus"] or "-"), r["joker"], first])
    return _table(["variant", "boxes", "upper bonus", "yahtzee bonus", "joker", "description"],
                  body, right={1})


def pattern_text(p) -> str:
    if isinstance(p, FacePattern):
        return f"face {p.face}" + (f" (at least {p.min_count})" if p.min_count else "")
    if isinstance(p, OfAKindPattern):
        return f"{'exactly' if p.exact else 'at least'} {p.count} of a kind"
    if isinstance(p, GroupsPattern):
        sizes = "+".join(map(str, p.sizes))
        extra = ", exact" if p.exact else ""
        extra += "" if p.distinct else ", faces may repeat"
        return f"groups {sizes}{extra}"
    if isinstance(p, StraightPattern):
        if p.length is not None:
            return f"run of {p.length}"
        if p.any_of is not None:
            return "faces " + " or ".join("-".join(map(str, fs)) for fs in p.any_of)
        return "faces " + "-".join(map(str, p.faces))
    return p.kind.replace("_", " ")


def score_text(s) -> str:
    return f"{s.points} points" if isinstance(s, Fixed) else s.kind.replace("_", " ")


def rules_text(rules: RuleSet) -> str:
    out = [f"{rules.name}: {rules.dice} dice, {rules.faces} faces, {rules.rolls} rolls per turn"]
    if rules.description:
        out += textwrap.wrap(rules.description, 96, initial_indent="  ", subsequent_indent="  ")
    if rules.source:
        out.append(f"  source: {rules.source}")
    rows = [[c.key, c.name, c.section, pattern_text(c.pattern), score_text(c.score)
             + (f" (+{c.first_roll_bonus} on the first roll)" if c.first_roll_bonus else "")
             + (f" (only once {c.only_after} is non-zero)" if c.only_after else "")]
            for c in rules.categories]
    out += ["", _table(["key", "name", "section", "pattern", "score"], rows), ""]
    if rules.order == "in_order":
        out.append("order:         boxes are filled in card order, one per turn")
    ub = rules.upper_bonus
    out.append(f"upper bonus:   {ub.amount} when {', '.join(rules.bonus_categories)} total "
               f"{ub.threshold} or more" if ub else "upper bonus:   none")
    yb = rules.yahtzee_bonus
    out.append(f"yahtzee bonus: {yb.amount} per further Yahtzee once '{rules.yahtzee_category}' "
               "holds its full value" if yb else "yahtzee bonus: none")
    jk = rules.joker
    out.append(f"joker:         {jk.mode}" + (f" (full value in {', '.join(jk.full_value)})"
                                               if jk.mode != "none" and jk.full_value else ""))
    saved = rules.saved_rolls
    if saved is not None:
        kept = (f"unused rolls are saved{f', at most {saved.cap}' if saved.cap is not None else ''}"
                if saved.carry_unused else "unused rolls are lost")
        out.append(f"saved rolls:   {saved.start} at the start; {kept}; a turn may draw on them "
                   "all and may stop after any roll")
    return "\n".join(out)


def score_table_csv(t: RuleTables) -> str:
    buf = io.StringIO()
    buf.write("dice," + ",".join(t.rules.keys) + "\n")
    for r in range(t.n_distinct_rolls):
        dice = "".join(map(str, t.ROLL_DICE[r])) if t.n_faces <= 9 else \
            " ".join(map(str, t.ROLL_DICE[r]))
        buf.write(dice + "," + ",".join(map(str, t.SCORE[r])) + "\n")
    return buf.getvalue()


def score_table_text(t: RuleTables) -> str:
    rows = [[" ".join(map(str, t.ROLL_DICE[r])), *map(str, t.SCORE[r])]
            for r in range(t.n_distinct_rolls)]
    return _table(["dice", *t.rules.keys], rows, right=set(range(1, t.n_categories + 1)))


# ---------------------------------------------------------------- score


def choice_json(c) -> dict:
    return {"category": c.key, "name": c.name, "score": c.points, "yahtzee_bonus": c.yahtzee_bonus,
            "upper_bonus": c.upper_bonus, "total": c.total, "legal": c.legal, "joker": c.joker,
            "first_roll_bonus": c.first_roll_bonus}


def choices_text(t: RuleTables, roll: int, choices) -> str:
    rows = []
    for c in choices:
        notes = []
        if c.joker:
            notes.append("Joker")
        if c.yahtzee_bonus:
            notes.append(f"+{c.yahtzee_bonus} Yahtzee bonus")
        if c.upper_bonus:
            notes.append(f"+{c.upper_bonus} upper bonus")
        if c.first_roll_bonus:
            notes.append(f"includes +{c.first_roll_bonus} for the first roll")
        if not c.legal:  # in order only the next box is legal; else only the Joker forbids
            notes.append("not allowed (boxes in card order)" if t.in_order
                         else "not allowed (forced Joker)")
        rows.append([c.key, c.name, str(c.points), "; ".join(notes)])
    dice = " ".join(map(str, t.ROLL_DICE[roll]))
    return f"{t.rules.name}: {dice}\n" + _table(["box", "name", "score", "notes"], rows, right={2})


# ---------------------------------------------------------------- solve and compare


def progress_columns(unit: str) -> list:
    """The columns of a progress bar: label, bar, count, time left (once the total is known),
    time elapsed. Every column renders whether or not the total is known yet; the text columns
    never wrap, the bar takes the width that is left."""
    from rich.progress import (
        BarColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Column
    from rich.text import Text

    class CountColumn(ProgressColumn):
        """'done/total unit', or 'done unit' while the total is unknown."""

        def render(self, task) -> Text:
            done = f"{task.completed:,.0f}"
            if task.total is None:
                return Text(f"{done} {unit}" if task.completed else "", style="progress.download")
            return Text(f"{done}/{task.total:,.0f} {unit}", style="progress.download")

    class LeftColumn(TimeRemainingColumn):
        """rich's time-remaining column, blank while the total is unknown."""

        def render(self, task) -> Text:
            if task.total is None:
                return Text("")
            return Text.assemble(super().render(task), " left")

    def fixed() -> Column:
        return Column(no_wrap=True)

    return [TextColumn("{task.description}", table_column=fixed()),
            BarColumn(bar_width=None, table_column=Column(ratio=1)),
            CountColumn(table_column=fixed()), LeftColumn(compact=True, table_column=fixed()),
            TimeElapsedColumn(table_column=fixed())]


@contextlib.contextmanager
def progress(label: str, enabled: bool = True,
             unit: str = "layers") -> Iterator[Callable[..., None] | None]:
    """A transient progress bar on stderr while working, only when stderr is a terminal.

    Yields `step(done, total=None)`: the bar pulses until a total is given, then shows the count
    and an estimate of the time left. It is one line, at most 100 columns wide.
    """
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    console.width = min(console.width, 100)  # a wide terminal gets a bar, not a runway
    bar = Progress(*progress_columns(unit), console=console, transient=True, expand=True)
    with bar:
        task = bar.add_task(label, total=None)

        def step(done: int, total: int | None = None) -> None:
            bar.update(task, completed=done, total=total)

        yield step


def solution_json(s, moments=None) -> dict:
    return quick.solution_json(s.rules.name, s.expected_score,
                               moments.sd if moments is not None else None, s.states,
                               s.seconds, s.cached)


def solution_text(s, moments=None, sd_seconds: float = 0.0) -> str:
    if not s.cached:
        how = f"solved in {s.seconds:.2f} s"
    elif moments is not None and not moments.cached:  # the SD was computed now
        how = f"solved in {s.seconds + sd_seconds:.2f} s (values from the cache, SD computed)"
    else:
        how = f"from the cache in {s.seconds:.2f} s"
    return quick.solution_text(s.rules.name, s.expected_score,
                               moments.sd if moments is not None else None, s.states, how)


def layered_text(s) -> str:
    """`yz solve --store`: the figures, and what the run found and did in the folder."""
    how = (f"solved in {s.seconds:.2f} s layer by layer into {s.folder} ({s.solved_chunks} "
           f"chunks solved" + (f", {s.resumed_chunks} found finished" if s.resumed_chunks
                               else "") + ")")
    return quick.solution_text(s.name, s.expected_score, s.sd, s.states, how)


def layered_json(s) -> dict:
    return {**quick.solution_json(s.name, s.expected_score, s.sd, s.states, s.seconds, False),
            "store": str(s.folder), "chunks_solved": s.solved_chunks,
            "chunks_found_finished": s.resumed_chunks}


def compare_rows(solutions, risks=None) -> list[dict]:
    """One row per rule set: the mean, its difference to the first, and (with `risks`, a
    (Distribution, ExactFigures) pair per rule set) the spread and the upper bonus rate (the
    SD only, the rest None, where the distribution is None: games with saved rolls)."""
    base = solutions[0].expected_score if solutions else 0.0
    rows = []
    for i, s in enumerate(solutions):
        row = {"variant": s.rules.name, "expected_score": s.expected_score,
               "difference": s.expected_score - base, "states": s.states, "cached": s.cached}
        if risks is not None:
            dist, figures = risks[i]
            if dist is None:
                row.update(sd=figures.sd, median=None, percentiles=None, p_upper_bonus=None)
            else:
                row.update(sd=dist.sd, median=dist.median, percentiles=dist.percentiles(),
                           p_upper_bonus=figures.p_upper_bonus)
        rows.append(row)
    return rows


def compare_text(rows: list[dict]) -> str:
    risk = rows and "sd" in rows[0]
    headers = ["variant", "expected", "vs first"]
    if risk:
        headers += ["sd", "median", "5%", "95%", "P(bonus)"]
    headers += ["states"]
    body = []
    for r in rows:
        line = [r["variant"], f"{r['expected_score']:.4f}", f"{r['difference']:+.4f}"]
        if risk:
            bonus, pct = r["p_upper_bonus"], r["percentiles"] or {}
            line += [f"{r['sd']:.2f}", *(("-" if v is None else str(v)) for v in (
                r["median"], pct.get("5"), pct.get("95"))),
                     "-" if bonus is None else f"{100 * bonus:.1f}%"]
        line.append(f"{r['states']:,}")
        body.append(line)
    return _table(headers, body, right=set(range(1, len(headers))))


def cache_json(root, entries) -> dict:
    return {"cache_dir": str(root), "entries": [
        {"variant": e.variant, "kind": e.kind, "status": e.status, "bytes": e.size_bytes,
         "expected_score": e.expected_score, "states": e.states, "created": e.created,
         "path": str(e.path)} for e in entries]}


def cache_text(root, entries) -> str:
    if not entries:
        return f"no files of yz in {root}"
    body = [[e.variant, e.kind, e.status,
             "-" if e.expected_score is None else f"{e.expected_score:.4f}",
             f"{e.size_bytes / 1e6:.1f} MB", e.path.name] for e in entries]
    total = sum(e.size_bytes for e in entries) / 1e6
    stale = sum(e.status != "ok" for e in entries)
    tail = f"\n{len(entries)} files, {total:.1f} MB" + (
        f"; {stale} stale, damaged or left over ('yz cache clear --stale' removes them)"
        if stale else "")
    return f"{root}\n" + _table(["variant", "kind", "status", "expected", "size", "file"], body,
                                right={3, 4}) + tail


# ---------------------------------------------------------------- advise


def _action_json(action, best_value: float, banked: int | None, target: int | None) -> dict:
    if target is not None:  # values are chances of reaching the target
        out = {"kind": action.kind, "p_target": action.value, "loss": best_value - action.value}
    else:
        out = {"kind": action.kind, "value": action.value, "loss": best_value - action.value,
               "expected_final": None if banked is None else banked + action.value}
    if action.kind == "keep":
        out.update(keep=list(action.keep), reroll=list(action.reroll))
    else:
        out.update(choice_json(action.box))
        if action.saved_rolls is not None:
            out["saved_rolls_after"] = action.saved_rolls
    return out


def advice_json(t: RuleTables, pos, dice, rolls_left, advice, top: int) -> dict:
    best = advice.best
    out = {
        "variant": t.rules.name,
        "filled": pos.filled, "upper_total": pos.upper_total,
        "yahtzee_full": pos.yahtzee_full,
        "saved_rolls": pos.saved_rolls if t.has_bank else None,
        "dice": list(dice) if dice else None, "rolls_left": rolls_left,
        "banked": advice.banked, "target": advice.target,
        "best": None, "alternatives": [],
    }
    if advice.target is not None:
        out["position_p_target"] = advice.position_value
    else:
        out["position_value"] = advice.position_value
        out["position_expected_final"] = None if advice.banked is None \
            else advice.banked + advice.position_value
    if best is not None:
        out["best"] = _action_json(best, best.value, advice.banked, advice.target)
        out["alternatives"] = [_action_json(a, best.value, advice.banked, advice.target)
                               for a in advice.actions[1: 1 + top]]
    return out


def advice_text(t: RuleTables, pos, dice, rolls_left, advice, top: int) -> str:
    def final(value: float) -> str:
        if advice.target is not None:
            return f"{100 * value:.3f}%"
        return f"{value:.4f}" if advice.banked is None else f"{advice.banked + value:.4f}"

    if advice.target is not None:
        what = f"chance of {advice.target} or more"
    else:
        what = "expected points still to come" if advice.banked is None else \
            "expected final score"
    filled = ", ".join(f"{k}={v}" if v is not None else k for k, v in pos.filled.items())
    lines = [f"{t.rules.name}: " + (f"filled {filled}" if filled else "empty card")
             + (f"; upper total {pos.upper_total}" if t.upper_threshold else "")
             + (f"; {pos.saved_rolls} saved roll{'s' if pos.saved_rolls != 1 else ''} at "
                "the turn's start" if t.has_bank else "")]
    if dice is None:
        lines.append(f"before the roll: {what} {final(advice.position_value)}")
        return "\n".join(lines)
    left = f"{rolls_left} re-roll{'s' if rolls_left != 1 else ''} left" if rolls_left \
        else "no re-rolls left"
    lines.append(f"dice {' '.join(map(str, dice))}, {left}")
    best = advice.best
    lines.append(f"best: {best.label()}  ({what} {final(best.value)})")
    def loss(a) -> str:
        if advice.target is not None:
            return f"{signed(100 * (a.value - best.value), 3)} percentage points"
        return signed(a.value - best.value, 4)

    rows = [[a.label(), final(a.value), loss(a)] for a in advice.actions[1: 1 + top]]
    if rows:
        lines.append("")
        header = "chance" if advice.target is not None else \
            what.split()[0] + " " + what.split()[1]
        lines.append(_table(["alternative", header, "vs best"], rows, right={1, 2}))
    return "\n".join(lines)


# ---------------------------------------------------------------- simulate


def check_plot_target(path: str) -> None:
    """Fail before any work if the plot cannot be written (no matplotlib, bad folder)."""
    from pathlib import Path

    from yz.rules.errors import InputError

    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InputError(f"--plot: '{path}' should be a .png file name.")
    if target.is_dir():
        raise InputError(f"--plot: '{path}' is a folder; give a file name ending in .png.")
    if target.parent.exists() and not target.parent.is_dir():
        raise InputError(f"--plot: '{target.parent}' is a file, not a folder; give another "
                         "path.")
    if not target.parent.is_dir():
        raise InputError(f"--plot: the folder '{target.parent}' does not exist; create it or "
                         "give another path.")
    if not os.access(target.parent, os.W_OK):
        raise InputError(f"--plot: the folder '{target.parent}' is not writable; give another "
                         "path.")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("--plot needs matplotlib, which is not installed: run "
                         "pip install matplotlib (or pip install '.[plot]' in yz's source "
                         "folder), or leave out --plot for the histogram in the terminal."
                         ) from None


def plot_histogram(path: str, scores, counts, title: str, exact_mean: float | None,
                   sample_mean: float | None = None, ylabel: str = "games") -> None:
    """A PNG bar chart of how often each score came (counts may be probabilities)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(9, 5))
    scores = np.asarray(scores)
    width = 5
    edges = np.arange(scores.min() // width * width, scores.max() + 2 * width, width)
    binned, _ = np.histogram(scores, bins=edges, weights=counts)
    ax.bar(edges[:-1], binned, width=width, align="edge", color="#4c72b0")
    if exact_mean is not None:
        ax.axvline(exact_mean, color="#c44e52", linewidth=2,
                   label=f"exact mean {exact_mean:.2f}")
    if sample_mean is not None:
        ax.axvline(sample_mean, color="#55a868", linestyle="--",
                   label=f"sample mean {sample_mean:.2f}")
    ax.set_xlabel("final score")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if exact_mean is not None or sample_mean is not None:
        ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        from yz.rules.errors import InputError

        raise InputError(f"--plot: could not write '{path}' ({exc.strerror or exc}); the "
                         "figures above are unaffected.") from None
    finally:
        plt.close(fig)


def terminal_histogram(scores, weights, exact_mean: float | None, width: int = 50,
                       bins: int = 24) -> str:
    """A compact text histogram of the middle 99.8% of a distribution (tails noted); `weights`
    are counts or probabilities of each score."""
    import numpy as np

    scores = np.asarray(scores)
    p = np.asarray(weights, dtype=np.float64)
    p = p / p.sum()
    cdf = np.cumsum(p)
    lo = int(scores[np.searchsorted(cdf, 0.001)])
    hi = int(scores[min(len(scores) - 1, np.searchsorted(cdf, 0.999))])
    step = max(1, int(np.ceil((hi - lo) / bins / 5.0)) * 5)
    start = lo // step * step
    edges = np.arange(start, hi + step + 1, step).astype(int)
    counts, _ = np.histogram(scores, bins=edges, weights=p)
    top = counts.max() or 1
    lines = []
    for left, n in zip(edges[:-1], counts, strict=True):
        mark = " <- exact mean" if exact_mean is not None and left <= exact_mean < left + step \
            else ""
        lines.append(f"{left:5d}-{left + step - 1:<5d} {'#' * round(width * n / top):<{width}} "
                     f"{100 * n:5.2f}%{mark}")
    below = 100 * p[scores < edges[0]].sum()
    above = 100 * p[scores >= edges[-1]].sum()
    lines.append(f"(below {edges[0]}: {below:.2f}%, {edges[-1]} or more: {above:.2f}%)")
    return "\n".join(lines)


def simulation_text(summary: dict, exact: dict | None, sim) -> str:
    s = summary
    out = [f"{s['variant']}, {s['strategy']} strategy: {s['games']:,} games (seed {s['seed']}) "
           f"in {s['seconds']:.2f} s ({s['games_per_second']:,.0f} games/s)", ""]
    # Exact figures may be partial (a big game's mean alone): absent ones print as "-".
    known = exact or {}

    def ex(value, fmt="{:.4f}"):
        return "-" if value is None else fmt.format(value)

    rows = [["mean", f"{s['mean']:.4f} +- {s['sem']:.4f}", ex(known.get("expected_score"))],
            ["standard deviation", f"{s['sd']:.4f}", ex(known.get("sd"))]]
    out.append(_table(["figure", "sampled", "exact"], rows, right={1, 2}))
    out.append("")
    out.append("percentiles: " + "  ".join(f"{p}%: {v}" for p, v in s["percentiles"].items())
               + f"   (min {s['min']}, max {s['max']})")
    out.append("")
    rows = []
    box_mean = known.get("box_mean") or {}
    box_zero = known.get("box_zero_rate") or {}
    for key, stats in s["boxes"].items():
        zero = box_zero.get(key)
        rows.append([key, f"{stats['mean']:.3f}", ex(box_mean.get(key), "{:.3f}"),
                     f"{100 * stats['zero_rate']:.2f}", ex(None if zero is None else 100 * zero,
                                                            "{:.2f}")])
    t = sim.tables
    e_rate = known.get("p_upper_bonus")
    e_bonuses = known.get("yahtzee_bonus_mean")
    e_jokers = known.get("joker_uses_mean")
    if t.upper_threshold:
        rate = s["p_upper_bonus"]
        rows.append(["upper bonus", f"{rate * t.upper_bonus:.3f}",
                     ex(None if e_rate is None else e_rate * t.upper_bonus, "{:.3f}"),
                     f"{100 * (1 - rate):.2f}",
                     ex(None if e_rate is None else 100 * (1 - e_rate), "{:.2f}")])
    if t.yahtzee_bonus:
        none = s["yahtzee_bonus_counts"].get("0", 0) / s["games"]
        rows.append(["yahtzee bonus", f"{s['yahtzee_bonus_mean'] * t.yahtzee_bonus:.3f}",
                     ex(None if e_bonuses is None else e_bonuses * t.yahtzee_bonus, "{:.3f}"),
                     f"{100 * none:.2f}", "-"])
    out.append(_table(["box", "mean", "exact", "zero %", "exact"], rows, right={1, 2, 3, 4}))
    out.append("")
    if t.upper_threshold:
        e = f" (exact {100 * e_rate:.2f}%)" if e_rate is not None else ""
        out.append(f"upper bonus made in {100 * s['p_upper_bonus']:.2f}% of games{e}")
    if t.yahtzee_bonus:
        counts = ", ".join(f"{k}: {100 * v / s['games']:.3f}%"
                           for k, v in s["yahtzee_bonus_counts"].items())
        e = f" (exact {e_bonuses:.4f})" if e_bonuses is not None else ""
        out.append(f"extra Yahtzee bonuses per game {s['yahtzee_bonus_mean']:.4f}{e}; "
                   f"games with n bonuses: {counts}")
    if t.joker_mode:
        e = f" (exact {e_jokers:.4f})" if e_jokers is not None else ""
        out.append(f"Joker uses per game {s['joker_uses_mean']:.4f}{e}; in "
                   f"{100 * s['joker_games_rate']:.2f}% of games")
    out.append("")
    import numpy as np

    scores = np.arange(len(sim.score_counts))
    out.append(terminal_histogram(scores, sim.score_counts, known.get("expected_score")))
    return "\n".join(out)


# ---------------------------------------------------------------- distribution, duel, target


ROUND_SCORES = (100, 150, 200, 250, 300, 350, 400, 500, 600, 800, 1000)


def distribution_json(dist, cached: bool) -> dict:
    summary = dist.summary()
    reach = {str(x): dist.p_at_least(x) for x in ROUND_SCORES if x <= dist.scores[-1]}
    return {**summary, "p_at_least": reach, "scores": dist.scores.tolist(),
            "probabilities": dist.probabilities.tolist(), "seconds": dist.seconds,
            "cached": cached}


def distribution_csv(dist) -> str:
    import numpy as np

    cdf = np.cumsum(dist.probabilities)
    lines = ["score,probability,cumulative"]
    lines += [f"{s},{p!r},{c!r}" for s, p, c in zip(dist.scores.tolist(),
                                                   dist.probabilities.tolist(), cdf.tolist(),
                                                   strict=True)]
    return "\n".join(lines) + "\n"


def distribution_text(dist, cached: bool) -> str:
    s = dist.summary()
    how = "from the cache" if cached else f"computed in {dist.seconds:.2f} s"
    out = [f"{s['variant']}, {s['strategy']} strategy: the exact distribution of the final "
           f"score ({how})", ""]
    rows = [["expected score", f"{s['expected_score']:.4f}"], ["standard deviation",
                                                              f"{s['sd']:.4f}"],
            ["median", str(s["median"])], ["mode", str(s["mode"])],
            ["lowest / highest possible", f"{s['min']} / {s['max']}"]]
    out.append(_table(["figure", "exact"], rows, right={1}))
    out.append("")
    out.append("percentiles: " + "  ".join(f"{q}%: {v}" for q, v in s["percentiles"].items()))
    reach = [(x, dist.p_at_least(x)) for x in ROUND_SCORES if x <= dist.scores[-1]]
    out.append("P(score >= x): " + "  ".join(f"{x}: {_pct(p)}" for x, p in reach))
    out.append("")
    out.append(terminal_histogram(dist.scores, dist.probabilities, s["expected_score"]))
    return "\n".join(out)


def signed(x: float, digits: int) -> str:
    """x with its sign and `digits` decimals; what rounds to zero is +0 (a tie between two
    moves, whose chances differ in float32's last digit, read "-0.000")."""
    shown = round(x, digits) + 0.0  # (+ 0.0 turns -0.0 into 0.0)
    return f"{shown:+.{digits}f}"


def _pct(p: float) -> str:
    """A probability as a percentage with the digits that matter."""
    if p == 0:
        return "0%"
    if p >= 0.001:
        return f"{100 * p:.2f}%"
    return f"{100 * p:.2g}%"


def duel_json(a, b, result) -> dict:
    p_a, p_draw, p_b = result
    side = lambda d: {"variant": d.variant, "strategy": d.strategy,  # noqa: E731
                      "expected_score": d.expected_score, "median": d.median}
    return {"a": side(a), "b": side(b), "p_a_wins": p_a, "p_draw": p_draw, "p_b_wins": p_b}


def duel_text(a, b, result) -> str:
    p_a, p_draw, p_b = result
    name = lambda d: f"{d.variant} ({d.strategy})"  # noqa: E731
    rows = [["A", name(a), f"{a.expected_score:.4f}", f"{100 * p_a:.3f}%"],
            ["B", name(b), f"{b.expected_score:.4f}", f"{100 * p_b:.3f}%"],
            ["draw", "", "", f"{100 * p_draw:.3f}%"]]
    return ("Two solitaire players (neither sees the other's card): exact chances\n"
            + _table(["", "player", "expected", "wins"], rows, right={2, 3}))


def target_json(table, rows) -> dict:
    return {"variant": table.solution.rules.name, "max_target": table.max_target,
            "targets": [{"target": t, "p_target_optimal": p, "p_mean_optimal": q}
                        for t, p, q in rows],
            "seconds": table.seconds, "cached": table.cached}


def target_text(table, rows) -> str:
    how = "from the cache" if table.cached else f"solved in {table.seconds:.1f} s"
    body = [[str(t), _pct(p), "-" if q is None else _pct(q),
             "-" if q is None else signed((p - q) * 100, 2)] for t, p, q in rows]
    note = "" if all(q is not None for _, _, q in rows) else (
        "\nmean play: its exact distribution is too big to compute here (saved rolls)")
    return (f"{table.solution.rules.name}: P(final score >= target), playing for the target "
            f"vs playing for the mean (table up to {table.max_target}, {how})\n"
            + _table(["target", "target play", "mean play", "gain (percentage points)"], body,
                     right={0, 1, 2, 3}) + note)
