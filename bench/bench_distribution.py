"""Exact distributions and target tables: time and peak memory of whole `yz` processes.

    .venv/bin/python bench/bench_distribution.py                  # every built-in
    .venv/bin/python bench/bench_distribution.py yatzy --target-variants official-free-joker
    .venv/bin/python bench/bench_distribution.py yatzy-saved-rolls --target-variants  # 37 min

Per variant: `yz distribution --no-cache` (strategy solved and cached first, so the figure is
the forward pass plus start-up; compiled kernels cached) and its peak RSS. Then, for the
target variants, `yz target --max-target 500` from an empty cache (the DP, the table up to
500 and the distribution) with its peak RSS, and `yz advise --target 300` answered from the
cached table (median of 5 processes). Run it on a quiet machine; it prints one table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
YZ = [str(Path(sys.executable).with_name("yz"))]


def timed(args: list[str], env: dict) -> tuple[float, float, str]:
    """Seconds and peak RSS (MB) of one `yz ARGS` process, and what it printed."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            f"p=subprocess.run({[*YZ, *args]!r},check=True,capture_output=True,text=True);"
            "import json;sys.stdout.write(json.dumps([time.perf_counter()-t,"
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,p.stdout]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    seconds, rss_kb, stdout = json.loads(out)
    return seconds, rss_kb / 1024, stdout


def main() -> None:
    from yz.rules import builtin_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", help="default: every built-in")
    parser.add_argument("--target-variants", nargs="*", default=["official-free-joker", "yatzy"])
    args = parser.parse_args()
    env = dict(os.environ, YZ_CACHE_DIR=tempfile.mkdtemp(prefix="yz-bench-dist-"))
    print(f"{'variant':<24}{'dist_s':>8}{'peak_MB':>9}{'median':>8}{'P>=300':>9}")
    for name in args.variants or builtin_names(big=False):
        subprocess.run([*YZ, "solve", "-q", "--no-sd", "-v", name], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        seconds, peak, out = timed(["distribution", "--no-cache", "--json", "--yes", "-v", name],
                                   env)
        data = json.loads(out)
        print(f"{name:<24}{seconds:>8.2f}{peak:>9.0f}{data['median']:>8}"
              f"{100 * data['p_at_least'].get('300', 0.0):>8.2f}%")
    print()
    print(f"{'variant':<24}{'target500_s':>12}{'peak_MB':>9}{'advise_target_s':>16}"
          f"{'P>=300 target':>14}{'P>=300 mean':>12}")
    for name in args.target_variants:
        fresh = dict(env, YZ_CACHE_DIR=tempfile.mkdtemp(prefix="yz-bench-target-"))
        seconds, peak, out = timed(["target", "--json", "-v", name, "--targets", "300",
                                    "--max-target", "500", "--yes"], fresh)
        row = json.loads(out)["targets"][0]
        advise = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([*YZ, "advise", "-v", name, "--dice", "1,1,2,3,6", "--target", "300",
                            "--json"], env=fresh, check=True, stdout=subprocess.DEVNULL)
            advise.append(time.perf_counter() - start)
        print(f"{name:<24}{seconds:>12.1f}{peak:>9.0f}{statistics.median(advise):>16.3f}"
              f"{100 * row['p_target_optimal']:>13.2f}%{100 * row['p_mean_optimal']:>11.2f}%")
        shutil.rmtree(fresh["YZ_CACHE_DIR"], ignore_errors=True)
    shutil.rmtree(env["YZ_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
