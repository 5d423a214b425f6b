"""The CLI's text: tables and lines for every command. Pure formatting: no game logic lives
here (JSON: the records' `to_dict` and `data`; progress bars: `report`; plots: `plots`)."""

from __future__ import annotations

import io
import textwrap

from . import quick

TYPE_CHECKING = False  # (the rule models and the solver load only where a command uses them)
if TYPE_CHECKING:
    from yz.rules import RuleSet, RuleTables


def screen_width() -> int | None:
    """The terminal's width when standard output is one, so that tables and sentences fit it;
    None when it is piped or redirected (other programs get whole lines)."""
    import shutil
    import sys

    try:
        if sys.stdout is None or not sys.stdout.isatty():
            return None
    except (ValueError, OSError):  # (closed)
        return None
    return max(MIN_WIDTH, shutil.get_terminal_size().columns)


MIN_WIDTH = 40  # (a narrower terminal gets 40 columns, wrapped by the terminal)
PROSE_WIDTH = 96  # a rule set's description, wrapped (narrower in a narrower terminal)


def _cut(text: str, n: int, keep_end: bool = False) -> str:
    """`text` in at most n characters: whole words then "...", or with `keep_end` "..." then
    its end (a file's name)."""
    if len(text) <= n:
        return text
    if keep_end:
        return "..." + text[len(text) - max(0, n - 3):]
    short = textwrap.shorten(text, n, placeholder="...")
    return short if short != "..." else text[: max(0, n - 3)] + "..."


def _wrap(line: str, indent: str = "", width: int | None = None) -> list[str]:
    """A sentence as lines that fit the terminal (`screen_width`), later ones indented by
    `indent`; as it is when no terminal is there or it fits."""
    width = width or screen_width()
    if width is None or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False)  # (a path longer than the line stays whole)


def _wrap_items(head: str, items: list[str], sep: str = "  ", width: int | None = None,
                indent: str | None = None) -> list[str]:
    """`head` then the items, `sep` apart, as lines that fit the terminal: an item (a label
    with its value) is split only when alone it is wider than a line; later lines start with
    `indent` (default: under the first item)."""
    width = width or screen_width()
    line = head + sep.join(items)
    if width is None or len(line) <= width:
        return [line]
    indent = " " * len(head) if indent is None else indent
    lines, line = [], head + items[0]
    for item in items[1:]:
        if len(line) + len(sep) + len(item) <= width:
            line += sep + item
        else:
            lines += _wrap(line + sep.rstrip(), indent, width)  # ("; " ends its line)
            line = indent + item
    return [*lines, *_wrap(line, indent, width)]


def wrapped(text: str, indent: str = "") -> str:
    """`_wrap`'s lines of a sentence, joined: what the command prints."""
    return "\n".join(_wrap(text, indent))


def _widths(headers: list[str], rows: list[list[str]]) -> list[int]:
    """Each column's width in `_table`: its widest cell or heading."""
    return [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]


def _table(headers: list[str], rows: list[list[str]], right: set[int] = frozenset(),
           shrink: int | None = None, keep_end: bool = False) -> str:
    """Columns two spaces apart (`right`: right-aligned). `shrink`: the column that gives way
    when the table is wider than the terminal, shortened by `_cut` (no narrower than its
    heading, and only where that makes the table fit); in a pipe nothing is cut."""
    widths = _widths(headers, rows)
    screen = screen_width() if shrink is not None else None
    over = sum(widths) + 2 * (len(widths) - 1) - (screen or 0)
    if screen is not None and 0 < over <= widths[shrink] - len(headers[shrink]):  # (else the
        # other columns alone are too wide: nothing is cut in vain)
        widths[shrink] -= over
        rows = [[_cut(c, widths[shrink], keep_end) if i == shrink else c
                 for i, c in enumerate(r)] for r in rows]

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


# ---------------------------------------------------------------- variants and rules


def variants_table(rows: list[dict]) -> str:
    """The rule sets, a row each with the start of its description; in a terminal too narrow
    for a useful share of it beside the columns, under its row instead."""
    headers = ["variant", "boxes", "upper bonus", "yahtzee bonus", "joker"]
    body = [[r["variant"], str(r["boxes"]), r["upper_bonus"] or "-",
             str(r["yahtzee_bonus"] or "-"), r["joker"]] for r in rows]
    firsts = [textwrap.shorten(r["description"], 60, placeholder="...") for r in rows]
    screen = screen_width()
    beside = sum(w + 2 for w in _widths(headers, body))
    if screen is None or screen - beside >= NARROWEST_DESCRIPTION or not rows:
        return _table([*headers, "description"], [[*b, f] for b, f in zip(body, firsts,
                                                                          strict=True)],
                      right={1}, shrink=5)
    lines = _table(headers, body, right={1}).split("\n")
    return "\n".join([*lines[:2], *(part for line, first in zip(lines[2:], firsts, strict=True)
                                     for part in (line, "  " + _cut(first, screen - 2)))])


