"""Benchmark the exact solver: DP time, states per second, process time, first run, memory.

Run by hand on a quiet machine (no other jobs; timings on 2 cores are noisy):

    .venv/bin/python bench/bench_solve.py                 # every built-in
    .venv/bin/python bench/bench_solve.py official-free-joker yatzy --repeat 5

For each variant it reports, in one run so the figures compare:
  dp_s        best in-process DP wall time with a warm JIT cache (targets: official <= 0.3 s,
              yatzy <= 1 s)
  states/s    reachable turn-start states solved per second of that time
  dp_sd_s     the same DP also computing the exact SD of the final score (what `yz solve` runs)
  process_s   wall time of a whole `yz solve --no-cache --quiet` process, SD included
              (target <= 1.5 s)
  peak_MB     peak resident memory of that process (target <= 300 MB)
and once: `first_run_s`, a `yz solve --no-cache` with an empty numba cache (compilation
included; target <= 15 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yz.rules import builtin_names, compile_rules, load_rules
from yz.solver.dp import solve_values

ROOT = Path(__file__).resolve().parent.parent
YZ = [sys.executable, "-c", "from yz.cli.main import run; run()"]


def peak_rss_of(name: str, env: dict) -> tuple[float, float]:
    """Run in a fresh interpreter so each variant's peak memory is its own."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            f"subprocess.run({[*YZ, 'solve', '--no-cache', '--quiet', '-v', name]!r},"
            "check=True,stdout=subprocess.DEVNULL);"
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", help="default: every built-in")
    parser.add_argument("--repeat", type=int, default=3, help="timed DP runs per variant")
    parser.add_argument("--skip-first-run", action="store_true",
                        help="skip the cold-compile measurement")
    args = parser.parse_args()
    names = args.variants or builtin_names(big=False)
    env = dict(os.environ)
    env["YZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="yz-bench-cache-")

    if not args.skip_first_run:
        numba_dir = tempfile.mkdtemp(prefix="yz-bench-numba-")
        cold = dict(env, NUMBA_CACHE_DIR=numba_dir)
        start = time.perf_counter()
        subprocess.run([*YZ, "solve", "--no-cache", "--quiet"], check=True, env=cold, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        first = time.perf_counter() - start
        shutil.rmtree(numba_dir, ignore_errors=True)
        print(f"first_run_s (official-free-joker, empty numba cache, compile included): "
              f"{first:.2f}")

    # Warm the JIT cache in this process once.
    solve_values(compile_rules(load_rules("no-bonus")), with_sd=True)
    import numba

    print(f"numba {numba.__version__}, threads {numba.config.NUMBA_NUM_THREADS}, "
          f"cores {os.cpu_count()}")
    header = f"{'variant':<24}{'expected':>12}{'sd':>9}{'states':>11}{'dp_s':>8}" \
             f"{'states/s':>12}{'dp_sd_s':>9}{'process_s':>11}{'peak_MB':>9}"
    print(header)
    print("-" * len(header))
    for name in names:
        t = compile_rules(load_rules(name))
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            V, layout, _ = solve_values(t)
            times.append(time.perf_counter() - start)
        best = min(times)
        sd_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            _, _, sd = solve_values(t, with_sd=True)
            sd_times.append(time.perf_counter() - start)
        wall, peak = peak_rss_of(name, env)
        states = layout.reachable
        print(f"{name:<24}{V[layout.index(0, 0, 0)]:>12.4f}{sd:>9.4f}{states:>11,}{best:>8.3f}"
              f"{states / best:>12,.0f}{min(sd_times):>9.3f}{wall:>11.2f}{peak:>9.0f}")
    shutil.rmtree(env["YZ_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
