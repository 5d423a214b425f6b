"""Names a package loads when first used (PEP 562), so importing it, or one small module of
it, costs no more than that: `yz.rules` (the errors without pydantic or numpy) and
`yz.solver` (the kernels' rule module without the solver) both use it."""

from __future__ import annotations

from importlib import import_module


def lazy_names(namespace: dict, where: dict[str, str]):
    """The `__getattr__` and `__dir__` of a package whose names in `where` live in other
    modules (".module" of the package, or an absolute one); each is imported when first asked
    for and then kept in the package's `namespace` (its globals)."""

    def __getattr__(name: str):
        if name in where:
            value = getattr(import_module(where[name], namespace["__name__"]), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace["__all__"]})

    return __getattr__, __dir__
