"""Rule sets drawn at random from the whole rule language, as YAML text (hypothesis).

Every field of the language is drawn: each pattern kind with its parameters (the combined
`either` and `both` nested as deep as the language allows), each scoring form, sections given
or left to their default, first-roll bonuses on any box (upper ones too), `only_after`, an
upper bonus over the default or its own boxes, a Yahtzee box with an extra bonus and each
Joker mode with `full_value` boxes, `order` and 1 to 3 rolls. Dice and faces stay tiny so the
brute-force twin (`naive.py`) answers in a fraction of a second.

A drawn rule set is a plain mapping written out as YAML text and read back through the real
loader (`rules_from_text`), so the loader is exercised too and a failing example can be
printed as the minimal rule file that reproduces it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import yaml
from hypothesis import strategies as st


@dataclass(frozen=True)
class Size:
    """How big the drawn games may be."""

    max_dice: int
    max_boxes: int
    max_rolls_kinds: int  # distinct rolls (multisets of all the dice) at most
    max_threshold: int


QUICK = Size(max_dice=3, max_boxes=4, max_rolls_kinds=20, max_threshold=12)
SLOW = Size(max_dice=4, max_boxes=5, max_rolls_kinds=35, max_threshold=20)


def _face_sets(draw, faces: int, dice: int) -> list[int]:
    size = draw(st.integers(2, min(dice, faces)))
    return sorted(draw(st.lists(st.integers(1, faces), min_size=size, max_size=size,
                                unique=True)))


def _total(draw, dice: int, faces: int) -> dict:
    """A `total` some roll can have: `equals` a reachable total, or bounds that overlap the
    totals dice..dice x faces (a bound may lie beyond them)."""
    low, high = dice, dice * faces
    how = draw(st.sampled_from(["equals", "min", "max", "min_max"]))
    if how == "equals":
        return {"kind": "total", "equals": draw(st.integers(low, high))}
    if how == "min":
        return {"kind": "total", "min": draw(st.integers(0, high))}
    if how == "max":
        return {"kind": "total", "max": draw(st.integers(low, high + 2))}
    at_least = draw(st.integers(0, high))
    return {"kind": "total", "min": at_least,
            "max": draw(st.integers(max(at_least, low), high + 2))}


def plain_patterns(pattern: dict | str) -> int:
    """How many plain patterns a drawn pattern holds (itself, if it is plain)."""
    if isinstance(pattern, dict) and pattern["kind"] in ("either", "both"):
        return sum(map(plain_patterns, pattern["patterns"]))
    return 1


def _pattern(draw, dice: int, faces: int, depth: int = 1) -> dict | str:
    """A pattern; `depth` is its level (1: a box's own), combined patterns nesting at most
    three deep as the language allows."""
    kinds = ["face", "of_a_kind", "groups", "all_same", "any", "total"]
    if min(dice, faces) >= 2:
        kinds.append("straight")
    if depth < 3:
        kinds += ["either", "both"]
    kind = draw(st.sampled_from(kinds))
    if kind == "total":
        return _total(draw, dice, faces)
    if kind in ("either", "both"):
        count = 2 if kind == "both" else draw(st.integers(2, 3))
        return {"kind": kind,
                "patterns": [_pattern(draw, dice, faces, depth + 1) for _ in range(count)]}
    if kind == "face":
        out = {"kind": "face", "face": draw(st.integers(1, faces))}
        if draw(st.booleans()):
            out["min_count"] = draw(st.integers(0, dice))
        return out
    if kind == "of_a_kind":
        out = {"kind": "of_a_kind", "count": draw(st.integers(1, dice))}
        if draw(st.booleans()):
            out["exact"] = draw(st.booleans())
        return out
    if kind == "groups":
        distinct = draw(st.booleans())
        most = min(4, dice, faces if distinct else dice)
        n_groups = draw(st.integers(1, most))
        sizes: list[int] = []
        room = dice
        for i in range(n_groups):
            size = draw(st.integers(1, room - (n_groups - 1 - i)))
            sizes.append(size)
            room -= size
        return {"kind": "groups", "sizes": sizes, "exact": draw(st.booleans()),
                "distinct": distinct}
    if kind == "straight":
        how = draw(st.sampled_from(["length", "faces", "any_of"]))
        if how == "length":
            return {"kind": "straight", "length": draw(st.integers(2, min(dice, faces)))}
        if how == "faces":
            return {"kind": "straight", "faces": _face_sets(draw, faces, dice)}
        n_sets = draw(st.integers(1, 3))
        sets = []
        for _ in range(n_sets):
            s = _face_sets(draw, faces, dice)
            if s not in sets:
                sets.append(s)
        return {"kind": "straight", "any_of": sets}
    return draw(st.sampled_from([kind, {"kind": kind}]))


def _score(draw, pattern) -> int | str | dict:
    forms = ["sum_all", "sum_matched", "fixed"]
    if isinstance(pattern, dict) and pattern.get("kind") == "face":
        forms.append("face_total")
    form = draw(st.sampled_from(forms))
    if form == "fixed":
        points = draw(st.integers(0, 30))
        return draw(st.sampled_from([points, {"kind": "fixed", "points": points}]))
    return draw(st.sampled_from([form, {"kind": form}]))


@st.composite
def rule_documents(draw, size: Size = QUICK, saved_rolls: bool = False) -> dict:
    """A valid rule file's contents (a plain mapping); with `saved_rolls`, a bank of saved
    rolls too (carried or not, a starting bank, a cap)."""
    dice = draw(st.integers(1, size.max_dice))
    faces = draw(st.integers(2, 6).filter(
        lambda f: comb(dice + f - 1, dice) <= size.max_rolls_kinds))
    rolls = draw(st.integers(1, 3))
    n_boxes = draw(st.integers(2, size.max_boxes))
    keys = [f"b{i}" for i in range(n_boxes)]
    boxes = []
    held = 0  # plain patterns in the boxes so far: a rule set holds at most 40
    for key in keys:
        pattern = _pattern(draw, dice, faces)
        held += plain_patterns(pattern)
        if held > 40:
            pattern, held = "any", held - plain_patterns(pattern) + 1
        box = {"key": key, "pattern": pattern, "score": _score(draw, pattern)}
        if draw(st.integers(0, 2)) == 0:
            box["section"] = draw(st.sampled_from(["upper", "lower"]))
        if draw(st.integers(0, 3)) == 0:
            box["first_roll_bonus"] = draw(st.integers(1, 12))
        boxes.append(box)
    doc: dict = {"name": "random", "dice": dice, "faces": faces, "rolls": rolls}

    # A Yahtzee box (all dice equal) with an extra bonus and a Joker.
    ykey = None
    if draw(st.booleans()):
        ykey = draw(st.sampled_from(keys))
        ybox = boxes[keys.index(ykey)]
        ybox["pattern"] = draw(st.sampled_from(
            ["all_same", {"kind": "of_a_kind", "count": dice}]))
        if isinstance(ybox["score"], dict | str) and (
                ybox["score"] == "face_total" or ybox["score"] == {"kind": "face_total"}):
            ybox["score"] = "sum_all"
        doc["yahtzee_category"] = ykey
        if draw(st.booleans()):
            doc["yahtzee_bonus"] = {"amount": draw(st.integers(1, 60))}
        mode = draw(st.sampled_from(["none", "free", "forced"]))
        if mode != "none":
            full = draw(st.lists(st.sampled_from(keys), unique=True, max_size=n_boxes))
            doc["joker"] = {"mode": mode, "full_value": full} if full or draw(
                st.booleans()) else mode
        if "yahtzee_bonus" not in doc and mode == "none":
            del doc["yahtzee_category"]
            ykey = None

    # Boxes that score only after another box holds a non-zero score.
    if draw(st.integers(0, 3)) == 0:
        target = ykey if "yahtzee_bonus" in doc else draw(st.sampled_from(keys))
        waiting = draw(st.lists(st.sampled_from([k for k in keys if k != target]),
                                min_size=1, unique=True))
        for key in waiting:
            boxes[keys.index(key)]["only_after"] = target

    # An upper bonus over the upper boxes, or over boxes of its own.
    if draw(st.booleans()):
        bonus: dict = {"threshold": draw(st.integers(1, size.max_threshold)),
                       "amount": draw(st.integers(0, 40))}
        is_upper = [b.get("section", "upper" if isinstance(b["pattern"], dict)
                          and b["pattern"].get("kind") == "face" else "lower") == "upper"
                    for b in boxes]
        if not any(is_upper) or draw(st.booleans()):
            bonus["categories"] = draw(st.lists(st.sampled_from(keys), min_size=1,
                                                unique=True))
        doc["upper_bonus"] = bonus

    if draw(st.integers(0, 3)) == 0:
        doc["order"] = "in_order"
    if saved_rolls:
        saved: dict = {}
        if draw(st.booleans()):
            saved["carry_unused"] = draw(st.booleans())
        start = draw(st.integers(0, 2))
        if start or draw(st.booleans()):
            saved["start"] = start
        if draw(st.booleans()):
            saved["cap"] = draw(st.integers(start, 3))
        doc["saved_rolls"] = saved
    doc["categories"] = boxes
    return doc


def as_yaml(doc: dict) -> str:
    """The rule file's text, as a person would write it (fields in the drawn order)."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)
