"""Frozen pydantic models of a rule set: the validated form of a YAML rule file.

A rule set is pure data. Patterns come from a small vocabulary of primitives (a `kind` field picks
one); scoring forms likewise. Game-wide checks that need more than one field (a face beyond the
die, a bonus naming a missing box, a state space too large to solve) live in one model validator
that reports every problem with the path of the field at fault.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, model_validator

# Limits the solver honours. The state space is 2^categories x (threshold + 1) x (1 or 2); the
# limit on it keeps the value table under ~130 MB of float64.
MAX_DICE = 8
MAX_FACES = 10
MAX_ROLLS = 5
MAX_CATEGORIES = 16
MAX_THRESHOLD = 1000
MAX_STATES = 1 << 24
# Each solver thread sweeps a table of keeps x upper totals (several, for the exact SD).
MAX_KEEP_COLUMNS = 1 << 22
MAX_GROUPS = 4

KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")


FieldPath = tuple[str | int, ...]


class RuleProblems(ValueError):
    """Several semantic problems found at once: (field at fault, message, fields that cause it).

    The causes let an error about an inherited box be shown where the user's own file set the
    field that broke it (e.g. `dice: 1` breaks the inherited Full House).
    """

    def __init__(self, problems: list[tuple[FieldPath, str, tuple[FieldPath, ...]]]):
        self.problems = problems
        super().__init__("; ".join(f"{_dotted(p)}: {m}" for p, m, _ in problems))


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out or "(top level)"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


# ---------------------------------------------------------------- patterns


class FacePattern(_Strict):
    """The dice showing one face (the upper boxes); matches when at least `min_count` show it."""

    kind: Literal["face"]
    face: Annotated[int, Field(strict=True, ge=1, le=MAX_FACES)]
    min_count: Annotated[int, Field(strict=True, ge=0, le=MAX_DICE)] = 0


class OfAKindPattern(_Strict):
    """`count` dice of one face: at least that many, or with `exact`, exactly that many."""

    kind: Literal["of_a_kind"]
    count: Annotated[int, Field(strict=True, ge=1, le=MAX_DICE)]
    exact: StrictBool = False


class GroupsPattern(_Strict):
    """Groups of equal dice, e.g. [3, 2] for a full house or [2, 2] for two pairs.

    Each group needs `size` dice of one face (exactly that many with `exact`). With `distinct`
    (the default) every group uses its own face; without it one face may fill several groups,
    so a Yahtzee is a full house and four of a kind is two pairs (house rules).
    """

    kind: Literal["groups"]
    sizes: Annotated[tuple[Annotated[int, Field(strict=True, ge=1, le=MAX_DICE)], ...],
                     Field(min_length=1, max_length=MAX_GROUPS)]
    exact: StrictBool = False
    distinct: StrictBool = True


class StraightPattern(_Strict):
    """A run of `length` consecutive faces, or the explicit set `faces` (e.g. [1, 2, 3, 4, 5])."""

    kind: Literal["straight"]
    length: Annotated[int, Field(strict=True, ge=2, le=MAX_FACES)] | None = None
    faces: Annotated[tuple[Annotated[int, Field(strict=True, ge=1, le=MAX_FACES)], ...],
                     Field(min_length=2, max_length=MAX_FACES)] | None = None

    @model_validator(mode="after")
    def _one_of_length_or_faces(self) -> StraightPattern:
        if (self.length is None) == (self.faces is None):
            raise ValueError("give exactly one of `length` (a run) or `faces` (an explicit set)")
        if self.faces is not None and len(set(self.faces)) != len(self.faces):
            raise ValueError(f"`faces` repeats a face: {list(self.faces)}")
        return self


class AllSamePattern(_Strict):
    """Every die shows the same face (a Yahtzee)."""

    kind: Literal["all_same"]


class AnyPattern(_Strict):
    """Always matches (Chance)."""

    kind: Literal["any"]


Pattern = Annotated[
    FacePattern | OfAKindPattern | GroupsPattern | StraightPattern | AllSamePattern | AnyPattern,
    Field(discriminator="kind"),
]

# ---------------------------------------------------------------- scoring forms


class SumAll(_Strict):
    """The sum of all dice."""

    kind: Literal["sum_all"]


class SumMatched(_Strict):
    """The sum of the dice that form the pattern, taking the highest-scoring way to form it."""

    kind: Literal["sum_matched"]


class FaceTotal(_Strict):
    """Face value times the number of dice showing it (only with a `face` pattern)."""

    kind: Literal["face_total"]


class Fixed(_Strict):
    """A fixed number of points when the pattern matches."""

    kind: Literal["fixed"]
    points: Annotated[int, Field(strict=True, ge=0, le=10_000)]


Scoring = Annotated[SumAll | SumMatched | FaceTotal | Fixed, Field(discriminator="kind")]


def _kind_shorthand(value: Any) -> Any:
    """Let YAML say `score: sum_all` or `pattern: any` for a kind without parameters."""
    return {"kind": value} if isinstance(value, str) else value


def _score_shorthand(value: Any) -> Any:
    """Let YAML say `score: 30` for `{kind: fixed, points: 30}`, the commonest scoring form."""
    if isinstance(value, int) and not isinstance(value, bool):
        return {"kind": "fixed", "points": value}
    return _kind_shorthand(value)


SMALL_WORDS = {"a", "an", "and", "of", "or", "the"}


def default_name(key: str) -> str:
    """A box's display name from its key: "full_house" -> "Full House", "three_of_a_kind" ->
    "Three of a Kind"."""
    words = key.split("_")
    return " ".join(w if i and w in SMALL_WORDS else w.capitalize() for i, w in enumerate(words))


class Category(_Strict):
    """One box of the score card; `name` defaults to the key in title case and `section` to
    upper for a `face` pattern, lower otherwise."""

    key: Annotated[str, Field(min_length=1, max_length=40, pattern=KEY_RE.pattern)]
    name: Annotated[str, Field(min_length=1, max_length=60)]
    section: Literal["upper", "lower"]
    pattern: Annotated[Pattern, BeforeValidator(_kind_shorthand)]
    score: Annotated[Scoring, BeforeValidator(_score_shorthand)]

    @model_validator(mode="before")
    @classmethod
    def _defaults_from_key_and_pattern(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "name" not in data and isinstance(data.get("key"), str):
            data["name"] = default_name(data["key"])
        if "section" not in data:  # without a pattern, the error is about the pattern
            p = data.get("pattern")
            kind = p.get("kind") if isinstance(p, dict) else p
            data["section"] = "upper" if kind == "face" else "lower"
        return data


# ---------------------------------------------------------------- bonuses and Joker


class UpperBonus(_Strict):
    """`amount` points once the boxes in `categories` total at least `threshold`."""

    threshold: Annotated[int, Field(strict=True, ge=1, le=MAX_THRESHOLD)]
    amount: Annotated[int, Field(strict=True, ge=0, le=10_000)]
    categories: tuple[str, ...] | None = None  # default: every upper-section box


class YahtzeeBonus(_Strict):
    """`amount` points for every further Yahtzee once the Yahtzee box holds its full value.

    It never counts toward the upper bonus threshold.
    """

    amount: Annotated[int, Field(strict=True, ge=1, le=10_000)]


class Joker(_Strict):
    """What a further Yahtzee of face v may do once the Yahtzee box is filled (zero or not).

    - `none`: nothing special; it scores by the normal rules.
    - `free`: any open box may be chosen; the `full_value` boxes score as if their pattern matched
      when the upper box of face v is filled too.
    - `forced`: the upper box of face v must be used if open; else any open lower box, with the
      `full_value` boxes scoring as if matched; only when no lower box is open, any open upper box.
    """

    mode: Literal["none", "free", "forced"] = "none"
    full_value: tuple[str, ...] = ()


def _joker_shorthand(value: Any) -> Any:
    """Let YAML say `joker: free` for `{mode: free}`."""
    return {"mode": value} if isinstance(value, str) else value


class RuleSet(_Strict):
    """A complete, resolved rule set: what the scorer, the compiler and the solver read."""

    name: Annotated[str, Field(min_length=1, max_length=80)]
    description: str = ""
    source: str = ""
    dice: Annotated[int, Field(strict=True, ge=1, le=MAX_DICE)] = 5
    faces: Annotated[int, Field(strict=True, ge=2, le=MAX_FACES)] = 6
    rolls: Annotated[int, Field(strict=True, ge=1, le=MAX_ROLLS)] = 3
    categories: Annotated[tuple[Category, ...], Field(min_length=1, max_length=MAX_CATEGORIES)]
    upper_bonus: UpperBonus | None = None
    yahtzee_bonus: YahtzeeBonus | None = None
    joker: Annotated[Joker, BeforeValidator(_joker_shorthand)] = Joker()
    yahtzee_category: str = "yahtzee"

    # -- derived facts, used by the compiler and the CLI

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.categories)

    def index_of(self, key: str) -> int:
        return self.keys.index(key)

    @property
    def bonus_categories(self) -> tuple[str, ...]:
        """The boxes whose scores count toward the upper bonus (empty without one)."""
        if self.upper_bonus is None:
            return ()
        if self.upper_bonus.categories is not None:
            return self.upper_bonus.categories
        return tuple(c.key for c in self.categories if c.section == "upper")

    @property
    def uses_yahtzee_box(self) -> bool:
        return self.yahtzee_bonus is not None or self.joker.mode != "none"

    def upper_box_of_face(self, face: int) -> str | None:
        """The upper box that collects `face` (the Joker's 'corresponding upper box')."""
        for c in self.categories:
            is_face = isinstance(c.pattern, FacePattern) and c.pattern.face == face
            if c.section == "upper" and is_face:
                return c.key
        return None

    @property
    def state_count(self) -> int:
        """Size of the solver's turn-start state table (reachable or not)."""
        upper = self.upper_bonus.threshold + 1 if self.upper_bonus else 1
        flag = 2 if self.yahtzee_bonus else 1
        return (1 << len(self.categories)) * upper * flag

    @model_validator(mode="after")
    def _check_consistency(self) -> RuleSet:
        problems = list(_consistency_problems(self))
        if problems:
            raise RuleProblems(problems)
        return self


def _consistency_problems(rules: RuleSet):
    """Yield (field path, message, causes) for every cross-field problem of a rule set.

    `causes` are the other fields whose values make it a problem (`dice` for a count larger
    than the dice), so an error can be shown where the user set them and skipped when one of
    them failed validation itself.
    """
    dice, faces = ("dice",), ("faces",)
    n, f = rules.dice, rules.faces
    seen: dict[str, int] = {}
    for i, cat in enumerate(rules.categories):
        where = ("categories", i)
        if cat.key in seen:
            yield (*where, "key"), (
                f"duplicate category key '{cat.key}' (also categories[{seen[cat.key]}]); "
                "every box needs its own key"), (("categories", seen[cat.key]),)
        seen.setdefault(cat.key, i)
        p = cat.pattern
        pw = (*where, "pattern")
        if isinstance(p, FacePattern):
            if p.face > f:
                yield (*pw, "face"), (
                    f"face {p.face} does not exist on a {f}-sided die (1..{f})"), (faces,)
            if p.min_count > n:
                yield (*pw, "min_count"), (
                    f"min_count {p.min_count} is more than the {n} dice"), (dice,)
        elif isinstance(p, OfAKindPattern):
            if p.count > n:
                yield (*pw, "count"), f"count {p.count} is more than the {n} dice", (dice,)
        elif isinstance(p, GroupsPattern):
            if sum(p.sizes) > n:
                yield (*pw, "sizes"), (
                    f"groups {list(p.sizes)} need {sum(p.sizes)} dice, the game has {n}"), (dice,)
            elif p.distinct and len(p.sizes) > f:
                yield (*pw, "sizes"), (
                    f"{len(p.sizes)} groups on distinct faces need {len(p.sizes)} faces, "
                    f"the die has {f}"), (faces,)
        elif isinstance(p, StraightPattern):
            if p.length is not None and p.length > min(n, f):
                yield (*pw, "length"), (
                    f"a run of {p.length} needs {p.length} dice and faces; the game has "
                    f"{n} dice of {f} faces"), (dice, faces) if n < f else (faces, dice)
            if p.faces is not None:
                bad = [x for x in p.faces if x > f]
                if bad:
                    yield (*pw, "faces"), (
                        f"faces {bad} do not exist on a {f}-sided die (1..{f})"), (faces,)
                if len(p.faces) > n:
                    yield (*pw, "faces"), f"{len(p.faces)} faces cannot show on {n} dice", (dice,)
        if isinstance(cat.score, FaceTotal) and not isinstance(p, FacePattern):
            yield (*where, "score"), (
                "face_total needs a `face` pattern; use sum_matched or sum_all"), (pw,)

    keys = set(seen)
    box_list = ("categories",)
    if rules.upper_bonus is not None and rules.upper_bonus.categories is not None:
        for j, key in enumerate(rules.upper_bonus.categories):
            if key not in keys:
                yield ("upper_bonus", "categories", j), _unknown(key, keys), (box_list,)
    if rules.upper_bonus is not None and not rules.bonus_categories:
        yield ("upper_bonus",), ("no box counts toward the upper bonus: add upper-section boxes "
                                 "or list `categories`"), (box_list,)
    for j, key in enumerate(rules.joker.full_value):
        if key not in keys:
            yield ("joker", "full_value", j), _unknown(key, keys), (box_list,)
    if rules.uses_yahtzee_box:
        ykey = rules.yahtzee_category
        users = (("yahtzee_bonus",), ("joker",))
        if ykey not in keys:
            yield ("yahtzee_category",), (
                f"the Yahtzee bonus and Joker need a Yahtzee box, and '{ykey}' is not a category "
                f"({_unknown(ykey, keys)}); set `yahtzee_category` or drop the bonus/Joker"), (
                box_list, *users)
        else:
            yp = rules.categories[seen[ykey]].pattern
            is_all_same = isinstance(yp, AllSamePattern) or (
                isinstance(yp, OfAKindPattern) and yp.count == n)
            if not is_all_same:
                yield ("yahtzee_category",), (
                    f"'{ykey}' must have the all_same pattern (every die equal) to act as the "
                    "Yahtzee box for the bonus and Joker"), (
                    ("categories", seen[ykey], "pattern"), dice, *users)
    if rules.state_count > MAX_STATES:
        yield ("categories",), (
            f"the solver's state table would have {rules.state_count:,} entries "
            f"(2^{len(rules.categories)} box sets x upper totals x bonus flag), over the limit of "
            f"{MAX_STATES:,}; use fewer categories or a lower upper-bonus threshold"), (
            ("upper_bonus", "threshold"), ("yahtzee_bonus",))
    keeps = math.comb(n + f, n)
    if keeps > 50_000:
        yield dice, f"{n} dice of {f} faces give {keeps:,} keeps; the solver allows 50,000", (
            faces,)
    elif rules.upper_bonus is not None and keeps * (rules.upper_bonus.threshold + 1) > \
            MAX_KEEP_COLUMNS:
        yield ("upper_bonus", "threshold"), (
            f"{keeps:,} keeps ({n} dice of {f} faces) x {rules.upper_bonus.threshold + 1} upper "
            f"totals is over the solver's limit of {MAX_KEEP_COLUMNS:,} working entries; use a "
            "lower threshold or fewer dice or faces"), (dice, faces)


def _unknown(key: str, keys: set[str]) -> str:
    import difflib

    hint = difflib.get_close_matches(key, sorted(keys), n=1)
    tail = f"; did you mean '{hint[0]}'?" if hint else ""
    return f"unknown category '{key}' (known: {', '.join(sorted(keys))}){tail}"
