"""The `yz` command: resolve the inputs, call one library function, render the result.

Library errors (`YzError`) become one paragraph on stderr and exit code 2; nothing else here
decides anything about the game.
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Annotated

import typer
from yz.rules import YzError

from . import render

HELP = "Rules-variant engine and exact solver for Yahtzee-family dice games."
# Plain help (no rich markup): `[default: ...]` and other brackets are shown as written, flags
# carry no `<bool>` type, and the text wraps to the terminal like any other command's.
SETTINGS = {"help_option_names": ["-h", "--help"]}


def _plain_arguments() -> None:
    """Show positional arguments as click does (`A`, `[DICE]...`): typer 0.29 prints them as
    `A <str>` and `{A}` even when they have a metavar. Only the help text changes."""
    from typer.core import TyperArgument

    if not hasattr(TyperArgument, "_usage_display_name"):  # another typer: leave it be
        return

    def usage_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    TyperArgument.display_type_rich = lambda self, ctx: None
    TyperArgument._usage_display_name = usage_name


_plain_arguments()
app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode=None, context_settings=SETTINGS, help=HELP)
rules_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=SETTINGS,
                        help="Inspect and check rule sets.")
cache_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=SETTINGS,
                        help="The cache of solved strategies.")
app.add_typer(rules_app, name="rules")
app.add_typer(cache_app, name="cache")

VariantOpt = Annotated[str, typer.Option(
    "--variant", "-v", metavar="VARIANT",
    help="A built-in variant name, example:NAME or a YAML rule file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
# Options that mean the same thing in `score` and `advise`.
CardVariantOpt = Annotated[str | None, typer.Option(
    "--variant", "-v", metavar="VARIANT", help="A built-in variant name or a YAML rule file "
    "[default: the scorecard's, else official-free-joker].")]
FilledOpt = Annotated[str | None, typer.Option(
    "--filled", metavar="BOXES",
    help="Boxes already filled with their scores, e.g. 'ones=3,yahtzee=50'.")]
UpperTotalOpt = Annotated[int | None, typer.Option(
    "--upper-total", metavar="N", help="Upper-section total so far, instead of each upper score.")]
CardOpt = Annotated[str | None, typer.Option(
    "--card", metavar="FILE", help="A scorecard file (YAML or JSON; - for standard input) with "
    "variant, filled, upper_total, bonus_points, dice, rolls_left; options given here override "
    "it. A relative variant path is read from the card's folder.")]

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Solve afresh; neither read nor "
                                          "write the cache.")]

def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"yz {version('yz')}")
        except PackageNotFoundError:
            typer.echo("yz (not installed: no version recorded)")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the installed version and exit.")] = False) -> None:
    pass


# The library names its parameters (an error about `games` starts "games: "); the CLI says
# which option that is.
FLAGS = {"games": "--games", "seed": "--seed", "strategy": "--strategy",
         "category": "--category", "dice": "--dice", "rolls_left": "--rolls-left",
         "threads": "--threads", "bonus_points": "--bonus-points", "target": "--target",
         "max_target": "--max-target", "upper_total": "--upper-total",
         "max_memory": "--max-memory", "port": "--port", "host": "--host"}


def error_text(exc: YzError) -> str:
    """The library's message, speaking of the option the user typed where there is one."""
    message = str(exc)
    param = getattr(exc, "param", None)
    label = f"{param.replace('_', ' ')}: " if param else None
    if label and param in FLAGS and message.startswith(label):
        message = f"{FLAGS[param]}: {message[len(label):]}"
    return f"error: {message}"


def handles_errors(func):
    """Turn a YzError into a one-paragraph message on stderr and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except YzError as exc:
            typer.echo(error_text(exc), err=True)
            raise typer.Exit(2) from None

    return wrapper


def note(text: str) -> None:
    typer.echo(f"note: {text}", err=True)


def compiled_tables(rules):
    """The rule set's tables, saying so first when building them takes a while."""
    import math

    from yz.rules import compile_rules

    if math.comb(rules.dice + rules.faces, rules.dice) > 5_000:
        note(f"building the tables of {rules.name} ({rules.dice} dice of {rules.faces} "
             "faces): a few seconds")
    return compile_rules(rules)


