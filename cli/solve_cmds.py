"""The commands that solve: `yz solve`, `advise`, `compare`, `simulate`, `distribution`,
`duel` and `target`. Each resolves its inputs, calls the rule set's model and renders."""

from __future__ import annotations

from typing import Annotated

import typer
from yz.rules import YzError

from . import data, plots, render
from .app import (
    CardOpt,
    CardVariantOpt,
    FilledOpt,
    JsonOpt,
    NoCacheOpt,
    QuietOpt,
    StrategyOpt,
    UpperTotalOpt,
    VariantOpt,
    YesOpt,
    app,
    emit_json,
    handles_errors,
    model_for,
    note,
    parse_size,
    read_card,
)

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
        help="Re-rolls left this turn [default: all but the first, and the saved rolls].")
    ] = None,
    filled: FilledOpt = None,
    upper_total: UpperTotalOpt = None,
    bonus_points: Annotated[int | None, typer.Option(
        "--bonus-points", metavar="N",
        help="Extra Yahtzee bonus points already won (for the final total).")] = None,
    saved_rolls: Annotated[int | None, typer.Option(
        "--saved-rolls", metavar="N", help="In games that save rolls (Maxi Yatzy): the saved "
        "rolls this turn started with [default: those the game starts with, usually 0].")
    ] = None,
    card: CardOpt = None,
    store: Annotated[str | None, typer.Option(
        "--store", metavar="FOLDER", help="Read the values from a finished `yz solve --store` "
        "folder instead of solving (only the rows the position needs; for games too big "
        "for the cache, such as maxi-yatzy). With --opponent-strategy minimax: the folder of "
        "the two-player solve's joint layers, solved into it the first time (crag: 30 GiB of "
        "disk).")] = None,
    top: Annotated[int, typer.Option("--top", min=0, metavar="N",
                                     help="How many alternatives to list.")] = 5,
    target: Annotated[int | None, typer.Option(
        "--target", metavar="T", help="Rank moves by the chance of finishing with at least T "
        "points instead of by the mean (needs every filled box's score).")] = None,
    opponent_card: Annotated[str | None, typer.Option(
        "--opponent-card", metavar="FILE", help="Rank moves by the chance of beating this "
        "opponent (a scorecard: variant, filled, upper_total, saved_rolls; '-': standard "
        "input), who plays on with --opponent-strategy.")] = None,
    opponent_filled: Annotated[str | None, typer.Option(
        "--opponent-filled", metavar="POS", help="The opponent's boxes and scores (as "
        "--filled; all of them: a finished game).")] = None,
    opponent_upper_total: Annotated[int | None, typer.Option(
        "--opponent-upper-total", metavar="N", help="The opponent's upper total.")] = None,
    opponent_saved_rolls: Annotated[int | None, typer.Option(
        "--opponent-saved-rolls", metavar="N", help="The saved rolls the opponent's turn "
        "starts with.")] = None,
    opponent_strategy: Annotated[str, typer.Option(
        "--opponent-strategy", metavar="NAME", help="How the opponent plays on: optimal "
        "(expected score), greedy or heuristic; or minimax: both play to win, each seeing "
        "the other's card (the opponent's card then needs every filled box's score; for "
        "games whose two-player solve fits in memory, or on disk with --store).")] = "optimal",
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """Best move in a position: which dice to keep or box to score.

    With what the best move is worth (expected final score) and what every alternative loses;
    without dice, the position's value before the roll. With an opponent's card, moves are
    ranked by the chance of beating it (a draw as half), beside their expected final score.
    """
    from dataclasses import replace

    from yz.rules import InputError, WorkTooLong
    from yz.rules.position import check_saved_rolls, parse_dice, parse_filled

    sc = read_card(card)
    model = model_for(variant or sc.variant or "official-free-joker", quiet, as_json, yes=yes)
    t = model.tables
    pos = parse_filled(filled if filled is not None else sc.filled, t,
                       upper_total if upper_total is not None else sc.upper_total,
                       origin=sc.origin if filled is None else None)
    # The saved rolls, checked against the boxes filled, named by where they were given.
    from_card = saved_rolls is None and sc.saved_rolls is not None
    pos = replace(pos, saved_rolls=check_saved_rolls(
        t, len(pos.filled), saved_rolls if saved_rolls is not None else sc.saved_rolls,
        f"{sc.origin}: " if from_card else ""))
    shown = dice if dice is not None else sc.dice
    rolled = parse_dice(shown, t) if shown is not None else None
    left = rolls_left if rolls_left is not None else sc.rolls_left
    opponent = None
    versus = opponent_card is not None or opponent_filled is not None or \
        opponent_upper_total is not None or opponent_saved_rolls is not None
    points = bonus_points if bonus_points is not None else sc.bonus_points
    if versus and opponent_strategy == "minimax":
        theirs = _opponent_position(model, opponent_card, opponent_filled,
                                    opponent_upper_total, opponent_saved_rolls, quiet, as_json,
                                    yes)
        _advise_minimax(model, pos, rolled, left, points, theirs, target, store, top, as_json)
        return
    if versus:
        opponent = _opponent_final_score(model, opponent_card, opponent_filled,
                                         opponent_upper_total, opponent_saved_rolls,
                                         opponent_strategy, quiet, as_json, yes)
    elif opponent_strategy != "optimal":
        raise InputError("--opponent-strategy goes with the opponent's card "
                         "(--opponent-card or --opponent-filled).")
    try:
        advice = model.advise(pos, rolled, left, points, target, store=store,
                              opponent=opponent)
    except WorkTooLong as exc:
        if store is None and target is None:
            exc.hint = (", or with --store FOLDER to read the values from a finished "
                        "`yz solve --store` folder")
        raise
    if opponent is not None:
        mean = model.advise(pos, rolled, left, points)  # the expected-score ranking beside
        if as_json:
            emit_json({**advice.to_dict(top), "opponent": {
                "variant": opponent.variant, "strategy": opponent.strategy,
                "expected_score": opponent.expected_score, "median": opponent.median},
                "mean_play": mean.to_dict(top)})
        else:
            typer.echo(render.versus_advice_text(t, advice, mean,
                                                 render.opponent_line(opponent), top))
        return
    if as_json:
        emit_json(advice.to_dict(top))
    else:
        typer.echo(render.advice_text(t, advice, top))


