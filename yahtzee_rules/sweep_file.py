"""Sweep files: a base rule set and axes of rule-language fields, expanded into checked points.

    base: official-free-joker          # a built-in, example:NAME or a rule file (relative path)
    what: figures                      # mean | figures | distribution (default figures)
    axes:
      rolls: [2, 3, 4]
      upper_bonus.threshold: {from: 55, to: 75, step: 5}
      categories.full_house.score: [25, 30]

The grid is the product of the axes, the first axis varying slowest; `points:` (a list of
mappings `{name, AXIS: value, ...}`) gives named points instead. An axis is a dotted path into
the base's resolved rules: a top-level field (`rolls`, `dice`, `upper_bonus`, ...), a field of a
section (`upper_bonus.threshold`, `yahtzee_bonus.amount`, `joker.mode`), or a box's field by its
key (`categories.full_house.score`, `categories.chance.pattern`); `null` removes an optional
section (`upper_bonus: [null, {threshold: 63, amount: 35}]`). The axis `base` takes a whole rule
set per value (`base: [official-free-joker, house.yaml]`), in place of the top-level `base`.

The file is read like a rule file (safe YAML, bounded, every node located). Each point's rules
are the base's resolved data with the axis values set, validated by the rule loader itself, with
the axis fields located at their line in the sweep file; every point is checked before anything
is solved and all invalid points are listed together with the axis values that made them.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import models
from .errors import RulesError
from .loader import _mark_of, _resolve, _validate, parse_yaml, read_input_text
from .models import RuleSet

WHATS = ("mean", "figures", "distribution")
TOP_KEYS = ("name", "description", "base", "what", "axes", "points")
MAX_POINTS = 100_000
MAX_LISTED = 20  # invalid points listed in one error

# Top-level rule fields an axis may set (name, description and source are the sweep's own).
RULE_FIELDS = [f for f in RuleSet.model_fields if f not in ("name", "description", "source")]
SECTIONS = {"upper_bonus": models.UpperBonus, "yahtzee_bonus": models.YahtzeeBonus,
            "joker": models.Joker}
CATEGORY_FIELDS = [f for f in models.Category.model_fields if f != "key"]


class SweepError(RulesError):
    """A sweep file that cannot be read, or whose points are not all valid rule sets."""


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: its axis values (keyed by axis, as written) and its rules."""

    index: int
    values: dict[str, Any]
    rules: RuleSet
    name: str | None = None

    def label(self) -> str:
        shown = ", ".join(f"{k}={_show(v)}" for k, v in self.values.items())
        return f"{self.name} ({shown})" if self.name else shown


@dataclass(frozen=True)
class Sweep:
    """A sweep file, read and checked: every point is a valid rule set."""

    origin: str
    base: str
    axes: tuple[str, ...]
    points: tuple[SweepPoint, ...]
    what: str = "figures"
    name: str = ""
    description: str = ""
    named: bool = False  # the points were listed by name (`points:`), not a product of axes
    _marks: dict = field(default_factory=dict, repr=False, compare=False)


def _show(value: Any) -> str:
    if isinstance(value, str) or value is None or isinstance(value, bool | int | float):
        return "null" if value is None else str(value)
    return json.dumps(value, separators=(",", ":"))