NARROWEST_DESCRIPTION = 24  # characters of a description worth showing beside its row


def pattern_text(p) -> str:
    """A box's pattern in a few words; a combined one names its patterns, a part that is
    itself an "or" or an "and" in parentheses."""
    from yz.rules.models import (
        FacePattern,
        GroupsPattern,
        OfAKindPattern,
        StraightPattern,
        TotalPattern,
    )

    if p.kind in ("either", "both"):
        parts = (pattern_text(q) for q in p.patterns)
        return (" or " if p.kind == "either" else " and ").join(
            f"({part})" if " or " in part or " and " in part else part for part in parts)
    if isinstance(p, TotalPattern):
        if p.equals is not None:
            return f"total {p.equals}"
        if p.min is not None and p.max is not None:
            return f"total {p.min} to {p.max}"
        return f"total at least {p.min}" if p.min is not None else f"total at most {p.max}"
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
    from yz.rules.models import Fixed

    return f"{s.points} points" if isinstance(s, Fixed) else s.kind.replace("_", " ")


def rules_text(rules: RuleSet) -> str:
    out = [f"{rules.name}: {rules.dice} dice, {rules.faces} faces, {rules.rolls} rolls per turn"]
    width = min(PROSE_WIDTH, screen_width() or PROSE_WIDTH)
    if rules.description:
        out += textwrap.wrap(rules.description, width, initial_indent="  ",
                             subsequent_indent="  ")
    if rules.source:
        out += textwrap.wrap(f"source: {rules.source}", width, initial_indent="  ",
                             subsequent_indent="    ", break_long_words=False,
                             break_on_hyphens=False)  # (an address stays whole)
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
    tail = out.index("") + 2  # (the lines after the boxes' table: "name:   what", wrapped)
    return "\n".join([*out[:tail], *(part for line in out[tail:]
                                      for part in _wrap(line, " " * 15))])


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


def box_figures_text(t, figures) -> str:
    """`yz solve --figures`: each box's exact mean and zero rate and the bonus rates, or what
    to do where the per-box figures are not computed (a game with too many moves to follow
    in memory)."""
    if not figures.per_box:
        return ("per-box figures: not computed for this game in memory (too many moves); "
                "solve it into a folder with --store and ask again with --figures")
    rows = [[key, f"{figures.box_mean[key]:.4f}", f"{100 * figures.box_zero_rate[key]:.2f}"]
            for key in figures.box_mean]
    out = [_table(["box", "mean", "zero %"], rows, right={1, 2})]
    if t.upper_threshold and figures.p_upper_bonus is not None:
        out.append(f"upper bonus made in {100 * figures.p_upper_bonus:.4f}% of games "
                   f"({figures.p_upper_bonus * t.upper_bonus:.4f} points)")
    if t.yahtzee_bonus and figures.yahtzee_bonus_mean is not None:
        out.append(f"extra Yahtzee bonuses per game {figures.yahtzee_bonus_mean:.4f}")
    if t.joker_mode and figures.joker_uses_mean is not None:
        out.append(f"Joker uses per game {figures.joker_uses_mean:.4f}")
    return "\n".join(out)


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
            # "?": not computed (`not_computed`); "-": no such thing (no upper bonus).
            pct = r.get("percentiles", {})
            bonus = r.get("p_upper_bonus", "?")
            line += [f"{r['sd']:.2f}", *(str(v) for v in (
                r.get("median", "?"), pct.get("5", "?"), pct.get("95", "?"))),
                     "-" if bonus is None else bonus if bonus == "?" else f"{100 * bonus:.1f}%"]
        line.append(f"{r['states']:,}")
        body.append(line)
    return _table(headers, body, right=set(range(1, len(headers)))) + _compare_legend(rows)