def _opponent_final_score(model, card, filled, upper_total, saved_rolls, strategy, quiet,
                          as_json, yes):
    """The exact distribution of the opponent's final score, from its card or options (its
    variant: the card's, else the player's own)."""
    from yz.solver.strategies import check_strategy

    check_strategy(strategy)
    theirs, position, _bonus = _opponent_card(model, card, filled, upper_total, saved_rolls,
                                              quiet, as_json, yes)
    return theirs.final_score_from(position, strategy)


def _opponent_card(model, card, filled, upper_total, saved_rolls, quiet, as_json, yes,
                   same_rules: str | None = None):
    """(the opponent's model, its Position, its extra Yahtzee bonus points), from its card
    or options (its variant: the card's, else the player's own; with `same_rules`, the
    option that needs the player's own, refused for any other)."""
    from yz.rules import InputError
    from yz.rules.position import check_saved_rolls, parse_filled

    oc = read_card(card)
    theirs = model if oc.variant is None else model_for(oc.variant, quiet, as_json, yes=yes)
    if same_rules and theirs.tables.digest != model.tables.digest:
        raise InputError(f"{same_rules}: both players play one rule set, and the opponent's "
                         f"card is of {theirs.name}, not {model.name}.")
    position = parse_filled(filled if filled is not None else oc.filled, theirs.tables,
                            upper_total if upper_total is not None else oc.upper_total,
                            origin=oc.origin if filled is None else None, finished=True)
    saved = saved_rolls if saved_rolls is not None else oc.saved_rolls
    if len(position.filled) < theirs.tables.n_categories:
        from dataclasses import replace

        position = replace(position, saved_rolls=check_saved_rolls(
            theirs.tables, len(position.filled), saved, "opponent's "))
    return theirs, position, oc.bonus_points


