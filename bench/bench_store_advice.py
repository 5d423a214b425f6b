"""Advice read from a layered solve's folder (`Model.advise(..., store=...)`): time and memory.

Build the store once, then measure:

    .venv/bin/yz solve --variant yatzy-saved-rolls --store /tmp/store-ys --no-sd
    .venv/bin/python bench/bench_store_advice.py yatzy-saved-rolls /tmp/store-ys

Random positions (boxes filled with scores they can hold, a bank their layer allows, dice and
re-rolls left), each first one in a fresh process, so nothing of the store is in its memory
(the system's file cache is as it is: run it twice to see it warm):

    model    building the `Model` (tables, state layout), before any advice
    first    the first position's advice from the store: seconds, and the process's memory
             (peak resident, MB) before and after it
    next     more positions of the same game in the same process: seconds each
    command  the whole `yz advise --store` command in a new process: wall seconds

Every answer is checked against the whole-layer read's (`read_store` of the layer after the
position), after the timing. The machine's load (1 minute) is printed beside each figure.

With `--synthetic` the folder is (made first, where it holds nothing) a store of the game's
real layout, chunks, index and checksums but made-up values (state i is worth (i % 9973) / 7):
reading it costs what reading the real store costs, which is how Maxi Yatzy's reads are
measured without its hour of solving. Its answers mean nothing; the values read are checked
against the formula instead:

    .venv/bin/python bench/bench_store_advice.py --synthetic maxi-yatzy /tmp/store-maxi-fake
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = """
import json, random, resource, sys, time
t0 = time.perf_counter()
from yz.solver import Model
variant, folder, seed, more = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
synthetic = sys.argv[6] == "1"
model = Model(variant)
built = time.perf_counter() - t0
sys.path.insert(0, sys.argv[5])
from bench_store_advice import position
rng = random.Random(seed)
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
asked = [position(model, rng) for _ in range(1 + more)]
before = peak()
times = []
for pos, dice, left in asked:
    start = time.perf_counter()
    advice = model.advise(pos, dice, left, store=folder)
    times.append(time.perf_counter() - start)
    if len(times) == 1:
        after_first = peak()
after = peak()
from yz.solver.advice import advise
from yz.solver.dp import Solution
from yz.solver.layered import read_store
same = 0
if synthetic:  # the values of states anywhere in the store, against the formula
    import numpy as np
    values = model.store_solution(folder).values
    at = np.random.default_rng(seed).integers(0, model.layout.size, 20_000)
    end = int(model.layout.LAYER_PTR[-2])
    want = np.where(at < end, (at % 9973) / 7.0, 0.0)
    same = int(np.array_equal(values[at], want)) * len(asked)
    asked = []
for pos, dice, left in asked:
    values = read_store(model, folder, [len(pos.filled) + 1], moments=False)[0]
    whole = advise(Solution(model.problem, values, 0.0, 0), pos, dice, left)
    got = model.advise(pos, dice, left, store=folder)
    same += [(a.label(), a.value) for a in got.actions] == \\
        [(a.label(), a.value) for a in whole.actions]
print(json.dumps({"model": built, "first": times[0], "next": times[1:], "before_mb": before,
                  "after_first_mb": after_first, "after_mb": after, "same": same,
                  "asked": len(times)}))
