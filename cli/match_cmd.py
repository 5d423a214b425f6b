"""`yz play --opponent KIND` and `yz play --players 2`: a two-player game in the terminal.

The match itself is `yz.solver.match.Match`; this module reads lines, prints, and says before
any piece of work that takes a while (the chances of winning of a turn) how long it should
take, and after it how long it took.
"""

from __future__ import annotations

import time

import typer

from . import render
from .play_cmd import HELP_LINE, _ask, _EndOfInput, _Quit, parse_move

ANNOUNCE_SECONDS = 1.0  # work estimated longer is announced first
SHOW_SECONDS = 0.5  # work that took longer says so after


def play_match(variant: str, seed: int | None, threshold: float | None, own_dice: bool,
               quiet: bool, yes: bool, seats: tuple[str, str], first: int,
               win_chances: bool, win_seconds: float | None) -> None:
    import secrets

    from yz.rules import YzError
    from yz.solver.coach import check_seed
    from yz.solver.match import Match

    from .app import model_for

    if seed is None:
        seed = secrets.randbelow(1_000_000)
    check_seed(seed)
    model = model_for(variant, quiet, yes=yes)
    match = Match(model, seed, seats, first, own_dice, win_chances, win_seconds, _announcing)
    t = match.tables
    how = "your own dice" if own_dice else f"seed {seed}"
    versus = f"{match.name(0)} against {match.name(1)}" if match.is_bot(1) else \
        "player 1 against player 2"
    starts = "you start" if match.name(first) == "you" else f"{match.name(first)} starts"
    typer.echo(f"yz play: {t.rules.name}, {t.n_categories} turns each, {versus}, {how}; "
               f"{starts}.")
    if win_chances:
        typer.echo("Each decision is judged by the chance of winning (a win, and half a draw, "
                   "playing to win from there against the other's play, a person's taken as "
                   "expected-score play); --no-win-chances judges by the expected score, "
                   "faster.")
    else:
        typer.echo("Each decision is judged by the expected final score (--no-win-chances).")
    typer.echo(render.wrapped(HELP_LINE))
    shown = None
    try:
        while not match.over:
            seat, game = match.current, match.game
            if (seat, game.turn) != shown:
                shown = (seat, game.turn)
                typer.echo("\n" + turn_heading(match))
                notes = turn_notes(match)
                if notes:
                    typer.echo(notes)
            try:
                if game.phase == "dice":
                    _enter_dice(match)
                elif match.is_bot(seat):
                    _bot_turn(match)
                else:
                    _decide(match, threshold)
            except YzError as exc:
                typer.echo(f"error: {exc}")  # about the answer typed, not an option
    except (_EndOfInput, _Quit) as stop:
        why = "end of input: " if isinstance(stop, _EndOfInput) else ""
        typer.echo(f"\n{why}the game stops at turn {match.game.turn}: "
                   + ", ".join(f"{match.name(i)} {g.banked}" for i, g in enumerate(match.games))
                   + " points banked.")
        return
    typer.echo("\n" + cards_text(match))
    typer.echo(review_text(match))


def _announcing(what: str, seconds: float, make, key=None):
    """Work for the match (a turn's chances, a final score's distribution): said first when
    it should take a while, and its time said after when it did."""
    if seconds >= ANNOUNCE_SECONDS:
        typer.echo(f"  (working out {what}: about {_duration(seconds)} here)")
    begin = time.perf_counter()
    out = make()
    took = time.perf_counter() - begin
    if took >= SHOW_SECONDS:
        typer.echo(f"  ({what}: {took:.1f} s)")
    return out


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{seconds / 60:.0f} min"


def pct(p: float | None) -> str:
    return "?" if p is None else f"{100 * p:.2f}%"


def chances_text(match) -> str:
    chances = match.chances()
    if all(c is None for c in chances):
        return ""
    parts = [f"{match.name(i)} {pct(c)}" for i, c in enumerate(chances)]
    return "chances of winning: " + ", ".join(parts)


def turn_heading(match) -> str:
    seat, game = match.current, match.game
    other = match.games[1 - seat]
    return (f"Turn {game.turn} of {match.tables.n_categories}, {match.name(seat)}: banked "
            f"{game.banked}{game.saved_rolls_text()} ({match.name(1 - seat)} {other.banked})")