def _opponent_position(model, card, filled, upper_total, saved_rolls, quiet, as_json, yes):
    """The opponent's Position and extra Yahtzee bonus points for minimax play: a card of
    the player's own rule set."""
    _theirs, position, bonus = _opponent_card(model, card, filled, upper_total, saved_rolls,
                                              quiet, as_json, yes,
                                              same_rules="--opponent-strategy minimax")
    return position, bonus


def _advise_minimax(model, pos, rolled, left, points, theirs, target, store, top: int,
                    as_json: bool) -> None:
    """`yz advise` with `--opponent-strategy minimax`: the moves by the chance of winning when
    both play to win seeing each other's card, beside the expected-score ranking."""
    from yz.rules import InputError

    if target is not None:
        raise InputError("--opponent-strategy minimax ranks moves by the chance of winning; "
                         "leave out --target.")
    opponent, their_bonus = theirs
    try:
        advice = model.advise_minimax(pos, opponent, rolled, left, points, their_bonus,
                                      store=store)
    except InputError as exc:
        if store is None and getattr(exc, "param", None) == "keep":
            exc.args = (f"{exc.reason}; or give --store FOLDER to keep them on disk.",)
        raise
    mean = model.advise(pos, rolled, left, points)
    their_points = opponent.banked(model.tables, their_bonus or 0)
    if as_json:
        emit_json({**advice.to_dict(top), "opponent": {
            "variant": model.name, "strategy": "minimax", "filled": opponent.filled,
            "upper_total": opponent.upper_total, "points": their_points},
            "mean_play": mean.to_dict(top)})
        return
    typer.echo(render.versus_advice_text(
        model.tables, advice, mean,
        render.minimax_opponent_line(opponent, advice.banked - their_points), top))


# ---------------------------------------------------------------- solve, compare


