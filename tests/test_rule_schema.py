"""The JSON Schema of rule files (`yz rules schema`) against the validator: the same verdicts.

"What the schema describes" is decided by a JSON Schema validator of its own (jsonschema-rs,
draft 2020-12), never by yz's reading of the schema. "What the validator accepts" is the real
loader's verdict; a file it refuses counts as accepted in its fields when every problem is a
cross-field check (a face beyond the die, a total no roll has, `min` above `max`, ...), which
JSON Schema cannot state and the schema's description leaves to `load_rules`.

Documents are made from the schema itself: every pattern kind bare, with no parameters, with
each parameter alone and with all of them, at every level of nesting and one too deep; every
scoring form and shorthand; and, by hypothesis, whole rule files drawn from the schema's types,
enums, bounds and required fields, with a few values broken on the way (a wrong type, a number
out of range, a field dropped or an unknown one added). A file without `extends` gets the same
verdict both ways; a file with `extends` may be refused by the loader for what it inherits,
but never accepted by the loader and refused by the schema.
"""

from __future__ import annotations

import copy
import typing
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from slow_slice import slow_examples
from yz.rules import RulesError, rule_schema, rules_from_text
from yz.rules.models import (
    COMBINED_KINDS,
    MAX_EITHER_PATTERNS,
    MAX_PATTERN_DEPTH,
    RuleProblems,
    RuleSet,
    Scoring,
)

SCHEMA = rule_schema()
CHECKER = jsonschema_rs.validator_for(SCHEMA)
ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = [*(ROOT / "variants").glob("*.yaml"), *(ROOT / "examples").glob("*.yaml")]
ORIGIN = "generated.yaml"


def schema_errors(doc: Any) -> list[str]:
    """Where a document breaks the schema, as jsonschema-rs says."""
    return [f"{'.'.join(map(str, e.instance_path)) or '(top level)'}: {e.message}"
            for e in CHECKER.iter_errors(doc)]


def loads(doc: Any) -> str | None:
    """None if the loader accepts the document as a rule file, else its error."""
    if isinstance(doc, dict) and "name" not in doc:
        doc = {**doc, "name": "generated"}  # as load_rules names a file after itself
    try:
        rules_from_text(yaml.safe_dump(doc, sort_keys=False), ORIGIN)
    except RulesError as exc:
        return str(exc)
    return None


def only_cross_field(doc: Any) -> bool:
    """Whether the validator's only objections to the document are cross-field checks."""
    if not isinstance(doc, dict):
        return False
    data = {"name": "generated", **{k: v for k, v in doc.items() if k != "extends"}}
    try:
        RuleSet.model_validate(data)
    except ValidationError as exc:
        return all(isinstance((e.get("ctx") or {}).get("error"), RuleProblems)
                   for e in exc.errors())
    return True


def validator_accepts_fields(doc: Any) -> tuple[bool, str | None]:
    """(the validator accepts the document's fields, the loader's error if it refused it)."""
    error = loads(doc)
    return error is None or only_cross_field(doc), error


def assert_same_verdict(doc: Any) -> bool:
    """The schema and the validator agree on a document without `extends`; returns it."""
    in_schema = schema_errors(doc)
    accepted, error = validator_accepts_fields(doc)
    assert accepted == (not in_schema), (
        f"the validator {'accepts' if accepted else 'refuses'} and the schema "
        f"{'refuses' if in_schema else 'accepts'}:\n{yaml.safe_dump(doc, sort_keys=False)}"
        f"schema: {in_schema}\nvalidator: {error}")
    return accepted


# ---------------------------------------------------------------- the shipped files


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_every_shipped_rule_file_validates_against_the_schema(path):
    assert SCHEMA["$schema"].startswith("https://json-schema.org/") and SCHEMA["title"]
    assert schema_errors(yaml.safe_load(path.read_text())) == []


@pytest.mark.parametrize("text", [
    "extends: official-free-joker\njoker: free\ncategories:\n  - {key: chance, score: 30}\n",
    "name: s\ncategories:\n  - {key: c, pattern: any, score: sum_all}\n",
    "extends: official-free-joker\nupper_bonus: {threshold: 70}\nremove_categories: [chance]\n",
    "extends: official-free-joker\ncategories:\n  - key: large_straight\n    pattern: {kind: "
    "either, patterns: [{kind: straight, length: 5}, all_same]}\n",
])
def test_schema_accepts_extends_and_shorthands(text):
    assert schema_errors(yaml.safe_load(text)) == []


