"""`yz play` (a whole game in the terminal, the coach watching) and `yz serve` (the same in a
browser). The game itself is `yz.solver.coach.Game`; this module reads lines and prints."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from . import render
from .app import QuietOpt, VariantOpt, YesOpt, app, handles_errors, model_for

HELP_LINE = ("Type the dice to keep (66, 6 6, all, none) or a box to score (its key, name or "
             "the start of it); also: hint, card, undo, quit.")


@app.command("play")
@handles_errors
def play_cmd(
    variant: VariantOpt = "official-free-joker",
    seed: Annotated[int | None, typer.Option(
        "--seed", metavar="N", help="Seed of the dice: the same seed, the same dice "
        "[default: a random one, printed].")] = None,
    coach_threshold: Annotated[float | None, typer.Option(
        "--coach-threshold", metavar="P", min=0.0, help="Warn before a move that costs "
        "more than P points of expected final score, and let you change it.")] = None,
    own_dice: Annotated[bool, typer.Option(
        "--own-dice", help="Roll real dice and type them in, instead of the program "
        "rolling.")] = False,
    store: Annotated[str | None, typer.Option(
        "--store", metavar="FOLDER", help="Read the values from a finished `yz solve --store` "
        "folder of this rule set instead of solving (for games too big to solve here, such "
        "as maxi-yatzy).")] = None,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
    opponent: Annotated[str | None, typer.Option(
        "--opponent", metavar="BOT", help="Play against a bot, turn about: optimal, greedy, "
        "heuristic (their strategies) or win (plays to beat you).")] = None,
    players: Annotated[int, typer.Option(
        "--players", metavar="N", min=1, max=2, help="2: two people at one keyboard, turn "
        "about.")] = 1,
    opponent_first: Annotated[bool, typer.Option(
        "--opponent-first", help="In a two-player game the other seat starts (the bot, or "
        "player 2).")] = False,
    no_win_chances: Annotated[bool, typer.Option(
        "--no-win-chances", help="In a two-player game judge the decisions by the expected "
        "final score, not by the chance of winning, and show no chances (faster).")] = False,
    win_seconds: Annotated[float, typer.Option(
        "--win-seconds", metavar="S", min=0.0, help="In a two-player game, a turn whose "
        "chances of winning would take longer than S seconds here (early in a big game) is "
        "judged by the expected score instead, and a win bot plays it for the mean.")] = 20.0,
) -> None:
    """Play a whole game with the coach, alone or against a bot.

    The optimal strategy watches: after each decision (dice to keep, box to score) you
    learn whether it was the best one and, if not, what the best was and what yours cost
    in expected final score. At the end:
    the score card, the points lost, your worst decisions and how your score ranks in the
    exact distribution of final scores (not with --store). Reads one answer per line from
    standard input. With --opponent or --players 2, two cards are played turn about, each
    decision judged by the chance of winning, with both players' chances shown as the game
    goes (the coach threshold then counts percentage points of that chance).
    """
    if opponent is not None or players == 2:
        from .match_cmd import play_match

        if store is not None:
            from yz.rules import InputError

            raise InputError("--store plays one card from a store; a two-player game "
                             "(--opponent, --players 2) needs the game solved, not stored.")
        seats = _seats(opponent, players)
        play_match(variant, seed, coach_threshold, own_dice, quiet, yes, seats,
                   int(opponent_first), not no_win_chances, win_seconds)
        return
    if opponent_first or no_win_chances:
        from yz.rules import InputError

        raise InputError("--opponent-first and --no-win-chances go with a two-player game "
                         "(--opponent BOT or --players 2).")
    play_game(variant, seed, coach_threshold, own_dice, quiet, yes, store)


def _seats(opponent: str | None, players: int) -> tuple[str, str]:
    from yz.rules import InputError
    from yz.solver.match import BOTS

    if opponent is not None and players == 2:
        raise InputError("--opponent and --players 2 are two ways to fill the second seat; "
                         "give one of them.")
    if opponent is None:
        return ("person", "person")
    if opponent not in BOTS:
        raise InputError(f"--opponent: '{opponent}' is not a bot; choose one of "
                         f"{', '.join(BOTS)}.")
    return ("person", opponent)


@app.command("serve")
@handles_errors
def serve_cmd(
    port: Annotated[int, typer.Option("--port", metavar="N", min=0, max=65535,
                                      help="Port to listen on (0: any free one).")] = 8765,
    host: Annotated[str, typer.Option(
        "--host", metavar="HOST", help="Address to bind (127.0.0.1: this machine only; "
        "0.0.0.0 opens the page to the network). The page answers only requests that name "
        "it by a loopback name, this address or an --allow-host name.")] = "127.0.0.1",
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME", help="Another name the page may be opened by "
        "(e.g. this machine's name on the network); repeat for more.")] = None,
    max_solve_seconds: Annotated[float, typer.Option(
        "--max-solve-seconds", metavar="S", min=1.0, help="Refuse rule sets whose exact "
        "solve is estimated to take longer than S seconds on this machine (they can be "
        "played with yz play, or here from a store).")] = 60.0,
    store: Annotated[list[str] | None, typer.Option(
        "--store", metavar="VARIANT=FOLDER", help="Play VARIANT (a built-in, example:NAME "
        "or a rule file) from FOLDER, a finished `yz solve --variant VARIANT --store FOLDER`, "
        "whatever its size; repeat for more.")] = None,
) -> None:
    """Play along in a browser: a local web page and its JSON API.

    Choose a built-in rule set or paste your own, play with dice you click or keys you
    press, ask for hints, let the coach stop costly moves, and read the review. Needs the
    web extra: pip install 'yz[web]'. The API is documented at /docs.
    """
    serve(host, port, allow_host or [], max_solve_seconds, store or [])


# ---------------------------------------------------------------- yz play


class _EndOfInput(Exception):
    pass


def _ask(prompt: str) -> str:
    typer.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        raise _EndOfInput
    if not sys.stdin.isatty():  # the answer is not echoed by a terminal: show it
        typer.echo(line.rstrip("\n"))
    return line.strip()


def play_game(variant: str, seed: int | None, threshold: float | None, own_dice: bool,
              quiet: bool, yes: bool = False, store: str | None = None) -> None:
    import secrets

    from yz.rules import YzError
    from yz.solver.coach import check_seed

    if seed is None:
        seed = secrets.randbelow(1_000_000)
    check_seed(seed)
    from yz.rules import WorkTooLong

    model = model_for(variant, quiet, yes=yes)
    try:
        game = model.coach(seed, own_dice, store=store)
    except WorkTooLong as exc:
        exc.hint = (f", or make a store of its values once (yz solve --variant {variant} "
                    "--store FOLDER --no-sd --yes) and play from it with --store FOLDER")
        raise
    solution = game.solution
    t = solution.tables
    how = "your own dice" if own_dice else f"seed {seed}"
    source = f" (values read from {store})" if store is not None else ""
    typer.echo(f"yz play: {t.rules.name}, {t.n_categories} turns, {how}; optimal play "
               f"averages {solution.expected_score:.2f}{source}.")
    typer.echo(render.wrapped(HELP_LINE))
    shown_turn = 0
    try:
        while not game.over:
            if game.turn != shown_turn:
                shown_turn = game.turn
                typer.echo(f"\nTurn {game.turn} of {t.n_categories}: banked {game.banked}"
                           f"{game.saved_rolls_text()}, expected final "
                           f"{game.expected_final():.2f}")
            try:
                if game.phase == "dice":
                    _enter_dice(game)
                else:
                    _decide(game, threshold)
            except YzError as exc:
                typer.echo(f"error: {exc}")  # about the answer typed, not an option
    except _EndOfInput:
        typer.echo(f"\nend of input: the game stops at turn {game.turn} with {game.banked} "
                   "points banked.")
        if game.log:
            typer.echo(review_text(game, None))
        return
    except _Quit:
        typer.echo(f"game stopped at turn {game.turn} with {game.banked} points banked.")
        if game.log:
            typer.echo(review_text(game, None))
        return
    typer.echo("\n" + card_text(game))
    # (big games with saved rolls, and games from a store: no exact distribution)
    typer.echo(review_text(game, model.distribution() if model.has_distribution_of_play
                           and store is None else None))


class _Quit(Exception):
    pass


def _enter_dice(game) -> None:
    from yz.rules import InputError
    from yz.rules.position import parse_dice

    t = game.tables
    free = t.n_dice - len(game.kept)
    if game.kept:
        kept = " ".join(map(str, game.kept))
        answer = _ask(f"roll the other {free} dice (kept: {kept}) and type them> ")
    else:
        answer = _ask(f"roll your {t.n_dice} dice and type them> ")
    if _command(answer, game):
        return
    if not answer:
        return
    if len(game.kept) and t.n_faces <= 9 and answer.isdigit() and len(answer) == free:
        dice = tuple(int(c) for c in answer)
    else:
        try:
            dice = parse_dice(answer, t)
        except InputError:
            if not game.kept:
                raise
            dice = tuple(int(x) for x in answer.replace(",", " ").split() if x.isdigit())
            if len(dice) != free:
                raise
    game.enter_dice(list(dice))


def _command(answer: str, game) -> bool:
    """Handle hint/card/undo/quit/help; True when the answer was one of them."""
    word = answer.lower()
    if word in ("quit", "q", "exit"):
        raise _Quit
    if word in ("help", "?"):
        typer.echo(render.wrapped(HELP_LINE))
    elif word in ("hint", "h"):
        typer.echo(options_text(game))
    elif word in ("card", "c"):
        typer.echo(card_text(game))
    elif word in ("undo", "u"):
        game.undo()
        typer.echo(f"took back the last decision: turn {game.turn}.")
    else:
        return False
    return True


def parse_move(answer: str, game) -> dict:
    """A person's answer at a decision of `game` (a coach `Game`) as the move it names: dice
    to keep, or an open box to score (InputError, naming the open boxes, when neither)."""
    from yz.rules import InputError
    from yz.solver.coach import find_box, parse_keep

    t = game.tables
    kept = parse_keep(answer, game.dice, t.n_faces)
    if kept is not None:
        if not game.rolls_left:
            raise InputError("no re-rolls are left this turn: type the box to score.")
        return {"keep": list(kept)}
    box = find_box(answer, game)
    if box is None:
        open_boxes = [c.key for c in t.rules.categories if not game.position.is_filled(c.key)]
        raise InputError(f"'{answer}' is neither dice to keep nor an open box (open: "
                         f"{', '.join(open_boxes)}). {HELP_LINE}")
    return {"score": box}


def _decide(game, threshold: float | None) -> None:
    dice = " ".join(map(str, game.dice))
    if game.rolls_left:
        left = f"{game.rolls_left} re-roll{'s' if game.rolls_left > 1 else ''} left"
        answer = _ask(f"dice {dice}  ({left})  keep or box> ")
    else:
        answer = _ask(f"dice {dice}  (last roll)  box> ")
    if not answer or _command(answer, game):
        return
    move = parse_move(answer, game)
    chosen, best = game.judge(move)
    loss = best.value - chosen.value
    if threshold is not None and loss > threshold:
        typer.echo(f"coach: {chosen.label()} costs {loss:.2f} points of expected final score, "
                   f"more than your coach threshold of {threshold:g} points; the best is "
                   f"{best.label()}.")
        if _ask("play it anyway? [y/N]> ").lower() not in ("y", "yes"):
            return
    decision = game.play(move)
    typer.echo("  " + decision_text(decision))


# ---------------------------------------------------------------- rendering


def decision_text(d) -> str:
    if d.was_best:
        tie = "" if d.chosen.same_move(d.best) else f" (as good as {d.best.label()})"
        return f"best move{tie}."
    return (f"not the best: the best was {d.best.label()} (expected final "
            f"{d.best.value + d.banked:.2f}); {d.chosen.label()} ({d.chosen.value + d.banked:.2f}) "
            f"cost {d.loss:.2f} points.")


def options_text(game) -> str:
    from yz.solver.coach import TIE

    opts = game.options()
    if not opts:
        return "no decision to make now."
    best = opts[0].value
    lines = ["expected final  loss    move"]
    for i, o in enumerate(opts[:12]):
        tie = " (tie)" if i and abs(o.value - best) <= TIE else ""
        lines.append(f"{game.banked + o.value:14.2f}  {best - o.value:6.2f}  {o.label()}{tie}")
    if len(opts) > 12:
        lines.append(f"... and {len(opts) - 12} more")
    return "\n".join(lines)


def card_text(game) -> str:
    rows = game.card()
    width = max(len(r["name"]) for r in rows)
    lines = []
    for r in rows:
        score = "-" if r["score"] is None else str(r["score"])
        lines.append(f"  {r['name']:<{width}}  {score:>4}")
    b = game.bonuses()
    if b["upper_threshold"]:
        lines.append(f"  {'Upper bonus':<{width}}  {b['upper_bonus']:>4}  (upper total "
                     f"{b['upper_total']} of {b['upper_threshold']})")
    if game.tables.yahtzee_bonus:
        lines.append(f"  {'Yahtzee bonus':<{width}}  {b['yahtzee_bonus']:>4}")
    lines.append(f"  {'Total':<{width}}  {game.banked:>4}")
    return "score card\n" + "\n".join(lines)


def review_text(game, dist) -> str:
    """The review: the total beside the average, split into what the decisions cost and what
    the dice did (`Game.review`), the worst decisions and the rank."""
    r = game.review(dist)
    if game.over:
        lines = [f"total {r['total']} (optimal play averages {r['expected_at_start']:.2f})"]
        result = "your total is"
    else:
        lines = [f"banked {r['total']}; expected final {r['expected_final']:.2f} if every move "
                 f"from here is the best (optimal play averages {r['expected_at_start']:.2f})"]
        result = "that is"
    gap = r["expected_final"] - r["expected_at_start"]
    luck = r["luck"]
    lines += [f"{result} {abs(gap):.2f} points {'below' if gap < 0 else 'above'} the average: "
              f"your decisions cost {r['lost']:.2f} (each one's loss in expected final score "
              f"against the best move, added up) and the dice {'took' if luck < 0 else 'gave'} "
              f"{abs(luck):.2f} (luck)",
              f"decisions: {r['decisions']}, {r['best_decisions']} of them best; mean loss "
              f"{r['mean_loss']:.3f} per decision"]
    if r["worst"]:
        lines.append("worst decisions:")
        for d in game.worst(3):
            when = f"{d.rolls_left} re-roll{'s' if d.rolls_left > 1 else ''} left" \
                if d.rolls_left else "last roll"
            lines.append(f"  turn {d.turn}, dice {' '.join(map(str, d.dice))} ({when}): "
                         f"{d.chosen.label()}, cost {d.loss:.2f}; best: {d.best.label()}")
    else:
        lines.append("every decision was a best one.")
    if dist is not None:
        lines.append(f"your score in the exact distribution of optimal play: P(score <= "
                     f"{r['total']}) = {100 * r['p_at_most']:.1f}% (median {r['median']})")
    return "\n".join(lines)


# ---------------------------------------------------------------- yz serve


WEB_MISSING = ("error: yz serve needs the web extra (FastAPI, uvicorn, fastapi-offline), "
               "which is not installed: pip install 'yz[web]' (in a checkout: pip install -e "
               "'.[web]'), then run yz serve again.")


def serve(host: str, port: int, allow_hosts: list[str], max_solve_seconds: float,
          stores: list[str] = ()) -> None:
    try:  # the web extra: uvicorn, FastAPI and the docs' files
        import fastapi_offline  # noqa: F401
        import uvicorn  # noqa: F401
        from yz.web.server import bind
        from yz.web.server import serve as run_server
    except ImportError:
        typer.echo(WEB_MISSING, err=True)
        raise typer.Exit(2) from None
    settings = serve_settings(host, allow_hosts, max_solve_seconds, stores)
    sock = bind(host, port)

    def started(url: str) -> None:
        typer.echo(f"yz serve: open {url} (API documented at /docs); Ctrl-C stops.", err=True)

    run_server(settings, sock, started, _reporter())


def serve_settings(host: str, allow_hosts: list[str], max_solve_seconds: float,
                   stores: list[str]):
    """The web server's settings from the command's options: the names it answers to, its
    solve limit, its stores (VARIANT=FOLDER each), and the commands it names for a rule set
    too big to solve here."""
    from yz.web.settings import LOOPBACK_NAMES, WebSettings

    return WebSettings(max_solve_seconds=max_solve_seconds,
                       hosts=(*LOOPBACK_NAMES, host, *allow_hosts),
                       offline_command="yz play --variant {rules}",
                       store_command="yz solve --variant {rules} --store FOLDER --no-sd --yes "
                       "(about {time} here), then yz serve --store {rules}=FOLDER",
                       stores=tuple(_store_spec(spec) for spec in stores))


def _store_spec(spec: str) -> tuple[str, str]:
    """(rule set, folder) of a --store VARIANT=FOLDER."""
    from yz.rules import InputError

    variant, sep, folder = spec.partition("=")
    if not sep or not variant.strip() or not folder.strip():
        raise InputError(f"--store: '{spec}' is not VARIANT=FOLDER (e.g. "
                         "maxi-yatzy=maxi-store).")
    return variant.strip(), folder.strip()


def _reporter():
    from .report import TerminalReporter

    return TerminalReporter(bars=True, notes=True)
