"""Run a sweep (`yz.rules.sweep_file`): one exact solve per point, here or on a Dask cluster.

    run_sweep(sweep, checkpoint=None, workers=1, scheduler=None, threads=None, progress=None)

returns a pandas DataFrame with one row per point, in the sweep's order: one column per axis
(named exactly as the axis key), then the figures the sweep asks for:

    what=mean          expected_score, states, seconds
    what=figures       + sd, p_upper_bonus, yahtzee_bonus_mean     (the default)
    what=distribution  + median, p5, p95

`seconds` is the time the point took where it was solved. The mean alone is one backward pass;
the figures add a backward pass for the moments and a forward pass for the bonus rates (about
8 times the mean's cost for the official rules on one thread); the distribution adds a forward
pass over score totals (about as much again: 1.3 s, 10 s and 23 s in bench/bench_sweep.py).

Where the points are solved:
- `workers=1` and no scheduler: in this process, one point after another.
- `workers=N`: N processes on this machine (started with 'spawn', so no numba or thread state is
  inherited), each solving with `threads` kernel threads (default cores // N).
- `scheduler="tcp://host:8786"` (or a `distributed.Client`): the points are submitted to a Dask
  cluster, one pure task per point (`solve_point` of the point's rule data), with retries, so a
  point whose worker dies is solved again elsewhere. Needs the `yz[dask]` extra.

Each worker compiles (or loads from numba's disk cache) the kernels once, and every later point
reuses them. Points are solved without the strategy cache (`use_cache=False`), so workers never
write the same files; the checkpoint is the sweep's own cache.

Checkpoint: with `checkpoint=PATH`, every finished point is appended at once as one JSON line
(`{"id", "row"}`) and flushed to disk by this process (workers return rows; only the caller
writes). A re-run reads the file and solves only the points it lacks; the id is a hash of the
point's rules and of what is asked, so a changed sweep file never reuses a stale row, and adding
a value to an axis solves only the new points.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yz.rules import InputError, RuleSet, YzError
from yz.rules.sweep_file import Sweep, point_data

from .dp import SOLVER_VERSION
from .report import SILENT, Reporter

FIGURES = {
    "mean": ("expected_score", "states", "seconds"),
    "figures": ("expected_score", "sd", "p_upper_bonus", "yahtzee_bonus_mean", "states",
                "seconds"),
    "distribution": ("expected_score", "sd", "p_upper_bonus", "yahtzee_bonus_mean", "median",
                     "p5", "p95", "states", "seconds"),
}
# The kernels each kind of sweep compiles (`solver.warmup`).
WARMUP = {"mean": ("values",), "figures": ("values", "decisions", "follow"),
          "distribution": ("values", "decisions", "follow", "forward")}
SUPERSETS = {"mean": ("mean", "figures", "distribution"), "figures": ("figures", "distribution"),
             "distribution": ("distribution",)}
RETRIES = 3  # a Dask point whose worker dies is resubmitted up to this many times


def solve_point(rule_data: dict, what: str = "figures", threads: int | None = None) -> dict:
    """Solve one rule set (plain rule data) and return its figures: a pure function of its
    arguments, run in a worker process or in this one (no cache, no time budget: a sweep is
    work asked for in bulk; the memory is checked as for any solve)."""
    from yz.rules import compile_rules

    from . import budget
    from .distribution import score_distribution
    from .dp import Solution, solve_values
    from .exact import exact_figures, exact_moments
    from .problem import Problem

    warm_up(what)
    start = time.perf_counter()
    problem = Problem.of(compile_rules(RuleSet.model_validate(rule_data)), threads)
    t, layout = problem.tables, problem.layout
    budget.check_solve_memory(t, layout, False, None, problem.threads, problem.batch_width())
    values, _ = solve_values(problem)
    solution = Solution(problem, values, 0.0, layout.reachable)
    row: dict[str, Any] = {"expected_score": solution.expected_score}
    if what in ("figures", "distribution"):
        # (Saved rolls and too many moves to follow: the mean and SD only, as `Model.figures`.)
        fig = exact_figures(solution, values) if budget.figures_fit(t, layout) else None
        row.update(sd=fig.sd if fig else exact_moments(solution, values).sd,
                   p_upper_bonus=fig.p_upper_bonus if fig else None,
                   yahtzee_bonus_mean=fig.yahtzee_bonus_mean if fig else None)
    if what == "distribution":
        dist = score_distribution(solution)
        row.update(median=dist.median, p5=dist.percentile(5), p95=dist.percentile(95))
    row.update(states=solution.states, seconds=time.perf_counter() - start)
    return row


def warm_up(what: str, report: Reporter = SILENT) -> None:
    """Compile (or load from numba's disk cache) the kernels a sweep of `what` needs, on a
    tiny game: the first point's `seconds` then counts its own work only."""
    from .warmup import ensure_loaded

    ensure_loaded(WARMUP[what], report)


def point_id(rule_data: dict, what: str) -> str:
    """The checkpoint key of a point: its rules (not its name) and what is asked of them."""
    content = {k: v for k, v in rule_data.items() if k not in ("name", "description", "source")}
    text = json.dumps([SOLVER_VERSION, what, content], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def read_checkpoint(path: str | Path) -> dict[str, dict]:
    """The rows stored in a checkpoint file by id; a line cut short by a crash is skipped."""
    done: dict[str, dict] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                    done[str(entry["id"])] = dict(entry["row"])
                except (ValueError, KeyError, TypeError):
                    continue
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InputError(f"checkpoint: cannot read '{path}' ({exc.strerror or exc}).",
                         param="checkpoint") from None
    return done


def resumed_rows(sweep: Sweep, checkpoint: str | Path | None) -> dict[int, dict]:
    """The rows of the sweep's points found in the checkpoint, by point position; a row with
    more figures than the sweep asks for (figures for a mean) will do."""
    done = read_checkpoint(checkpoint) if checkpoint is not None else {}
    rows: dict[int, dict] = {}
    if not done:
        return rows
    for i, point in enumerate(sweep.points):
        data = point_data(point)
        for what in SUPERSETS[sweep.what]:
            pid = point_id(data, what)
            if pid in done:
                rows[i] = done[pid]
                break
    return rows


class _Checkpoint:
    """Appends one JSON line per finished point, flushed and synced at once."""

    def __init__(self, path: str | Path | None):
        self.file = None
        if path is not None:
            try:
                self.file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (see close)
                if self.file.tell() > 0:  # a line cut short by a crash: start a fresh one
                    self.file.seek(self.file.tell() - 1)
                    if self.file.read(1) != "\n":
                        self.file.write("\n")
            except OSError as exc:
                raise InputError(f"checkpoint: cannot write '{path}' ({exc.strerror or exc}).",
                                 param="checkpoint") from None

    def add(self, pid: str, row: dict) -> None:
        if self.file is not None:
            self.file.write(json.dumps({"id": pid, "row": row}) + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def check_workers(workers: int) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers: {workers!r} is not a positive whole number; give 1 (solve "
                         "here, one point after another) or more (processes on this machine).",
                         param="workers")
    return workers


def run_sweep(sweep: Sweep, checkpoint: str | Path | None = None, workers: int = 1,
              scheduler: Any = None, threads: int | None = None,
              progress: Callable[[int, int], None] | None = None):
    """Solve every point of `sweep`; a pandas DataFrame, one row per point (module docstring).

    `scheduler` is a Dask scheduler address or a `distributed.Client`; else `workers` local
    processes. `threads` is the kernel threads per worker (default: cores // workers).
    `progress(done, total)` is called as points finish (resumed points count as done). The
    DataFrame's `attrs` say how many points were `solved` now and `resumed` from the checkpoint.
    """
    try:
        import pandas as pd
    except ImportError:
        raise InputError("a sweep's table needs pandas, which is not installed: pip install "
                         "'yz[sweep]' (or 'yz[dask]' for Dask clusters).") from None
    check_workers(workers)
    datas = [point_data(p) for p in sweep.points]
    ids = [point_id(d, sweep.what) for d in datas]
    results = resumed_rows(sweep, checkpoint)
    resumed = len(results)
    todo = [i for i in range(len(datas)) if i not in results]
    total = len(datas)
    if progress is not None:
        progress(len(results), total)
    log = _Checkpoint(checkpoint if todo else None)

    def finished(i: int, row: dict) -> None:
        results[i] = row
        log.add(ids[i], row)
        if progress is not None:
            progress(len(results), total)

    try:
        if todo and scheduler is not None:
            _run_dask(scheduler, [datas[i] for i in todo], todo, sweep.what, threads, finished)
        elif todo and workers > 1:
            _run_local(workers, [datas[i] for i in todo], todo, sweep.what, threads, finished)
        else:
            for i in todo:
                finished(i, solve_point(datas[i], sweep.what, threads))
    finally:
        log.close()
    rows = []
    for i, point in enumerate(sweep.points):
        row = {"point": point.name} if sweep.named else {}
        row.update({axis: _cell(v) for axis, v in point.values.items()})
        got = results[i]
        row.update({k: got.get(k) for k in FIGURES[sweep.what]})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=[*(["point"] if sweep.named else []), *sweep.axes,
                                        *FIGURES[sweep.what]])
    frame.attrs.update(solved=len(todo), resumed=resumed, what=sweep.what)
    return frame


def _cell(value: Any) -> Any:
    """An axis value as a table cell: a number or string as it is, anything else as JSON."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, separators=(",", ":"))


def _run_local(workers: int, datas: list[dict], index: list[int], what: str,
               threads: int | None, finished) -> None:
    """Solve on `workers` spawn processes. A process that dies (killed, out of memory) breaks
    the pool: the points it had not finished are solved again on a fresh pool, up to RETRIES
    times, like a Dask cluster would."""
    from concurrent.futures.process import BrokenProcessPool

    per = threads or max(1, (os.cpu_count() or 1) // workers)
    todo = dict(zip(index, datas, strict=True))
    for attempt in range(RETRIES + 1):
        try:
            _pool_round(workers, todo, what, per, finished)
            return
        except BrokenProcessPool:
            if attempt == RETRIES:
                raise InputError(f"workers: a worker process died {RETRIES + 1} times while "
                                 f"solving ({len(todo)} points not done); the finished points "
                                 "are kept in the checkpoint. Is the machine out of memory? "
                                 "Try fewer workers.", param="workers") from None


def _pool_round(workers: int, todo: dict[int, dict], what: str, per: int, finished) -> None:
    """One pool over the points in `todo`, removing each as it finishes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=ctx,
                               initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        futures = {pool.submit(solve_point, d, what, per): i for i, d in todo.items()}
        for fut in as_completed(futures):
            row = fut.result()
            del todo[futures[fut]]
            finished(futures[fut], row)
    except BaseException:
        # Interrupted or a worker died: the finished points are checkpointed; drop the rest at
        # once. A worker inside a kernel would only see Ctrl-C when the kernel returns (tens of
        # seconds for a big game), so the workers are stopped, not waited for.
        _stop_workers(pool)
        raise
    pool.shutdown(wait=True)


def die_with_parent(parent: int) -> None:
    """In a worker process: end when the sweep's process ends, however it ends (killed too).
    On Linux the kernel sends the worker SIGTERM (PR_SET_PDEATHSIG); a parent already gone
    when this runs ends the worker at once."""
    import contextlib
    import signal

    with contextlib.suppress(Exception):  # not Linux: the pool's own shutdown stops them
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _stop_workers(pool) -> None:
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if stop is not None:
        stop()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def dask_client(scheduler: Any) -> tuple[Any, bool]:
    """A `distributed.Client` for `scheduler` (an address, or a client, returned as it is;
    None: only check that Dask is installed), and whether it was made here (then the caller
    closes it); InputError when Dask is not installed or the scheduler cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("scheduler: running on a Dask cluster needs dask.distributed, which is "
                         "not installed: pip install 'yz[dask]' (or pip install "
                         "'dask[distributed]' pandas pyarrow).", param="scheduler") from None
    if scheduler is None or isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout=30), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"scheduler: cannot reach the Dask scheduler at '{scheduler}' "
                         f"({exc}); start one with `dask scheduler` and `dask worker "
                         "ADDRESS`, or leave the option out to solve here.",
                         param="scheduler") from None


class DaskWorkers:
    """Where a solve's tasks run: a Dask cluster (`scheduler`: an address or a
    `distributed.Client`), or `workers` > 1 local worker processes of one thread each,
    started here; neither: this process (`client` None). `close` drops what the workers
    kept (`forget`, run on each) and closes what was opened here."""

    def __init__(self, scheduler: Any, workers: int | None):
        self.client, self.own, self.cluster = None, False, None
        if scheduler is None and workers is not None and workers > 1:
            try:
                from distributed import LocalCluster
            except ImportError:
                raise InputError("workers: solving on local Dask workers needs "
                                 "dask.distributed, which is not installed: pip install "
                                 "'yz[dask]'.", param="workers") from None
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None)
            scheduler = self.cluster.scheduler_address
        if scheduler is not None:
            try:
                self.client, self.own = dask_client(scheduler)
            except BaseException:
                self.close()
                raise

    def close(self, forget: Callable[[], None] | None = None) -> None:
        if self.client is not None:
            # What the workers kept (gigabytes for a big game); a closing or lost cluster has
            # nothing to free.
            if forget is not None:
                with contextlib.suppress(Exception):
                    self.client.run(forget)
            if self.own:
                self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _run_dask(scheduler: Any, datas: list[dict], index: list[int], what: str,
              threads: int | None, finished) -> None:
    client, own = dask_client(scheduler)
    from distributed import as_completed

    try:
        per = threads if threads is not None else _threads_by_host(client)
        # Points with the same rules share one task (the same key): each is solved once.
        by_key: dict[str, list[int]] = {}
        futures = {}
        for d, i in zip(datas, index, strict=True):
            key = f"yz-point-{point_id(d, what)}"
            by_key.setdefault(key, []).append(i)
            if key not in futures:
                futures[key] = client.submit(_dask_task, d, what, per, pure=True,
                                             retries=RETRIES, key=key)
        try:
            for fut in as_completed(list(futures.values())):
                row = fut.result()
                for i in by_key[fut.key]:
                    finished(i, row)
        except BaseException:
            client.cancel(list(futures.values()))
            raise
    finally:
        if own:
            client.close()


def _threads_by_host(client) -> dict[str, int]:
    """Kernel threads per task on each host: its cores over the task slots it runs."""
    cores = client.run(os.cpu_count)
    slots: dict[str, int] = {}
    host_cores: dict[str, int] = {}
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]  # all, not the first few
    except TypeError:  # an older distributed lists them all anyway
        workers = client.scheduler_info()["workers"]
    for addr, info in workers.items():
        host = info.get("host") or _host(addr)
        slots[host] = slots.get(host, 0) + int(info.get("nthreads", 1))
        host_cores[host] = int(cores.get(addr) or 1)
    return {h: max(1, host_cores[h] // max(1, slots[h])) for h in slots}


def _host(address: str) -> str:
    return address.split("://")[-1].rsplit(":", 1)[0]


def _dask_task(rule_data: dict, what: str, threads: int | dict | None) -> dict:
    """One point on a Dask worker, with the threads its host has for each task slot."""
    if isinstance(threads, dict):
        from distributed import get_worker

        worker = get_worker()
        threads = threads.get(_host(worker.address)) or 1
    return solve_point(rule_data, what, threads)


def check_out_path(path: str) -> str:
    """The kind of output file (csv or parquet) named by `path`, checked before any work."""
    suffix = Path(path).suffix.lower()
    kinds = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
    if suffix not in kinds:
        raise InputError(f"out: '{path}' should end in .csv or .parquet.", param="out")
    parent = Path(path).parent
    if not parent.is_dir():
        raise InputError(f"out: the folder '{parent}' does not exist; create it or give another "
                         "path.", param="out")
    if Path(path).is_dir():
        raise InputError(f"out: '{path}' is a folder; give a file name.", param="out")
    return kinds[suffix]


def write_table(frame, path: str) -> None:
    """Write the table as CSV or Parquet (by the suffix), through a temporary file."""
    kind = check_out_path(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        if kind == "csv":
            frame.to_csv(tmp, index=False)
        else:
            try:
                frame.to_parquet(tmp, index=False)
            except ImportError:
                raise InputError("out: writing Parquet needs pyarrow: pip install pyarrow (or "
                                 "'yz[dask]'), or write .csv.", param="out") from None
        os.replace(tmp, path)
    except OSError as exc:
        raise YzError(f"out: could not write '{path}' ({exc.strerror or exc}).",
                      param="out") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def checkpoint_path(out: str) -> str:
    """Where the checkpoint of an output file lives: beside it."""
    return f"{out}.partial.jsonl"
