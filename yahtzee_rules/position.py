"""Dice and score-card positions as a person types them, and what a roll scores in a position.

`box_choices` is the position-aware scorer: the Joker (free or forced), the extra Yahtzee
bonus and the upper bonus applied to one final roll, and the position each box leads to. It
runs the solver's own rule of a turn's end (`yz.solver.kernels.rule`, plain Python that the
kernels compile), so the scorer, the advisor and the solver cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yz.solver.kernels.rule import box_move, box_verdict, may_fill, upper_step
from yz.solver.kernels.state import bank_after, has, is_open

from .errors import InputError
from .tables import RuleTables


def parse_dice(items: list[str] | tuple[str, ...] | str, t: RuleTables) -> tuple[int, ...]:
    """Dice from '1 3 4 6 6', '1,3,4,6,6' or '13466'; InputError unless they fit the game."""
    if isinstance(items, str):
        items = [items]
    tokens: list[str] = []
    for item in items:
        parts = [p for p in re.split(r"[,\s]+", str(item).strip()) if p]
        for p in parts:
            compact = len(parts) == 1 and len(items) == 1 and t.n_faces <= 9
            if compact and p.isdigit() and len(p) > 1:
                tokens.extend(p)  # compact form: one digit per die
            else:
                tokens.append(p)
    n, f = t.n_dice, t.n_faces
    example = " ".join(str(min(f, d)) for d in (1, 3, 4, 6, 6, 2, 5, 1)[:n])
    allowed = f"{n} dice, each a whole number from 1 to {f}, e.g. {example}"
    try:
        dice = tuple(int(x) for x in tokens)
    except ValueError:
        raise InputError(f"dice: '{' '.join(map(str, items))}' is not a list of numbers; give "
                         f"{allowed}.") from None
    if len(dice) != n:
        compact = "" if t.n_faces <= 9 or len(tokens) != 1 else (
            " (dice written together, like 13466, only work up to 9 faces; separate them with "
            "commas or spaces)")
        raise InputError(f"dice: got {len(dice)} dice ({' '.join(map(str, dice)) or 'none'}), "
                         f"but {t.rules.name} plays with {allowed}.{compact}")
    bad = [d for d in dice if not 1 <= d <= f]
    if bad:
        raise InputError(f"dice: {', '.join(map(str, bad))} cannot show on a {f}-sided die; give "
                         f"{allowed}.")
    return tuple(sorted(dice))


@dataclass(frozen=True)
class Position:
    """Which boxes are filled, with their scores where known, and the derived solver state."""

    filled: dict[str, int | None] = field(default_factory=dict)
    mask: int = 0
    upper_total: int = 0  # not capped
    # The flag box holds a non-zero score: the Yahtzee box with an extra Yahtzee bonus, or the
    # box an `only_after` box waits for (`RuleSet.flag_box_key`); False in games without one.
    yahtzee_full: bool = False
    saved_rolls: int = 0  # the bank of saved rolls this turn starts with (`saved_rolls` rules)

    def is_filled(self, key: str) -> bool:
        return key in self.filled

    def after(self, t: RuleTables, roll: int, key: str, first: bool = False,
              left: int = 0) -> tuple[Position, BoxChoice]:
        """The position after scoring roll index `roll` in box `key` (with `first`, the turn's
        first roll, kept to claim a first-roll bonus; `left`: re-rolls unused, which decide
        the saved rolls the next turn starts with), and what that move gave; InputError
        when the box is not open, not the next box of a card filled in order, or the Joker
        rules it out."""
        check_open_box(t, self, key)
        choice = next(c for c in box_choices(t, roll, self, first) if c.key == key)
        if not choice.legal:
            nxt = next_box(t, self)
            if nxt is not None and nxt != key:
                raise InputError(f"category: {t.rules.name} fills the boxes in card order, so "
                                 f"this turn must go in '{nxt}', not '{key}'.",
                                 param="category")
            raise InputError(f"category: the forced Joker rule does not allow '{key}' for "
                             "this roll; see which boxes it allows.", param="category")
        filled = {**self.filled, key: choice.points}
        return Position(filled, self.mask | (1 << choice.box), choice.upper_after,
                        choice.flag_after, bank_after(t, self.saved_rolls, left)), choice

    def banked(self, t: RuleTables, bonus_points: int = 0) -> int | None:
        """Points already on the card, bonuses included; None while a filled box's score is
        unknown."""
        if any(score is None for score in self.filled.values()):
            return None
        total = sum(self.filled.values()) + bonus_points
        if t.upper_threshold and self.upper_total >= t.upper_threshold:
            total += t.upper_bonus
        return total


def most_rolls_left(t: RuleTables, pos: Position) -> int:
    """The re-rolls a turn has after its first roll: the rules' rolls less one, and the saved
    rolls it starts with."""
    return t.rolls - 1 + pos.saved_rolls


def check_saved_rolls(t: RuleTables, n_filled: int, saved_rolls: int | None,
                      where: str = "") -> int:
    """The saved rolls a turn starts with after `n_filled` turns, checked against the rules
    (when not given: those the game starts with, none in most games)."""
    if saved_rolls is None:
        return t.bank_start
    if isinstance(saved_rolls, bool) or not isinstance(saved_rolls, int) or saved_rolls < 0:
        raise InputError(f"{where}saved rolls: {saved_rolls!r} is not a whole number from 0 up.",
                         param="saved_rolls")
    if saved_rolls == 0:
        return 0
    if not t.has_bank:
        raise InputError(f"{where}saved rolls: {t.rules.name} saves no rolls from turn to turn, "
                         "so no turn starts with saved rolls; leave them out.",
                         param="saved_rolls")
    most = t.banks_in_layer(n_filled) - 1
    if saved_rolls > most:
        turns = f"after {n_filled} turn{'s' if n_filled != 1 else ''}"
        raise InputError(f"{where}saved rolls: {saved_rolls} is more than a turn of "
                         f"{t.rules.name} can start with {turns} (at most {most}).",
                         param="saved_rolls")
    return saved_rolls


def next_box(t: RuleTables, pos: Position) -> str | None:
    """The one box a turn may fill when the card is filled in order (else None)."""
    if not t.in_order:
        return None
    return next((k for i, k in enumerate(t.rules.keys) if is_open(t, pos.mask, i)), None)


def check_bonus_points(t: RuleTables, pos: Position, bonus_points: int | None) -> int:
    """Extra Yahtzee bonus points already won, checked against the rule set and the position
    (a multiple of the bonus, only once the Yahtzee box holds its full value)."""
    if bonus_points is None or bonus_points == 0:
        return 0
    rules = t.rules
    if isinstance(bonus_points, bool) or not isinstance(bonus_points, int) or bonus_points < 0:
        raise InputError(f"bonus points: {bonus_points!r} is not a whole number of points from "
                         "0 up.", param="bonus_points")
    if not t.yahtzee_bonus:
        raise InputError(f"bonus points: {rules.name} has no extra Yahtzee bonus, so no bonus "
                         "points can have been won; leave them out.", param="bonus_points")
    if bonus_points % t.yahtzee_bonus:
        raise InputError(f"bonus points: {bonus_points} is not a multiple of the "
                         f"{t.yahtzee_bonus}-point Yahtzee bonus.", param="bonus_points")
    if not pos.yahtzee_full:
        raise InputError(f"bonus points: extra Yahtzee bonuses are only won once the "
                         f"{rules.yahtzee_category} box holds its full value; fill it with its "
                         "score first.", param="bonus_points")
    most = t.yahtzee_bonus * max(0, len(pos.filled) - 1)
    if bonus_points > most:
        raise InputError(f"bonus points: {bonus_points} is more than the {most} that "
                         f"{len(pos.filled)} filled boxes can have brought (one bonus per turn "
                         "after the Yahtzee box was filled).", param="bonus_points")
    return bonus_points


def parse_filled(spec: str | dict | None, t: RuleTables, upper_total: int | None = None,
                 origin: str | None = None, saved_rolls: int | None = None,
                 finished: bool = False) -> Position:
    """A position from 'ones=3,chance=22,yahtzee=50' (or a mapping), with `saved_rolls` at
    the turn's start in games that save rolls; InputError if impossible. With `finished` a
    full card is a position too (an opponent's finished game).

    A box named without a score is filled with an unknown score; the scores of boxes counting
    toward the upper bonus (unless `upper_total` gives their sum), and of the Yahtzee box when
    there is an extra Yahtzee bonus, must be given because they change what comes next.
    `origin` (a scorecard file) is named in error messages.
    """
    rules = t.rules
    where = f"{origin}: " if origin else ""
    pairs: list[tuple[str, str | int | None]] = []
    if isinstance(spec, dict):
        pairs = list(spec.items())
    elif spec:
        for item in (p.strip() for p in spec.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            pairs.append((key.strip(), value.strip() if eq else None))
    filled: dict[str, int | None] = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise InputError(f"{where}filled: {key!r} is not a box name; boxes are named "
                             f"{', '.join(rules.keys)}.")
        if key not in rules.keys:
            import difflib

            hint = difflib.get_close_matches(key, rules.keys, n=1)
            tip = f" Did you mean '{hint[0]}'?" if hint else ""
            raise InputError(f"{where}filled: '{key}' is not a box of {rules.name} (boxes: "
                             f"{', '.join(rules.keys)}).{tip}")
        if key in filled:
            raise InputError(f"{where}filled: the box '{key}' is given twice; give each box once.")
        score = None
        if value is not None and value != "":
            whole = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value, whole = int(value), True
            if not whole:
                raise InputError(f"{where}filled: {key}={value!r}: the score must be a whole "
                                 "number.")
            score = value
            possible = possible_scores(t, rules.index_of(key))
            if score not in possible:
                shown = ", ".join(map(str, sorted(possible)))
                raise InputError(f"{where}filled: {key}={score} is a score the box '{key}' can "
                                 f"never hold under {rules.name}; possible scores: {shown}.")
        filled[key] = score
    if len(filled) >= len(rules.categories) and not finished:
        raise InputError("filled: every box is filled, so the game is over and there is no move "
                         "to make; leave at least one box open.")
    need = [k for k in rules.bonus_categories if k in filled and filled[k] is None]
    if need and upper_total is None:
        raise InputError(f"filled: give the scores of {', '.join(need)} (as {need[0]}=<score>): "
                         "they count toward the upper bonus.")
    ykey = rules.flag_box_key
    if ykey is not None and ykey in filled and filled[ykey] is None:
        why = ("it decides whether further Yahtzees earn the bonus" if rules.yahtzee_bonus
               else "it decides whether the boxes waiting for it can score")
        raise InputError(f"filled: give the score in the {ykey} box ({ykey}=0 or its score): "
                         f"{why}.")
    if t.in_order:
        expected = rules.keys[:len(filled)]
        if set(filled) != set(expected):
            raise InputError(f"filled: {rules.name} fills the boxes in card order, so "
                             f"{len(filled)} filled boxes must be {', '.join(expected)}; "
                             f"got {', '.join(filled)}.")
    mask = sum(1 << rules.index_of(k) for k in filled)
    upper = sum(filled[k] or 0 for k in rules.bonus_categories if k in filled)
    if upper_total is not None:
        counted = [k for k in rules.bonus_categories if k in filled]
        if not need and counted and upper_total != upper:
            raise InputError(f"upper total: {upper_total} does not match the scores given for "
                             f"{', '.join(counted)} (they add up to {upper}); give one or the "
                             "other.")
        # The boxes without a score could have added any sum of their possible scores.
        sums = {upper}
        for k in need:
            sums = {a + b for a in sums for b in possible_scores(t, rules.index_of(k))}
        if upper_total not in sums:
            boxes = ", ".join(counted) or "no box counting toward the bonus"
            raise InputError(f"upper total: {upper_total} is impossible with {boxes} filled "
                             f"(possible: {_ranges(sorted(sums))}); fill the boxes that made it, "
                             "or correct the total.")
        upper = upper_total
    yfull = bool(ykey is not None and (filled.get(ykey) or 0) > 0)
    return Position(filled, mask, upper, yfull,
                    check_saved_rolls(t, len(filled), saved_rolls, where))


def _ranges(values: list[int]) -> str:
    """'0-5, 7, 9-12' for a sorted list of whole numbers."""
    parts = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def check_open_box(t: RuleTables, pos: Position, key: str) -> None:
    """InputError unless `key` is a box of the rule set that is still open in `pos`."""
    rules = t.rules
    if key not in rules.keys:
        import difflib

        hint = difflib.get_close_matches(key, rules.keys, n=1)
        tip = f" Did you mean '{hint[0]}'?" if hint else ""
        raise InputError(f"category: '{key}' is not a box of {rules.name} (boxes: "
                         f"{', '.join(rules.keys)}).{tip}", param="category")
    if pos.is_filled(key):
        raise InputError(f"category: the box '{key}' is already filled in the given "
                         "position; pick an open box, or leave it out of the filled boxes.",
                         param="category")


def possible_scores(t: RuleTables, c: int) -> set[int]:
    """Every score box c can hold (the Joker's and a first-roll bonus's included)."""
    return {int(x) for x in t.BOX_SCORES[c]}


@dataclass(frozen=True)
class BoxChoice:
    """What putting a final roll in one open box gives, and where it leads."""

    key: str
    name: str
    points: int  # the box's score (Joker applied)
    yahtzee_bonus: int
    upper_bonus: int  # the upper bonus this choice completes, if the upper total is known
    legal: bool  # False when the forced Joker or the fill order rules this box out
    joker: bool  # True when the Joker gave the box its full value
    box: int = 0  # the box's index on the card
    upper_after: int = 0  # the upper total afterwards (not capped)
    flag_after: bool = False  # the flag box holds a non-zero score afterwards
    first_roll_bonus: int = 0  # of `points`, what the first-roll bonus added

    @property
    def total(self) -> int:
        return self.points + self.yahtzee_bonus + self.upper_bonus

    def to_dict(self) -> dict:
        """The choice as plain JSON values (`yz score --json`, a move's box everywhere)."""
        return {"category": self.key, "name": self.name, "score": self.points,
                "yahtzee_bonus": self.yahtzee_bonus, "upper_bonus": self.upper_bonus,
                "total": self.total, "legal": self.legal, "joker": self.joker,
                "first_roll_bonus": self.first_roll_bonus}


def box_choices(t: RuleTables, roll: int, pos: Position, first: bool = False) -> list[BoxChoice]:
    """Every open box for roll index `roll` in position `pos`, in card order; `first`: the
    roll is the turn's first, kept whole (a score above zero earns the first-roll bonus).
    The rule is the solver's own (`yz.solver.kernels.rule`), run here as plain Python; only
    the upper total is kept uncapped, as a person reads it."""
    mask, flag = pos.mask, int(pos.yahtzee_full)
    only_box, lower_only, use_joker, extra = box_verdict(t, mask, roll)
    out = []
    for c, cat in enumerate(t.rules.categories):
        if has(mask, c):
            continue
        pts, gained, _mask, flag_after, counted, _won = box_move(t, mask, flag, roll, c,
                                                                  use_joker, extra, first)
        pts, gained = int(pts), int(gained)  # (numpy's integers, read from the tables)
        upper_after, upper_bonus = pos.upper_total, 0
        if counted:
            upper_after += pts
            upper_bonus = upper_step(t.upper_threshold, t.upper_bonus, pos.upper_total, pts,
                                     counted)[1]
        served = int(t.FIRST_BONUS[c]) if first and pts > 0 else 0
        out.append(BoxChoice(cat.key, cat.name, pts, gained - pts, upper_bonus,
                             bool(may_fill(t, mask, c, only_box, lower_only)),
                             bool(use_joker and t.JOKER_SCORE[roll, c] != t.SCORE[roll, c]), c,
                             upper_after, bool(flag_after), served))
    return out


@dataclass(frozen=True)
class Scorecard:
    """A position read from a YAML or JSON file (every field optional).

    `variant` is ready to pass to `load_rules`: a relative rule-file path in the card is
    resolved against the card's folder, so a card works from any working directory. `origin`
    names the card in messages ("<stdin>" for standard input).
    """

    variant: str | None = None
    filled: dict | None = None
    upper_total: int | None = None
    bonus_points: int | None = None
    dice: tuple[int, ...] | None = None
    rolls_left: int | None = None
    origin: str | None = None
    saved_rolls: int | None = None


SCORECARD_FIELDS = ("variant", "filled", "upper_total", "bonus_points", "dice", "rolls_left",
                    "saved_rolls")


def load_scorecard(path: str) -> Scorecard:
    """Read a scorecard file ("-": standard input); InputError naming the file and field when
    it does not fit.

    Format (YAML or JSON): {variant, filled: {box: score}, upper_total, bonus_points, dice,
    rolls_left, saved_rolls}; `filled` may also be a list of box keys.
    """
    import difflib

    from .loader import STDIN_ORIGIN, parse_yaml, read_input_text

    origin = STDIN_ORIGIN if path == "-" else path
    text = read_input_text(path, "scorecard", InputError)
    data, _ = parse_yaml(text, origin, "scorecard", InputError)
    path = origin
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"{path}: a scorecard is a mapping with some of "
                         f"{', '.join(SCORECARD_FIELDS)}.")
    for key in data:
        if key not in SCORECARD_FIELDS:
            hint = difflib.get_close_matches(str(key), SCORECARD_FIELDS, n=1)
            tip = f" Did you mean '{hint[0]}'?" if hint else ""
            raise InputError(f"{path}: {key}: unknown field; a scorecard has "
                             f"{', '.join(SCORECARD_FIELDS)}.{tip}")
    filled = data.get("filled")
    if isinstance(filled, list):
        filled = {str(k): None for k in filled}
    if filled is not None and not isinstance(filled, dict):
        raise InputError(f"{path}: filled: give a mapping of box: score (or a list of boxes).")

    def whole(name: str) -> int | None:
        value = data.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError(f"{path}: {name}: must be a whole number, not {value!r}.")
        return value

    dice = data.get("dice")
    if dice is not None:
        if isinstance(dice, str | int):
            dice = str(dice)
        elif isinstance(dice, list) and all(isinstance(d, int) for d in dice):
            dice = tuple(dice)
        else:
            raise InputError(f"{path}: dice: give a list of numbers such as [1, 3, 4, 6, 6].")
    variant = data.get("variant")
    if variant is not None and not isinstance(variant, str):
        raise InputError(f"{path}: variant: give a built-in name or a rule file path.")
    return Scorecard(_variant_beside(variant, origin), filled, whole("upper_total"),
                     whole("bonus_points"), dice, whole("rolls_left"), origin,
                     whole("saved_rolls"))


def _variant_beside(variant: str | None, origin: str) -> str | None:
    """A card's relative rule-file path, read from the card's folder; names stay names."""
    from pathlib import Path

    from .loader import STDIN_ORIGIN, looks_like_path

    if variant is None or origin == STDIN_ORIGIN or not looks_like_path(variant):
        return variant
    if Path(variant).is_absolute():
        return variant
    return str(Path(origin).parent / variant)
