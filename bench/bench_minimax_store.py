"""Minimax advice read from a folder of joint layers (`Model.advise_minimax(..., store=...)`).

Build the folder once (the whole Crag: about 30 GiB of disk, see the README), then measure:

    .venv/bin/python bench/bench_minimax_store.py crag /tmp/crag-joint --build
    .venv/bin/python bench/bench_minimax_store.py crag /tmp/crag-joint --processes 5

`--build` solves into the folder first (`Model.minimax_store`: wall, CPU, peak memory, bytes
on disk). Then, in fresh processes (nothing of the folder in their memory; the system's file
cache as it is), two seeded games of expected-score play give the cards of a position at
each turn start, in either seat; the first position's advice is timed with the process's
peak memory before and after, then every later turn start's, each with its first roll. The
first player's value at the start, read from the folder, is printed beside the solve's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

CHILD = """
import json, resource, sys, time
from yz.solver import Model
from yz.solver.coach import Game
variant, folder, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
model = Model(variant)
solution = model.solve()
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
games = [Game(solution, seed * 2 + s) for s in (0, 1)]
times, before, first_peak, mover = [], peak(), None, 0
while not games[1].over:
    me, other = games[mover], games[1 - mover]
    start = time.perf_counter()
    advice = model.advise_minimax(me.position, other.position, me.dice, me.rolls_left,
                                  store=folder)
    times.append(time.perf_counter() - start)
    if first_peak is None:
        first_peak = peak()
    while True:
        best = advice.best
        if best.kind == "keep" and best.reroll:
            me.keep(list(best.keep))
            advice = model.advise_minimax(me.position, other.position, me.dice, me.rolls_left,
                                          store=folder)
            continue
        if best.kind == "keep":
            best = model.advise_minimax(me.position, other.position, me.dice, 0,
                                        store=folder).best
        me.score(best.box.key)
        break
    mover = 1 - mover
start = Game(solution, 0).position
value = model.advise_minimax(start, start, store=folder).position_value
print(json.dumps({"times": times, "before_mb": before, "first_mb": first_peak,
                  "end_mb": peak(), "value": value}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("folder")
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--processes", type=int, default=3)
    args = parser.parse_args()
    if args.build:
        from yz.solver import Model

        start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        load = os.getloadavg()[0]
        Model(args.variant, max_seconds=None).minimax_store(args.folder)
        end = resource.getrusage(resource.RUSAGE_SELF)
        size = sum(f.stat().st_size for f in os.scandir(args.folder) if f.is_file())
        print(f"built {args.folder}: wall {time.perf_counter() - start:.1f} s, CPU "
              f"{end.ru_utime - cpu.ru_utime + end.ru_stime - cpu.ru_stime:.1f} s, peak "
              f"{end.ru_maxrss / 2**20:.2f} GiB, {size / 2**30:.2f} GiB on disk; load "
              f"{load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    firsts, later = [], []
    for seed in range(args.processes):
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", CHILD, args.variant, args.folder,
                              str(seed)], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr.strip().splitlines()[-1])
        r = json.loads(out.stdout.strip().splitlines()[-1])
        firsts.append(r["times"][0])
        later += r["times"][1:]
        print(f"seed {seed}: first {r['times'][0]:.3f} s (peak {r['before_mb']:.0f} -> "
              f"{r['first_mb']:.0f} MB), later median {statistics.median(r['times'][1:]):.4f} "
              f"s, most {max(r['times'][1:]):.3f} s, end {r['end_mb']:.0f} MB; start value "
              f"{r['value']:.10f}; load {load:.1f}", flush=True)
    print(f"all: first median {statistics.median(firsts):.3f} s (most {max(firsts):.3f}); "
          f"later median {statistics.median(later):.4f} s (most {max(later):.3f}), "
          f"{len(later)} positions")


if __name__ == "__main__":
    main()
