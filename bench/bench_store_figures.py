"""The forward pass of a store (`forward.streamed_figures`, what `Model.store_figures` runs):
time and peak memory with and without the banks of a (box set, flag, total) sharing their
choices and one walk of the dice (`forward._merged_moves`), and the figures of both compared.

Each way runs in a fresh process on the values of the game solved in memory (so the store's
reading is not timed; a game with saved rolls whose table fits: yatzy-saved-rolls), with yz's
estimate and the machine's load beside it:

    .venv/bin/python bench/bench_store_figures.py yatzy-saved-rolls
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

RUN = """
import json, resource, sys, time
import numpy as np
from yz.solver import Model
from yz.solver.forward import streamed_figures

variant, share = sys.argv[1], sys.argv[2] == "1"
model = Model(variant, max_seconds=None)
solution = model.solve()
estimate = (model.budget.store_figures_seconds() if share
            else model.budget.distribution_seconds())
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
walk = streamed_figures(model.problem, lambda k: solution.values, share=share)
wall = time.perf_counter() - start
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall_s": wall, "estimate_s": estimate,
                  "cpu_s": cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime,
                  "peak_gb": cpu1.ru_maxrss / 2**20, "before_gb": base / 2**20,
                  "box_mean": walk.box_mean.tolist(), "zero": walk.box_zero_rate.tolist(),
                  "events": walk.events.tolist()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="yatzy-saved-rolls")
    args = parser.parse_args()
    found = {}
    for share in (1, 0):
        before = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", RUN, args.variant, str(share)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else 1)
        r = found[share] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{args.variant} {'shared choices' if share else 'per bank':<14}: wall "
              f"{r['wall_s']:.1f} s, CPU {r['cpu_s']:.1f} s (estimated {r['estimate_s']:.1f} s), "
              f"peak {r['peak_gb']:.2f} GiB ({r['before_gb']:.2f} before); load {before:.1f} -> "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    worst = max(abs(a - b) for key in ("box_mean", "zero", "events")
                for a, b in zip(found[1][key], found[0][key], strict=True))
    print(f"largest difference between the two ways' figures: {worst:.2e}")


if __name__ == "__main__":
    main()
