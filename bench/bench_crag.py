"""Crag's exact two-player value (both players playing to win, `yz duel crag crag --exact`):
wall time, CPU time and peak memory beside yz's own estimates.

The solve runs in a fresh process (warm numba cache: run `yz warmup` once first), so its peak
resident memory is its own (printed beside what the process held before the solve: the
interpreter and NumPy); the estimate of memory and time is the one `Model.minimax` says
before it starts (`budget.minimax_estimate`). Usage:

    .venv/bin/python bench/bench_crag.py                      # the whole game (minutes, ~10 GB)
    .venv/bin/python bench/bench_crag.py --boxes 6            # Crag cut to its last 6 boxes
    .venv/bin/python bench/bench_crag.py --boxes 6 --against-optimal
    .venv/bin/python bench/bench_crag.py --boxes 6 --best-response  # and the full-information
                                                                    # best response, both seats
    .venv/bin/python bench/bench_crag.py --variant example:house-rules --value-only

`--boxes N` keeps the last N boxes of the card (Crag, Thirteen, Three of a Kind, the straights,
then Sixes down): a cut-down game to check the script, or to fit the rates. The load average
(`uptime`) is printed before and after: the machine is shared, so times are this machine's as
it was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

RUN = """
import json, resource, sys, time
from yz.solver import Model

variant, boxes, chances, against, max_memory, best, here = sys.argv[1:8]
sys.path.insert(0, here)
from bench_live_win import cut

rules = cut(variant, int(boxes))
model = Model(rules, use_cache=False, max_seconds=None,
              max_memory=int(max_memory) if int(max_memory) else None)
chances, against, best = chances == "1", against == "1" or best == "1", best == "1"
need, seconds, sizes = model.budget.minimax_estimate(chances, seats=2 * against + 2 * best)
if against:
    model.solve()  # (expected-score play's values: not timed with the two-player solve)
def rss_now():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 2**20


base = rss_now()  # (GB: the interpreter, numpy, the compiled kernels, the tables)
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
duel = model.minimax(chances, against, best_response=best)
wall = time.perf_counter() - start
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
out = {"variant": rules.name, "boxes": len(rules.keys), "wall_s": wall, "cpu_s": cpu,
       "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
       "rss_before_gb": base,
       "estimate_gb": need / 2**30, "estimate_s": seconds,
       "joint_states": duel.states, "pairs": duel.pairs, **duel.to_dict()}
print(json.dumps(out))
"""


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="crag")
    parser.add_argument("--boxes", type=int, default=0, help="keep the last N boxes (0: all)")
    parser.add_argument("--value-only", action="store_true",
                        help="only the value, not win/draw/loss (one table, not two)")
    parser.add_argument("--against-optimal", action="store_true",
                        help="also minimax against expected-score play, in either seat")
    parser.add_argument("--best-response", action="store_true",
                        help="also the best response to expected-score play seeing its card, "
                        "in either seat (with --against-optimal's figures)")
    parser.add_argument("--max-memory", type=float, default=0, help="GB (0: yz's default)")
    args = parser.parse_args()
    print("before:", uptime(), flush=True)
    out = subprocess.run([sys.executable, "-c", RUN, args.variant, str(args.boxes),
                          "0" if args.value_only else "1", "1" if args.against_optimal else "0",
                          str(int(args.max_memory * 1e9)), "1" if args.best_response else "0",
                          os.path.dirname(os.path.abspath(__file__))],
                         capture_output=True, text=True)
    print("after: ", uptime())
    if out.returncode != 0:
        sys.exit(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{r['variant']} ({r['boxes']} boxes): {r['pairs']:,} pairs, {r['joint_states']:,} "
          f"joint states")
    print(f"  wall {r['wall_s']:.1f} s (estimated {r['estimate_s']:.1f} s), CPU {r['cpu_s']:.1f} "
          f"s ({r['cpu_s'] / max(r['wall_s'], 1e-9):.2f} cores)")
    print(f"  peak RSS {r['peak_rss_gb']:.3f} GiB, {r['peak_rss_gb'] - r['rss_before_gb']:.3f} "
          f"GiB above the process before the solve (estimated {r['estimate_gb']:.3f} GiB)")
    print(f"  A's value under minimax play: {r['value']!r}")
    for key in ("minimax", "minimax_first", "minimax_second", "best_response_first",
                "best_response_second"):
        c = r.get(key)
        if c:
            print(f"  {key}: win {c['win']:.10f} draw {c['draw']:.10f} loss {c['loss']:.10f}")
    print(json.dumps(r))


if __name__ == "__main__":
    main()