@pytest.mark.parametrize("text, where", [
    ("extends: official-free-joker\ncolour: red\n", "(top level): Additional properties"),
    ("name: s\ncategories:\n  - {key: c, pattern: pairs, score: sum_all}\n",
     "categories.0.pattern:"),
    ("name: s\ncategories:\n  - {key: c, pattern: any, score: fixed}\n", "categories.0.score:"),
    ("name: s\ncategories:\n  - {key: c, pattern: straight, score: 3}\n",
     "categories.0.pattern:"),
    ("name: s\n", "(top level): \"categories\" is a required property"),
    ("name: s\ncategories:\n  - {key: c, score: 3}\n", "\"pattern\" is a required property"),
    ("name: s\nremove_categories: [c]\ncategories:\n  - {key: c, pattern: any, score: 3}\n",
     "(top level):"),
])
def test_schema_rejects_what_the_loader_rejects(text, where):
    doc = yaml.safe_load(text)
    errors = schema_errors(doc)
    assert any(where in e for e in errors), errors
    assert loads(doc) is not None


# ---------------------------------------------------------------- every kind and shorthand


def resolve(node: dict) -> dict:
    """A schema node with its `$ref` followed."""
    while "$ref" in node:
        node = {**SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]],
                **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def example(node: dict) -> Any:
    """A value the schema node accepts (the smallest one of its first alternative)."""
    node = resolve(node)
    for key in ("anyOf", "oneOf"):
        if key in node and "type" not in node:
            return example(next(n for n in node[key] if resolve(n).get("type") != "null"))
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    kind = node["type"] if isinstance(node["type"], str) else node["type"][0]
    if kind == "integer":
        return node.get("minimum", 0)
    if kind == "boolean":
        return True
    if kind == "string":
        return "x"
    if kind == "array":
        items = resolve(node["items"])
        size = node.get("minItems", 0)
        if node.get("uniqueItems") and items.get("type") == "integer":
            return list(range(items.get("minimum", 0), items.get("minimum", 0) + size))
        return [example(items) for _ in range(size)]
    if kind == "object":
        return {k: example(node["properties"][k]) for k in node.get("required", [])}
    raise AssertionError(f"no example for {node}")


def pattern_defs() -> dict[str, dict]:
    """Every pattern model's schema, by name (plain, combined and nested combined)."""
    defs = SCHEMA["$defs"]
    return {name: d for name, d in defs.items() if name.endswith("Pattern")}


def candidates(definition: dict) -> list[Any]:
    """A pattern kind bare, with no parameters, each parameter alone and all of them."""
    kind = definition["properties"]["kind"]["const"]
    params = [p for p in definition["properties"] if p != "kind"]
    given = {p: example(definition["properties"][p]) for p in params}
    out: list[Any] = [kind, {"kind": kind}]
    out += [{"kind": kind, p: given[p]} for p in params]
    out.append({"kind": kind, **given})
    return out


def box_doc(pattern: Any, score: Any = "sum_all", **fields: Any) -> dict:
    """A one-box rule file with room for any pattern (8 dice of 10 faces)."""
    return {"name": "s", "dice": 8, "faces": 10,
            "categories": [{"key": "b", "pattern": pattern, "score": score}], **fields}


def nested(pattern: Any, depth: int) -> Any:
    """The pattern at level `depth` of combined patterns (1: the box's own)."""
    for level in range(depth - 1):
        kind = COMBINED_KINDS[level % 2]
        pattern = {"kind": kind, "patterns": [pattern, "any"]}
    return pattern


@pytest.mark.parametrize("depth", range(1, MAX_PATTERN_DEPTH + 2))
@pytest.mark.parametrize("name", sorted(pattern_defs()))
def test_every_pattern_kind_at_every_depth(name, depth):
    """Bare, without and with its parameters: at the box's level, nested one level, at the
    deepest level allowed, and one level deeper (refused by both)."""
    verdicts = [assert_same_verdict(box_doc(nested(p, depth)))
                for p in candidates(pattern_defs()[name])]
    if depth > MAX_PATTERN_DEPTH:
        assert not any(verdicts)
    elif depth == MAX_PATTERN_DEPTH and name.endswith(("EitherPattern", "BothPattern")):
        assert not any(verdicts)  # a combined pattern at the deepest level
    else:
        assert any(verdicts), "no form of the kind is accepted"


def test_the_bare_kinds_are_the_parameterless_ones():
    """`pattern: straight` is refused by the validator and so by the schema (it needs one
    of `length`, `faces` or `any_of`); `any` and `all_same` are accepted by both."""
    bare = {kind: assert_same_verdict(box_doc(kind))
            for kind in {d["properties"]["kind"]["const"] for d in pattern_defs().values()}}
    assert {k for k, ok in bare.items() if ok} == {"any", "all_same"}
    assert not bare["straight"] and not bare["total"] and not bare["either"]


