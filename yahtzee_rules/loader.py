"""Load a rule set from a built-in name or a YAML file, resolving `extends`, with pointed errors.

YAML is read with the safe loader only, so a file can never run code. While reading we keep the
line and column of every key, so a validation error reads ``file:line:col: path: message``.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import re
import stat
import sys
import typing
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .errors import RulesError, YzError
from .models import (
    COMBINED_KINDS,
    MAX_PATTERN_DEPTH,
    RuleProblems,
    RuleSet,
    _dotted,
    unknown_box,
)

Path_ = tuple[str | int, ...]
Mark = tuple[str, int, int]  # file, line, column (1-based)

MERGED_SECTIONS = ("upper_bonus", "yahtzee_bonus", "joker", "saved_rolls")
NOT_INHERITED = ("name", "description", "source")


# Built-ins whose exact solve takes a minute or more (and, with saved rolls, gigabytes): left
# out of `yz compare`'s default list and of checks that loop over every built-in.
BIG_BUILTINS = ("maxi-yatzy", "maxi-yatzy-no-saved-rolls", "yatzy-saved-rolls")


def builtin_names(big: bool = True) -> list[str]:
    """Names of the rule sets shipped in the `variants` package, sorted; without `big`, the
    ones that solve in seconds only (see BIG_BUILTINS)."""
    root = resources.files("yz.variants")
    names = sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml"))
    return names if big else [n for n in names if n not in BIG_BUILTINS]


def _builtin_text(name: str) -> str:
    return resources.files("yz.variants").joinpath(f"{name}.yaml").read_text(encoding="utf-8")


EXAMPLE_PREFIX = "example:"


def example_names() -> list[str]:
    """Names of the example rule files shipped in the `examples` package (`example:NAME`)."""
    root = resources.files("yz.examples")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml"))


def _example_text(name: str, named_by: str) -> str:
    names = example_names()
    if name not in names:
        hint = difflib.get_close_matches(name, names, n=1)
        tip = f" Did you mean '{EXAMPLE_PREFIX}{hint[0]}'?" if hint else ""
        shipped = ", ".join(EXAMPLE_PREFIX + n for n in names)
        raise RulesError(f"{EXAMPLE_PREFIX}{name}: no such example{named_by}; the examples "
                         f"shipped with yz are {shipped}.{tip}")
    return resources.files("yz.examples").joinpath(f"{name}.yaml").read_text(encoding="utf-8")


def load_rules(spec: str | Path) -> RuleSet:
    """Resolve a built-in name or a YAML path to a validated rule set; RulesError if it can't."""
    if not str(spec).strip():
        raise RulesError("variant: the name is empty; give a built-in rule set's name, "
                         "example:NAME or the path of a YAML rule file.")
    typos: list[tuple[str, str]] = []
    data, marks, origin = _resolve(str(spec), chain=(), typos=typos)
    return _validate(data, marks, origin, typos)


def rules_from_text(text: str, origin: str = "<text>") -> RuleSet:
    """Validate rules given as YAML text (its `extends` may name built-ins or paths)."""
    return rules_from_data(*parse_yaml(text, origin, "rule file", RulesError), origin)


def rules_from_data(data: Any, marks: dict[Path_, Mark], origin: str) -> RuleSet:
    """Validate rules already read by `parse_yaml` (with its marks), so a front end that
    reads untrusted text under tighter bounds, and checks what it may extend, reads it once."""
    raw = _rule_mapping(data, origin)
    typos: list[tuple[str, str]] = []
    data, marks = _apply_extends(raw, marks, origin, base_dir=Path.cwd(), chain=(origin,),
                                 typos=typos)
    return _validate(data, marks, origin, typos)


_SOURCES: ContextVar[list[tuple[str, str]] | None] = ContextVar("yz_rule_sources", default=None)


@contextlib.contextmanager
def recording_sources() -> Iterator[list[tuple[str, str]]]:
    """Within it, the (resolved path, SHA-256 of the text) of every rule file read from disk
    is added to the list it gives (built-ins and examples are part of yz, not listed): what a
    rule set rests on, for a caller that remembers an answer about it."""
    sources: list[tuple[str, str]] = []
    token = _SOURCES.set(sources)
    try:
        yield sources
    finally:
        _SOURCES.reset(token)


def looks_like_path(spec: str) -> bool:
    """True for a rule-file path (a folder separator or a YAML suffix), False for a name."""
    if spec.startswith(EXAMPLE_PREFIX):
        return False
    return "/" in spec or "\\" in spec or spec.endswith((".yaml", ".yml"))


