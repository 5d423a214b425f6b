"""The best response's table against the target table of the same range, side by side.

Issue #26 asks that playing to win cost no more than target play over the same range of
scores. Each is run in a fresh process (a solved game from the cache first, not timed), one
after the other: the blind best response (`Model.best_response`, no ceiling: its exact win,
draw and loss) against an opponent whose scores reach TOP, the same table of values alone (what
live advice reads, `versus.table_to_win`: no split, so the value kernel), and the target table
up to TOP (`Model.targets`), all with the strategy cache off for the timed part. Printed:
wall, CPU, and peak memory above the process before the timed part, with yz's estimate and
the machine's load.

    .venv/bin/python bench/bench_versus_cost.py                     # official, the real opponent
    .venv/bin/python bench/bench_versus_cost.py --top 400           # an opponent up to 400
    .venv/bin/python bench/bench_versus_cost.py --only best-response target --rounds 3

Without `--top` the opponent is the game itself played for the expected score (its top score
with 1e-12 of its chances above it cut, as `yz duel V V --best-response` plays it); with it,
a made-up opponent spread evenly over the scores TOP - 200 .. TOP.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

RUN = """
import json, os, resource, sys, tempfile, time
import numpy as np
from yz.solver import Model
from yz.solver.versus import TAIL, Opponent

variant, what, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
Model(variant).solve()  # (into the cache, not timed)
model = Model(variant, max_seconds=None)
model.solve()
model.distribution()  # (expected-score play's, which the best response reports beside it)
if top:
    path = os.path.join(tempfile.mkdtemp(), "opponent.csv")
    scores = np.arange(top - 200, top + 1)
    with open(path, "w") as out:
        out.write("score,probability\\n")
        out.writelines(f"{s},{1 / len(scores)!r}\\n" for s in scores)
    opponent = Opponent.from_csv(path)
else:
    opponent = Opponent.of(model.final_score_from(None, "optimal"))
    top = opponent.top_score(TAIL)
model.use_cache = False
def rss():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 2**20
if what in ("best-response", "table"):
    estimate = model.budget.need_seconds(top + 1, True, what == "best-response")
else:
    estimate = model.budget.target_seconds(top)
base = rss()
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
if what == "best-response":
    result = model.best_response(opponent, ceiling=False).best_response.score
elif what == "table":  # (the values alone, what live advice reads: no win/draw split)
    from yz.solver.target import need_sweep

    u, _win, _tie = opponent.outcome(top)
    solution, found = model.solve(), {}

    def keep(k, here, table, _payloads, first):
        if k == 0:
            found["score"] = float(table[solution.layout.start - here.start, top - first])

    need_sweep(solution, top + 1, u[::-1].copy(), float(u[top]), keep, windows=True,
               reach=max(0, top - int(opponent.scores[0])))
    result = found["score"]
else:
    result = model.targets(max_target=top).max_target
wall = time.perf_counter() - start
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"what": what, "top": top, "wall_s": wall, "estimate_s": estimate,
                  "cpu_s": cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime,
                  "peak_above_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
                  - base, "result": result}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--variant", default="official-free-joker")
    parser.add_argument("--top", type=int, default=0,
                        help="a made-up opponent up to this score (0: the game itself)")
    kinds = ("best-response", "table", "target")
    parser.add_argument("--only", nargs="+", choices=kinds, default=kinds,
                        help="run only these (in this order)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat them, alternating, and print each one's median")
    args = parser.parse_args()
    top = args.top
    got: dict = {what: [] for what in args.only}
    for _ in range(args.rounds):
        for what in args.only:
            before = os.getloadavg()[0]
            out = subprocess.run([sys.executable, "-c", RUN, args.variant, what, str(top)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else 1)
            # (Each process finds the same range from the same opponent, the real one
            # without --top: it is never handed on, or the next would time a made-up one.)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            got[what].append(r)
            print(f"{args.variant} {what:<13} up to {r['top']}: wall {r['wall_s']:.1f} s, CPU "
                  f"{r['cpu_s']:.1f} s (estimated {r['estimate_s']:.1f} s), peak "
                  f"{r['peak_above_gb']:.2f} GiB above the process "
                  f"before; load {before:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    if args.rounds > 1:  # (this machine's speed drifts by a third over minutes)
        for what, runs in got.items():
            print(f"median of {len(runs)} {what:<13}: wall "
                  f"{statistics.median(r['wall_s'] for r in runs):.1f} s, CPU "
                  f"{statistics.median(r['cpu_s'] for r in runs):.1f} s, peak "
                  f"{statistics.median(r['peak_above_gb'] for r in runs):.2f} GiB")


if __name__ == "__main__":
    main()
