"""Yahtzee-family rule sets as data: YAML -> frozen pydantic models -> flat numpy tables.

Names are loaded when first used (PEP 562), as in `yz.solver`: the errors cost nothing, the
models (pydantic) and tables (numpy) only what needs them, so `yz --help` or a command's
usage error starts without them.
"""

from __future__ import annotations

from .lazy import lazy_names

TYPE_CHECKING = False  # (not typing's, for the same reason as in `yz.solver`)

# Where each name of the package lives (a module of this package).
_WHERE = {
    "InputError": ".errors", "RulesError": ".errors", "SolverError": ".errors",
    "WorkTooLong": ".errors", "YzError": ".errors",
    "builtin_names": ".loader", "example_names": ".loader", "load_rules": ".loader",
    "rule_schema": ".loader", "rules_from_text": ".loader",
    "RuleSet": ".models",
    "RuleTables": ".tables", "compile_rules": ".tables",
}

__all__ = [
    "InputError",
    "RuleSet",
    "RuleTables",
    "RulesError",
    "SolverError",
    "WorkTooLong",
    "YzError",
    "builtin_names",
    "compile_rules",
    "example_names",
    "load_rules",
    "rule_schema",
    "rules_from_text",
]

if TYPE_CHECKING:
    from .errors import InputError, RulesError, SolverError, WorkTooLong, YzError
    from .loader import builtin_names, example_names, load_rules, rule_schema, rules_from_text
    from .models import RuleSet
    from .tables import RuleTables, compile_rules


__getattr__, __dir__ = lazy_names(globals(), _WHERE)