def _resolve(spec: str, chain: tuple[str, ...], base_dir: Path | None = None,
             typos: list[tuple[str, str]] | None = None):
    """Load and merge one rule file (or built-in) and everything it extends.

    `chain` holds the resolved identities of the files being loaded, to catch cycles whatever
    spelling of a path leads back to a file. `typos`: see `_apply_extends`.
    """
    names = builtin_names()
    named_by = f" (named by `extends` in {chain[-1]})" if chain else ""
    if not looks_like_path(spec) and spec in names:
        origin = identity = f"variants/{spec}.yaml"
        text = _builtin_text(spec)
        base = None
    elif spec.startswith(EXAMPLE_PREFIX):
        origin = identity = f"examples/{spec[len(EXAMPLE_PREFIX):]}.yaml"
        text = _example_text(spec[len(EXAMPLE_PREFIX):], named_by)
        base = None
    else:
        path = Path(spec) if base_dir is None or Path(spec).is_absolute() else base_dir / spec
        if path.is_dir():
            raise RulesError(f"{spec}: is a folder, not a YAML rule file{named_by}; give the "
                             "path of a .yaml file or a built-in name.")
        if not path.exists():
            hint = difflib.get_close_matches(spec, names, n=1)
            tip = f" Did you mean '{hint[0]}'?" if hint else ""
            what = "file" if looks_like_path(spec) else "built-in variant or file"
            raise RulesError(
                f"{spec}: no such {what}{named_by}. Give a built-in name ({', '.join(names)}) or "
                f"the path of a YAML rule file.{tip}")
        origin = str(path)
        identity = str(path.resolve())
        text = read_input_text(origin, "rule file", RulesError)
        base = path.parent
        sources = _SOURCES.get()
        if sources is not None:
            sources.append((identity, hashlib.sha256(text.encode("utf-8")).hexdigest()))
    if identity in chain:
        cycle = " -> ".join([*chain, identity])
        raise RulesError(f"{origin}: `extends` forms a cycle ({cycle}); one of these files must "
                         "start from a rule set that does not lead back to it.")
    raw, raw_marks = _parse(text, origin)
    if "name" not in raw and not origin.startswith("variants/"):
        raw["name"] = Path(origin).stem
    data, marks = _apply_extends(raw, raw_marks, origin, base or Path.cwd(), (*chain, identity),
                                 typos)
    return data, marks, origin


# ---------------------------------------------------------------- JSON Schema


def rule_schema() -> dict:
    """The JSON Schema of a rule file, for editors and other tools to check files against.

    The models describe a resolved rule set; a file may also `extends` another, give only the
    fields it changes and use the shorthands (`pattern: any`, `score: sum_all`, `score: 30`,
    `joker: free`), so the schema follows what `load_rules` accepts: a file without `extends`
    exactly as the validator reads its fields, one with `extends` loosened to what may be
    inherited (a box changed by key alone). The cross-field checks (a face beyond the die, a
    total no roll has, `min` above `max`, ...) are beyond JSON Schema: `load_rules` runs them.
    """
    from . import models

    schema = RuleSet.model_json_schema()
    defs, props = schema["$defs"], schema["properties"]
    props["extends"] = {"type": ["string", "null"], "description": (
        "Start from a built-in name, example:NAME or a rule file (a path relative to this one).")}
    props["remove_categories"] = {"type": "array", "items": {"type": "string"}, "description": (
        "With extends: inherited boxes to drop.")}
    del schema["required"]  # `name` defaults to the file name; `categories` may be inherited
    # An extending file's entry may change a box by key alone (name and section have
    # defaults), and its upper bonus is merged field by field over the inherited one; a file
    # that extends nothing gives every box and bonus whole and removes nothing.
    defs["Category"]["required"] = ["key"]
    defs["UpperBonus"].pop("required", None)
    schema["if"] = {"required": ["extends"], "properties": {"extends": {"type": "string"}}}
    schema["else"] = {"required": ["categories"], "not": {"required": ["remove_categories"]},
                      "properties": {
                          "categories": {"items": {"required": ["key", "pattern", "score"]}},
                          "upper_bonus": {"required": ["threshold", "amount"]}}}
    # A pattern (a box's, or one in a combined pattern's list) may be a bare kind.
    cat_props = defs["Category"]["properties"]
    cat_props["pattern"] = _with_bare_kinds(cat_props["pattern"])
    for name in defs:
        patterns = defs[name]["properties"].get("patterns")
        if patterns is not None:
            patterns["items"] = _with_bare_kinds(patterns["items"])
    cat_props["score"] = {"anyOf": [
        _bare_kinds(_union_members(models.Scoring)),
        {"type": "integer", "minimum": 0, "maximum": 10_000, "description": "fixed points"},
        cat_props["score"]]}
    mode = {k: v for k, v in defs["Joker"]["properties"]["mode"].items() if k != "default"}
    props["joker"] = {"anyOf": [mode, {"$ref": "#/$defs/Joker"}], "default": {"mode": "none"}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "yz rule file",
            **{k: v for k, v in schema.items() if k != "title"}}


def _union_members(union: Any) -> list[type]:
    """The models of an `Annotated[A | B | ..., Field(discriminator=...)]` union."""
    return list(typing.get_args(typing.get_args(union)[0]))


def _with_bare_kinds(union: dict) -> dict:
    """A schema union of pattern models (a `oneOf` of `$ref`s), with their bare kinds beside."""
    from . import models

    members = [getattr(models, ref["$ref"].rsplit("/", 1)[1]) for ref in union["oneOf"]]
    return {"anyOf": [_bare_kinds(members), union]}


def _bare_kinds(models_: list[type]) -> dict:
    """The kinds among these models that may be written alone, as the validator reads a bare
    `kind` (`pattern: any`): those whose model accepts `{kind: ...}` with nothing else."""
    from pydantic import ValidationError

    kinds = []
    for cls in models_:
        kind = typing.get_args(cls.model_fields["kind"].annotation)[0]
        try:
            cls.model_validate({"kind": kind})
        except ValidationError:
            continue
        kinds.append(kind)
    return {"type": "string", "enum": sorted(kinds), "description": "a kind without parameters"}


# ---------------------------------------------------------------- reading untrusted input

