"""Frozen pydantic models of a rule set: the validated form of a YAML rule file.

A rule set is pure data. Patterns come from a small vocabulary of primitives (a `kind` field picks
one), which `either` and `both` combine; scoring forms likewise. Game-wide checks that need more
than one field (a face beyond the die, a total no roll has, a bonus naming a missing box, a
state space too large to solve) live in one model validator that reports every problem with
the path of the field at fault.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    model_validator,
)

# Limits the solver honours. The state space is 2^categories x (threshold + 1) x (1 or 2, for the
# remembered non-zero box; see RuleSet.flag_box_key) x (banks of saved rolls). Whether a rule file
# is valid never depends on the machine: MAX_LAYER_STATES (2^29 entries, 4 GiB of float64 values)
# bounds one layer of that table (the states with k boxes filled, the unit the solver sweeps and
# stores: a layer is solved from the one after it alone), and the solver checks at solve time
# that the machine has the memory for what it holds (the table, or two layers of it).
MAX_DICE = 8
MAX_FACES = 10
MAX_ROLLS = 5
MAX_CATEGORIES = 20
MAX_THRESHOLD = 1000
MAX_LAYER_STATES = 1 << 29
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


def _kind_shorthand(value: Any) -> Any:
    """Let YAML say `score: sum_all` or `pattern: any` for a kind without parameters."""
    return {"kind": value} if isinstance(value, str) else value


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


def _distinct_faces(faces: tuple[int, ...]) -> tuple[int, ...]:
    if len(set(faces)) != len(faces):
        raise ValueError(f"the set repeats a face: {list(faces)}; list each face once")
    return faces


Face = Annotated[int, Field(strict=True, ge=1, le=MAX_FACES)]
FaceSet = Annotated[tuple[Face, ...], Field(min_length=2, max_length=MAX_FACES,
                                            json_schema_extra={"uniqueItems": True}),
                    AfterValidator(_distinct_faces)]
MAX_FACE_SETS = 64


def _exactly_one_given(*options: tuple[str, ...]) -> dict:
    """JSON Schema for "exactly one of these options is given", an option being one or more
    fields of which at least one is given; a field set to null counts as not given, as it
    does for the validator."""

    def given(name: str) -> dict:
        return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}

    fields = [name for option in options for name in option]
    return {"oneOf": [
        {"anyOf": [given(name) for name in option],
         "properties": {other: {"type": "null"} for other in fields if other not in option}}
        for option in options]}


class StraightPattern(_Strict):
    """A run of `length` consecutive faces, the explicit set `faces` (e.g. [1, 2, 3, 4, 5]), or
    `any_of`: a list of such sets, matched when the roll shows every face of at least one of
    them (the best set's faces form the pattern). Exactly one of the three is given."""

    model_config = ConfigDict(json_schema_extra=_exactly_one_given(
        ("length",), ("faces",), ("any_of",)))

    kind: Literal["straight"]
    length: Annotated[int, Field(strict=True, ge=2, le=MAX_FACES)] | None = None
    faces: Annotated[tuple[Face, ...], Field(
        min_length=2, max_length=MAX_FACES, json_schema_extra={"uniqueItems": True})] | None = None
    any_of: Annotated[tuple[FaceSet, ...],
                      Field(min_length=1, max_length=MAX_FACE_SETS)] | None = None

    @model_validator(mode="after")
    def _one_of_length_faces_or_any_of(self) -> StraightPattern:
        given = [x is not None for x in (self.length, self.faces, self.any_of)]
        if sum(given) != 1:
            raise ValueError("give exactly one of `length` (a run), `faces` (an explicit set) or "
                             "`any_of` (a list of accepted sets)")
        if self.faces is not None and len(set(self.faces)) != len(self.faces):
            raise ValueError(f"`faces` repeats a face: {list(self.faces)}")
        return self

    @property
    def face_sets(self) -> tuple[tuple[int, ...], ...] | None:
        """The explicit sets (`faces` as one set, or `any_of`); None for a run of `length`."""
        if self.faces is not None:
            return (self.faces,)
        return self.any_of


class AllSamePattern(_Strict):
    """Every die shows the same face (a Yahtzee)."""

    kind: Literal["all_same"]


class AnyPattern(_Strict):
    """Always matches (Chance)."""

    kind: Literal["any"]


MAX_TOTAL = MAX_DICE * MAX_FACES


class TotalPattern(_Strict):
    """The dice total: exactly `equals`, or at least `min` and/or at most `max` (`equals` alone,
    or one or both bounds). All the dice form the pattern."""

    model_config = ConfigDict(json_schema_extra=_exactly_one_given(("equals",), ("min", "max")))

    kind: Literal["total"]
    equals: Annotated[int, Field(strict=True, ge=0, le=MAX_TOTAL)] | None = None
    min: Annotated[int, Field(strict=True, ge=0, le=MAX_TOTAL)] | None = None
    max: Annotated[int, Field(strict=True, ge=0, le=MAX_TOTAL)] | None = None

    @model_validator(mode="after")
    def _equals_or_bounds(self) -> TotalPattern:
        has_bound = self.min is not None or self.max is not None
        if (self.equals is not None) == has_bound:
            raise ValueError("give either `equals` (the total exactly) or `min` and/or `max` "
                             "(bounds of the total, both included), not both and not neither")
        return self


PlainPattern = Annotated[
    FacePattern | OfAKindPattern | GroupsPattern | StraightPattern | AllSamePattern | AnyPattern
    | TotalPattern,
    Field(discriminator="kind"),
]

# Combined patterns: `either` (at least one of its patterns matches) and `both` (its two
# patterns match). They nest at most MAX_PATTERN_DEPTH deep, counting the plain patterns at
# the bottom: a combined pattern may hold combined patterns, and theirs are plain. The bound is
# written into the types (the nested kinds below hold plain patterns only), so the validator
# and the JSON Schema say the same, and a hostile nesting is refused at the first level too
# deep, by its place in the file. A pattern in a list may be a bare kind, as a box's may.
MAX_PATTERN_DEPTH = 3
MAX_EITHER_PATTERNS = 4
COMBINED_KINDS = ("either", "both")
# Plain patterns in all the boxes of a rule set (a combined pattern counts those it holds):
# each is scored on every roll when the tables are built (a `groups` pattern on 8 dice takes
# up to seconds), so combining cannot multiply that work past twice a card of plain boxes.
MAX_PLAIN_PATTERNS = 2 * MAX_CATEGORIES


class NestedEitherPattern(_Strict):
    """`either` inside another combined pattern: the same rule, and its patterns are plain."""

    kind: Literal["either"]
    patterns: Annotated[tuple[Annotated[PlainPattern, BeforeValidator(_kind_shorthand)], ...],
                        Field(min_length=2, max_length=MAX_EITHER_PATTERNS)]


class NestedBothPattern(_Strict):
    """`both` inside another combined pattern: the same rule, and its patterns are plain."""

    kind: Literal["both"]
    patterns: Annotated[tuple[Annotated[PlainPattern, BeforeValidator(_kind_shorthand)], ...],
                        Field(min_length=2, max_length=2)]


NestedPattern = Annotated[
    FacePattern | OfAKindPattern | GroupsPattern | StraightPattern | AllSamePattern | AnyPattern
    | TotalPattern | NestedEitherPattern | NestedBothPattern,
    Field(discriminator="kind"),
]


class EitherPattern(_Strict):
    """Matches when at least one of `patterns` (2 to 4) matches; the dice that form it are
    those of the matching pattern with the highest sum. Its patterns may be combined ones,
    whose own patterns are plain."""

    kind: Literal["either"]
    patterns: Annotated[tuple[Annotated[NestedPattern, BeforeValidator(_kind_shorthand)], ...],
                        Field(min_length=2, max_length=MAX_EITHER_PATTERNS)]


class BothPattern(_Strict):
    """Matches when both `patterns` (exactly 2; nest a `both` for more) match; the dice that
    form it are those of its first pattern, the second only has to match. Its patterns may be
    combined ones, whose own patterns are plain."""

    kind: Literal["both"]
    patterns: Annotated[tuple[Annotated[NestedPattern, BeforeValidator(_kind_shorthand)], ...],
                        Field(min_length=2, max_length=2)]


Pattern = Annotated[
    FacePattern | OfAKindPattern | GroupsPattern | StraightPattern | AllSamePattern | AnyPattern
    | TotalPattern | EitherPattern | BothPattern,
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
    upper for a `face` pattern, lower otherwise.

    `first_roll_bonus`: extra points when the box is filled with a score above zero from the
    dice of the turn's first roll ("served", as in Generala: the player may stop after the
    first roll to claim it); they are part of the box's score, so they count toward the upper
    total when the box does. Only a turn's first roll earns it: with `rolls: 1` and no saved
    rolls that is every roll, and with saved rolls a later roll of the turn earns nothing.

    `only_after`: the key of another box that must already hold a non-zero score for this box
    to score (Generala's Double Generala: `only_after: generala`); until then this box scores
    0, though it may still be filled (scratched).
    """

    key: Annotated[str, Field(min_length=1, max_length=40, pattern=KEY_RE.pattern)]
    name: Annotated[str, Field(min_length=1, max_length=60)]
    section: Literal["upper", "lower"]
    pattern: Annotated[Pattern, BeforeValidator(_kind_shorthand)]
    score: Annotated[Scoring, BeforeValidator(_score_shorthand)]
    first_roll_bonus: Annotated[int, Field(
        strict=True, ge=0, le=10_000,
        description="Extra points when the box is filled with a score above zero from the dice "
                    "of the turn's first roll (Generala's 'served' hands); part of the box's "
                    "score (and of the upper total when the box counts toward it). Only the "
                    "turn's first roll earns it: with `rolls: 1` and no saved rolls that is "
                    "every roll; with saved rolls a later roll of the turn earns nothing.")] = 0
    only_after: Annotated[str | None, Field(
        description="The key of another box that must already hold a non-zero score for this "
                    "box to score; until then this box scores 0 (it may still be scratched). "
                    "Every box with `only_after` names the same box.")] = None

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
    categories: Annotated[tuple[str, ...], Field(max_length=MAX_CATEGORIES)] | None = None
    # default: every upper-section box


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

    With `order: in_order`, "open" means "the box this turn may fill" (the first open one), so
    the forced Joker never leaves a turn without a box; full values need the upper box of v
    filled (or absent) in both modes.
    """

    mode: Literal["none", "free", "forced"] = "none"
    full_value: Annotated[tuple[str, ...], Field(max_length=MAX_CATEGORIES)] = ()


MAX_SAVED_ROLLS = 100


class SavedRolls(_Strict):
    """A bank of saved rolls, carried from turn to turn (Maxi Yatzy's rule).

    A turn that starts with b saved rolls may roll up to `rolls` + b times (at least once) and
    may fill a box after any roll. Filling a box with L re-rolls unused leaves a bank of L
    when `carry_unused` (the unused rolls are saved; at most `cap`), else of min(b, L): the
    regular rolls left are lost and only saved rolls not drawn on stay (a fixed stock of
    extra rolls for the game, `start`). The first turn starts with `start` saved rolls, which
    may not be more than `cap`: a bank never holds more, and a file that says so is refused
    rather than read as a smaller start or a larger cap.
    """

    carry_unused: StrictBool = True
    start: Annotated[int, Field(strict=True, ge=0, le=MAX_SAVED_ROLLS)] = 0
    cap: Annotated[int, Field(strict=True, ge=0, le=MAX_SAVED_ROLLS)] | None = None

    def most(self, turns: int, rolls: int) -> int:
        """The largest bank a turn can start with after `turns` turns of `rolls` rolls."""
        if not self.carry_unused:
            return self.start
        grown = self.start + turns * (rolls - 1)
        return grown if self.cap is None else min(self.cap, grown)


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
    saved_rolls: SavedRolls | None = None
    order: Annotated[Literal["free", "in_order"], Field(
        description="`free`: each turn fills any open box. `in_order`: boxes are filled in card "
                    "order, one per turn; the only box a turn may fill is the first open box of "
                    "the card.")] = "free"

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
    def flag_box_key(self) -> str | None:
        """The box whose non-zero score the solver's state remembers (one bit), or None.

        The Yahtzee box when there is a Yahtzee bonus (a further Yahtzee earns it only once
        that box holds its value); else the box named by the `only_after` boxes; else none.
        Validation makes these the same box when both are present.
        """
        if self.yahtzee_bonus is not None:
            return self.yahtzee_category
        return next((c.only_after for c in self.categories if c.only_after is not None), None)

    @property
    def state_count(self) -> int:
        """Size of the solver's turn-start state table (reachable or not)."""
        upper = self.upper_bonus.threshold + 1 if self.upper_bonus else 1
        flag = 2 if self.flag_box_key is not None else 1
        return (1 << len(self.categories)) * upper * flag * self.bank_sizes

    @property
    def largest_layer_states(self) -> int:
        """Size of the largest layer of that table (k boxes filled: C(boxes, k) box sets)."""
        n = len(self.categories)
        upper = self.upper_bonus.threshold + 1 if self.upper_bonus else 1
        flag = 2 if self.flag_box_key is not None else 1
        banks = (self.saved_rolls.most(k, self.rolls) + 1 if self.saved_rolls else 1
                 for k in range(n + 1))
        return upper * flag * max(math.comb(n, k) * b for k, b in enumerate(banks))

    @property
    def bank_sizes(self) -> int:
        """How many banks of saved rolls a state can hold, the full card's included (1: no
        saved rolls)."""
        if self.saved_rolls is None:
            return 1
        return self.saved_rolls.most(len(self.categories), self.rolls) + 1

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
    seen: dict[str, int] = {}
    for i, cat in enumerate(rules.categories):
        where = ("categories", i)
        if cat.key in seen:
            yield (*where, "key"), (
                f"duplicate category key '{cat.key}' (also categories[{seen[cat.key]}]); "
                "every box needs its own key"), (("categories", seen[cat.key]),)
        seen.setdefault(cat.key, i)
        yield from _pattern_problems(rules, cat.pattern, (*where, "pattern"))
        if isinstance(cat.score, FaceTotal) and not isinstance(cat.pattern, FacePattern):
            yield (*where, "score"), (
                "face_total needs a `face` pattern; use sum_matched or sum_all"), (
                (*where, "pattern"),)
    keys = set(seen)
    saved = rules.saved_rolls
    if saved is not None and saved.cap is not None and saved.start > saved.cap:
        yield ("saved_rolls", "start"), (
            f"a game cannot start with {saved.start} saved rolls when at most {saved.cap} may "
            "be saved (`cap`): lower `start` or raise `cap`"), (("saved_rolls", "cap"),)
    yield from _box_reference_problems(rules, keys, seen)
    yield from _only_after_problems(rules, keys)
    yield from _size_problems(rules)
    yield from _plain_pattern_problems(rules)


def _pattern_problems(rules: RuleSet, p, pw: tuple):
    """A box's pattern against the game's dice and faces."""
    dice, faces = ("dice",), ("faces",)
    n, f = rules.dice, rules.faces
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
    elif isinstance(p, TotalPattern):
        yield from _total_problems(p, pw, n, f)
    elif p.kind in COMBINED_KINDS:
        for j, inner in enumerate(p.patterns):
            yield from _pattern_problems(rules, inner, (*pw, "patterns", j))
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
        for j, face_set in enumerate(p.any_of or ()):
            bad = [x for x in face_set if x > f]
            if bad:
                yield (*pw, "any_of", j), (
                    f"faces {bad} do not exist on a {f}-sided die (1..{f})"), (faces,)
            if len(face_set) > n:
                yield (*pw, "any_of", j), (
                    f"{len(face_set)} faces cannot show on {n} dice"), (dice,)


def _total_problems(p: TotalPattern, pw: tuple, n: int, f: int):
    """A total that no roll can have: the dice total n to n x f."""
    dice_faces = (("dice",), ("faces",))
    reach = f"{n} dice of {f} faces total {n} to {n * f}"
    if p.equals is not None:
        if not n <= p.equals <= n * f:
            yield (*pw, "equals"), f"no roll totals {p.equals}: {reach}", dice_faces
        return
    if p.min is not None and p.max is not None and p.min > p.max:
        yield (*pw, "min"), (f"min {p.min} is above max {p.max}, so no total fits; the bounds "
                             "are both included (min: 13, max: 13 is a total of 13)"), ()
        return
    low = n if p.min is None else max(n, p.min)
    high = n * f if p.max is None else min(n * f, p.max)
    if low > high:
        bounds = " and ".join(f"{name} {value}" for name, value in (("min", p.min), ("max", p.max))
                              if value is not None)
        field = "min" if p.min is not None and p.min > n * f else "max"
        yield (*pw, field), f"no roll fits {bounds}: {reach}", dice_faces


def _box_reference_problems(rules: RuleSet, keys: set[str], seen: dict[str, int]):
    """Boxes named by the upper bonus, the Joker's full value and the Yahtzee box exist and
    can serve."""
    dice = ("dice",)
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
                isinstance(yp, OfAKindPattern) and yp.count == rules.dice)
            if not is_all_same:
                yield ("yahtzee_category",), (
                    f"'{ykey}' must have the all_same pattern (every die equal) to act as the "
                    "Yahtzee box for the bonus and Joker"), (
                    ("categories", seen[ykey], "pattern"), dice, *users)


def plain_patterns(p) -> int:
    """How many plain patterns a pattern holds (itself, if it is plain)."""
    return sum(map(plain_patterns, p.patterns)) if p.kind in COMBINED_KINDS else 1


def _plain_pattern_problems(rules: RuleSet):
    """The plain patterns of all the boxes within MAX_PLAIN_PATTERNS, told at the box that
    goes over."""
    held = 0
    for i, cat in enumerate(rules.categories):
        held += plain_patterns(cat.pattern)
        if held > MAX_PLAIN_PATTERNS:
            yield ("categories", i, "pattern"), (
                f"the boxes up to this one hold {held} plain patterns (a combined pattern "
                f"counts each one it holds), over the limit of {MAX_PLAIN_PATTERNS} for a "
                "rule set: every one is scored on every roll; combine fewer patterns"), ()
            return


def _size_problems(rules: RuleSet):
    """The state table and the keep columns within the solver's limits."""
    dice, faces = ("dice",), ("faces",)
    n, f = rules.dice, rules.faces
    if rules.largest_layer_states > MAX_LAYER_STATES:
        yield ("categories",), (
            f"the largest layer of the solver's state table (the states with the same number "
            f"of boxes filled) would have {rules.largest_layer_states:,} entries (box sets x "
            "upper totals x remembered-box flag x banks of saved rolls), over the limit of "
            f"{MAX_LAYER_STATES:,}; use fewer categories, a lower upper-bonus threshold or a "
            "cap on saved rolls"), (("upper_bonus", "threshold"), ("yahtzee_bonus",),
                                    ("saved_rolls",))
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


def _only_after_problems(rules: RuleSet, keys: set[str]):
    """`only_after` must name another existing box, the same one for every box that uses it
    (the solver's state remembers one box's non-zero score), and with a Yahtzee bonus, the
    Yahtzee box (whose non-zero score the state already remembers for the bonus)."""
    first: tuple[int, str] | None = None  # the first box with a valid only_after, and its target
    for i, cat in enumerate(rules.categories):
        target = cat.only_after
        if target is None:
            continue
        where = ("categories", i, "only_after")
        if target == cat.key:
            yield where, (
                f"'{cat.key}' cannot wait for itself; name the box that must already hold a "
                "non-zero score"), ()
            continue
        if target not in keys:
            yield where, _unknown(target, keys), (("categories",),)
            continue
        if first is None:
            first = (i, target)
        elif target != first[1]:
            yield where, (
                f"'{target}' differs from '{first[1]}' (named by categories[{first[0]}]."
                "only_after); every `only_after` must name the same box, because the solver's "
                "state remembers whether one box holds a non-zero score"), (
                ("categories", first[0], "only_after"),)
            continue
        if rules.yahtzee_bonus is not None and target != rules.yahtzee_category:
            yield where, (
                f"with a Yahtzee bonus, `only_after` must name the Yahtzee box "
                f"'{rules.yahtzee_category}', not '{target}': the solver's state remembers "
                "whether one box holds a non-zero score, and the bonus already needs it for "
                "the Yahtzee box"), (("yahtzee_bonus",), ("yahtzee_category",))


def unknown_box(key: str) -> str:
    """How a problem names a box key the rule set does not have (the loader leaves these
    out for a key it has already said is misspelt)."""
    return f"unknown category '{key}'"


def _unknown(key: str, keys: set[str]) -> str:
    import difflib

    hint = difflib.get_close_matches(key, sorted(keys), n=1)
    tail = f"; did you mean '{hint[0]}'?" if hint else ""
    return f"{unknown_box(key)} (known: {', '.join(sorted(keys))}){tail}"
