"""What a fresh installation waits for: the first `yz solve`, `yz warmup`, and each family.

Each measurement starts from an empty kernel cache (`NUMBA_CACHE_DIR` in a new temporary
folder) and an empty strategy cache, in a fresh process started as the console script:

    .venv/bin/python bench/bench_compile.py            # first solve, warmup, per family
    .venv/bin/python bench/bench_compile.py --families  # per family only

Prints wall and CPU seconds. The machine is shared: say its load beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

FAMILY_TIMES = """
import json, time
from yz.solver.warmup import FAMILIES, ensure_compiled
out = {}
for family in FAMILIES:
    start = time.perf_counter()
    ensure_compiled((family,))
    out[family] = time.perf_counter() - start
print(json.dumps(out))
"""


def fresh_env(folder: str) -> dict:
    return dict(os.environ, NUMBA_CACHE_DIR=os.path.join(folder, "kernels"),
                YZ_CACHE_DIR=os.path.join(folder, "cache"))


def timed(args: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, its standard output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def yz(*args: str) -> list[str]:
    return [sys.executable, "-m", "yz.cli.entry", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", action="store_true", help="only the per-family times")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    if not args.families:
        for label, command in (("first yz solve --variant official-free-joker",
                                yz("solve", "--variant", "official-free-joker", "--quiet")),
                               ("yz warmup (every family)", yz("warmup", "--quiet"))):
            with tempfile.TemporaryDirectory(prefix="yz-bench-compile-") as folder:
                wall, cpu, _ = timed(command, fresh_env(folder))
                print(f"{label:<48} wall {wall:6.1f} s  cpu {cpu:6.1f} s")
    with tempfile.TemporaryDirectory(prefix="yz-bench-compile-") as folder:
        _, _, out = timed([sys.executable, "-c", FAMILY_TIMES], fresh_env(folder))
        for family, seconds in json.loads(out.strip().splitlines()[-1]).items():
            print(f"  family {family:<12} {seconds:6.1f} s (in order, sharing what came before)")


if __name__ == "__main__":
    main()