# Every input file (rule file or scorecard) is read under the same bounds, so a hostile file
# fails fast with a message instead of hanging, filling memory or overflowing the stack.
MAX_INPUT_BYTES = 1_000_000
MAX_YAML_DEPTH = 32  # a rule file nests 10 deep at most (a straight's `any_of` in a combined
# pattern inside another); the composer recurses once per level
MAX_YAML_NODES = 100_000
STDIN_ORIGIN = "<stdin>"


def read_input_text(spec: str, what: str, error: type[YzError]) -> str:
    """The UTF-8 text of the file `spec` ("-": standard input), or `error` saying why not.

    A FIFO or a device would block or never end, so only regular files are opened; the size is
    checked before reading and at most one byte over the limit is ever read.
    """
    limit = MAX_INPUT_BYTES
    name = STDIN_ORIGIN if spec == "-" else spec
    too_big = (f"{name}: the {what} is larger than {limit:,} bytes; a {what} is a short text "
               "file.")
    if spec == "-":
        text = sys.stdin.read(limit + 1)
        if len(text) > limit:
            raise error(too_big)
        return text
    try:
        if not stat.S_ISREG(os.stat(spec).st_mode):
            raise error(_not_regular(spec, what))
        fd = os.open(spec, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())  # the file may have been swapped since the stat
            if not stat.S_ISREG(info.st_mode):
                raise error(_not_regular(spec, what))
            if info.st_size > limit:
                raise error(too_big)
            raw = f.read(limit + 1)
    except OSError as exc:
        raise error(f"{spec}: cannot read the {what} ({exc.strerror or exc}).") from None
    if len(raw) > limit:
        raise error(too_big)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{spec}: the {what} is not UTF-8 text (byte {exc.start} is not valid "
                    f"UTF-8); is it a binary file? Save it as plain UTF-8 YAML or JSON.") from None
    if "\x00" in text:
        raise error(f"{spec}: the {what} contains NUL bytes, so it is a binary file, not YAML or "
                    "JSON text.")
    return text


def _not_regular(spec: str, what: str) -> str:
    return (f"{spec}: is not a regular file (a folder, pipe, device or socket); give the path "
            f"of a {what}.")


# The C parser (libyaml) when PyYAML has it: scanning is most of the work, and it is 30x faster.
_EventParser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TAG = "tag:yaml.org,2002:"
# Plain data only: the scalar kinds of the safe loader that a rule file or card can use.
_SCALAR_TAGS = {f"{_TAG}{name}" for name in ("null", "bool", "int", "float", "timestamp")}
_PLAIN_TAGS = (None, "!")


class _Refused(yaml.YAMLError):
    def __init__(self, mark: yaml.Mark, problem: str):
        super().__init__(problem)
        self.problem_mark = mark
        self.problem = problem


def parse_yaml(text: str, origin: str, what: str, error: type[YzError],
               max_nodes: int = MAX_YAML_NODES, max_depth: int = MAX_YAML_DEPTH,
               ) -> tuple[Any, dict[Path_, Mark]]:
    """Plain data from YAML text, and the `file:line:col` of every mapping key and list item
    (by path), in one pass over the parser's events: time and memory grow linearly with the
    text, and a hostile text is refused at the event that crosses a bound.

    Anchors and aliases are refused (they are how a few bytes expand into gigabytes, "billion
    laughs", or into a structure that contains itself; plain data never needs them), as are
    tags other than plain scalars, lists and mappings, more than `max_nodes` values, nesting
    deeper than `max_depth`, a key given twice in one mapping and a key that is not a plain
    value.
    """
    try:
        parser = _EventParser(text)  # the C parser encodes the text to UTF-8 first
    except UnicodeEncodeError as exc:  # a lone surrogate, which only a JSON string can carry
        line = text.count("\n", 0, exc.start) + 1
        column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        raise error(f"{origin}:{line}:{column}: the character U+{ord(text[exc.start]):04X} (half "
                    f"of a UTF-16 surrogate pair, not a character) may not appear in a {what}; "
                    "remove it.") from None
    try:
        return _plain_data(parser, origin, error, max_nodes, max_depth)
    except yaml.constructor.ConstructorError as exc:
        raise error(
            f"{_mark_at(origin, exc.problem_mark)}: {exc.problem}. A {what} is plain data: tags "
            "such as !!python/... are never run or accepted; write the value as a plain "
            "string, number, list or mapping.") from None
    except _Refused as exc:
        raise error(f"{_mark_at(origin, exc.problem_mark)}: {exc.problem}.") from None
    except yaml.reader.ReaderError as exc:
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise error(f"{origin}:{line}:{column}: the character U+{char:04X} (a control "
                    f"character) may not appear in YAML; a {what} is plain text: remove it, or "
                    "write it as an escape inside double quotes.") from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        if "maximum nesting depth" in problem:  # libyaml's own bound (1000), met scanning ahead
            raise error(f"{_mark_at(origin, getattr(exc, 'problem_mark', None))}: lists and "
                        f"mappings are nested more than {max_depth} deep.") from None
        raise error(f"{_mark_at(origin, getattr(exc, 'problem_mark', None))}: invalid YAML: "
                    f"{problem}. Fix the syntax at that spot (indentation, a missing ':' or an "
                    "unclosed quote or bracket).") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer with 100,000 digits
        raise error(f"{origin}: a value cannot be read ({exc}).") from None
    finally:
        parser.dispose()