def _compare_legend(rows: list[dict]) -> str:
    """What a "?" (not computed) and a "-" (no upper bonus) in `compare_text` stand for."""
    unknown = []
    for r in rows:
        missing, name = r.get("not_computed", ()), r["variant"]
        if "median" in missing:
            unknown.append(f"the median and percentiles of {name} (saved rolls: `yz "
                           f"distribution` computes its distribution once, then it is kept)")
        if "p_upper_bonus" in missing:
            unknown.append(f"P(bonus) of {name} (its per-box figures need more memory than "
                           "allowed here)")
    lines = [f"?: not computed: {'; '.join(unknown)}."] if unknown else []
    if any("p_upper_bonus" in r and r["p_upper_bonus"] is None for r in rows):
        lines.append("-: no upper bonus.")
    return "".join("\n" + line for line in lines)


def cache_text(root, entries, kernels=()) -> str:
    if not entries:
        return wrapped(f"no files of yz in {root}", "  ") + _kernels_text(kernels)
    body = [[e.variant, e.kind, e.status,
             "-" if e.expected_score is None else f"{e.expected_score:.4f}",
             f"{e.size_bytes / 1e6:.1f} MB", e.path.name] for e in entries]
    total = sum(e.size_bytes for e in entries) / 1e6
    stale = sum(e.status != "ok" for e in entries)
    tail = f"\n{len(entries)} files, {total:.1f} MB" + (
        f"; {stale} stale, damaged or left over ('yz cache clear --stale' removes them)"
        if stale else "")
    return f"{root}\n" + _table(["variant", "kind", "status", "expected", "size", "file"], body,
                                right={3, 4}, shrink=5, keep_end=True) + tail \
        + _kernels_text(kernels)


def _kernels_text(kernels) -> str:
    """The compiled kernels' line of `cache_text`: this version's folder and other versions'."""
    if not kernels:
        return ""
    mine = [k for k in kernels if k.current]
    others = [k for k in kernels if not k.current]
    parts = [f"this version's {sum(k.size_bytes for k in mine) / 1e6:.1f} MB"] if mine else []
    if others:
        in_use = sum(k.in_use for k in others)
        parts.append(f"{len(others)} folder(s) of other versions, "
                     f"{sum(k.size_bytes for k in others) / 1e6:.1f} MB ("
                     + ("'yz cache clear --kernels' removes them" if not in_use else
                        f"'yz cache clear --kernels' removes {len(others) - in_use} of them; "
                        f"{in_use} written to in the last hour may be in use") + ")")
    return "\n" + "\n".join(_wrap_items(f"compiled kernels in {kernels[0].path.parent}: ",
                                       parts, "; ", indent="  "))


def kernels_cleared_text(root, removed) -> str:
    """What `yz cache clear --kernels` removed."""
    return (f"removed {len(removed)} folder(s) of other versions' compiled kernels "
            f"({sum(k.size_bytes for k in removed) / 1e6:.1f} MB) from {root}")


# ---------------------------------------------------------------- advise


def advice_text(t: RuleTables, advice, top: int) -> str:
    def final(value: float) -> str:
        if advice.target is not None:
            return f"{100 * value:.3f}%"
        return f"{value:.4f}" if advice.banked is None else f"{advice.banked + value:.4f}"

    if advice.target is not None:
        what = f"chance of {advice.target} or more"
    else:
        what = "expected points still to come" if advice.banked is None else \
            "expected final score"
    pos, dice, rolls_left, saved = advice.position, advice.dice, advice.rolls_left, \
        advice.saved_rolls
    filled = ", ".join(f"{k}={v}" if v is not None else k for k, v in pos.filled.items())
    lines = [f"{t.rules.name}: " + (f"filled {filled}" if filled else "empty card")
             + (f"; upper total {pos.upper_total}" if t.upper_threshold else "")
             + (f"; {saved} saved roll{'s' if saved != 1 else ''} at the turn's start"
                if saved is not None else "")]
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


def opponent_line(opponent) -> str:
    """Who the moves are ranked against: a fixed-strategy opponent's final score (its
    `Distribution` from its card)."""
    return (f"against {opponent.variant} ({opponent.strategy} play from here): its final "
            f"score averages {opponent.expected_score:.2f}, median {opponent.median}")


def minimax_opponent_line(opponent, lead: int) -> str:
    """Who the moves are ranked against in `minimax` play: the opponent's card, both
    players playing to win and seeing each other's card."""
    filled = ", ".join(f"{k}={v}" for k, v in opponent.filled.items())
    return (f"against the opponent's card ({filled or 'empty'}; you "
            + (f"lead by {lead}" if lead > 0 else f"trail by {-lead}" if lead < 0 else "are level")
            + "), both playing to win and seeing each other's card (minimax)")


