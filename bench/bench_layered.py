"""The layered solve against the one-process solve: time, peak memory and the bits.

Each way runs in a fresh process (warm numba cache), so peak memory is each one's own:

    one      `solve_values` in one process (every core)
    layered  `Model.solve_layered` into a fresh folder, in this process (every core)
    dask     the same on a `distributed.LocalCluster` of `--workers` processes, one thread each
             (peak memory: the coordinator's and each worker's)

and the values of all three are compared entry by entry (the layered ones read back from the
folders). Usage:

    .venv/bin/python bench/bench_layered.py yatzy-saved-rolls
    .venv/bin/python bench/bench_layered.py --sd --workers 2 yatzy-saved-rolls official-free-joker
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

RUN = """
import hashlib, json, resource, sys, time
from pathlib import Path
import numpy as np
from yz.rules import load_rules
from yz.solver import Model
from yz.solver.dp import backward, solve_values
from yz.solver.layered import read_store

way, variant, sd, folder, workers = sys.argv[1:6]
sd, workers = sd == "1", int(workers)
model = Model(load_rules(variant), use_cache=False, max_seconds=None)
extra = {}
start = time.perf_counter()
if way == "one":
    values, sd_value = solve_values(model.problem, sd)
    seconds = time.perf_counter() - start
    m2 = None
    if sd:  # (the second moments, for the comparison; not timed)
        m2 = np.zeros(model.layout.size)
        backward(model.problem, np.array(values), m2=m2)
    value = float(values[model.layout.start])
else:
    if way == "dask":
        from distributed import Client, LocalCluster
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
        start = time.perf_counter()
        done = model.solve_layered(folder, sd, scheduler=client)
        seconds = time.perf_counter() - start
        extra["worker_peak_mb"] = sorted(round(v / 1024) for v in client.run(
            lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss).values())
        client.close()
        cluster.close()
    else:
        done = model.solve_layered(folder, sd)
        seconds = time.perf_counter() - start
    value, sd_value = done.expected_score, done.sd
    extra["chunks"] = done.solved_chunks
    extra["store_mb"] = round(sum(p.stat().st_size for p in Path(folder).rglob("*")) / 2**20)
    extra["solve_peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    values, m2 = read_store(model, folder)  # (for the comparison: after the peak is taken)
digest = hashlib.sha256(values.tobytes() + (m2.tobytes() if m2 is not None else b"")
                        ).hexdigest()
print(json.dumps({"way": way, "seconds": seconds, "value": value, "sd": sd_value,
                  "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                  "sha256": digest, **extra}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--sd", action="store_true", help="with the exact SD")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for variant in args.variants:
        rows = []
        for way in ("one", "layered", "dask"):
            with tempfile.TemporaryDirectory(prefix="yz-bench-layered-") as tmp:
                out = subprocess.run(
                    [sys.executable, "-c", RUN, way, variant, "1" if args.sd else "0",
                     str(Path(tmp) / "store"), str(args.workers)],
                    capture_output=True, text=True, check=True)
                rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        base = rows[0]
        print(f"{variant}{' (with the SD)' if args.sd else ''}:")
        for r in rows:
            same = "same bits" if r["sha256"] == base["sha256"] else "DIFFERENT VALUES"
            more = "".join(f", {k} {r[k]}" for k in ("chunks", "store_mb", "solve_peak_mb",
                                                      "worker_peak_mb") if k in r)
            print(f"  {r['way']:8s} {r['seconds']:8.2f} s  ({r['seconds'] / base['seconds']:.2f}"
                  f"x)  peak {r['peak_mb']} MB  value {r['value']!r}  sd {r['sd']!r}  {same}"
                  f"{more}")


if __name__ == "__main__":
    main()