class _Open:
    """A mapping or list being filled while the events stream by."""

    __slots__ = ("items", "key", "path", "seen")

    def __init__(self, items: dict | list, path: Path_):
        self.items = items
        self.path = path
        self.key: Any = _Open  # the key waiting for its value (_Open itself: none)
        self.seen: dict[Any, int] = {}  # a mapping's keys so far, with their lines


def _plain_data(parser, origin: str, error: type[YzError], max_nodes: int,
                max_depth: int) -> tuple[Any, dict[Path_, Mark]]:
    marks: dict[Path_, Mark] = {}
    stack: list[_Open] = []
    root: Any = None
    nodes = 0
    parser.get_event()  # the stream's start
    if isinstance(parser.peek_event(), yaml.StreamEndEvent):
        return None, marks
    parser.get_event()  # the document's start
    while True:
        event = parser.get_event()
        kind = type(event)
        if kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            stack.pop()
            continue
        if kind is yaml.DocumentEndEvent:
            break
        if kind is yaml.AliasEvent or event.anchor is not None:
            raise _Refused(event.start_mark, "YAML anchors (&name) and aliases (*name) are not "
                           "accepted; write each value out in full")
        nodes += 1
        if nodes > max_nodes:
            raise _Refused(event.start_mark, f"more than {max_nodes:,} values; this is far "
                           "more than any rule set or scorecard needs")
        if len(stack) >= max_depth:
            raise _Refused(event.start_mark, f"lists and mappings are nested more than "
                           f"{max_depth} deep")
        start = event.start_mark
        where = (origin, start.line + 1, start.column + 1)
        parent = stack[-1] if stack else None
        if parent is not None and parent.key is _Open and type(parent.items) is dict:
            if kind is not yaml.ScalarEvent:
                raise _Refused(start, "a mapping key must be a plain value (a name or a "
                               "number), not a list or mapping")
            key = _scalar(event)
            if key in parent.seen:
                raise error(f"{where[0]}:{where[1]}:{where[2]}: {_dotted((*parent.path, key))}: "
                            f"the key '{key}' appears twice in one mapping (first on line "
                            f"{parent.seen[key]}); keep one.")
            parent.seen[key] = where[1]
            parent.key = key
            marks[(*parent.path, key)] = where
            continue
        if kind is yaml.ScalarEvent:
            value: Any = _scalar(event)
        else:
            mapping = kind is yaml.MappingStartEvent
            if event.tag not in (*_PLAIN_TAGS, _TAG + ("map" if mapping else "seq")):
                raise yaml.constructor.ConstructorError(
                    None, None, f"could not determine a constructor for the tag {event.tag!r}",
                    start)
            value = {} if mapping else []
        if parent is None:
            root, path = value, ()
            marks[()] = where
        elif type(parent.items) is dict:
            path = (*parent.path, parent.key)
            parent.items[parent.key] = value
            parent.key = _Open
        else:
            path = (*parent.path, len(parent.items))
            parent.items.append(value)
            marks[path] = where
        if kind is not yaml.ScalarEvent:
            stack.append(_Open(value, path))
    event = parser.get_event()
    if not isinstance(event, yaml.StreamEndEvent):
        raise _Refused(event.start_mark, "expected a single document in the stream, but found "
                       "another document; a file holds one rule set or card")
    return root, marks


_FIRST_CHARS = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k)  # of non-strings
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")


def _scalar(event: yaml.ScalarEvent) -> Any:
    """The plain value of a scalar, resolved as the safe loader resolves it (the commonest
    cases, a name or a decimal number, without its machinery)."""
    tag = event.tag
    value = event.value
    if tag in _PLAIN_TAGS:
        plain = event.implicit[0]
        if not plain or (value and value[0] not in _FIRST_CHARS):
            return value  # quoted, or a plain scalar that no other kind starts with
        tag = _RESOLVER.resolve(yaml.ScalarNode, value, event.implicit)
        if tag == _TAG + "int" and _DECIMAL.match(value):
            return int(value)
    if tag == _TAG + "str":
        return value
    if tag not in _SCALAR_TAGS:
        raise yaml.constructor.ConstructorError(
            None, None, f"could not determine a constructor for the tag {tag!r}",
            event.start_mark)
    node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark, event.style)
    return _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)


def _mark_at(origin: str, mark: yaml.Mark | None) -> str:
    return f"{origin}:{mark.line + 1}:{mark.column + 1}" if mark else origin


# ---------------------------------------------------------------- YAML with positions


def _parse(text: str, origin: str) -> tuple[dict, dict[Path_, Mark]]:
    """Safe-load YAML and record where every key and list item stands."""
    data, marks = parse_yaml(text, origin, "rule file", RulesError)
    return _rule_mapping(data, origin), marks


def _rule_mapping(data: Any, origin: str) -> dict:
    """The data of a rule file, which must be a mapping."""
    if data is None:
        raise RulesError(f"{origin}: the file is empty; a rule file is a mapping with at least "
                         "`categories` (or `extends`).")
    if not isinstance(data, dict):
        raise RulesError(f"{origin}: a rule file must be a mapping of fields (name, dice, "
                         f"categories, ...), not a {type(data).__name__}.")
    return data


# ---------------------------------------------------------------- extends