def turn_notes(match) -> str:
    """Under a turn's heading: both chances (worked out here, their work announced), and
    why the mover's are not computed when its turn is over the time allowed."""
    seat = match.current
    lines = []
    chances = chances_text(match)
    if chances:
        lines.append(f"  {chances}")
    if seat in match.skipped:
        lines.append(f"  (the chances of winning of {match.name(seat)} are not computed this "
                     f"turn: about {_duration(match.skipped[seat])} here, over --win-seconds "
                     f"{match.win_seconds:g}; judged by the expected score)")
    return "\n".join(lines)


def _enter_dice(match) -> None:
    from yz.rules import InputError
    from yz.rules.position import parse_dice

    game = match.game
    t = game.tables
    whose = "your" if match.name(match.current) == "you" else f"{match.name(match.current)}'s"
    free = t.n_dice - len(game.kept)
    if game.kept:
        kept = " ".join(map(str, game.kept))
        answer = _ask(f"roll the other {free} dice of {whose} (kept: {kept}) and type them> ")
    else:
        answer = _ask(f"roll {whose} {t.n_dice} dice and type them> ")
    if not answer or _command(answer, match):
        return
    if game.kept and t.n_faces <= 9 and answer.isdigit() and len(answer) == free:
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
    match.play({"dice": list(dice)})


def _bot_turn(match) -> None:
    """The bot's next decision, shown as it is made."""
    game = match.game
    left = _left(game.rolls_left)
    move = match.step()
    typer.echo(f"  {match.name(move.seat)}: dice {' '.join(map(str, move.dice))} ({left}): "
               f"{move.label()}")


def _left(rolls_left: int) -> str:
    return f"{rolls_left} re-roll{'s' if rolls_left > 1 else ''} left" if rolls_left \
        else "last roll"


def _command(answer: str, match) -> bool:
    """hint/card/undo/quit/help; True when the answer was one of them."""
    word = answer.lower()
    if word in ("quit", "q", "exit"):
        raise _Quit
    if word in ("help", "?"):
        typer.echo(render.wrapped(HELP_LINE))
    elif word in ("hint", "h"):
        typer.echo(options_text(match))
    elif word in ("card", "c"):
        typer.echo(cards_text(match))
    elif word in ("undo", "u"):
        match.undo()
        who = match.name(match.current)
        whose = "your" if who == "you" else f"{who}'s"
        typer.echo(f"took back {whose} last decision (turn {match.game.turn}).")
    else:
        return False
    return True


def _decide(match, threshold: float | None) -> None:

    game = match.game
    dice = " ".join(map(str, game.dice))
    who = "" if match.name(match.current) == "you" else f"{match.name(match.current)}: "
    if game.rolls_left:
        answer = _ask(f"{who}dice {dice}  ({_left(game.rolls_left)})  keep or box> ")
    else:
        answer = _ask(f"{who}dice {dice}  (last roll)  box> ")
    if not answer or _command(answer, match):
        return
    move = parse_move(answer, game)
    chosen, best, objective = match.judge(move)
    loss = best.value - chosen.value
    limit = None if threshold is None else threshold / 100 if objective == "win" else threshold
    if limit is not None and loss > limit:
        typer.echo(f"coach: {chosen.label()} costs {_amount(loss, objective)}, more than your "
                   f"coach threshold of {threshold:g} {_unit(objective)}; the best is "
                   f"{best.label()}.")
        if _ask("play it anyway? [y/N]> ").lower() not in ("y", "yes"):
            return
    decision = match.play(move)
    typer.echo("  " + decision_text(decision))


def _unit(objective: str) -> str:
    return "percentage points of the chance of winning" if objective == "win" else "points"


def _amount(loss: float, objective: str) -> str:
    if objective == "win":
        return f"{100 * loss:.2f} percentage points of the chance of winning"
    return f"{loss:.2f} points of expected final score"


def _worth(action, decision) -> str:
    if decision.objective == "win":
        return f"chance of winning {pct(action.value)}"
    return f"expected final {action.value + decision.banked:.2f}"