def versus_advice_text(t: RuleTables, advice, mean, against: str, top: int) -> str:
    """`yz advise` against an opponent's card: moves by the chance of beating it, each with
    its expected final score (the mean's ranking) beside; `against` says who the opponent
    is and how it plays (`opponent_line`, `minimax_opponent_line`)."""
    pos, dice, rolls_left = advice.position, advice.dice, advice.rolls_left
    filled = ", ".join(f"{k}={v}" if v is not None else k for k, v in pos.filled.items())
    lines = [f"{t.rules.name}: " + (f"filled {filled}" if filled else "empty card")
             + (f"; upper total {pos.upper_total}" if t.upper_threshold else "")
             + f"; {advice.banked} points on the card", against]
    if dice is None:
        lines.append(f"before the roll: chance of winning {100 * advice.position_value:.3f}% "
                     f"(a draw as half); expected final score "
                     f"{mean.banked + mean.position_value:.2f}")
        return "\n".join(lines)
    left = f"{rolls_left} re-roll{'s' if rolls_left != 1 else ''} left" if rolls_left \
        else "no re-rolls left"
    lines.append(f"dice {' '.join(map(str, dice))}, {left}")
    means = {a.label(): a.value for a in mean.actions}
    best, best_mean = advice.best, mean.best
    lines.append(f"best to win: {best.label()}  (chance of winning {100 * best.value:.3f}%)")
    if best_mean.label() != best.label():
        chance = next(a.value for a in advice.actions if a.label() == best_mean.label())
        lines.append(f"best for the mean: {best_mean.label()}  (chance of winning "
                     f"{100 * chance:.3f}%)")
    rows = [[a.label(), f"{100 * a.value:.3f}%", signed(100 * (a.value - best.value), 3),
             f"{mean.banked + means[a.label()]:.2f}" if a.label() in means else "-"]
            for a in advice.actions[: 1 + top]]
    lines.append("")
    lines.append(_table(["move", "chance of winning", "vs best (points %)", "expected final"],
                        rows, right={1, 2, 3}))
    return "\n".join(lines)


# ---------------------------------------------------------------- simulate


HISTOGRAM_BAR = 50  # characters of the longest bar (fewer in a narrow terminal)


def terminal_histogram(scores, weights, exact_mean: float | None, width: int | None = None,
                       bins: int = 24) -> str:
    """A compact text histogram of the middle 99.8% of a distribution (tails noted); `weights`
    are counts or probabilities of each score."""
    import numpy as np

    if width is None:  # (the label, the percentage and the mean's mark take 33 columns)
        screen = screen_width()
        width = HISTOGRAM_BAR if screen is None else max(4, min(HISTOGRAM_BAR, screen - 33))
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
    out = [*_wrap(f"{s['variant']}, {s['strategy']} strategy: {s['games']:,} games (seed "
                  f"{s['seed']}) in {s['seconds']:.2f} s ({s['games_per_second']:,.0f} games/s)",
                  "  "), ""]
    # Exact figures may be partial (a big game's mean alone): absent ones print as "-".
    known = exact or {}

    def ex(value, fmt="{:.4f}"):
        return "-" if value is None else fmt.format(value)

    rows = [["mean", f"{s['mean']:.4f} +- {s['sem']:.4f}", ex(known.get("expected_score"))],
            ["standard deviation", f"{s['sd']:.4f}", ex(known.get("sd"))]]
    out.append(_table(["figure", "sampled", "exact"], rows, right={1, 2}))
    out.append("")
    out += _wrap_items("percentiles: ", [*(f"{p}%: {v}" for p, v in s["percentiles"].items()),
                                         f" (min {s['min']}, max {s['max']})"])
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




def distribution_csv(dist) -> str:
    import numpy as np

    cdf = np.cumsum(dist.probabilities)
    lines = ["score,probability,cumulative"]
    lines += [f"{s},{p!r},{c!r}" for s, p, c in zip(dist.scores.tolist(),
                                                   dist.probabilities.tolist(), cdf.tolist(),
                                                   strict=True)]
    return "\n".join(lines) + "\n"