def _apply_extends(raw: dict, raw_marks: dict[Path_, Mark], origin: str, base_dir: Path,
                   chain: tuple[str, ...], typos: list[tuple[str, str]] | None = None
                   ) -> tuple[dict, dict[Path_, Mark]]:
    """The file merged onto the rule set it extends. An entry of `categories` that looks like
    a misspelt inherited box is left out, and said in `typos` as (its key, what to say), then
    listed with the other problems of the file (`_validate`); or refused at once without it
    (a file extended by another)."""
    parent_spec = raw.get("extends")
    removals = raw.get("remove_categories")
    if parent_spec is None:
        if removals is not None:
            raise RulesError(f"{_at(raw_marks, ('remove_categories',), origin)}: "
                             "remove_categories: only a file with `extends` can remove boxes of "
                             "the rule set it starts from; list the categories you want instead.")
        _check_box_count(raw, raw_marks, origin)
        return {k: v for k, v in raw.items() if k != "extends"}, raw_marks
    if not isinstance(parent_spec, str):
        raise RulesError(f"{_at(raw_marks, ('extends',), origin)}: extends: give one built-in name "
                         "or a path to a YAML file, as a string.")
    _check_box_count(raw, raw_marks, origin)
    parent, parent_marks, _ = _resolve(parent_spec, chain, base_dir)
    data = {k: v for k, v in parent.items() if k not in NOT_INHERITED}
    plan = _MarkPlan({p: m for p, m in parent_marks.items() if not p or p[0] not in NOT_INHERITED},
                     raw_marks)
    for key, value in raw.items():
        if key in ("extends", "remove_categories"):
            continue
        if key == "joker" and isinstance(value, str):  # `joker: free` keeps the inherited
            value = {"mode": value}                     # full_value boxes
            plan.put(("joker", "mode"), raw_marks[("joker",)])
        if key == "categories" and isinstance(value, list) and isinstance(data.get(key), list):
            _merge_categories(data, value, raw_marks, plan, typos)
        elif key in MERGED_SECTIONS and isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
            for sub in value:
                plan.replace((key, sub))
            plan.put((key,), raw_marks[(key,)])
        else:
            data[key] = value
            plan.replace((key,))
    marks = plan.marks()
    # The merged rule set is this file's: a problem of the whole is told here, not in the parent.
    marks.pop((), None)
    if () in raw_marks:
        marks[()] = raw_marks[()]
    if removals is not None:
        _remove_categories(data, marks, removals, raw_marks, origin)
    return data, marks


class _MarkPlan:
    """The marks of a merged rule set: the parent's, with some subtrees (a field, a box, a
    box's field) replaced by the extending file's. Replacements are noted, then applied in one
    pass, so merging costs time in proportion to the marks, whatever the files hold."""

    def __init__(self, parent: dict[Path_, Mark], raw: dict[Path_, Mark]):
        self.parent = parent
        self.raw = raw
        self.dropped: set[Path_] = set()
        self.taken: list[tuple[Path_, Path_]] = []
        self.single: dict[Path_, Mark] = {}

    def replace(self, prefix: Path_, new_prefix: Path_ | None = None) -> None:
        """The file's marks under `prefix` stand at `new_prefix` (default: the same place),
        in place of the parent's there (a prefix of 1 to 3 segments)."""
        new_prefix = prefix if new_prefix is None else new_prefix
        self.dropped.add(new_prefix)
        self.taken.append((prefix, new_prefix))

    def add(self, prefix: Path_, new_prefix: Path_) -> None:
        """The file's marks under `prefix` stand at `new_prefix`, where the parent had none."""
        self.taken.append((prefix, new_prefix))

    def put(self, path: Path_, mark: Mark) -> None:
        self.single[path] = mark

    def marks(self) -> dict[Path_, Mark]:
        under: dict[Path_, list[Path_]] = {}
        for p in self.raw:
            for n in range(1, min(3, len(p)) + 1):
                under.setdefault(p[:n], []).append(p)
        out = {p: m for p, m in self.parent.items()
               if not any(p[:n] in self.dropped for n in range(1, min(3, len(p)) + 1))}
        for prefix, new_prefix in self.taken:
            for p in under.get(prefix, ()):
                out[new_prefix + p[len(prefix):]] = self.raw[p]
        out.update(self.single)
        return out


def _check_box_count(raw: dict, raw_marks: dict[Path_, Mark], origin: str) -> None:
    """Refuse a list of boxes that no rule set can have, before any work on its entries.

    An extending file's entries change inherited boxes or add new ones, and it may remove
    inherited boxes, so more than twice the limit can never make a valid card.
    """
    from .models import MAX_CATEGORIES

    cats = raw.get("categories")
    if isinstance(cats, list) and len(cats) > 2 * MAX_CATEGORIES:
        raise RulesError(f"{_at(raw_marks, ('categories',), origin)}: categories: {len(cats):,} "
                         f"boxes; a rule set has at most {MAX_CATEGORIES}.")