@app.command("solve")
@handles_errors
def solve_cmd(variant: VariantOpt = "official-free-joker", no_cache: NoCacheOpt = False,
              no_sd: Annotated[bool, typer.Option(
                  "--no-sd", help="Skip the exact standard deviation (a second pass).")] = False,
              max_memory: Annotated[str | None, typer.Option(
                  "--max-memory", metavar="SIZE", show_default=False,
                  help="Refuse a solve needing more memory than this, e.g. 2G or 512M "
                  "[default: three quarters of this machine's memory].")] = None,
              store: Annotated[str | None, typer.Option(
                  "--store", metavar="FOLDER", help="Solve layer by layer into this folder "
                  "(two layers in memory; run it again to resume a stopped solve). The "
                  "values stay there, not in the cache.")] = None,
              scheduler: Annotated[str | None, typer.Option(
                  "--scheduler", metavar="ADDRESS", help="With --store: solve the layers' "
                  "chunks on a Dask cluster, e.g. tcp://host:8786 (the workers must see the "
                  "folder; needs pip install 'yz[dask]').")] = None,
              workers: Annotated[int | None, typer.Option(
                  "--workers", min=1, metavar="N", help="With --store: solve on N local Dask "
                  "worker processes, one core each (needs pip install 'yz[dask]'; 1: this "
                  "process) [default: this process, on every core].")] = None,
              figures: Annotated[bool, typer.Option(
                  "--figures", help="Also each box's mean and zero rate and the bonus rates "
                  "under optimal play (a forward pass; with --store over the folder's values, "
                  "kept there once done and resumed where it stopped: hours for Maxi "
                  "Yatzy).")] = False,
              quiet: QuietOpt = False, as_json: JsonOpt = False, yes: YesOpt = False,
              ) -> None:
    """Solve a rule set exactly: optimal expected score and SD.

    The SD is the exact standard deviation of the final score under optimal play; both are
    cached with the strategy.
    """
    import time

    from yz.rules.loader import recording_sources

    if store is None and (scheduler is not None or workers is not None):
        raise typer.BadParameter("--scheduler and --workers solve into a folder; add "
                                 "--store FOLDER.", param_hint="'--store'")
    if scheduler is not None and workers is not None:
        raise typer.BadParameter("give one of --scheduler and --workers.",
                                 param_hint="'--workers'")
    with recording_sources() as sources:
        model = model_for(variant, quiet, as_json, use_cache=not no_cache,
                          max_memory=parse_size(max_memory), yes=yes)
    if store is not None:
        try:
            layered = model.solve_layered(store, with_sd=not no_sd, scheduler=scheduler,
                                          workers=workers)
        except KeyboardInterrupt:
            note(f"the finished chunks are kept in {store}: the same command goes on from "
                 "there")
            raise
        if as_json:
            boxes = model.store_figures(store) if figures else None
            emit_json({**data.layered_json(layered),
                       **({"figures": boxes.to_dict()} if boxes else {})})
            return
        typer.echo(render.layered_text(layered))  # (before the figures' pass: it may be long)
        if figures:
            try:
                boxes = model.store_figures(store)
            except KeyboardInterrupt:
                note(f"the figures' pass keeps where it stands in {store}: the same command "
                     "goes on from there")
                raise
            typer.echo("\n" + render.box_figures_text(model.tables, boxes))
        return
    solution = model.solve(with_sd=not no_sd)
    start = time.perf_counter()
    moments = None if no_sd else model.moments()
    sd_seconds = time.perf_counter() - start
    if moments is not None and not no_cache:  # the next plain `yz solve` answers at once
        from yz.solver import cache

        from .quick import remember

        remember(variant, sources, cache.meta_path(model.tables), solution.rules.name,
                 solution.expected_score, moments.sd, solution.states)
    if as_json:
        boxes = model.figures("optimal") if figures else None
        emit_json({**data.solution_json(solution, moments),
                   **({"figures": boxes.to_dict()} if boxes else {})})
        return
    typer.echo(render.solution_text(solution, moments, sd_seconds))
    if figures:
        typer.echo("\n" + render.box_figures_text(model.tables, model.figures("optimal")))