"""


def position(model, rng: random.Random):
    """A random position some game reaches, with dice and re-rolls left."""
    import numpy as np
    from yz.rules import InputError

    t = model.tables
    while True:
        n = rng.randrange(t.n_categories)
        filled = {t.rules.categories[c].key: int(rng.choice(np.unique(t.BOX_SCORES[c])))
                  for c in rng.sample(range(t.n_categories), n)}
        try:
            pos = model.position(filled, saved_rolls=rng.randrange(t.banks_in_layer(n)))
        except InputError:
            continue
        dice = tuple(sorted(rng.randint(1, t.n_faces) for _ in range(t.n_dice)))
        return pos, dice, rng.randint(0, t.rolls - 1 + pos.saved_rolls)


def synthetic_store(variant: str, folder: Path) -> None:
    """A store of `variant` with made-up values (see the module docstring), finished."""
    import numpy as np
    from yz.solver import Model, sealed
    from yz.solver.layered import (
        _manifest_base,
        _write_manifest,
        chunk_path,
        chunk_slices,
        file_record,
        plan,
    )

    problem = Model(variant, use_cache=False).problem
    layers = plan(problem)
    manifest = {**_manifest_base(problem, False, layers), "done": {}, "blocks": {}}
    start = time.perf_counter()
    for chunks in layers:
        for c in chunks:
            at = np.concatenate([np.arange(a, b) for a, b in chunk_slices(problem, c)])
            buf = io.BytesIO()
            np.save(buf, (at % 9973) / 7.0, allow_pickle=False)
            raw = buf.getvalue()
            sealed.write_bytes(chunk_path(folder, c.layer, c.index), raw)
            key = f"{c.layer}/{c.index}"
            manifest["done"][key], manifest["blocks"][key] = sealed.sha256(raw), file_record(raw)
        print(f"made-up layer {chunks[0].layer}: {len(chunks)} chunks, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    manifest["expected_score"], manifest["sd"] = float(problem.layout.start % 9973) / 7, None
    _write_manifest(folder, manifest)


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("store")
    parser.add_argument("--processes", type=int, default=10, help="fresh processes")
    parser.add_argument("--more", type=int, default=10, help="positions after the first")
    parser.add_argument("--commands", type=int, default=10, help="yz advise runs")
    parser.add_argument("--synthetic", action="store_true",
                        help="a store of made-up values (made first where absent)")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent)
    if args.synthetic and not (Path(args.store) / "solve.json").exists():
        synthetic_store(args.variant, Path(args.store))
    runs = []
    for seed in range(args.processes):
        out = subprocess.run([sys.executable, "-c", CHILD, args.variant, args.store, str(seed),
                              str(args.more), here, str(int(args.synthetic))],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = runs[-1]
        print(f"process {seed}: model {r['model']:.3f} s, first position {r['first']:.3f} s "
              f"(peak {r['before_mb']:.0f} -> {r['after_first_mb']:.0f} MB), next "
              f"{statistics.median(r['next']) * 1000:.1f} ms median, "
              f"{max(r['next']) * 1000:.1f} ms most; {r['same']}/{r['asked']} "
              f"{'as the formula' if args.synthetic else 'as the whole-layer read'}; {load()}",
              flush=True)
    first = [r["first"] for r in runs]
    later = [t for r in runs for t in r["next"]]
    print(f"first position: median {statistics.median(first):.3f} s, most {max(first):.3f} s; "
          f"memory growth most {max(r['after_first_mb'] - r['before_mb'] for r in runs):.0f} "
          f"MB, peak most {max(r['after_first_mb'] for r in runs):.0f} MB; next positions: "
          f"median {statistics.median(later) * 1000:.1f} ms, most {max(later) * 1000:.1f} ms; "
          f"{sum(r['same'] for r in runs)}/{sum(r['asked'] for r in runs)} "
          f"{'as the formula' if args.synthetic else 'as the whole-layer read'}; {load()}")

    import numpy as np  # (the positions of the command runs)
    from yz.solver import Model

    model, rng = Model(args.variant), random.Random(99)
    yz = str(Path(sys.executable).with_name("yz"))
    walls = []
    for _ in range(args.commands):
        pos, dice, left = position(model, rng)
        filled = ",".join(f"{k}={v}" for k, v in pos.filled.items())
        cmd = [yz, "advise", "-v", args.variant, "--store", args.store, "--saved-rolls",
               str(pos.saved_rolls), "-d", ",".join(map(str, dice)), "-r", str(left)]
        if filled:
            cmd += ["--filled", filled]
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    print(f"yz advise --store: median {np.median(walls):.3f} s, most {max(walls):.3f} s over "
          f"{len(walls)} runs; {load()}")


if __name__ == "__main__":
    main()