def _merge_categories(data, entries, raw_marks, plan: _MarkPlan,
                      typos: list[tuple[str, str]] | None = None) -> None:
    """Entries whose key names an inherited box change its fields; other entries are appended
    (but a misspelt key: `_apply_extends`)."""
    cats = [dict(c) if isinstance(c, dict) else c for c in data["categories"]]
    by_key = {c.get("key"): i for i, c in enumerate(cats)
              if isinstance(c, dict) and isinstance(c.get("key"), str)}
    own: set[str] = set()
    for j, entry in enumerate(entries):
        key = entry.get("key") if isinstance(entry, dict) else None
        if not isinstance(key, str):
            key = None  # not a usable key: appended as it is, and validation will say why
        if key is not None and key in own:
            m = raw_marks.get(("categories", j, "key")) or raw_marks.get(("categories", j))
            where = f"{m[0]}:{m[1]}:{m[2]}" if m else "categories"
            raise RulesError(f"{where}: categories[{j}].key: '{key}' appears twice in this "
                             "file's categories; give each box once (an entry whose key names "
                             "an inherited box changes that box).")
        if key is not None:
            own.add(key)
        inherited = [k for k in by_key if k not in own]
        if key is not None and key not in by_key and isinstance(entry, dict) and not (
                "pattern" in entry and "score" in entry):
            typo = _typo(key, j, inherited, raw_marks)
            if typo is not None and typos is None:
                raise RulesError(typo)
            if typo is not None:
                typos.append((key, typo))
                continue
        if key is not None and key in by_key:
            i = by_key[key]
            cats[i].update(entry)
            for field_name in entry:
                plan.replace(("categories", j, field_name), ("categories", i, field_name))
        else:
            cats.append(entry)
            plan.add(("categories", j), ("categories", len(cats) - 1))
            if key is not None:
                by_key[key] = len(cats) - 1
    data["categories"] = cats


def _typo(key: str, j: int, inherited: list[str], raw_marks: dict[Path_, Mark]) -> str | None:
    """A new box without both `pattern` and `score`, named like an inherited box, is almost
    surely a misspelled key: without this it would be added as an incomplete new box. What
    to say, or None."""
    hint = difflib.get_close_matches(key, inherited, n=1)
    if not hint:
        return None
    m = raw_marks.get(("categories", j, "key")) or raw_marks.get(("categories", j))
    where = f"{m[0]}:{m[1]}:{m[2]}" if m else "categories"
    return (f"{where}: categories[{j}].key: '{key}' is not a box of the rule set being "
            f"extended; did you mean {hint[0]}? (An entry whose key names an inherited box "
            "changes only the fields it gives; a new box needs at least `pattern` and `score`.)")


def _remove_categories(data, marks, removals, raw_marks, origin) -> None:
    if not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
        raise RulesError(f"{_at(raw_marks, ('remove_categories',), origin)}: remove_categories: "
                         "give a list of category keys.")
    cats = data.get("categories")
    if not isinstance(cats, list):
        raise RulesError(f"{_at(raw_marks, ('remove_categories',), origin)}: remove_categories: "
                         "the rule set has no list of categories to remove boxes from; give "
                         "`categories` as a list.")
    keys = [c.get("key") if isinstance(c, dict) else None for c in cats]
    names = [k for k in keys if isinstance(k, str) and k]  # (a key may be any YAML value yet)
    for j, key in enumerate(removals):
        if key not in keys:
            hint = difflib.get_close_matches(key, names, n=1)
            tip = f" Did you mean '{hint[0]}'?" if hint else ""
            raise RulesError(f"{_at(raw_marks, ('remove_categories', j), origin)}: "
                             f"remove_categories[{j}]: '{key}' is not a category of the rule set "
                             f"being extended ({', '.join(names)}).{tip}")
    kept = [i for i, k in enumerate(keys) if k not in removals]
    renumbered = {old_i: new_i for new_i, old_i in enumerate(kept)}
    moved = {}
    for p, m in marks.items():
        if p[:1] != ("categories",) or len(p) < 2:
            moved[p] = m
        elif p[1] in renumbered:  # a removed box's marks go with it
            moved[("categories", renumbered[p[1]], *p[2:])] = m
    if not kept and raw_marks.get(("remove_categories",)) is not None:
        # Every inherited box removed: a card left empty is the removal's doing, told there.
        moved[("categories",)] = raw_marks[("remove_categories",)]
    marks.clear()
    marks.update(moved)
    data["categories"] = [cats[i] for i in kept]


# ---------------------------------------------------------------- validation


def _mark_of(marks: dict[Path_, Mark], path: Path_) -> Mark | None:
    """The mark of the deepest recorded ancestor of `path`."""
    for cut in range(len(path), -1, -1):
        m = marks.get(tuple(path[:cut]))
        if m:
            return m
    return None


def _at(marks: dict[Path_, Mark], path: Path_, origin: str) -> str:
    """`file:line:col` of the deepest recorded ancestor of `path`."""
    m = _mark_of(marks, path)
    return f"{m[0]}:{m[1]}:{m[2]}" if m else origin


# A rule file's problems are listed up to this many, then counted: the first ones are what to
# fix, and a file with thousands (a pasted list of unknown keys) is answered at once.
MAX_LISTED_PROBLEMS = 20


# No list of a valid rule file is longer (`any_of` takes up to 64 sets) and no mapping has more
# fields; anything bigger is refused before validation, which would look at every item.
MAX_LIST_ITEMS = 64
MAX_MAPPING_FIELDS = 32


