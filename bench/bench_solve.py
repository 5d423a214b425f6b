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

    .venv/bin/python bench/bench_solve.py --rates

times what `yz serve` runs for a new rule set (the values, then the exact distribution) on 20
rule sets, prints each beside `solver.budget.solve_seconds`' estimate and the DP's own
(`dp_seconds`), and fits both estimates' constants to them by least squares (relative error):
the figures behind SECONDS_PER_KEEP_STEP and its neighbours, and DP_RATES.
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


def _extra_boxes(n: int) -> str:
    return "categories:\n" + "".join(
        f"  - {{key: c{i}, name: C{i}, section: lower, pattern: any, score: sum_all}}\n"
        for i in range(n))


# Rule sets for --rates: the built-ins that solve in seconds, and bigger dice, faces, rolls
# and cards built on them.
RATE_SETS = {name: None for name in ("generala", "no-bonus", "gist", "official-free-joker",
                                     "yatzy")} | {
    "6 dice": "extends: no-bonus\ndice: 6\n",
    "7 dice": "extends: generala\ndice: 7\n",
    "8 dice": "extends: generala\ndice: 8\n",
    "7 faces, 4 rolls": "extends: generala\nfaces: 7\nrolls: 4\n",
    "7 faces, 5 rolls": "extends: generala\nfaces: 7\nrolls: 5\n",
    "5 rolls": "extends: generala\nrolls: 5\n",
    "16 boxes": "extends: no-bonus\n" + _extra_boxes(3),
    "17 boxes": "extends: no-bonus\n" + _extra_boxes(4),
    "20 boxes": "extends: no-bonus\n" + _extra_boxes(7),
    "official, 14 boxes": "extends: official-free-joker\n" + _extra_boxes(1),
    "official, 7 faces, 5 rolls": "extends: official-free-joker\nfaces: 7\nrolls: 5\n",
    "official, 8 dice": "extends: official-free-joker\ndice: 8\n",
    "official, 6 dice": "extends: official-free-joker\ndice: 6\n",
    "yatzy, 6 dice": "extends: yatzy\ndice: 6\n",
    "18 boxes": "extends: no-bonus\n" + _extra_boxes(5),
}


def _nonnegative_fit(X, y):
    """Least squares of the relative error with no negative coefficient (a rate that comes
    out negative is dropped and the rest fitted again)."""
    import numpy as np

    weight = 1 / np.maximum(y, 0.05)
    active = list(range(X.shape[1]))
    while True:
        coef = np.linalg.lstsq(X[:, active] * weight[:, None], y * weight, rcond=None)[0]
        if (coef >= 0).all():
            out = np.zeros(X.shape[1])
            out[active] = coef
            return out
        active.pop(int(np.argmin(coef)))