def load_sweep(path: str | Path) -> Sweep:
    """Read a sweep file and build every point's rules; SweepError naming file:line:col if not.

    Nothing is solved here: a sweep that loads is a list of valid rule sets.
    """
    origin = str(path)
    text = read_input_text(origin, "sweep file", SweepError)
    data, marks = parse_yaml(text, origin, "sweep file", SweepError)
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise SweepError(f"{origin}: a sweep file is a mapping with `base` and `axes` (or "
                         f"`points`), not {kind}.")

    def at(*p) -> str:
        m = _mark_of(marks, p)
        return f"{m[0]}:{m[1]}:{m[2]}" if m else origin

    what = _check_header(data, at)
    if "axes" in data:
        axes, combos, names = _grid(data["axes"], at)
    elif "points" in data:
        axes, combos, names = _named(data["points"], at)
    else:
        raise SweepError(f"{origin}: give `axes` (a mapping of rule fields to lists of values) "
                         "or `points` (a list of named points).")

    def axis_at(i: int | None, axis: str, j: int | None = None) -> str:
        if "axes" in data:
            return at("axes", axis) if j is None else at("axes", axis, j)
        return at("points", i, axis) if i is not None else _first_mark(data["points"], axis, at)

    base = data.get("base")
    if "base" in axes:  # a whole rule set per value: the axis `base`
        if "base" in data:
            raise SweepError(f"{at('base')}: base: the sweep has a `base` axis; give the rule "
                             "sets there only.")
    elif not isinstance(base, str) or not base:
        raise SweepError(f"{at('base') if 'base' in data else origin}: base: give the rule set "
                         "to start from: a built-in name, example:NAME or a rule file (a path "
                         "relative to the sweep file), or a `base` axis of several.")
    base_dir = Path(origin).parent
    bases: dict[str, tuple[dict, dict]] = {}

    def resolved(spec: Any, where: str) -> tuple[dict, dict]:
        if not isinstance(spec, str) or not spec:
            raise SweepError(f"{where}: base: give a built-in name, example:NAME or a rule "
                             f"file, as a string (got {_show(spec)}).")
        if spec not in bases:
            try:
                found, found_marks, _ = _resolve(spec, (), base_dir)
            except RulesError as exc:
                raise SweepError(f"{where}: base: {exc}") from None
            bases[spec] = found, found_marks
        return bases[spec]

    if base is not None and "base" not in axes:
        resolved(base, at("base"))
    for i, values in enumerate(combos):
        spec = values.get("base", base)
        if spec is _MISSING:
            raise SweepError(f"{at('points', i)}: points[{i}]: give this point's `base` (the "
                             "sweep has no top-level base).")
        j = None
        if "axes" in data and "base" in axes:
            listed = data["axes"]["base"]
            j = listed.index(spec) if isinstance(listed, list) else None
        resolved(spec, axis_at(i if "points" in data else None, "base", j))
    for axis in axes:
        if axis != "base":
            for spec, (found, _) in bases.items():
                _check_axis(axis, found, axis_at(None, axis), spec)

    points, bad = [], []
    for i, (values, name) in enumerate(zip(combos, names, strict=True)):
        spec = values.get("base", base)
        try:
            points.append(_point(i, values, name, spec, bases[spec], data, marks, origin))
        except _BadPoint as exc:
            bad.append(exc.args)
    if bad:
        raise SweepError(_invalid_text(origin, bad, len(combos)))
    base = base if "base" not in axes else ", ".join(bases)
    return Sweep(origin, base, tuple(axes), tuple(points), what, data.get("name", ""),
                 data.get("description", ""), "points" in data, marks)


def _check_header(data: dict, at) -> str:
    """Check the sweep's own fields (not the points); the kind of figures it asks for."""
    for key in data:
        if key not in TOP_KEYS:
            hint = difflib.get_close_matches(str(key), TOP_KEYS, n=1)
            tip = f"; did you mean '{hint[0]}'?" if hint else ""
            raise SweepError(f"{at(key)}: {key}: unknown field of a sweep file (allowed: "
                             f"{', '.join(TOP_KEYS)}){tip}")
    what = data.get("what", "figures")
    if what not in WHATS:
        raise SweepError(f"{at('what')}: what: '{what}' is not one of {', '.join(WHATS)} "
                         "(mean: the expected score only; figures: also SD, P(upper bonus), "
                         "Yahtzee bonuses; distribution: also the median and percentiles).")
    for key in ("name", "description"):
        if not isinstance(data.get(key, ""), str):
            raise SweepError(f"{at(key)}: {key}: give a string.")
    if "axes" in data and "points" in data:
        raise SweepError(f"{at('points')}: points: give either `axes` (a grid, the product of "
                         "the axes) or `points` (named points), not both.")
    return what


class _BadPoint(Exception):
    """A point whose rules do not validate: (index, name, shown values, message)."""


def _point(i: int, values: dict, name: str | None, spec: str, base: tuple[dict, dict],
           data: dict, marks: dict, origin: str) -> SweepPoint:
    """Point i's rules: the base's data with the point's values set, every value's problem
    reported at the line of the sweep file that gave it."""
    base_data, base_marks = base
    rule_data = copy.deepcopy(base_data)
    point_marks = dict(base_marks)
    shown = {}
    for axis, value in values.items():
        if axis == "base":
            shown[axis] = value
            continue
        if value is _MISSING:  # a named point without this axis: the base's value
            shown[axis] = _get(base_data, axis)
            continue
        path = _set(rule_data, axis, value)
        shown[axis] = value
        where = marks.get(("axes", axis)) if "axes" in data else marks.get(("points", i, axis))
        for p in [p for p in point_marks if p[:len(path)] == path]:
            del point_marks[p]
        if where:
            point_marks[path] = where
    base_name = str(base_data.get("name") or Path(spec).stem)
    rule_data["name"] = (name or base_name)[:80]
    try:
        rules = _validate(rule_data, point_marks, origin)
    except RulesError as exc:
        raise _BadPoint(i, name, shown, str(exc)) from None
    return SweepPoint(i, shown, rules, name)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _invalid_text(origin: str, bad: list, total: int) -> str:
    lines = []
    for i, name, shown, message in bad[:MAX_LISTED]:
        label = ", ".join(f"{k}={_show(v)}" for k, v in shown.items())
        problems = message.split("\n")[1:] or [message]
        title = f"point {i + 1}" + (f" '{name}'" if name else "")
        lines.append(f"{title} ({label}):\n    " + "\n    ".join(p.strip() for p in problems))
    more = f"\n  ... and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
    return (f"{origin}: {len(bad)} of {total} points are not valid rule sets (nothing was "
            f"solved); change or drop these axis values:\n  " + "\n  ".join(lines) + more)