def _validate(data: dict, marks: dict[Path_, Mark], origin: str,
              first: Sequence[tuple[str, str]] = ()) -> RuleSet:
    """The rule set, or one RulesError listing every field and cross-field problem (after
    `first`, the file's misspelt box keys: (key, what to say); their entries were left out,
    so a box naming one is not said to name an unknown box as well)."""
    _refuse_oversized(data, marks, origin)
    said = [message for _key, message in first]
    left_out = [unknown_box(key) for key, _message in first]

    def unsaid(found: list) -> list:
        return [p for p in found if not any(text in p[1] for text in left_out)]

    try:
        rules = RuleSet.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
    else:
        if not first:
            return rules
        errors = []  # (a file with a misspelt key is not a rule set, whatever the rest)
    problems = unsaid([p for err in errors for p in _rule_problems(err)])
    field_errors = _without_echoes([err for err in errors if not _rule_problems(err)])
    if len(said) == 1 and not field_errors and not problems:
        raise RulesError(said[0])  # (as a file extended by another says it)
    lines, broken = said[:MAX_LISTED_PROBLEMS], set()
    for err in field_errors:
        path = _data_path(data, err["loc"])
        broken.add(path[:2] if path[:1] == ("categories",) else path[:1])
        if len(lines) < MAX_LISTED_PROBLEMS:  # explaining is the costly part: only those shown
            lines.append(f"{_at(marks, path, origin)}: {_dotted(path)}: "
                         f"{_explain(err, path, data)}{_box_named(path, data)}")
    if field_errors:
        problems = unsaid(_problems_despite(data, broken))
    for path, msg, causes in problems[:max(0, MAX_LISTED_PROBLEMS - len(lines))]:
        lines.append(_located(marks, path, msg, causes, origin) + _box_named(path, data))
    total = len(said) + len(field_errors) + len(problems)
    if total > len(lines):
        lines.append(f"... and {total - len(lines):,} more (fix these first)")
    count = f"{total:,} problems" if total > 1 else "1 problem"
    raise RulesError(f"{origin}: {count} in the rule set:\n  " + "\n  ".join(lines),
                     problems=lines) from None


def _refuse_oversized(data: dict, marks: dict[Path_, Mark], origin: str) -> None:
    """RulesError at the first list or mapping bigger than any a rule set has."""

    def check(value: Any, path: Path_) -> None:
        if isinstance(value, dict):
            if len(value) > MAX_MAPPING_FIELDS:
                known = _allowed_fields(data, (*path, ""))
                unknown = [k for k in value if k not in known]
                # At the first unknown key: in a file that extends another, the mapping's own
                # place may be the other file's, and the keys in excess are this one's.
                where = _at(marks, (*path, unknown[0]) if unknown else path, origin)
                raise RulesError(
                    f"{where}: {_dotted(path)}: {len(unknown):,} unknown fields, far more "
                    f"than a mistake or two (allowed here: {', '.join(known)}); the first "
                    f"ones are {', '.join(repr(k)[:40] for k in unknown[:3])}.")
            for key, item in value.items():
                check(item, (*path, key))
        elif isinstance(value, list):
            if len(value) > MAX_LIST_ITEMS:
                raise RulesError(f"{_at(marks, path, origin)}: {_dotted(path)}: a list of "
                                 f"{len(value):,} items; no list in a rule set has more than "
                                 f"{MAX_LIST_ITEMS}.")
            for i, item in enumerate(value):
                check(item, (*path, i))

    check(data, ())


def _rule_problems(err: dict) -> list:
    ctx_error = (err.get("ctx") or {}).get("error")
    return ctx_error.problems if isinstance(ctx_error, RuleProblems) else []


def _without_echoes(errors: list[dict]) -> list[dict]:
    """Drop "too short" for a list whose items failed: it only echoes their errors."""
    item_lists = {err["loc"][:-1] for err in errors if err["loc"] and
                  isinstance(err["loc"][-1], int)} | {
        err["loc"][:i] for err in errors for i, seg in enumerate(err["loc"])
        if isinstance(seg, int)}
    return [err for err in errors if not (err["type"] == "too_short" and
                                          tuple(err["loc"]) in item_lists)]


def _problems_despite(data: dict, broken: set[Path_]) -> list:
    """The cross-field problems of the fields that did validate, so one run lists them all.

    Broken fields are left out (defaults apply) and broken boxes stand in as plain boxes;
    a problem that concerns or depends on a broken field is not reported.
    """
    cats = data.get("categories")
    if ("categories",) in broken or not isinstance(cats, list):
        return []
    repaired = {k: v for k, v in data.items() if (k,) not in broken}
    repaired.setdefault("name", "unnamed")
    repaired["categories"] = [_stand_in(c, i) if ("categories", i) in broken else c
                              for i, c in enumerate(cats)]
    try:
        RuleSet.model_validate(repaired)
    except ValidationError as exc:
        return [(path, msg, causes) for err in exc.errors()
                for path, msg, causes in _rule_problems(err)
                if not any(p[:n] in broken for p in (path, *causes) for n in range(1, 3))]
    return []


def _stand_in(entry: Any, i: int) -> dict:
    """A valid box in place of a broken one, keeping its key so references still resolve."""
    from .models import KEY_RE

    entry = entry if isinstance(entry, dict) else {}
    key = entry.get("key")
    usable = isinstance(key, str) and len(key) <= 40 and KEY_RE.match(key)
    section = entry.get("section")
    return {"key": key if usable else f"invalid_box_{i}",
            "section": section if section in ("upper", "lower") else "lower",
            "pattern": "any", "score": "sum_all"}


def _box_named(path: Path_, data: Any) -> str:
    """' (box KEY)' after a problem inside a box past the first: a file that extends another
    adds its boxes after the inherited ones, so its first box is not categories[0]."""
    if len(path) < 2 or path[0] != "categories" or not isinstance(path[1], int) or not path[1]:
        return ""
    cats = data.get("categories") if isinstance(data, dict) else None
    box = cats[path[1]] if isinstance(cats, list) and path[1] < len(cats) else None
    key = box.get("key") if isinstance(box, dict) else None
    return f" (box '{key[:40]}')" if isinstance(key, str) and key else ""


