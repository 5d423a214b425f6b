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
    .venv/bin/python bench/bench_crag.py --workers 2 --checkpoint FOLDER   # on a 2-worker
                                                                            # LocalCluster

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
import json, resource, sys, threading, time
from yz.solver import Model

variant, boxes, chances, against, max_memory, best, here, workers, folder = sys.argv[1:10]
workers = int(workers)
sys.path.insert(0, here)
from bench_live_win import cut

rules = cut(variant, int(boxes))
model = Model(rules, use_cache=False, max_seconds=None,
              max_memory=int(max_memory) if int(max_memory) else None)
chances, against, best = chances == "1", against == "1" or best == "1", best == "1"
need, seconds, sizes = model.budget.minimax_estimate(
    chances, seats=2 * against + 2 * best, dask_workers=workers if workers > 1 else None)
if against:
    model.solve()  # (expected-score play's values: not timed with the two-player solve)
def rss_now():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 2**20


def used_gb():  # (the machine's memory in use: what MemAvailable leaves; page cache free)
    with open("/proc/meminfo") as info:
        facts = {line.split(":")[0]: int(line.split()[1]) for line in info}
    return (facts["MemTotal"] - facts["MemAvailable"]) / 2**20


def worker_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss / 2**20


on_dask, cluster, client = {}, None, None
if workers > 1:
    import distributed
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    on_dask = {"scheduler": client, "checkpoint": folder}
elif folder:
    on_dask = {"checkpoint": folder}
machine = {"base": used_gb(), "peak": used_gb(), "stop": False}


def sample():
    while not machine["stop"]:
        machine["peak"] = max(machine["peak"], used_gb())
        time.sleep(0.5)


threading.Thread(target=sample, daemon=True).start()
base = rss_now()  # (GB: the interpreter, numpy, the compiled kernels, the tables)
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
w0 = client.run(worker_cpu) if client else {}
start = time.perf_counter()
duel = model.minimax(chances, against, best_response=best, **on_dask)
wall = time.perf_counter() - start
machine["stop"] = True
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
w1 = client.run(worker_cpu) if client else {}
out = {"variant": rules.name, "boxes": len(rules.keys), "wall_s": wall, "cpu_s": cpu,
       "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
       "rss_before_gb": base, "workers": workers,
       "workers_cpu_s": sum(w1[k][0] - w0[k][0] for k in w1 if k in w0),
       "workers_peak_rss_gb": [w1[k][1] for k in sorted(w1)],
       "machine_used_before_gb": machine["base"], "machine_used_peak_gb": machine["peak"],
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
    parser.add_argument("--workers", type=int, default=1,
                        help="solve on a LocalCluster of this many worker processes (with "
                        "--checkpoint; 1: in the process)")
    parser.add_argument("--checkpoint", default="", metavar="FOLDER",
                        help="the solve's checkpoint folder (where Dask's workers read the "
                        "joint layers)")
    args = parser.parse_args()
    print("before:", uptime(), flush=True)
    out = subprocess.run([sys.executable, "-c", RUN, args.variant, str(args.boxes),
                          "0" if args.value_only else "1", "1" if args.against_optimal else "0",
                          str(int(args.max_memory * 1e9)), "1" if args.best_response else "0",
                          os.path.dirname(os.path.abspath(__file__)), str(args.workers),
                          args.checkpoint],
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
    print(f"  the machine's memory in use (page cache not counted): "
          f"{r['machine_used_peak_gb'] - r['machine_used_before_gb']:.3f} GiB more at the "
          f"peak than before the solve")
    if r["workers"] > 1:
        print(f"  {r['workers']} Dask workers: CPU {r['workers_cpu_s']:.1f} s, peak RSS "
              + ", ".join(f"{g:.3f}" for g in r["workers_peak_rss_gb"]) + " GiB")
    print(f"  A's value under minimax play: {r['value']!r}")
    for key in ("minimax", "minimax_first", "minimax_second", "best_response_first",
                "best_response_second"):
        c = r.get(key)
        if c:
            print(f"  {key}: win {c['win']:.10f} draw {c['draw']:.10f} loss {c['loss']:.10f}")
    print(json.dumps(r))


if __name__ == "__main__":
    main()