def compile_kernels(*modes: str, quiet: bool = False) -> None:
    """Compile what these kinds of work need (once per installation), saying so."""
    from yz.solver.warmup import ensure_compiled

    def tell(missing: list[str]) -> None:
        if not quiet:
            note("compiling the solver's kernels for this kind of work, once per "
                 f"installation ({', '.join(missing)}): about 20 s each")

    ensure_compiled(modes, tell)


def solved(rules, quiet: bool, use_cache: bool = True, with_sd: bool = False,
           max_memory: int | None = None):
    """Solve with a progress bar (and a word on the first compile); cache notes on stderr."""
    from yz.solver import cache, solve
    from yz.solver.layout import build_layout
    from yz.solver.limits import check_solve_memory

    t = compiled_tables(rules) if not hasattr(rules, "digest") else rules
    layout = build_layout(t)
    check_solve_memory(t, layout, with_sd, max_memory)  # before any compile
    if not (use_cache and cache.meta_path(t).exists()):
        compile_kernels("dp-sd" if with_sd else "dp", quiet=quiet)
    with render.progress(f"solving {t.rules.name}", enabled=not quiet, unit="states") as step:
        solution = solve(t, use_cache=use_cache, progress=step, with_sd=with_sd,
                         max_memory=max_memory, layout=layout)
    if solution.cache_note:
        note(solution.cache_note)
    return solution


def parse_size(text: str | None) -> int | None:
    """Bytes from '2G', '512M', '1.5GiB', '300k' or a plain number of bytes."""
    import re

    from yz.rules import InputError

    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not m or float(m.group(1)) <= 0:
        raise InputError(f"--max-memory: '{text}' is not a size; give e.g. 2G, 512M or a number "
                         "of bytes.")
    scale = 1 << (10 * " kmgt".index(m.group(2) or " "))
    return int(float(m.group(1)) * scale)


def emit_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=2))


def read_card(card: str | None):
    """The scorecard named by --card, or an empty one."""
    from yz.rules.position import Scorecard, load_scorecard

    return load_scorecard(card) if card else Scorecard()


# ---------------------------------------------------------------- variants and rules


@app.command("variants")
@handles_errors
def variants_cmd(as_json: JsonOpt = False) -> None:
    """List the built-in rule sets.

    For each: its key, boxes, bonuses, Joker rule and description.
    """
    from yz.rules import builtin_names, load_rules

    rows = [render.variant_summary(load_rules(name)) for name in builtin_names()]
    if as_json:
        emit_json(rows)
    else:
        typer.echo(render.variants_table(rows))


SpecArg = Annotated[str, typer.Argument(metavar="VARIANT",
                                        help="A built-in variant name or a YAML rule file.")]


@rules_app.command("show")
@handles_errors
def rules_show(spec: SpecArg, as_json: JsonOpt = False) -> None:
    """Show a rule set fully resolved.

    The rules after `extends`, with every default filled in.
    """
    from yz.rules import load_rules

    rules = load_rules(spec)
    if as_json:
        emit_json(rules.model_dump(mode="json"))
    else:
        typer.echo(render.rules_text(rules))


@rules_app.command("validate")
@handles_errors
def rules_validate(path: Annotated[str, typer.Argument(metavar="FILE",
                                                       help="YAML rule file to check.")],
                   as_json: JsonOpt = False) -> None:
    """Check a rule file.

    Exit 0 when it is valid; exit 2 with every problem listed (file:line:col) when not.
    """
    from yz.rules import load_rules

    rules = load_rules(path)
    if as_json:
        emit_json({"valid": True, "variant": rules.name, "categories": list(rules.keys)})
    else:
        typer.echo(f"{path}: valid rule set '{rules.name}' with {len(rules.categories)} boxes.")


