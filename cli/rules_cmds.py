"""`yz variants`, `yz rules ...` and `yz score`: rule sets and what a roll scores, with no
solving."""

from __future__ import annotations

from typing import Annotated

import typer

from . import data, render
from .app import (
    CardOpt,
    CardVariantOpt,
    FilledOpt,
    JsonOpt,
    UpperTotalOpt,
    app,
    emit_json,
    handles_errors,
    read_card,
    rules_app,
)
from .report import TerminalReporter

# ---------------------------------------------------------------- variants and rules


@app.command("variants")
@handles_errors
def variants_cmd(as_json: JsonOpt = False) -> None:
    """List the built-in rule sets and shipped examples.

    For each: its key, boxes, bonuses, Joker rule and description.
    """
    from yz.rules import builtin_names, example_names, load_rules

    names = [*builtin_names(), *(f"example:{n}" for n in example_names())]
    rows = [{**data.variant_summary(load_rules(name)), "variant": name} for name in names]
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

    Exit 0 when it is valid; exit 2 with every problem listed (file:line:col) when not
    (with --json, also as an object on standard output).
    """
    from yz.rules import YzError, load_rules

    try:
        rules = load_rules(path)
    except YzError as exc:
        if as_json:
            emit_json({"valid": False, "file": path, "errors": exc.problems or [str(exc)]})
        raise
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
    from yz.solver.model import tables_of

    t = tables_of(load_rules(spec), TerminalReporter())
    if as_json:
        emit_json({"variant": t.rules.name, "categories": list(t.rules.keys),
                   "rolls": t.ROLL_DICE.tolist(), "scores": t.SCORE.tolist()})
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
    from yz.rules.position import (
        box_choices,
        check_open_box,
        check_saved_rolls,
        parse_dice,
        parse_filled,
    )
    from yz.solver.model import tables_of

    if dice_args and dice is not None:
        raise InputError("give the dice once: as arguments or with --dice, not both.")
    sc = read_card(card)
    t = tables_of(load_rules(variant or sc.variant or "official-free-joker"), TerminalReporter())
    shown = dice_args or (dice if dice is not None else sc.dice)
    if shown is None:
        raise InputError("no dice to score: give them as arguments (e.g. yz score 1 3 4 6 6), "
                         "with --dice, or in the scorecard.")
    roll = t.roll_index(parse_dice(shown, t))
    pos = parse_filled(filled if filled is not None else sc.filled, t,
                       upper_total if upper_total is not None else sc.upper_total,
                       origin=sc.origin if filled is None else None)
    if sc.saved_rolls is not None:  # (no box's points depend on it, but a card is checked whole)
        check_saved_rolls(t, len(pos.filled), sc.saved_rolls, f"{sc.origin}: ")
    choices = box_choices(t, roll, pos, first_roll)
    if category is not None:
        check_open_box(t, pos, category)
        choices = [c for c in choices if c.key == category]
    else:
        choices = sorted(choices, key=lambda c: (not c.legal, -c.total))
    if as_json:
        boxes = [c.to_dict() for c in choices]
        if category is not None:
            emit_json({"variant": t.rules.name, "dice": list(t.ROLL_DICE[roll].tolist()),
                       "category": category, "score": choices[0].points, **boxes[0]})
        else:
            emit_json({"variant": t.rules.name, "dice": t.ROLL_DICE[roll].tolist(),
                       "scores": {c.key: c.points for c in choices}, "boxes": boxes})
    else:
        typer.echo(render.choices_text(t, roll, choices))