@app.command("compare")
@handles_errors
def compare_cmd(
    variants: Annotated[list[str] | None, typer.Argument(
        metavar="VARIANT", show_default=False,
        help="Variant names or YAML files (default: every built-in but maxi-yatzy, "
        "maxi-yatzy-no-saved-rolls and yatzy-saved-rolls, whose solves take minutes).")] = None,
    no_risk: Annotated[bool, typer.Option(
        "--no-risk", help="Only the means: skip the SD, median, 5th/95th percentiles and upper "
        "bonus rate (exact, computed once per rule set and cached).")] = False,
    no_cache: NoCacheOpt = False, quiet: QuietOpt = False, as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """Compare rule sets: expected score and risk.

    The optimal expected score of each, its difference to the first one (by default every
    built-in, the official rules first), and its spread: SD, median, 5th and 95th percentiles
    and the upper bonus rate.
    """
    from yz.rules import builtin_names, load_rules

    # The official rules come first, so every difference reads against them.
    specs = variants or sorted(builtin_names(big=False),
                               key=lambda name: name != "official-free-joker")
    all_rules = [load_rules(s) for s in specs]  # every file is checked before any solving
    models = [model_for(rules, quiet, as_json, use_cache=not no_cache, yes=yes)
              for rules in all_rules]
    solutions = [model.solve() for model in models]
    risks = None if no_risk else [_risk(model) for model in models]
    rows = data.compare_rows(solutions, risks)
    if as_json:
        emit_json(rows)
    else:
        typer.echo(render.compare_text(rows))


def _risk(model):
    """What `compare` knows of a rule set's spread: (its exact distribution, its figures).
    Games with saved rolls too big to compute their distribution along with the rest have it
    only where `yz distribution` left it in the cache (then the SD is its own), and no per-box
    figures (then the SD is the mean and SD's own pass, and the figures None)."""
    if model.has_distribution_of_play:
        return model.distribution(), model.figures()
    if model.has_distribution():
        return model.distribution(), None
    return None, model.figures()


# ---------------------------------------------------------------- simulate


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
    yes: YesOpt = False,
) -> None:
    """Play games; sampled figures beside exact ones.

    The mean with its standard error next to the exact value, the SD, percentiles, per-box
    means and zero rates, bonuses and Joker uses, and a histogram.
    """
    from yz.solver.simulate import check_simulation, summarise

    check_simulation(games, seed, strategy)  # before any work
    if plot is not None:
        plots.check_plot_target(plot)
    model = model_for(variant, quiet, as_json, yes=yes)
    wait = model.figures_wait(strategy)
    if wait is not None and exact is not False and not quiet and not as_json:
        note(f"the exact SD and per-box figures of {model.name} take about "
                    f"{wait / 60:.0f} min the first time (then cached); "
                    + ("--exact computes them" if exact is None else "they follow the games"))
    played = model.simulate(games, seed, strategy)
    summary = summarise(played)
    figures = None if exact is False else model.figures(strategy, when_quick=exact is None)
    figures = figures.to_dict() if figures is not None else None
    # The figures are printed whatever happens to the plot: a path that cannot be written
    # (checked above, but folders change) costs the error message, not the games.
    plot_error = None
    if plot is not None:
        import numpy as np

        try:
            plots.plot_histogram(
                plot, np.arange(len(played.score_counts)), played.score_counts,
                f"{model.name}, {strategy} strategy, {games:,} games",
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
    yes: YesOpt = False,
) -> None:
    """The exact distribution of the final score.

    Mean, SD, median, mode, percentiles, P(score >= x) and a histogram; --json gives the whole
    distribution (scores and probabilities). Computed exactly (no sampling) and cached.
    """
    from yz.solver.strategies import check_strategy

    check_strategy(strategy)
    if plot is not None:
        plots.check_plot_target(plot)
    model = model_for(variant, quiet or csv == "-", as_json, use_cache=not no_cache,
                      yes=yes)
    dist = model.distribution(strategy)
    if csv == "-":
        typer.echo(render.distribution_csv(dist), nl=False)
    elif csv is not None:
        from pathlib import Path

        try:
            Path(csv).write_text(render.distribution_csv(dist), encoding="utf-8")
        except OSError as exc:
            raise YzError(f"--csv: could not write '{csv}' ({exc.strerror or exc}).") from None
    if as_json:
        emit_json(dist.to_dict())
    elif csv != "-":
        typer.echo(render.distribution_text(dist, dist.cached))
        if csv is not None:
            typer.echo(f"distribution written to {csv}")
    if plot is not None:
        plots.plot_histogram(plot, dist.scores, dist.probabilities,
                              f"{dist.variant}, {strategy} strategy: exact distribution",
                              dist.expected_score, ylabel="probability")