def rates() -> None:
    """Measure the values (alone and with the SD) and the distribution of RATE_SETS; fit the
    constants of solve_seconds (values, then distribution) and, apart, the DP's own
    (`dp_seconds`' DP_RATES, without and with the SD: per keep and box step of a state, per
    box and keep step of a row), each beside today's estimate."""
    import numpy as np
    from yz.rules import rules_from_text
    from yz.solver.budget import DP_MARGIN, dp_seconds, dp_work, solve_seconds
    from yz.solver.distribution import score_distribution
    from yz.solver.dp import Solution
    from yz.solver.problem import Problem

    solve_values(Problem.of(compile_rules(load_rules("generala"))))  # load the kernels
    solve_values(Problem.of(compile_rules(load_rules("generala"))), with_sd=True)
    rows, dp_rows, measured, dp, dp_sd = [], [], [], [], []
    print(f"{'rule set':<28}{'states':>11}{'values_s':>10}{'with_sd_s':>10}{'dist_s':>9}"
          f"{'estimate_s':>12}{'dp_est_s':>10}{'sd_est_s':>10}")
    for name, text in RATE_SETS.items():
        rules = load_rules(name) if text is None else rules_from_text(f"name: x\n{text}", name)
        problem = Problem.of(compile_rules(rules))
        t, layout = problem.tables, problem.layout
        start = time.perf_counter()
        values, _ = solve_values(problem)
        middle = time.perf_counter()
        score_distribution(Solution(problem, values, middle - start, layout.reachable))
        end = time.perf_counter()
        solve_values(problem, with_sd=True)
        with_sd = time.perf_counter() - end
        keep_steps = t.n_keeps * t.n_faces * (t.rolls - 1)
        box_steps = t.n_distinct_rolls * t.n_categories
        n_rows = layout.n_rows
        rows.append([1.0, layout.reachable * keep_steps, layout.reachable * box_steps,
                     n_rows * (keep_steps + box_steps)])
        cols = problem.batch_width()
        dp_rows.append(dp_work(t, layout, cols))  # (the steps dp_seconds is a rate of)
        measured.append(end - start)
        dp.append(middle - start)
        dp_sd.append(with_sd)
        print(f"{name:<28}{layout.reachable:>11,}{middle - start:>10.2f}{with_sd:>10.2f}"
              f"{end - middle:>9.2f}{solve_seconds(t, layout):>12.2f}"
              f"{dp_seconds(t, layout, cols):>10.2f}{dp_seconds(t, layout, cols, True):>10.2f}")
    X = np.array(rows)
    for what, y in (("values and distribution", measured), ("values", dp)):
        y = np.array(y)
        weight = 1 / np.maximum(y, 0.2)
        coef = np.linalg.lstsq(X * weight[:, None], y * weight, rcond=None)[0]
        print(f"fitted, {what}: overhead {coef[0]:.2f} s, per keep step {coef[1]:.3g} s, per box "
              f"step {coef[2]:.3g} s, per row step {coef[3]:.3g} s; fit / measured "
              f"{np.min(X @ coef / y):.2f} to {np.max(X @ coef / y):.2f}")
    D = np.array(dp_rows)
    for with_sd, y in ((False, np.array(dp)), (True, np.array(dp_sd))):
        coef = _nonnegative_fit(D, y)
        left_out = [D[i] @ _nonnegative_fit(np.delete(D, i, 0), np.delete(y, i)) / y[i]
                    for i in range(len(y))]
        print(f"fitted, the DP {'with' if with_sd else 'without'} the SD (DP_RATES[{with_sd}]): "
              f"{', '.join(f'{c:.3g}' for c in coef)}; fit / measured "
              f"{np.min(D @ coef / y):.2f} to {np.max(D @ coef / y):.2f}, each left out of its "
              f"fit {min(left_out):.2f} to {max(left_out):.2f} (DP_MARGIN {DP_MARGIN[with_sd]})")
    ratio = np.array(dp_sd) / np.array(dp)
    print(f"with the SD / values alone: {ratio.min():.2f} to {ratio.max():.2f} "
          f"(median {np.median(ratio):.2f})")


def main() -> None:
    if "--rates" in sys.argv[1:]:
        rates()
        return
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
    from yz.solver.problem import Problem

    solve_values(Problem.of(compile_rules(load_rules("no-bonus"))), with_sd=True)
    import numba

    print(f"numba {numba.__version__}, threads {numba.config.NUMBA_NUM_THREADS}, "
          f"cores {os.cpu_count()}")
    header = f"{'variant':<24}{'expected':>12}{'sd':>9}{'states':>11}{'dp_s':>8}" \
             f"{'states/s':>12}{'dp_sd_s':>9}{'process_s':>11}{'peak_MB':>9}"
    print(header)
    print("-" * len(header))
    for name in names:
        problem = Problem.of(compile_rules(load_rules(name)))
        layout = problem.layout
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            V, _ = solve_values(problem)
            times.append(time.perf_counter() - start)
        best = min(times)
        sd_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            _, sd = solve_values(problem, with_sd=True)
            sd_times.append(time.perf_counter() - start)
        wall, peak = peak_rss_of(name, env)
        states = layout.reachable
        print(f"{name:<24}{V[layout.start]:>12.4f}{sd:>9.4f}{states:>11,}{best:>8.3f}"
              f"{states / best:>12,.0f}{min(sd_times):>9.3f}{wall:>11.2f}{peak:>9.0f}")
    shutil.rmtree(env["YZ_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