# ---------------------------------------------------------------- axes and points


def _values(spec: Any, where: str, axis: str) -> list:
    """An axis's values: a list, or an inclusive integer range {from, to, step}."""
    if isinstance(spec, list):
        if not spec:
            raise SweepError(f"{where}: {axis}: the list of values is empty; give at least one.")
        return spec
    if isinstance(spec, dict) and set(spec) & {"from", "to", "step"}:
        extra = sorted(str(k) for k in spec if k not in ("from", "to", "step"))
        if extra or not {"from", "to"} <= set(spec):
            raise SweepError(f"{where}: {axis}: a range is {{from: A, to: B, step: S}} (step "
                             f"defaults to 1); " + (f"unknown: {', '.join(extra)}" if extra else
                                                    "give both `from` and `to`") + ".")
        lo, hi, step = spec["from"], spec["to"], spec.get("step", 1)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi, step)):
            raise SweepError(f"{where}: {axis}: a range's from, to and step must be whole "
                             f"numbers (got from: {lo}, to: {hi}, step: {step}).")
        if step <= 0:
            raise SweepError(f"{where}: {axis}: step must be positive (got {step}).")
        if hi < lo:
            raise SweepError(f"{where}: {axis}: `to` ({hi}) is below `from` ({lo}); a range "
                             "counts up.")
        if (hi - lo) // step + 1 > MAX_POINTS:
            raise SweepError(f"{where}: {axis}: the range has {(hi - lo) // step + 1:,} values, "
                             f"over the limit of {MAX_POINTS:,} points.")
        return list(range(lo, hi + 1, step))
    return [spec]  # one value: the axis is fixed (still a column, for the record)


def _grid(axes: Any, at) -> tuple[list[str], list[dict], list]:
    if not isinstance(axes, dict) or not axes:
        raise SweepError(f"{at('axes')}: axes: give a mapping of rule fields to values, e.g. "
                         "`rolls: [2, 3, 4]` or `upper_bonus.threshold: {from: 55, to: 75, "
                         "step: 5}`.")
    keys = [str(k) for k in axes]
    lists = [_values(axes[k], at("axes", k), str(k)) for k in axes]
    total = 1
    for values in lists:
        total *= len(values)
    if total > MAX_POINTS:
        raise SweepError(f"{at('axes')}: axes: the grid has {total:,} points, over the limit "
                         f"of {MAX_POINTS:,}; use fewer values or named `points`.")
    combos = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists)]
    return keys, combos, [None] * len(combos)


def _named(points: Any, at) -> tuple[list[str], list[dict], list]:
    if not isinstance(points, list) or not points:
        raise SweepError(f"{at('points')}: points: give a list of points, each a mapping like "
                         "`{name: house, rolls: 4, upper_bonus.threshold: 70}`.")
    if len(points) > MAX_POINTS:
        raise SweepError(f"{at('points')}: points: {len(points):,} points, over the limit of "
                         f"{MAX_POINTS:,}.")
    axes: list[str] = []
    names = []
    for j, point in enumerate(points):
        if not isinstance(point, dict):
            raise SweepError(f"{at('points', j)}: points[{j}]: give a mapping of rule fields to "
                             "values (and an optional name).")
        name = point.get("name")
        if name is not None and not isinstance(name, str):
            raise SweepError(f"{at('points', j, 'name')}: points[{j}].name: give a string.")
        names.append(name)
        axes += [str(k) for k in point if k != "name" and str(k) not in axes]
    if not axes:
        raise SweepError(f"{at('points')}: points: no point sets any rule field.")
    combos = [{a: p.get(a, _MISSING) for a in axes} for p in points]
    return axes, combos, names


def _first_mark(points: list, axis: str, at) -> str:
    j = next(j for j, p in enumerate(points) if axis in p)
    return at("points", j, axis)


