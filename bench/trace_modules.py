"""How often following one piece of work goes back into a module it already left.

Runs a piece of work under `sys.setprofile` and records every call from one yz module into another
(`yz.solver.dp` -> `yz.solver.layout`, say). A call into a module that *another* module had
entered before is a return to a module already left: the reader following the work has to go
back to a file read before, from a new place. Each distinct (caller, callee) edge is counted
once (a loop over layers repeats the same edge; it is one place in the code), and so is a
hub calling the modules of each step in turn (`model` -> `exact` for the moments, then for
the figures). Two counts: calls to module-level functions (the flow of the work), and all
calls, including methods and properties of records (`RuleTables.n_categories`,
`StateLayout.size`: reading data).

    python bench/trace_modules.py              # Model(...).solve() and .figures(), this checkout
    python bench/trace_modules.py --api old    # the figures through the functions before it

Run it from the checkout's virtualenv (or another checkout's, for a before/after pair); the
kernels are compiled first, outside the trace.
"""

from __future__ import annotations

import argparse
import sys


def new_solve() -> None:
    from yz.solver import Model

    Model("no-bonus", use_cache=False).solve()


def new_api() -> None:
    from yz.solver import Model

    Model("no-bonus", use_cache=False).figures()


def old_api() -> None:
    """Before issue 21 (847cd9e): the same figures through the functions the CLI called."""
    from yz.rules import compile_rules, load_rules
    from yz.solver import exact_figures, solve

    exact_figures(solve(compile_rules(load_rules("no-bonus")), use_cache=False),
                  use_cache=False)


WORK = {"new": {"solve()": new_solve, "figures()": new_api}, "old": {"figures": old_api}}


def module_of(frame) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name.startswith("yz.") else None


def trace(work, functions_only: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """(modules in the order first entered, the distinct calls back into a module that
    another module had entered first)."""
    first_caller: dict[str, str] = {}
    edges: set[tuple[str, str]] = set()
    back: list[tuple[str, str]] = []

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = module_of(frame)
        caller = module_of(frame.f_back) if frame.f_back is not None else None
        if callee is None or caller is None or callee == caller:
            return
        if functions_only and "." in frame.f_code.co_qualname:  # a method or a property
            return
        edge = (caller, callee)
        if edge in edges:
            return
        edges.add(edge)
        first_caller.setdefault(caller, "")
        if callee in first_caller and first_caller[callee] != caller:
            back.append(edge)
        first_caller.setdefault(callee, caller)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return list(first_caller), back


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=sorted(WORK), default="new", help="new: Model(...)"
                        ".solve() and .figures(); old: the figures through the functions "
                        "before issue 21 (run it on 847cd9e).")
    args = parser.parse_args()
    for name, work in WORK[args.api].items():
        work()  # compile the kernels outside the trace
        print(f"{name}:")
        for functions_only, what in ((True, "module functions"), (False, "all calls")):
            entered, back = trace(work, functions_only)
            print(f"  {what}: {len(entered)} modules entered, {len(back)} returns to a module "
                  "already left")
            for caller, callee in back:
                print(f"    {caller} -> {callee}")


if __name__ == "__main__":
    main()
