"""`yz sweep`: solve a grid of house rules (a sweep file) here or on a Dask cluster."""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Annotated

import typer
from yz.rules import YzError

from . import plots, render
from .app import JsonOpt, QuietOpt, app, emit_json, handles_errors
from .report import TerminalReporter, progress

# The library names its parameters; these are the options that set them here.
SWEEP_FLAGS = {"workers": "--workers", "scheduler": "--scheduler", "out": "--out",
               "checkpoint": "--out", "threads": "--threads"}


def _flag_error(exc: YzError) -> YzError:
    message, param = str(exc), getattr(exc, "param", None)
    label = f"{param}: " if param else None
    if label and param in SWEEP_FLAGS and message.startswith(label):
        return type(exc)(f"{SWEEP_FLAGS[param]}: {message[len(label):]}")
    return exc


@app.command("sweep")
@handles_errors
def sweep_cmd(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The sweep file (YAML): base, "
                                        "axes or points, what.")],
    out: Annotated[str | None, typer.Option(
        "--out", "-o", metavar="FILE", help="Write the table to FILE (.csv or .parquet). Each "
        "finished point is also kept in FILE.partial.jsonl at once, so a re-run solves only the "
        "points not done yet.")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", "-w", metavar="N", help="Processes on this machine [default: its cores, at "
        "most one per point to solve].")] = None,
    threads: Annotated[int | None, typer.Option(
        "--threads", metavar="N", help="Solver threads per worker [default: cores / "
        "workers].")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS", help="Solve on a Dask cluster, e.g. "
        "tcp://host:8786 (needs pip install 'yz[dask]'), instead of local workers.")] = None,
    what: Annotated[str | None, typer.Option(
        "--what", metavar="WHAT", help="mean, figures or distribution: what to compute at each "
        "point [default: the sweep file's `what`, else figures].")] = None,
    plot: Annotated[str | None, typer.Option(
        "--plot", metavar="FILE.png", help="Also plot the expected score (and the median with "
        "its 5-95% band, with `what: distribution`) against each axis (needs matplotlib).")
    ] = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Solve a grid of house rules (a sweep file), point by point.

    Every point is an exact solve, here or on a Dask cluster.

    One row per point: the axis values, then the expected score, SD, P(upper bonus), mean
    Yahtzee bonuses (`what: figures`, the default), the median and 5th/95th percentiles (`what:
    distribution`), states and seconds. Every point is checked before any is solved.
    """
    from yz.rules.sweep_file import WHATS, load_sweep
    from yz.solver import study

    try:
        if out is not None:
            study.check_out_path(out)
        if plot is not None:
            plots.check_plot_target(plot)
        if workers is not None:
            study.check_workers(workers)
            if scheduler is not None:
                raise YzError("--workers: the Dask cluster's workers solve the points with "
                              "--scheduler; give one of --workers and --scheduler.")
        if what is not None and what not in WHATS:
            raise YzError(f"--what: '{what}' is not one of {', '.join(WHATS)}.")
        sweep = load_sweep(file)
        if what is not None:
            sweep = dataclasses.replace(sweep, what=what)
        show = not quiet and not as_json
        checkpoint = study.checkpoint_path(out) if out is not None else None
        todo = len(sweep.points) - len(study.resumed_rows(sweep, checkpoint))
        n = workers if workers is not None else max(1, min(os.cpu_count() or 1, todo))
        if scheduler is None and todo:
            # Compiled here once (and cached on disk), the kernels load in every local worker.
            study.warm_up(sweep.what, TerminalReporter(bars=show, notes=show))
        label = f"sweep {sweep.name or os.path.basename(file)}"
        with progress(label, enabled=show, unit="points") as step:
            frame = study.run_sweep(sweep, checkpoint=checkpoint, workers=n,
                                    scheduler=scheduler, threads=threads, progress=step)
        if out is not None:
            study.write_table(frame, out)
    except YzError as exc:
        raise _flag_error(exc) from None
    plot_error = None
    if plot is not None:
        try:
            plot_sweep(plot, frame, sweep)
        except YzError as exc:
            plot_error = exc
    if as_json:
        emit_json(sweep_json(frame, sweep, out, None if plot_error else plot))
    else:
        typer.echo(sweep_text(frame, sweep))
        if out is not None:
            typer.echo(f"table written to {out}")
        if plot is not None and plot_error is None:
            typer.echo(f"plot written to {plot}")
    if plot_error is not None:
        raise plot_error


def _records(frame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _plain(value):
    """A table cell as a JSON value (numpy scalars as Python numbers, NaN as null)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def sweep_json(frame, sweep, out: str | None, plot: str | None) -> dict:
    return {"sweep": sweep.origin, "name": sweep.name, "base": sweep.base, "what": sweep.what,
            "axes": list(sweep.axes), "points": len(frame), "solved": frame.attrs["solved"],
            "resumed": frame.attrs["resumed"], "rows": _records(frame), "out": out, "plot": plot}


