"""Yahtzee-family rule sets as data: YAML -> frozen pydantic models -> flat numpy tables."""

from .errors import InputError, RulesError, SolverError, WorkTooLong, YzError
from .loader import builtin_names, example_names, load_rules, rule_schema, rules_from_text
from .models import RuleSet
from .tables import RuleTables, compile_rules

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