@rules_app.command("schema")
@handles_errors
def rules_schema() -> None:
    """Print the JSON Schema of rule files.

    Point an editor's YAML support at it to check and complete rule files as you type (see
    the README).
    """
    from yz.rules import rule_schema

    emit_json(rule_schema())


@rules_app.command("table")
@handles_errors
def rules_table(spec: SpecArg,
                as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
                as_json: JsonOpt = False) -> None:
    """Print every distinct roll against every box.

    The rolls are sorted dice; use it to check what a house rule scores.
    """
    from yz.rules import load_rules

    t = compiled_tables(load_rules(spec))
    if as_json:
        emit_json({"categories": list(t.rules.keys), "rolls": t.ROLL_DICE.tolist(),
                   "scores": t.SCORE.tolist()})
    elif as_csv:
        typer.echo(render.score_table_csv(t), nl=False)
    else:
        typer.echo(render.score_table_text(t))


# ---------------------------------------------------------------- score


@app.command("score")
@handles_errors
def score_cmd(
    dice_args: Annotated[list[str] | None, typer.Argument(
        metavar="DICE", show_default=False,
        help="The dice: 1 3 4 6 6, 1,3,4,6,6 or 13466 (or --dice, or the scorecard's).")
    ] = None,
    variant: CardVariantOpt = None,
    dice: Annotated[str | None, typer.Option(
        "--dice", "-d", metavar="DICE", help="The dice, e.g. 1,3,4,6,6 (instead of arguments).")
    ] = None,
    category: Annotated[str | None, typer.Option(
        "--category", "-c", metavar="BOX", help="Score only this box.")] = None,
    filled: FilledOpt = None,
    upper_total: UpperTotalOpt = None,
    card: CardOpt = None,
    first_roll: Annotated[bool, typer.Option(
        "--first-roll", help="The dice are the turn's first roll (boxes with a first-roll "
        "bonus, as in Generala, score it).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a roll in every open box, best first, or in one box.

    In an optional position (filled boxes, upper total, or a scorecard), with the Joker and
    the bonuses applied.
    """
    from yz.rules import InputError, load_rules
    from yz.rules.position import box_choices, check_open_box, parse_dice, parse_filled

    if dice_args and dice is not None:
        raise InputError("give the dice once: as arguments or with --dice, not both.")
    sc = read_card(card)
    t = compiled_tables(load_rules(variant or sc.variant or "official-free-joker"))
    shown = dice_args or (dice if dice is not None else sc.dice)
    if shown is None:
        raise InputError("no dice to score: give them as arguments (e.g. yz score 1 3 4 6 6), "
                         "with --dice, or in the scorecard.")
    roll = t.roll_index(parse_dice(shown, t))
    pos = parse_filled(filled if filled is not None else sc.filled, t,
                       upper_total if upper_total is not None else sc.upper_total,
                       origin=sc.origin if filled is None else None)
    choices = box_choices(t, roll, pos, first_roll and t.n_rolls_per_turn > 1)
    if category is not None:
        check_open_box(t, pos, category)
        choices = [c for c in choices if c.key == category]
    else:
        choices = sorted(choices, key=lambda c: (not c.legal, -c.total))
    if as_json:
        boxes = [render.choice_json(c) for c in choices]
        if category is not None:
            emit_json({"variant": t.rules.name, "dice": list(t.ROLL_DICE[roll].tolist()),
                       "category": category, "score": choices[0].points, **boxes[0]})
        else:
            emit_json({"variant": t.rules.name, "dice": t.ROLL_DICE[roll].tolist(),
                       "scores": {c.key: c.points for c in choices}, "boxes": boxes})
    else:
        typer.echo(render.choices_text(t, roll, choices))


# ---------------------------------------------------------------- advise


@app.command("advise")
@handles_errors
def advise_cmd(
    variant: CardVariantOpt = None,
    dice: Annotated[str | None, typer.Option(
        "--dice", "-d", metavar="DICE",
        help="The dice showing now, e.g. 1,3,4,6,6 (none: before the roll).")] = None,
    rolls_left: Annotated[int | None, typer.Option(
        "--rolls-left", "-r", metavar="N",
        help="Re-rolls left this turn [default: all but the first].")] = None,
    filled: FilledOpt = None,
    upper_total: UpperTotalOpt = None,
    bonus_points: Annotated[int | None, typer.Option(
        "--bonus-points", metavar="N",
        help="Extra Yahtzee bonus points already won (for the final total).")] = None,
    card: CardOpt = None,
    top: Annotated[int, typer.Option("--top", min=0, metavar="N",
                                     help="How many alternatives to list.")] = 5,
    target: Annotated[int | None, typer.Option(
        "--target", metavar="T", help="Rank moves by the chance of finishing with at least T "
        "points instead of by the mean (needs every filled box's score).")] = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Best move in a position: which dice to keep or box to score.

    With what the best move is worth (expected final score) and what every alternative loses;
    without dice, the position's value before the roll.
    """
    from yz.rules import load_rules
    from yz.rules.position import check_bonus_points, parse_dice, parse_filled
    from yz.solver.advice import advise, advise_target, check_rolls_left, check_target

    sc = read_card(card)
    t = compiled_tables(load_rules(variant or sc.variant or "official-free-joker"))
    # Check the whole position before solving, so a typo costs no solve.
    pos = parse_filled(filled if filled is not None else sc.filled, t,
                       upper_total if upper_total is not None else sc.upper_total,
                       origin=sc.origin if filled is None else None)
    shown = dice if dice is not None else sc.dice
    rolled = parse_dice(shown, t) if shown is not None else None
    left = rolls_left if rolls_left is not None else sc.rolls_left
    if rolled is not None and left is None:
        left = t.n_rolls_per_turn - 1
    check_rolls_left(t, rolled, left)
    extra = check_bonus_points(t, pos, bonus_points if bonus_points is not None
                               else sc.bonus_points)
    banked = pos.banked(t, extra)
    if target is not None:
        from yz.solver.target import check_target_memory

        check_target(t, pos, banked, target)
        check_target_memory(t, max(target, 500), param="target")
    show = not quiet and not as_json
    solution = solved(t, quiet=not show)
    if target is None:
        advice = advise(solution, pos, rolled, left, banked)
    else:
        from yz.solver import targets

        compile_kernels("targets", quiet=not show)
        with render.progress(f"target table of {t.rules.name}", enabled=show,
                             unit="columns") as step:
            table = targets(solution, target, progress=step, solve_up_to=max(target, 500))
        advice = advise_target(table, pos, rolled, left, banked, target)
    if as_json:
        emit_json(render.advice_json(t, pos, rolled, left, advice, top))
    else:
        typer.echo(render.advice_text(t, pos, rolled, left, advice, top))


# ---------------------------------------------------------------- solve, compare, cache




@app.command("solve")
@handles_errors
def solve_cmd(variant: VariantOpt = "official-free-joker", no_cache: NoCacheOpt = False,
              no_sd: Annotated[bool, typer.Option(
                  "--no-sd", help="Skip the exact standard deviation (a second pass).")] = False,
              max_memory: Annotated[str | None, typer.Option(
                  "--max-memory", metavar="SIZE", show_default=False,
                  help="Refuse a solve needing more memory than this, e.g. 2G or 512M "
                  "[default: three quarters of this machine's memory].")] = None,
              quiet: QuietOpt = False, as_json: JsonOpt = False) -> None:
    """Solve a rule set exactly: optimal expected score and SD.

    The SD is the exact standard deviation of the final score under optimal play; both are
    cached with the strategy.
    """
    import time

    from yz.rules import load_rules
    from yz.solver import exact_moments

    solution = solved(load_rules(variant), quiet=quiet or as_json, use_cache=not no_cache,
                      with_sd=not no_sd, max_memory=parse_size(max_memory))
    if not no_sd and solution.sd is None:  # cached values without their SD: maybe one more pass
        compile_kernels("moments", quiet=quiet or as_json)
    start = time.perf_counter()
    moments = None if no_sd else exact_moments(solution, use_cache=not no_cache)
    sd_seconds = time.perf_counter() - start
    if as_json:
        emit_json(render.solution_json(solution, moments))
    else:
        typer.echo(render.solution_text(solution, moments, sd_seconds))


@app.command("compare")
@handles_errors
def compare_cmd(
    variants: Annotated[list[str] | None, typer.Argument(
        metavar="VARIANT", show_default=False,
        help="Variant names or YAML files (default: every built-in but maxi-yatzy, whose "
        "solve takes minutes).")] = None,
    no_risk: Annotated[bool, typer.Option(
        "--no-risk", help="Only the means: skip the SD, median, 5th/95th percentiles and upper "
        "bonus rate (exact, computed once per rule set and cached).")] = False,
    no_cache: NoCacheOpt = False, quiet: QuietOpt = False, as_json: JsonOpt = False,
) -> None:
    """Compare rule sets: expected score and risk.

    The optimal expected score of each, its difference to the first one (by default every
    built-in, the official rules first), and its spread: SD, median, 5th and 95th percentiles
    and the upper bonus rate.
    """
    from yz.rules import builtin_names, load_rules
    from yz.solver import distribution, exact_figures

    # The official rules come first, so every difference reads against them.
    specs = variants or sorted(builtin_names(big=False),
                               key=lambda name: name != "official-free-joker")
    all_rules = [load_rules(s) for s in specs]  # every file is checked before any solving
    show = not quiet and not as_json
    solutions = [solved(rules, quiet=not show, use_cache=not no_cache) for rules in all_rules]
    risks = None
    if not no_risk:
        risks = []
        for solution in solutions:
            with render.progress(f"distribution of {solution.rules.name}", enabled=show,
                                 unit="boxes") as step:
                dist = distribution(solution, use_cache=not no_cache, progress=step)
            risks.append((dist, exact_figures(solution, use_cache=not no_cache)))
    rows = render.compare_rows(solutions, risks)
    if as_json:
        emit_json(rows)
    else:
        typer.echo(render.compare_text(rows))


@app.command("simulate")
@handles_errors
def simulate_cmd(
    variant: VariantOpt = "official-free-joker",
    games: Annotated[int, typer.Option("--games", "-n", metavar="N",
                                       help="Games to play.")] = 100_000,
    seed: Annotated[int, typer.Option("--seed", metavar="N",
                                      help="Seed: the same seed, the same games.")] = 0,
    strategy: Annotated[str, typer.Option(
        "--strategy", "-s", metavar="NAME", help="optimal, greedy (best score each turn) or "
        "heuristic (per-turn play against a simple estimate of the future).")] = "optimal",
    plot: Annotated[str | None, typer.Option(
        "--plot", metavar="FILE.png", help="Also write a histogram of the scores to this PNG "
        "file (needs matplotlib: pip install matplotlib).")] = None,
    exact: Annotated[bool | None, typer.Option(
        "--exact/--no-exact", help="Compute (or skip) the exact figures printed beside the "
        "sampled ones. Default: computed unless the game is big and they are not cached yet "
        "(then only the exact mean of optimal play is shown).", show_default=False)] = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Play games; sampled figures beside exact ones.

    The mean with its standard error next to the exact value, the SD, percentiles, per-box
    means and zero rates, bonuses and Joker uses, and a histogram.
    """
    import time

    from yz.rules import load_rules
    from yz.solver import cache, exact_figures
    from yz.solver.exact import known_figures
    from yz.solver.limits import AUTO_FIGURES_SECONDS, figures_seconds
    from yz.solver.simulate import check_simulation, simulate, summarise

    check_simulation(games, seed, strategy)  # before any work
    if plot is not None:
        render.check_plot_target(plot)
    rules = load_rules(variant)
    show = not quiet and not as_json
    solution = solved(rules, quiet=not show)
    compile_kernels("play", quiet=not show)
    wait = figures_seconds(solution.tables, solution.layout)
    slow = wait > AUTO_FIGURES_SECONDS and cache.load_figures(solution.tables, strategy) is None
    mean_only = exact is None and slow  # unasked, a slow game shows only what is known
    if slow and exact is not False and show:
        note(f"the exact SD and per-box figures of {rules.name} take about {wait / 60:.0f} min "
             "the first time (then cached); " + ("--exact computes them" if mean_only
                                                 else "they follow the games"))
    began = time.perf_counter()
    told = False

    def step_and_tell(done: int, total: int) -> None:
        nonlocal told
        if step is not None:
            step(done, total)
        left = (time.perf_counter() - began) * (total - done) / max(done, 1)
        if not told and not as_json and left > 30 and done < total:
            told = True
            note(f"about {left / 60:.0f} min to play the other {total - done:,} games "
                 "(Ctrl-C stops)")

    with render.progress(f"playing {games:,} games", enabled=show, unit="games") as step:
        played = simulate(solution, games, seed=seed, strategy=strategy,
                          progress=step_and_tell)
    summary = summarise(played)
    if exact is False:
        figures = None
    elif mean_only:  # the mean of optimal play is the solved value itself
        figures = known_figures(solution).as_dict() if strategy == "optimal" else None
    else:
        figures = exact_figures(solution, strategy).as_dict()
    # The figures are printed whatever happens to the plot: a path that cannot be written
    # (checked above, but folders change) costs the error message, not the games.
    plot_error = None
    if plot is not None:
        import numpy as np

        try:
            render.plot_histogram(
                plot, np.arange(len(played.score_counts)), played.score_counts,
                f"{rules.name}, {strategy} strategy, {games:,} games",
                figures["expected_score"] if figures else None, summary["mean"])
        except YzError as exc:
            plot_error = exc
    if as_json:
        emit_json({**summary, "exact": figures, "plot": None if plot_error else plot})
    else:
        typer.echo(render.simulation_text(summary, figures, played))
        if plot is not None and plot_error is None:
            typer.echo(f"histogram written to {plot}")
    if plot_error is not None:
        raise plot_error


# ---------------------------------------------------------------- distribution, duel, target


StrategyOpt = Annotated[str, typer.Option(
    "--strategy", "-s", metavar="NAME", help="optimal, greedy or heuristic.")]


@app.command("distribution")
@handles_errors
def distribution_cmd(
    variant: VariantOpt = "official-free-joker",
    strategy: StrategyOpt = "optimal",
    csv: Annotated[str | None, typer.Option(
        "--csv", metavar="FILE", help="Write the whole distribution as CSV (score, "
        "probability, cumulative) to FILE, or to standard output with -.")] = None,
    plot: Annotated[str | None, typer.Option(
        "--plot", metavar="FILE.png", help="Also draw it to this PNG file (needs "
        "matplotlib).")] = None,
    no_cache: NoCacheOpt = False, quiet: QuietOpt = False, as_json: JsonOpt = False,
) -> None:
    """The exact distribution of the final score.

    Mean, SD, median, mode, percentiles, P(score >= x) and a histogram; --json gives the whole
    distribution (scores and probabilities). Computed exactly (no sampling) and cached.
    """
    from yz.rules import load_rules
    from yz.solver import distribution
    from yz.solver.distribution import check_distribution_memory
    from yz.solver.strategies import check_strategy

    check_strategy(strategy)
    if plot is not None:
        render.check_plot_target(plot)
    show = not quiet and not as_json and csv != "-"
    t = compiled_tables(load_rules(variant))
    check_distribution_memory(t)  # before any solving
    solution = solved(t, quiet=not show, use_cache=not no_cache)
    cached_before = not no_cache and _has_pmf(solution, strategy)
    if not cached_before:
        compile_kernels("distribution", quiet=not show)
    with render.progress(f"distribution of {solution.rules.name}", enabled=show,
                         unit="boxes") as step:
        dist = distribution(solution, strategy, use_cache=not no_cache, progress=step)
    if csv == "-":
        typer.echo(render.distribution_csv(dist), nl=False)
    elif csv is not None:
        from pathlib import Path

        try:
            Path(csv).write_text(render.distribution_csv(dist), encoding="utf-8")
        except OSError as exc:
            raise YzError(f"--csv: could not write '{csv}' ({exc.strerror or exc}).") from None
    if as_json:
        emit_json(render.distribution_json(dist, cached_before))
    elif csv != "-":
        typer.echo(render.distribution_text(dist, cached_before))
        if csv is not None:
            typer.echo(f"distribution written to {csv}")
    if plot is not None:
        render.plot_histogram(plot, dist.scores, dist.probabilities,
                              f"{dist.variant}, {strategy} strategy: exact distribution",
                              dist.expected_score, ylabel="probability")


def _has_pmf(solution, strategy: str) -> bool:
    from yz.solver import cache

    return cache.load_figures(solution.tables, f"pmf-{strategy}") is not None


@app.command("duel")
@handles_errors
def duel_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Player A's rule set.")],
    b: Annotated[str, typer.Argument(metavar="B", help="Player B's rule set.")],
    strategy_a: Annotated[str, typer.Option("--strategy-a", metavar="NAME",
                                            help="Player A's strategy.")] = "optimal",
    strategy_b: Annotated[str, typer.Option("--strategy-b", metavar="NAME",
                                            help="Player B's strategy.")] = "optimal",
    quiet: QuietOpt = False, as_json: JsonOpt = False,
) -> None:
    """The exact chance that player A beats player B.

    Each plays a solitaire game under its own rule set and strategy (e.g. the same rules,
    optimal against greedy); A wins, draw, B wins, from the exact distributions.
    """
    from yz.rules import load_rules
    from yz.solver import distribution
    from yz.solver.distribution import duel
    from yz.solver.strategies import check_strategy

    check_strategy(strategy_a)
    check_strategy(strategy_b)
    rules = [load_rules(a), load_rules(b)]
    show = not quiet and not as_json
    dists = []
    for r, strategy in zip(rules, (strategy_a, strategy_b), strict=True):
        solution = solved(r, quiet=not show)
        with render.progress(f"distribution of {r.name}", enabled=show, unit="boxes") as step:
            dists.append(distribution(solution, strategy, progress=step))
    result = duel(*dists)
    if as_json:
        emit_json(render.duel_json(*dists, result))
    else:
        typer.echo(render.duel_text(*dists, result))


@app.command("target")
@handles_errors
def target_cmd(
    variant: VariantOpt = "official-free-joker",
    max_target: Annotated[int, typer.Option(
        "--max-target", metavar="N", help="Solve every target up to N at once.")] = 500,
    targets_opt: Annotated[str | None, typer.Option(
        "--targets", metavar="LIST", help="The targets to print, e.g. 200,250,300 [default: "
        "round scores up to the maximum].")] = None,
    no_cache: NoCacheOpt = False, quiet: QuietOpt = False, as_json: JsonOpt = False,
) -> None:
    """Play for a target: the best chance of reaching T.

    Solves the strategy that maximises P(final score >= T) for every T up to --max-target
    (cached), and prints it beside P(final score >= T) under the mean-optimal strategy.
    """
    from yz.rules import InputError, load_rules
    from yz.solver import distribution, targets
    from yz.solver.target import check_max_target, check_target_memory

    check_max_target(max_target)
    wanted = [t for t in render.ROUND_SCORES if t <= max_target] or [max_target]
    if targets_opt is not None:
        try:
            wanted = [int(x) for x in targets_opt.replace(" ", "").split(",") if x]
        except ValueError:
            raise InputError(f"--targets: '{targets_opt}' is not a list of whole numbers, "
                             "e.g. 200,250,300.") from None
        bad = [x for x in wanted if not 1 <= x <= max_target]
        if bad or not wanted:
            raise InputError(f"--targets: give scores from 1 to the maximum target "
                             f"{max_target} (got {', '.join(map(str, bad)) or 'none'}).")
    show = not quiet and not as_json
    t = compiled_tables(load_rules(variant))
    check_target_memory(t, max_target)  # before any solving
    solution = solved(t, quiet=not show, use_cache=not no_cache)
    compile_kernels("targets", "distribution", quiet=not show)
    with render.progress(f"target play, {solution.rules.name}", enabled=show,
                         unit="columns") as step:
        table = targets(solution, max_target, use_cache=not no_cache, progress=step)
    dist = distribution(solution, use_cache=not no_cache)
    rows = [(x, table.p_reach(x), dist.p_at_least(x)) for x in wanted]
    if as_json:
        emit_json(render.target_json(table, rows))
    else:
        typer.echo(render.target_text(table, rows))


@cache_app.command("list")
@handles_errors
def cache_list(as_json: JsonOpt = False) -> None:
    """List the solved strategies in the cache.

    $YZ_CACHE_DIR moves the cache folder.
    """
    from yz.solver import cache

    items = cache.entries()
    if as_json:
        emit_json(render.cache_json(cache.cache_dir(), items))
    else:
        typer.echo(render.cache_text(cache.cache_dir(), items))


@cache_app.command("clear")
@handles_errors
def cache_clear(
    variant: Annotated[str | None, typer.Argument(
        metavar="VARIANT", show_default=False,
        help="Only this rule set's files (its name, as `yz cache list` shows it).")] = None,
    stale: Annotated[bool, typer.Option(
        "--stale", help="Only files of older formats, damaged files and leftovers of "
        "interrupted solves.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete yz's files from the cache folder.

    Only files whose names yz writes are touched, whatever else the folder holds.
    """
    from yz.solver import cache

    if variant is not None and not any(e.variant == variant for e in cache.entries()):
        present = sorted({e.variant for e in cache.entries() if e.variant != "-"})
        raise YzError(f"the cache holds no files of '{variant}'"
                      + (f"; it has files of {', '.join(present)}." if present
                         else "; it holds no solved rule sets.")
                      + " `yz cache list` shows them.")
    removed = cache.clear(variant, stale_only=stale)
    if as_json:
        emit_json({"cache_dir": str(cache.cache_dir()), "removed": len(removed),
                   "files": [p.name for p in removed]})
    else:
        typer.echo(f"removed {len(removed)} file(s) from {cache.cache_dir()}")


# `yz play` and `yz serve` live in their own module, which adds them here.
from . import play_cmd  # noqa: E402

play_cmd.register(app)
from . import sweep_cmd  # noqa: E402  (`yz sweep`)

sweep_cmd.register(app)


# ---------------------------------------------------------------- entry point

# typer vendors click (0.26+) or depends on it (older): reach its exception classes through
# the public typer.BadParameter rather than importing either.
_CLICK_ERRORS = {cls.__name__: cls for cls in typer.BadParameter.__mro__}
UsageError = _CLICK_ERRORS["UsageError"]
ClickException = _CLICK_ERRORS["ClickException"]


def usage_error_text(exc) -> str:
    """An option-parser error as one paragraph, in the style of every other error."""
    message = exc.format_message().strip().replace("\n", " ")
    message = message[:1].lower() + message[1:]
    if not message.endswith((".", "?")):
        message += "."
    if getattr(exc, "ctx", None) is None:  # the parser did not say which command
        return f"error: {message} See 'yz COMMAND --help'."
    path = exc.ctx.command_path
    return f"error: {path}: {message} See '{path} --help'."


def run(args: list[str] | None = None) -> int:
    """Console-script entry point: the exit code (2 for bad input, 130 when interrupted)."""
    try:
        code = app(args=args, prog_name="yz", standalone_mode=False)
    except UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `yz` or `yz rules`: the help
            typer.echo(exc.format_message(), err=True)
        else:
            typer.echo(usage_error_text(exc), err=True)
        return exc.exit_code
    except ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except (KeyboardInterrupt, typer.Abort):
        code = 130
    if code == 130:  # typer turns Ctrl-C into exit code 130
        typer.echo("interrupted", err=True)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(run())