def decision_text(d) -> str:
    if d.was_best:
        tie = "" if _same(d.chosen, d.best) else f", as good as {d.best.label()}"
        return f"best move ({_worth(d.chosen, d)}{tie})."
    return (f"not the best: the best was {d.best.label()} ({_worth(d.best, d)}); "
            f"{d.chosen.label()} ({_worth(d.chosen, d)}) cost {_amount(d.loss, d.objective)}.")


def _same(a, b) -> bool:
    if a.kind != b.kind:
        return False
    return a.box.key == b.box.key if a.kind == "score" else a.keep == b.keep


def options_text(match) -> str:
    from yz.solver.coach import TIE

    if match.game.phase not in ("keep", "score"):
        return "no decision to make now."
    opts, objective = match.options()
    best = opts[0].value
    banked = match.game.banked
    if objective == "win":
        lines = ["chance of winning  loss (points %)  move"]
    else:
        lines = ["expected final  loss    move"]
    for i, o in enumerate(opts[:12]):
        tie = " (tie)" if i and abs(o.value - best) <= TIE else ""
        if objective == "win":
            lines.append(f"{pct(o.value):>17}  {100 * (best - o.value):16.2f}  {o.label()}{tie}")
        else:
            lines.append(f"{banked + o.value:14.2f}  {best - o.value:6.2f}  {o.label()}{tie}")
    if len(opts) > 12:
        lines.append(f"... and {len(opts) - 12} more")
    return "\n".join(lines)


def cards_text(match) -> str:
    """Both score cards side by side."""
    names = [match.name(i) for i in (0, 1)]
    cards = [g.card() for g in match.games]
    width = max(len(label) for label in [r["name"] for r in cards[0]] + ["Yahtzee bonus"])
    cols = [max(6, len(n)) for n in names]

    def row(label: str, values) -> str:
        return f"  {label:<{width}}" + "".join(f"  {v:>{c}}" for v, c in zip(values, cols,
                                                                            strict=True))

    lines = [row("", names)]
    for r0, r1 in zip(*cards, strict=True):
        lines.append(row(r0["name"], ["-" if r["score"] is None else str(r["score"])
                                      for r in (r0, r1)]))
    bonuses = [g.bonuses() for g in match.games]
    if bonuses[0]["upper_threshold"]:
        lines.append(row("Upper total", [str(b["upper_total"]) for b in bonuses]))
        lines.append(row("Upper bonus", [str(b["upper_bonus"]) for b in bonuses]))
    if match.tables.yahtzee_bonus:
        lines.append(row("Yahtzee bonus", [str(b["yahtzee_bonus"]) for b in bonuses]))
    lines.append(row("Total", [str(g.banked) for g in match.games]))
    return "score cards\n" + "\n".join(lines)


def review_text(match) -> str:
    r = match.review()
    totals = r["totals"]
    if r["winner"] is None:
        result = f"a draw at {totals[0]}"
    else:
        w = r["winner"]
        wins = "win" if match.name(w) == "you" else "wins"
        result = f"{match.name(w)} {wins}, {totals[w]} to {totals[1 - w]}"
    lines = [f"final: {result}."]
    for person in r["people"]:
        seat = person["seat"]
        whose = "your" if match.name(seat) == "you" else f"{match.name(seat)}'s"
        cost = []
        if person["lost_chance"] or any(d.objective == "win" for d in match.log
                                        if d.seat == seat):
            cost.append(f"{100 * person['lost_chance']:.2f} percentage points of the chance "
                        "of winning (each decision's loss against the best move, added up)")
        if person["lost_points"]:
            cost.append(f"{person['lost_points']:.2f} points of expected final score (the "
                        "decisions judged by it)")
        lines.append(f"{whose} decisions: {person['decisions']}, {person['best_decisions']} of "
                     f"them best" + (f"; they cost {' and '.join(cost)}" if cost else ""))
        worst = [d for d in match.log if d.seat == seat and not d.was_best]
        worst.sort(key=lambda d: (d.objective != "win", -d.loss))
        for d in worst[:3]:
            lines.append(f"  turn {d.turn}, dice {' '.join(map(str, d.dice))} "
                         f"({_left(d.rolls_left)}): {d.chosen.label()}, cost "
                         f"{_amount(d.loss, d.objective)}; best: {d.best.label()}")
    return "\n".join(lines)