@app.command("duel")
@handles_errors
def duel_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Player A's rule set.")],
    b: Annotated[str | None, typer.Argument(
        metavar="B", help="Player B's rule set (not with --opponent-distribution).")] = None,
    strategy_a: Annotated[str, typer.Option("--strategy-a", metavar="NAME",
                                            help="Player A's strategy.")] = "optimal",
    strategy_b: Annotated[str, typer.Option("--strategy-b", metavar="NAME",
                                            help="Player B's strategy.")] = "optimal",
    best_response: Annotated[bool, typer.Option(
        "--best-response", help="A plays to win against B's exact distribution (neither "
        "sees the other's card): its chances beside expected-score play's and the "
        "clairvoyant ceiling's. With --exact: also the best response to expected-score "
        "play seeing its card, seated first and second.")] = False,
    opponent_distribution: Annotated[str | None, typer.Option(
        "--opponent-distribution", metavar="FILE", help="With --best-response: B's final "
        "score as the CSV `yz distribution --csv` writes, instead of a rule set.")] = None,
    field: Annotated[int, typer.Option(
        "--field", metavar="N", help="With --best-response: play against the best of N "
        "independent such opponents.")] = 1,
    no_ceiling: Annotated[bool, typer.Option(
        "--no-ceiling", help="With --best-response: leave out the clairvoyant ceiling (a "
        "sweep as long as a target table up to B's top score).")] = False,
    exact: Annotated[bool, typer.Option(
        "--exact", help="Both players play to win, each seeing the other's card (minimax), "
        "under one rule set (B the same as A, or left out): A's exact chances, and minimax "
        "against expected-score play seated first and second. Only for games whose joint "
        "states fit in memory (crag); the estimate is said first.")] = False,
    minimax_only: Annotated[bool, typer.Option(
        "--minimax-only", help="With --exact: only A's chances when both play minimax, not "
        "minimax against expected-score play (one pass instead of up to three, and less "
        "memory).")] = False,
    max_memory: Annotated[str | None, typer.Option(
        "--max-memory", metavar="SIZE", show_default=False,
        help="With --exact: refuse a solve needing more memory than this, e.g. 12G "
        "[default: three quarters of this machine's memory].")] = None,
    checkpoint: Annotated[str | None, typer.Option(
        "--checkpoint", metavar="FOLDER", help="With --exact: keep the solve's progress in "
        "this folder (every 10 minutes); run the same command again to go on from it after a "
        "stop.")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=2, metavar="N", help="With --exact and --checkpoint: solve each "
        "joint layer on N local Dask worker processes, one core each, reading the layer "
        "after it from the checkpoint folder, saved after every layer (needs pip install "
        "'yz[dask]') [default: this process, on every core].")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS", help="With --exact and --checkpoint: solve on a "
        "Dask cluster, e.g. tcp://host:8786 (the workers must see the checkpoint folder at "
        "the same path).")] = None,
    quiet: QuietOpt = False, as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """The exact chance that player A beats player B.

    Each plays a solitaire game under its own rule set and strategy (e.g. the same rules,
    optimal against greedy); A wins, draw, B wins, from the exact distributions. With
    --best-response A plays to win (maximises P(win) + P(draw) / 2) against B's distribution.
    With --exact both play to win seeing each other's card (minimax), A first.
    """
    from yz.rules import InputError, load_rules
    from yz.solver.strategies import check_strategy
    from yz.solver.versus import Opponent

    if exact:
        if opponent_distribution or field != 1 or no_ceiling or \
                strategy_a != "optimal" or strategy_b != "optimal":
            raise InputError("--exact: both players play minimax (to win, each seeing the "
                             "other's card); leave out --opponent-distribution, --field, "
                             "--no-ceiling and the strategies.")
        if best_response and minimax_only:
            raise InputError("--exact --best-response evaluates play against expected-score "
                             "play; leave out --minimax-only.")
        rules = load_rules(a)
        if b is not None and load_rules(b) != rules:
            raise InputError(f"--exact: both players play the same rule set; {b!r} is not "
                             f"{a!r} (give B as A, or leave it out).")
        model = model_for(rules, quiet, as_json, max_memory=parse_size(max_memory), yes=yes)
        on_dask = {"scheduler": scheduler, "workers": workers}
        result = model.minimax(checkpoint=checkpoint, **on_dask) if minimax_only else \
            model.duel_exact(best_response, checkpoint, **on_dask)
        if as_json:
            emit_json(result.to_dict())
        else:
            typer.echo(render.exact_duel_text(result))
        return
    if max_memory is not None or minimax_only or checkpoint is not None or \
            workers is not None or scheduler is not None:
        raise InputError("--max-memory, --minimax-only, --checkpoint, --workers and "
                         "--scheduler go with --exact.")
    check_strategy(strategy_a, "strategy_a")
    check_strategy(strategy_b, "strategy_b")
    if not best_response and (opponent_distribution or field != 1 or no_ceiling):
        raise InputError("--opponent-distribution, --field and --no-ceiling go with "
                         "--best-response.")
    if (b is None) == (opponent_distribution is None):
        raise InputError("give player B as a rule set, or with --best-response as "
                         "--opponent-distribution FILE (one of them).")
    first = model_for(load_rules(a), quiet, as_json, yes=yes)
    if best_response:
        if strategy_a != "optimal":
            raise InputError("--strategy-a: with --best-response, A plays to win (its own "
                             "strategy); leave out --strategy-a.")
        opponent = Opponent.from_csv(opponent_distribution, field) if opponent_distribution \
            else model_for(load_rules(b), quiet, as_json, yes=yes)
        result = first.best_response(opponent, strategy_b, field, ceiling=not no_ceiling)
        if as_json:
            emit_json(result.to_dict())
        else:
            typer.echo(render.best_response_text(result))
        return
    second = model_for(load_rules(b), quiet, as_json, yes=yes)
    result = first.duel(second, strategy_a, strategy_b)
    dists = (first.distribution(strategy_a), second.distribution(strategy_b))
    if as_json:
        emit_json(data.duel_json(*dists, result))
    else:
        typer.echo(render.duel_text(*dists, result))


