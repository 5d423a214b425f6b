"""Rule sets as `yz serve` takes them: a built-in by name, or pasted YAML read under tight bounds.

A pasted rule set is read once, by the loader's event parser with this server's bounds on
values and nesting (a hostile text is refused at the event that crosses one, before the rest
is read), may only `extends` a built-in or a shipped example (never a path on the server),
and must be small enough to build its tables in well under a second. A rule set whose solve
would take longer than the server allows (`Model.prepare_seconds`, estimated from its size) is
refused with the estimate and how to play it anyway, unless yz's cache already holds it or the
server was given a store of it (`WebSettings.stores`: the folder of its finished layered
solve, read row by row as the games need: `solver.store`), whatever its size. A store's rule
file that is not a built-in is listed under its own name.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict

from yz.rules import InputError, RulesError, YzError
from yz.solver import Model
from yz.solver.budget import duration
from yz.solver.report import SILENT, Reporter

from .settings import MAX_YAML_DEPTH, MAX_YAML_NODES, WebSettings
from .solving import Busy, with_distribution

PASTED = "<pasted rules>"
MAX_ROLLS = 1_300  # distinct rolls (multisets of the dice): 8 dice of 6 faces, tables in 0.5 s
MAX_DISTRIBUTION_MEMORY = 4 << 30
KEPT_MODELS = 64
BUILDS_AT_ONCE = 2  # rule sets built at once (each takes up to a second of CPU)
BUILDS_WAITING = 2  # more waiting for their turn get a 429 at once


class RuleSets:
    """Models of rule references, checked against the server's limits; the model (with what
    it has solved), or the refusal, memoised."""

    def __init__(self, settings: WebSettings, report: Reporter = SILENT) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._models: OrderedDict[tuple, Model | YzError] = OrderedDict()
        self._builds = threading.BoundedSemaphore(BUILDS_AT_ONCE)
        self._building = 0  # builds running or waiting
        self._listing: list[dict] = []
        self.served: dict[str, object] = {}  # name -> RuleSet of a store's rule file
        self.stores: dict[str, object] = {}  # tables digest -> Solution read from its store
        self._open_stores(report)

    def _open_stores(self, report: Reporter) -> None:
        """The stores the server was given, each checked (a finished layered solve of its rule
        set: StoreError with the reason otherwise) and opened: nothing of it is read yet."""
        from yz.rules import load_rules

        names = _shipped_names()
        for ref, folder in self.settings.stores:
            rules = load_rules(ref)
            if ref not in names:  # a rule file: listed by its rule set's name
                if rules.name in names:
                    raise RulesError(f"store: the rule file {ref} names its rule set "
                                     f"'{rules.name}', as a built-in is named; give it a name "
                                     "of its own (its name: line) to serve it here.",
                                     param="store")
                self.served[rules.name] = rules
            model = Model(rules, report=report)
            self.stores[model.tables.digest] = model.store_solution(folder)

    def from_store(self, model: Model) -> bool:
        """Whether this server plays the rule set from a store of its values."""
        return model.tables.digest in self.stores

    def model(self, variant: str | None, yaml: str | None, queue: bool = False) -> Model:
        """The model of a built-in (`variant`) or of pasted YAML text, one of them; Busy when
        too many rule sets are being built, unless `queue` (then it waits its turn)."""
        if (variant is None) == (yaml is None):
            raise InputError("rules: give either variant (a built-in name) or yaml (the text "
                             "of a rule set), one of them.", param="rules")
        key = ("variant", variant) if variant is not None else \
            ("yaml", hashlib.sha256(yaml.encode("utf-8", "surrogatepass")).hexdigest())
        with self._lock:
            hit = self._models.get(key)
            if hit is not None:
                self._models.move_to_end(key)
        if hit is None:
            hit = self._build(key, variant, yaml, queue)
        if isinstance(hit, YzError):  # the same text is refused again without the work
            raise hit
        return hit

    def _build(self, key: tuple, variant: str | None, yaml: str | None, queue: bool):
        """The model, or the error refusing it, kept for the next request."""
        with self._lock:
            if not queue and self._building >= BUILDS_AT_ONCE + BUILDS_WAITING:
                raise Busy("the server is busy reading other rule sets; try again in a "
                           "moment.", param="rules")
            self._building += 1
        try:
            with self._builds:
                hit = build_model(variant, yaml, self.settings, self.served, self.stores)
        except YzError as exc:
            hit = exc.with_traceback(None)
        finally:
            with self._lock:
                self._building -= 1
        with self._lock:
            self._models[key] = hit
            while len(self._models) > KEPT_MODELS:
                self._models.popitem(last=False)
        return hit

    def listing(self) -> list[dict]:
        """The built-ins, shipped examples and stores' rule files, each marked playable here
        or not and why, and whether it is played from a store."""
        if not self._listing:  # shipped files: read once (two first requests both read them)
            from yz.rules import load_rules

            rows = []
            for name in [*_shipped_names(), *self.served]:
                try:  # (the model's rules: each file read once)
                    model, why = self.model(name, None, queue=True), None
                    rules = model.rules
                except YzError as exc:
                    model, why = None, str(exc)
                    rules = self.served.get(name) or load_rules(name)
                rows.append({"variant": name, "name": rules.name, "boxes": len(rules.categories),
                             "description": rules.description, "playable": model is not None,
                             "store": model is not None and self.from_store(model),
                             **({"why": why} if why is not None else {})})
            self._listing[:] = rows
        return self._listing


def build_model(variant: str | None, yaml: str | None, settings: WebSettings,
                served: dict | None = None, stores: dict | None = None) -> Model:
    """Load, check and compile a rule reference (a built-in, a store's rule set by its name
    in `served`, or pasted text); refuse what is too big before the work, unless `stores`
    has its values (by the tables' digest)."""
    from yz.rules import load_rules

    served = served or {}
    if variant is not None and variant in served:
        rules = served[variant]
    else:
        rules = load_rules(_builtin(variant, served)) if variant is not None \
            else pasted_rules(yaml)
    rolls = math.comb(rules.dice + rules.faces - 1, rules.dice)
    if rolls > MAX_ROLLS:
        raise RulesError(f"{rules.name}: {rules.dice} dice of {rules.faces} faces make "
                         f"{rolls:,} distinct rolls; this server plays games of up to "
                         f"{MAX_ROLLS:,} (fewer dice or faces); play it with "
                         f"{_offline(settings, variant)}.", param="rules")
    model = Model(rules)
    if model.tables.digest not in (stores or {}):  # (a store is played whatever its size)
        _check_solvable(model, settings, variant)
    return model


def _shipped_names() -> list[str]:
    from yz.rules import builtin_names, example_names

    return [*builtin_names(), *(f"example:{n}" for n in example_names())]


def _builtin(variant: str, served: dict | None = None) -> str:
    names = _shipped_names()
    if variant not in names:
        raise RulesError(f"variant: '{variant}' is not a built-in rule set; the built-ins are "
                         f"{', '.join([*names, *(served or {})])} (paste a rule set's text to "
                         "play your own).", param="rules")
    return variant


def pasted_rules(text: str):
    """A pasted rule set, read once under this server's bounds."""
    from yz.rules import builtin_names, example_names
    from yz.rules.loader import parse_yaml, rules_from_data

    data, marks = parse_yaml(text, PASTED, "rule set", RulesError, max_nodes=MAX_YAML_NODES,
                             max_depth=MAX_YAML_DEPTH)
    if isinstance(data, dict):
        names = [*builtin_names(), *(f"example:{n}" for n in example_names())]
        parent = data.get("extends")
        if parent is not None and parent not in names:
            raise RulesError(f"{PASTED}: extends: a pasted rule set may only extend a built-in "
                             f"({', '.join(names)}), not {parent!r}.", param="rules")
        if "name" not in data:
            raise RulesError(f"{PASTED}: name: give the rule set a name on a line of its own, "
                             "e.g. name: my-house.", param="rules")
    return rules_from_data(data, marks, PASTED)


def _check_solvable(model: Model, settings: WebSettings, variant: str | None) -> None:
    """Refuse a rule set whose solve would take longer than the server allows, or more
    memory than it has, unless yz's cache holds it already (solved on the command line)."""
    if model.is_solved() and (not with_distribution(model) or model.has_distribution()):
        return
    estimate = model.budget.prepare_seconds()
    if estimate > settings.max_solve_seconds:
        rules = variant if variant is not None else "rules.yaml (the pasted text, saved)"
        store = settings.store_command.format(
            rules=rules, time=duration(model.budget.values_seconds()))
        raise RulesError(f"{model.name}: solving it exactly would take about "
                         f"{duration(estimate)} on this machine (estimated from its "
                         f"{model.layout.reachable:,} states), more than this server's limit "
                         f"of {duration(settings.max_solve_seconds)}. To play it here, make a "
                         f"store of its values once: {store}. Or play it with "
                         f"{_offline(settings, variant)}.", param="rules")
    model.budget.check_solve_memory()
    if with_distribution(model):
        model.budget.check_distribution_memory(MAX_DISTRIBUTION_MEMORY)


def _offline(settings: WebSettings, variant: str | None) -> str:
    return settings.offline_command.format(
        rules=variant if variant is not None else "rules.yaml (the pasted text, saved)")


def rules_json(model: Model, from_store: bool = False) -> dict:
    """The rule set as the page shows it; `from_store`: played from a store of its values
    (then without the exact distribution)."""
    t, r = model.tables, model.rules
    return {"variant": r.name, "description": r.description, "dice": r.dice,
            "faces": r.faces, "rolls": r.rolls,
            "categories": [{"key": c.key, "name": c.name, "section": c.section}
                           for c in r.categories],
            "upper_bonus": {"threshold": t.upper_threshold, "amount": t.upper_bonus}
            if t.upper_threshold else None,
            "yahtzee_bonus": t.yahtzee_bonus or None, "joker": r.joker.mode,
            "saved_rolls": r.saved_rolls.model_dump() if r.saved_rolls else None,
            "has_distribution": with_distribution(model) and not from_store,
            "from_store": from_store}