def distribution_text(dist, cached: bool) -> str:
    from yz.solver.distribution import ROUND_SCORES

    s = dist.summary()
    how = "from the cache" if cached else f"computed in {dist.seconds:.2f} s"
    out = [*_wrap(f"{s['variant']}, {s['strategy']} strategy: the exact distribution of the "
                  f"final score ({how})", "  "), ""]
    rows = [["expected score", f"{s['expected_score']:.4f}"], ["standard deviation",
                                                              f"{s['sd']:.4f}"],
            ["median", str(s["median"])], ["mode", str(s["mode"])],
            ["lowest / highest possible", f"{s['min']} / {s['max']}"]]
    out.append(_table(["figure", "exact"], rows, right={1}))
    out.append("")
    out += _wrap_items("percentiles: ", [f"{q}%: {v}" for q, v in s["percentiles"].items()])
    reach = [(x, dist.p_at_least(x)) for x in ROUND_SCORES if x <= dist.scores[-1]]
    out += _wrap_items("P(score >= x): ", [f"{x}: {_pct(p)}" for x, p in reach])
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


def duel_text(a, b, result) -> str:
    p_a, p_draw, p_b = result
    name = lambda d: f"{d.variant} ({d.strategy})"  # noqa: E731
    rows = [["A", name(a), f"{a.expected_score:.4f}", f"{100 * p_a:.3f}%"],
            ["B", name(b), f"{b.expected_score:.4f}", f"{100 * p_b:.3f}%"],
            ["draw", "", "", f"{100 * p_draw:.3f}%"]]
    return ("Two solitaire players (neither sees the other's card): exact chances\n"
            + _table(["", "player", "expected", "wins"], rows, right={2, 3}))


def best_response_text(r) -> str:
    """`yz duel --best-response`: A's chances three ways against B."""
    def row(name: str, c) -> list[str]:
        return [name, f"{100 * c.win:.3f}%", f"{100 * c.draw:.3f}%", f"{100 * c.loss:.3f}%",
                f"{100 * c.score:.3f}%", f"{100 * c.win_without_draws:.3f}%"]

    against = r.opponent if r.field == 1 else f"the best of {r.field} x {r.opponent}"
    rows = [row("expected-score play", r.expected_score_play),
            row("best response (blind)", r.best_response)]
    if r.ceiling is not None:
        rows.append(row("clairvoyant ceiling", r.ceiling))
    note = ("\nscore: win + draw/2, what the best response maximises; decided: wins among the "
            "games not drawn. Exact (ties between equally good moves broken by yz's tie "
            f"rule), every figure within {r.tail:g} of the uncut one; {r.seconds:.1f} s.")
    return (f"{r.variant} playing to win against {against}: exact chances\n"
            + _table(["A plays", "wins", "draws", "loses", "score", "decided"], rows,
                     right={1, 2, 3, 4, 5}) + note)


def exact_duel_text(r) -> str:
    """`yz duel A A --exact`: both players playing to win (minimax), and minimax against
    expected-score play in either seat."""
    def row(name: str, c) -> list[str]:
        return [name, f"{100 * c.win:.4f}%", f"{100 * c.draw:.4f}%", f"{100 * c.loss:.4f}%",
                f"{100 * c.score:.4f}%"]

    rows = [row("A: minimax against minimax", r.minimax)]
    if r.minimax_first is not None:
        rows.append(row("minimax seated first (A) against optimal", r.minimax_first))
        rows.append(row("minimax seated second (B) against optimal", r.minimax_second))
    if r.best_response_first is not None:
        rows.append(row("best response seated first (A) to optimal", r.best_response_first))
        rows.append(row("best response seated second (B) to optimal", r.best_response_second))
    note = ("\nminimax: plays to win (P(win) + P(draw)/2), seeing the other's card; optimal: "
            "plays for the expected score"
            + ("; best response: plays to win against optimal, seeing its card"
               if r.best_response_first is not None else "")
            + ". Exact (ties between equally good moves broken by "
            f"yz's tie rule); {r.states:,} joint states, {r.seconds:.1f} s.")
    return (f"{r.variant}, two players, A first: exact chances of the player named\n"
            + _table(["player", "wins", "draws", "loses", "score"], rows,
                     right={1, 2, 3, 4}) + note)


def target_text(table, rows) -> str:
    how = "from the cache" if table.cached else f"solved in {table.seconds:.1f} s"
    body = [[str(t), _pct(p), "-" if q is None else _pct(q),
             "-" if q is None else signed((p - q) * 100, 2)] for t, p, q in rows]
    note = "" if all(q is not None for _, _, q in rows) else (
        "\nmean play: its exact distribution is too big to compute here (saved rolls)")
    title = _wrap(f"{table.solution.rules.name}: P(final score >= target), playing for the "
                  f"target vs playing for the mean (table up to {table.max_target}, {how})", "  ")
    return ("\n".join(title) + "\n"
            + _table(["target", "target play", "mean play", "gain (percentage points)"], body,
                     right={0, 1, 2, 3}) + note)
