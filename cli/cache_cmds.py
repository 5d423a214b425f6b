"""`yz cache ...`: yz's files in the cache folder; and `yz warmup`, which compiles the solver's
kernels once for the whole installation."""

from __future__ import annotations

from typing import Annotated

import typer
from yz.rules import YzError

from . import data, render
from .app import JsonOpt, QuietOpt, app, cache_app, emit_json, handles_errors
from .report import TerminalReporter


@cache_app.command("list")
@handles_errors
def cache_list(as_json: JsonOpt = False) -> None:
    """List the solved strategies in the cache, and the compiled kernels.

    $YZ_CACHE_DIR moves the cache folder ($NUMBA_CACHE_DIR the kernels').
    """
    from yz.solver import cache, kernel_cache

    items, kernels = cache.entries(), kernel_cache.kernel_folders()
    if as_json:
        emit_json(data.cache_json(cache.cache_dir(), items, kernels))
    else:
        typer.echo(render.cache_text(cache.cache_dir(), items, kernels))


@cache_app.command("clear")
@handles_errors
def cache_clear(
    variant: Annotated[str | None, typer.Argument(
        metavar="VARIANT", show_default=False,
        help="Only this rule set's files (its name, as `yz cache list` shows it).")] = None,
    stale: Annotated[bool, typer.Option(
        "--stale", help="Only files of older formats, damaged files and leftovers of "
        "interrupted solves.")] = False,
    kernels: Annotated[bool, typer.Option(
        "--kernels", help="Only the kernels other versions of yz or numba compiled (not "
        "this version's, nor a folder written to in the last hour; another installation "
        "still using one compiles again).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete yz's files from the cache folder.

    Only files whose names yz writes are touched, whatever else the folder holds; with
    --kernels, only files numba and yz write in the compiled-kernel folders.
    """
    from yz.solver import cache, kernel_cache

    if kernels:
        if variant is not None or stale:
            raise typer.BadParameter("--kernels goes alone: other versions' compiled kernels "
                                     "belong to no rule set and are all stale.",
                                     param_hint="'--kernels'")
        root, gone = kernel_cache.kernel_cache_root(), kernel_cache.clear_stale_kernels()
        if as_json:
            emit_json(data.kernels_cleared_json(root, gone))
        else:
            typer.echo(render.kernels_cleared_text(root, gone))
        return

    if variant is not None and not any(e.variant == variant for e in cache.entries()):
        present = sorted({e.variant for e in cache.entries() if e.variant != "-"})
        raise YzError(f"the cache holds no files of '{variant}'"
                      + (f"; it has files of {', '.join(present)}." if present
                         else "; it holds no solved rule sets.")
                      + " `yz cache list` shows them.")
    removed = cache.clear(variant, stale_only=stale)
    if as_json:
        emit_json({"cache_dir": str(cache.cache_dir()), "removed": len(removed),
                   "files": [p.name for p in removed]})
    else:
        typer.echo(f"removed {len(removed)} file(s) from {cache.cache_dir()}")


@app.command("warmup")
@handles_errors
def warmup_cmd(quiet: QuietOpt = False) -> None:
    """Compile the solver's kernels now.

    Once for this installation: otherwise each kind of work compiles its kernels the first time
    it is asked for (seconds to tens of seconds each). A package build or a new user can run
    this once to have them all ready.
    """
    from yz.solver import warm_up

    done, kinds = warm_up(TerminalReporter(bars=not quiet, notes=not quiet))
    typer.echo(f"compiled {done} kind(s) of kernels; all {kinds} are ready"
               if done else f"all {kinds} kinds of kernels were compiled already")