@pytest.mark.parametrize("fields, accepted", [
    ({"equals": 13}, True), ({"min": 3}, True), ({"max": 30}, True),
    ({"min": 3, "max": 30}, True), ({"min": None, "max": 30}, True),
    ({}, False), ({"equals": 13, "min": 3}, False), ({"equals": 13, "max": 30}, False),
    ({"equals": None}, False), ({"equals": 81}, False), ({"min": -1}, False),
])
def test_which_total_fields_go_together(fields, accepted):
    assert assert_same_verdict(box_doc({"kind": "total", **fields})) == accepted


@pytest.mark.parametrize("fields, accepted", [
    ({"length": 5}, True), ({"faces": [1, 2, 3]}, True), ({"any_of": [[1, 2], [3, 4]]}, True),
    ({"length": 5, "faces": None}, True), ({"length": None}, False),
    ({"length": 5, "faces": [1, 2]}, False), ({"faces": [1, 1, 2]}, False),
    ({"any_of": [[1, 2], [3, 3]]}, False),
])
def test_which_straight_fields_go_together(fields, accepted):
    assert assert_same_verdict(box_doc({"kind": "straight", **fields})) == accepted


@pytest.mark.parametrize("count", range(0, MAX_EITHER_PATTERNS + 2))
@pytest.mark.parametrize("kind", COMBINED_KINDS)
def test_how_many_patterns_a_combined_pattern_lists(kind, count):
    accepted = assert_same_verdict(box_doc({"kind": kind, "patterns": ["any"] * count}))
    assert accepted == (count == 2 if kind == "both" else 2 <= count <= MAX_EITHER_PATTERNS)


def score_forms() -> list[Any]:
    forms: list[Any] = [0, 30, 10_000, -1, 10_001, True, 2.5, "30", None, "nothing"]
    for cls in typing.get_args(typing.get_args(Scoring)[0]):
        kind = typing.get_args(cls.model_fields["kind"].annotation)[0]
        forms += [kind, {"kind": kind}, {"kind": kind, "points": 30},
                  {"kind": kind, "points": -1}]
    return forms


@pytest.mark.parametrize("score", score_forms(), ids=repr)
def test_every_score_form(score):
    # A face pattern, so face_total's own cross-field check does not decide.
    assert_same_verdict(box_doc({"kind": "face", "face": 2}, score))


@pytest.mark.parametrize("joker", ["free", "forced", "none", "bogus", {"mode": "free"},
                                   {"mode": "free", "full_value": ["b"]}, {"full_value": []},
                                   {"mode": "wild"}, None, 3])
def test_every_joker_form(joker):
    doc = box_doc("all_same", 50, joker=joker, yahtzee_category="b")
    assert_same_verdict(doc)


@pytest.mark.parametrize("saved", [{}, {"carry_unused": False}, {"carry_unused": 1},
                                   {"carry_unused": "yes"}, {"start": 2, "cap": 3},
                                   {"start": 3, "cap": 2}, {"cap": None}, {"start": -1}])
def test_every_saved_rolls_form(saved):
    assert_same_verdict(box_doc("any", saved_rolls=saved))


def test_a_whole_number_with_a_point_is_the_one_difference_the_readme_names():
    """JSON Schema counts 5.0 as an integer (draft 2020-12); yz reads YAML's `5.0` as a float
    and asks for `5`. The README says so; nothing else differs."""
    doc = box_doc("any", dice=5.0)
    assert schema_errors(doc) == []
    assert "dice: Input should be a valid integer" in loads(doc)
    assert not only_cross_field(doc)


# ---------------------------------------------------------------- documents drawn from the schema

WRONG_VALUES = st.sampled_from([None, True, 2.5, "x", -1, 10**6, [], {}, [1], {"a": 1}])


def standalone_defs() -> dict:
    """The schema's definitions as a file without `extends` must meet them (the schema's
    `else`): every box whole, an upper bonus with its threshold and amount."""
    defs = copy.deepcopy(SCHEMA["$defs"])
    defs["Category"]["required"] = ["key", "pattern", "score"]
    defs["UpperBonus"]["required"] = ["threshold", "amount"]
    return defs