def _check_axis(axis: str, base: dict, where: str, spec: str) -> None:
    """A clear error, at the axis's line, for a path that names no field of the rules."""
    parts = axis.split(".")

    def refuse(what: str, got: str, allowed: list[str]) -> None:
        hint = difflib.get_close_matches(got, allowed, n=1)
        tip = f"; did you mean '{hint[0]}'?" if hint else ""
        raise SweepError(f"{where}: {axis}: {what} (allowed: {', '.join(allowed)}){tip}")

    top = parts[0]
    if top not in RULE_FIELDS:  # (`base` never gets here: it is a rule set per value)
        refuse(f"'{top}' is not a field of the rule language", top, RULE_FIELDS)
    if top in SECTIONS and len(parts) > 1:
        fields = list(SECTIONS[top].model_fields)
        if len(parts) > 2 or parts[1] not in fields:
            refuse(f"'{'.'.join(parts[1:])}' is not a field of {top}", parts[1], fields)
    elif top == "categories" and len(parts) > 1:
        keys = [c.get("key") for c in base.get("categories") or [] if isinstance(c, dict)]
        if parts[1] not in keys:
            refuse(f"'{parts[1]}' is not a box of the base rule set {spec}", parts[1],
                   [k for k in keys if isinstance(k, str)])
        if len(parts) > 2 and parts[2] not in CATEGORY_FIELDS:
            refuse(f"'{parts[2]}' is not a field of a box", parts[2], CATEGORY_FIELDS)
        if len(parts) > 3:
            if parts[2] not in ("pattern", "score"):
                refuse(f"'{parts[2]}' has no fields", parts[3], [])
            union = models.Pattern if parts[2] == "pattern" else models.Scoring
            import typing

            fields = sorted({f for cls in typing.get_args(typing.get_args(union)[0])
                             for f in cls.model_fields})
            if len(parts) > 4 or parts[3] not in fields:
                refuse(f"'{'.'.join(parts[3:])}' is not a field of a {parts[2]}", parts[3],
                       fields)
    elif len(parts) > 1:
        refuse(f"'{top}' has no fields", parts[1], [])


def _norm(section: str, value: Any) -> Any:
    """A section written as a shorthand (`joker: free`, `score: 30`) as a mapping."""
    if isinstance(value, dict):
        return dict(value)
    if section == "joker" and isinstance(value, str):
        return {"mode": value}
    if section == "score" and isinstance(value, int) and not isinstance(value, bool):
        return {"kind": "fixed", "points": value}
    if section in ("pattern", "score") and isinstance(value, str):
        return {"kind": value}
    return {} if value is None else value


def _set(data: dict, axis: str, value: Any) -> tuple:
    """Set one axis in resolved rule data; the data path it set (for error locations)."""
    parts = axis.split(".")
    value = copy.deepcopy(value)
    if len(parts) == 1:
        data[parts[0]] = value
        return (parts[0],)
    if parts[0] != "categories":
        section = _norm(parts[0], data.get(parts[0]))
        section[parts[1]] = value
        data[parts[0]] = section
        return tuple(parts)
    cats = data["categories"] = [dict(c) if isinstance(c, dict) else c
                                 for c in data["categories"]]
    i = next(i for i, c in enumerate(cats) if isinstance(c, dict) and c.get("key") == parts[1])
    if len(parts) == 2:  # a whole box: its fields given replace the base's
        cats[i] = {**cats[i], **value, "key": parts[1]} if isinstance(value, dict) else value
        return ("categories", i)
    if len(parts) == 3:
        cats[i][parts[2]] = value
        return ("categories", i, parts[2])
    inner = _norm(parts[2], cats[i].get(parts[2]))
    inner[parts[3]] = value
    cats[i][parts[2]] = inner
    return ("categories", i, parts[2], parts[3])


def _get(data: dict, axis: str) -> Any:
    """The base's value at an axis (for named points that leave the axis out)."""
    parts = axis.split(".")
    cur: Any = data
    if parts[0] == "categories" and len(parts) > 1:
        cur = next((c for c in data.get("categories", []) if isinstance(c, dict)
                    and c.get("key") == parts[1]), None)
        parts = parts[2:]
    prev = parts[0] if parts[0] != "categories" else ""
    for part in parts:
        if not isinstance(cur, dict):
            cur = _norm(prev, cur)
        cur = cur.get(part) if isinstance(cur, dict) else None
        prev = part
    return copy.deepcopy(cur)


def point_data(point: SweepPoint) -> dict:
    """A point's rules as plain JSON data (what a worker solves; `RuleSet.model_validate`
    rebuilds them)."""
    return point.rules.model_dump(mode="json")