@app.command("target")
@handles_errors
def target_cmd(
    variant: VariantOpt = "official-free-joker",
    max_target: Annotated[int | None, typer.Option(
        "--max-target", metavar="N", help="Solve every target up to N at once [default: the "
        "highest of --targets, else 500; never above the game's highest score].")] = None,
    targets_opt: Annotated[str | None, typer.Option(
        "--targets", metavar="LIST", help="The targets to print, e.g. 200,250,300 [default: "
        "round scores up to the maximum].")] = None,
    no_cache: NoCacheOpt = False, quiet: QuietOpt = False, as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """Play for a target: the best chance of reaching T.

    Solves the strategy that maximises P(final score >= T) for every T up to --max-target
    (cached), and prints it beside P(final score >= T) under the mean-optimal strategy.
    """
    from yz.rules import InputError
    from yz.solver.distribution import ROUND_SCORES
    from yz.solver.target import DEFAULT_MAX_TARGET, MAX_TARGET, check_max_target

    if max_target is not None:
        check_max_target(max_target)
    if targets_opt is not None:
        try:
            wanted = [int(x) for x in targets_opt.replace(" ", "").split(",") if x]
        except ValueError:
            raise InputError(f"--targets: '{targets_opt}' is not a list of whole numbers, "
                             "e.g. 200,250,300.") from None
        top = max_target if max_target is not None else MAX_TARGET
        bad = [x for x in wanted if not 1 <= x <= top]
        if bad or not wanted:
            raise InputError(f"--targets: give scores from 1 to the maximum target "
                             f"{top} (got {', '.join(map(str, bad)) or 'none'}).")
        asked_by = "max_target" if max_target is not None else "targets"
        max_target = max_target if max_target is not None else max(wanted)
    else:
        asked_by = "max_target"
        max_target = max_target if max_target is not None else DEFAULT_MAX_TARGET
        wanted = [t for t in ROUND_SCORES if t <= max_target] or [max_target]
    model = model_for(variant, quiet, as_json, use_cache=not no_cache, yes=yes)
    table = model.targets(max_target, param=asked_by)  # (a refusal names the option given)
    # Playing for the mean is compared where its exact distribution is computed (games with
    # many saved rolls are played without it: `Model.has_distribution_of_play`).
    dist = model.distribution() if model.has_distribution_of_play else None
    rows = [(x, table.p_reach(x), None if dist is None else dist.p_at_least(x)) for x in wanted]
    if as_json:
        emit_json(data.target_json(table, rows))
    else:
        typer.echo(render.target_text(table, rows))