def _located(marks: dict[Path_, Mark], path: Path_, msg: str, causes: tuple[Path_, ...],
             origin: str) -> str:
    """One cross-field problem, at the user's own field when an inherited box breaks only
    because of something the user's file set (`dice: 1` and the inherited Full House)."""
    here = _mark_of(marks, path)
    if here is None or here[0] != origin:
        for cause in causes:
            m = marks.get(cause)
            if m and m[0] == origin:
                inherited = f"{here[0]}:{here[1]}:{here[2]}" if here else "the rule set extended"
                return (f"{m[0]}:{m[1]}:{m[2]}: {_dotted(path)}: {msg} (because of "
                        f"{_dotted(cause)} here; the box comes from {inherited})")
    return f"{_at(marks, path, origin)}: {_dotted(path)}: {msg}"


def _data_path(data: Any, loc: tuple) -> Path_:
    """The part of a pydantic error location that names real YAML keys and list items.

    Pydantic puts a discriminated union's tag (the `kind`) right after the field that holds
    the union; it is skipped even when a field has the same name (`kind: face, face: 2`).
    """
    out: list[str | int] = []
    cur = data
    tag_next = False
    for seg in loc:
        if tag_next and seg == _tag_of(cur):
            tag_next = False
            continue
        tag_next = False
        in_list = isinstance(cur, list) and isinstance(seg, int) and seg < len(cur)
        if (isinstance(cur, dict) and seg in cur) or in_list:
            out.append(seg)
            cur = cur[seg]
            tag_next = _tag_of(cur) is not None
        elif isinstance(seg, str) and not isinstance(cur, list) and "[" not in seg:
            out.append(seg)  # a missing or extra field: name it
            break
    return tuple(out)


def _tag_of(value: Any) -> str | None:
    """The `kind` a pattern or score value selects, written out or as a shorthand."""
    if isinstance(value, dict):
        return value.get("kind") if isinstance(value.get("kind"), str) else None
    if isinstance(value, bool):
        return None
    return "fixed" if isinstance(value, int) else value if isinstance(value, str) else None


FIELDS_HELP = {
    "pattern": "kinds: face, of_a_kind, groups, straight, all_same, any, total, either, both",
    "patterns": "kinds: face, of_a_kind, groups, straight, all_same, any, total, either, both",
    "score": "kinds: sum_all, sum_matched, face_total, fixed (with points)",
}
# Kinds a person may reach for that yz spells otherwise.
KIND_HINTS = {"any_of": "either", "one_of": "either", "or": "either", "all_of": "both",
              "and": "both", "sum": "total"}


def _explain(err: dict, path: Path_, data: Any) -> str:
    kind = err["type"]
    msg = err["msg"]
    if kind == "extra_forbidden":
        allowed = [a for a in _allowed_fields(data, path) if not path or a != path[-1]]
        hint = difflib.get_close_matches(str(path[-1]), allowed, n=1) if path else []
        tip = f"; did you mean '{hint[0]}'?" if hint else ""
        return f"unknown field (allowed here: {', '.join(allowed)}){tip}"
    if kind == "missing":
        return "this field is required"
    if kind == "tuple_type":
        return "should be a list, e.g. [a, b]"
    if kind == "too_short" and path == ("categories",):
        return "a rule set needs at least one box (none is left)"
    if kind == "union_tag_not_found":
        field_name = next((str(p) for p in reversed(path) if isinstance(p, str)), "")
        return (f"no `kind` given ({FIELDS_HELP.get(field_name, '')}); a {field_name} in an "
                "extending file replaces the inherited one whole, so give its kind too")
    if kind == "union_tag_invalid":
        field_name = next((str(p) for p in reversed(path) if isinstance(p, str)), "")
        tag = (err.get("ctx") or {}).get("tag")
        if field_name == "patterns" and tag in COMBINED_KINDS:
            return (f"'{tag}' is nested too deep: combined patterns nest at most "
                    f"{MAX_PATTERN_DEPTH} deep (a combined pattern may hold combined patterns, "
                    "and theirs must be plain: face, of_a_kind, groups, straight, all_same, "
                    "any, total); write the condition with fewer levels")
        hint = f"; did you mean '{KIND_HINTS[tag]}'?" if tag in KIND_HINTS else ""
        return f"{msg} ({FIELDS_HELP.get(field_name, '')}){hint}"
    return msg


def _allowed_fields(data: Any, path: Path_) -> list[str]:
    """Field names allowed in the mapping that holds `path[-1]` (by model, or by `kind`)."""
    from . import models

    parent: Any = data
    for seg in path[:-1]:
        parent = parent[seg] if isinstance(parent, dict | list) else None
    names = [p for p in path[:-1] if isinstance(p, str)]
    if isinstance(parent, dict) and names[-1:] in (["pattern"], ["patterns"], ["score"]):
        union = models.Scoring if names[-1] == "score" else models.Pattern
        for cls in typing.get_args(typing.get_args(union)[0]):
            if parent.get("kind") in typing.get_args(cls.model_fields["kind"].annotation):
                return list(cls.model_fields)
        return ["kind"]
    model: Any = {
        "categories": models.Category, "upper_bonus": models.UpperBonus,
        "yahtzee_bonus": models.YahtzeeBonus, "joker": models.Joker,
    }.get(names[0] if names else "", models.RuleSet)
    fields = list(model.model_fields)
    if model is models.RuleSet:
        fields += ["extends", "remove_categories"]
    return fields