FORMATS = {"expected_score": "{:.4f}", "sd": "{:.4f}", "p_upper_bonus": "{:.4f}",
           "yahtzee_bonus_mean": "{:.4f}", "seconds": "{:.2f}", "states": "{:,}"}


def sweep_text(frame, sweep) -> str:
    headers = list(frame.columns)
    rows = []
    for record in _records(frame):
        rows.append([("-" if v is None else FORMATS.get(k, "{}").format(v))
                     for k, v in record.items()])
    right = {i for i, h in enumerate(headers)
             if h != "point" and (h not in sweep.axes or _numeric(frame[h]))}
    head = (f"{sweep.name or sweep.origin}: {len(frame)} points from {sweep.base} "
            f"({frame.attrs['solved']} solved now, {frame.attrs['resumed']} from the checkpoint)")
    return head + "\n" + render._table(headers, rows, right)


def plot_sweep(path: str, frame, sweep) -> None:
    """One panel per axis: the expected score against the axis, one line per setting of the
    other axes; with the distribution, the median (dashed) and its 5-95% band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from matplotlib.ticker import MaxNLocator

    axes = list(sweep.axes)
    fig, panels = plt.subplots(1, len(axes), figsize=(5.5 * len(axes), 4.5), squeeze=False)
    for ax, axis in zip(panels[0], axes, strict=True):
        others = [a for a in axes if a != axis]
        groups = frame.groupby(others, sort=False, dropna=False) if others else [((), frame)]
        for n, (key, group) in enumerate(groups):
            if n == 10:  # a legend of more lines than this helps nobody
                break
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{a}={v}" for a, v in zip(others, key, strict=True)) or None
            x = _positions(group[axis], frame[axis])
            line, = ax.plot(x, group["expected_score"], marker="o", label=label)
            if "median" in group:
                ax.plot(x, group["median"], linestyle="--", color=line.get_color())
                ax.fill_between(x, group["p5"], group["p95"], color=line.get_color(),
                                alpha=0.12)
        ax.set_xlabel(axis)
        ax.set_ylabel("expected score" + (" (median dashed, 5-95% band)"
                                          if "median" in frame else ""))
        if not _numeric(frame[axis]):
            values = list(dict.fromkeys(frame[axis]))
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif pd.api.types.is_integer_dtype(frame[axis]):  # rolls 2, 3: no tick at 2.5
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if others:
            ax.legend(fontsize="small")
    fig.suptitle(sweep.name or f"{sweep.base}: {sweep.origin}")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise YzError(f"--plot: could not write '{path}' ({exc.strerror or exc}).") from None
    finally:
        plt.close(fig)


def _numeric(column) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _positions(values, column):
    if _numeric(column):
        return list(values)
    order = {v: i for i, v in enumerate(dict.fromkeys(column))}
    return [order[v] for v in values]
