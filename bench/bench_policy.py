"""Benchmark using the strategy: simulated games per second, `yz advise` latency, exact figures.

Run by hand on a quiet machine:

    .venv/bin/python bench/bench_policy.py                       # official-free-joker
    .venv/bin/python bench/bench_policy.py --games 1000000 yatzy

Reports, in one run:
  games/s      optimal games per second once the strategy is solved and the JIT cache warm
               (target >= 20,000 on 2 cores), for each strategy
  advise_s     wall time of whole `yz advise` processes answering from the cache (target < 1 s)
  exact_s      time of the exact figures (SD, per-box means and zero rates)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yz.rules import load_rules
from yz.solver import STRATEGIES, Model
from yz.solver.simulate import simulate, summarise

ROOT = Path(__file__).resolve().parent.parent
YZ = [sys.executable, "-c", "from yz.cli.main import run; run()"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="official-free-joker")
    parser.add_argument("--games", type=int, default=200_000)
    args = parser.parse_args()
    env = dict(os.environ, YZ_CACHE_DIR=tempfile.mkdtemp(prefix="yz-bench-cache-"))
    os.environ["YZ_CACHE_DIR"] = env["YZ_CACHE_DIR"]

    solution = Model(load_rules(args.variant)).solve()
    simulate(solution, 2000, seed=1)  # warm the JIT cache
    print(f"{args.variant}: exact optimal {solution.expected_score:.4f}")
    print(f"{'strategy':<10}{'games':>10}{'seconds':>9}{'games/s':>10}{'mean':>10}{'sem':>7}"
          f"{'exact':>10}{'exact_s':>8}")
    for strategy in STRATEGIES:
        start = time.perf_counter()
        games = simulate(solution, args.games, seed=2026, strategy=strategy)
        seconds = time.perf_counter() - start
        summary = summarise(games)
        start = time.perf_counter()
        exact = Model(solution.tables, use_cache=False).figures(strategy)
        exact_s = time.perf_counter() - start
        print(f"{strategy:<10}{args.games:>10,}{seconds:>9.2f}{args.games / seconds:>10,.0f}"
              f"{summary['mean']:>10.3f}{summary['sem']:>7.3f}{exact.expected_score:>10.4f}{exact_s:>8.2f}")

    # Whole processes, as a person runs them (the strategy is in the cache by now).
    subprocess.run([*YZ, "solve", "-q", "-v", args.variant], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    times = []
    for dice in ("1,1,2,3,6", "3,3,4,5,6", "6,6,6,2,1", "2,2,3,3,5", "1,2,3,4,5"):
        start = time.perf_counter()
        subprocess.run([*YZ, "advise", "-v", args.variant, "--dice", dice, "--rolls-left", "2",
                        "--filled", "ones=3,chance=22"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    print(f"advise_s (whole process, from the cache): median {statistics.median(times):.3f}, "
          f"max {max(times):.3f}")
    shutil.rmtree(env["YZ_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