@st.composite
def from_schema(draw, node: dict, defs: dict, break_one_in: int = 0) -> Any:
    """A value shaped by the schema node: its types, enums, bounds and required fields; with
    `break_one_in` n, one value in about n is broken (a wrong value, a field dropped or an
    unknown one added)."""

    def broken(chance: int = 1) -> bool:
        return bool(break_one_in) and draw(st.integers(1, break_one_in)) <= chance

    if broken():
        return draw(WRONG_VALUES)
    while "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[1]],
                **{k: v for k, v in node.items() if k != "$ref"}}
    for key in ("anyOf", "oneOf"):
        if key in node and "type" not in node:  # (an object's `oneOf` constrains its fields)
            branch = draw(st.sampled_from(node[key]))
            rest = {k: v for k, v in node.items() if k != key}
            return draw(from_schema({**rest, **branch}, defs, break_one_in))
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return draw(st.sampled_from(node["enum"]))
    kind = node.get("type", "null")
    if isinstance(kind, list):
        kind = draw(st.sampled_from(kind))
    if kind == "null":
        return None
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "integer":
        low, high = node.get("minimum", -3), node.get("maximum", 100)
        return draw(st.sampled_from([low, high]) | st.integers(low, min(high, low + 30)) |
                    st.integers(low, high))
    if kind == "string":
        if "pattern" in node:
            return draw(st.sampled_from(["b0", "b1", "yahtzee"]) |
                        st.from_regex(node["pattern"], fullmatch=True).filter(
                            lambda s: len(s) <= node.get("maxLength", 99)))
        return draw(st.sampled_from(["b0", "b1", "yahtzee", "x", ""]) |
                    st.text(min_size=node.get("minLength", 0), max_size=8))
    if kind == "array":
        low = node.get("minItems", 0)
        high = min(node.get("maxItems", low + 3), low + 3)
        return draw(st.lists(from_schema(node["items"], defs, break_one_in), min_size=low,
                             max_size=high))
    if kind == "object":
        out = {}
        for name, sub in node.get("properties", {}).items():
            if name in node.get("required", []) or draw(st.integers(0, 2)) == 0:
                out[name] = draw(from_schema(sub, defs, break_one_in))
        if broken(chance=2):
            if out and draw(st.booleans()):
                del out[draw(st.sampled_from(sorted(out)))]
            else:
                out["colour"] = "red"
        return out
    raise AssertionError(f"no values for {node}")


def rule_files(extends: str | None) -> st.SearchStrategy:
    """Whole rule files drawn from the schema, with `extends` set as given; half of them with
    a value broken here and there."""
    top = {k: v for k, v in SCHEMA.items() if k not in ("if", "then", "else", "$defs")}
    props = {k: v for k, v in top["properties"].items() if k != "extends"}
    if extends is None:
        props.pop("remove_categories")  # refused by both without `extends`: tested above
        node, defs = {**top, "properties": props, "required": ["categories"]}, standalone_defs()
    else:
        node, defs = {**top, "properties": props, "required": []}, SCHEMA["$defs"]

    def finish(doc: Any) -> Any:
        return {"extends": extends, **doc} if isinstance(doc, dict) and extends else doc

    return st.sampled_from([0, 0, 150, 40]).flatmap(
        lambda rate: from_schema(node, defs, rate)).map(finish)


def profile(examples: int, derandomize: bool = True):
    return settings(max_examples=examples, deadline=None, derandomize=derandomize,
                    print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


# The default run draws 60 files for each (about 20 s); `pytest -m slow` draws 400.
QUICK_EXAMPLES, SLOW_EXAMPLES = 60, 400


def file_without_extends_gets_the_same_verdict(doc):
    note(yaml.safe_dump(doc, sort_keys=False))
    assert_same_verdict(doc)


def file_the_loader_accepts_is_in_the_schema(doc):
    note(yaml.safe_dump(doc, sort_keys=False))
    if loads(doc) is None:
        assert schema_errors(doc) == []


test_a_file_without_extends_gets_the_same_verdict = profile(QUICK_EXAMPLES)(
    given(rule_files(extends=None))(file_without_extends_gets_the_same_verdict))
test_a_file_the_loader_accepts_is_in_the_schema = profile(QUICK_EXAMPLES)(
    given(rule_files(extends="official-free-joker"))(file_the_loader_accepts_is_in_the_schema))
SLOW_PROFILE = profile(slow_examples(SLOW_EXAMPLES), derandomize=False)
test_many_files_without_extends_get_the_same_verdict = pytest.mark.slow(SLOW_PROFILE(
    given(rule_files(extends=None))(file_without_extends_gets_the_same_verdict)))
test_many_files_the_loader_accepts_are_in_the_schema = pytest.mark.slow(SLOW_PROFILE(
    given(rule_files(extends="official-free-joker"))(file_the_loader_accepts_is_in_the_schema)))
