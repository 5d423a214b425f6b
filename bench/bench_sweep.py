"""Benchmark sweeps: points per second for one worker, local workers and a Dask LocalCluster.

Run by hand on a quiet machine (no other jobs; timings on 2 cores are noisy):

    .venv/bin/python bench/bench_sweep.py                      # 60 points, the mean only
    .venv/bin/python bench/bench_sweep.py --what figures --points 12
    .venv/bin/python bench/bench_sweep.py --modes one,local     # skip the Dask cluster

The sweep is official-free-joker with the upper bonus threshold from 56 up and the bonus
amount 25, 35 or 50 (`--points` of them, 60 by default). It reports, for each way of running:
  one     one worker (this process), one solver thread
  local   `--workers` spawn processes on this machine, cores // workers threads each
  dask    a distributed.LocalCluster of `--workers` processes, one thread each
the wall time, points per second and its ratio to `one` (the target on 2 cores: >= 1.7x),
and the mean seconds per point as the workers measured them. Every run starts after the
kernels are compiled and cached; `local` includes starting its processes (each loads the
kernels once, on a tiny game, so no point pays for it), the Dask cluster is started and
warmed before the clock starts. With `--cost`, one point of each kind (mean, figures,
distribution) is timed in this process first, to say what each costs.

Measured on the 2-core development machine, quiet (2026-11-23, 60 points, mean only):
  one     77.3 s  0.777 points/s  1.00x  1.28 s per point
  local   40.5 s  1.480 points/s  1.91x  1.28 s per point
  dask    36.0 s  1.667 points/s  2.15x  1.19 s per point
and one point with one thread (`--cost`): mean 1.3 s, figures 9.9 s, distribution 23 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

from yz.rules.sweep_file import load_sweep
from yz.solver import study


def sweep_file(folder: Path, points: int, what: str) -> Path:
    amounts = [25, 35, 50]
    thresholds = -(-points // len(amounts))
    path = folder / "bench.sweep.yaml"
    path.write_text(f"base: official-free-joker\nwhat: {what}\naxes:\n"
                    f"  upper_bonus.threshold: {{from: 56, to: {55 + thresholds}}}\n"
                    f"  upper_bonus.amount: {amounts}\n")
    return path


def timed(label: str, run, n: int, base: float | None) -> float:
    start = time.perf_counter()
    table = run()
    wall = time.perf_counter() - start
    assert len(table) == n and table["expected_score"].notna().all()
    rate = n / wall
    ratio = f"{rate / base:5.2f}x" if base else "  1.00x"
    print(f"{label:<8} {wall:8.1f} s  {rate:7.3f} points/s  {ratio}  "
          f"{table['seconds'].mean():6.2f} s per point in the worker", flush=True)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=60)
    parser.add_argument("--what", default="mean", choices=tuple(study.FIGURES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--modes", default="one,local,dask")
    parser.add_argument("--cost", action="store_true", help="time one point of each kind")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="yz-bench-sweep-"))
    sweep = load_sweep(sweep_file(folder, args.points, args.what))
    sweep = dataclasses.replace(sweep, points=sweep.points[:args.points])
    n = len(sweep.points)
    print(f"{n} points of official-free-joker ({args.what}), {os.cpu_count()} cores",
          flush=True)
    study._warm("distribution" if args.cost else args.what)
    if args.cost:
        data = sweep.points[0].rules.model_dump(mode="json")
        for what in tuple(study.FIGURES):
            start = time.perf_counter()
            study.solve_point(data, what, threads=1)
            print(f"one point, {what:<12}: {time.perf_counter() - start:6.2f} s (1 thread)",
                  flush=True)
    modes = args.modes.split(",")
    base = None
    if "one" in modes:
        base = timed("one", lambda: study.run_sweep(sweep, threads=1), n, None)
    if "local" in modes:
        timed("local", lambda: study.run_sweep(sweep, workers=args.workers), n, base)
    if "dask" in modes:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                          dashboard_address=None, silence_logs=40) as cluster, \
                Client(cluster) as client:
            client.run(study._warm, args.what)  # start-up is not the sweep's time
            timed("dask", lambda: study.run_sweep(sweep, scheduler=client), n, base)


if __name__ == "__main__":
    sys.exit(main())
