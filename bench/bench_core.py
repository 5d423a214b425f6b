"""Before/after benchmark of the solver core: an older commit against the working tree.

The machine is shared and noisy, so both are measured in one run, alternating, each in a fresh
process with a warm numba cache, and the report gives ratios (after / before; below 1 is
faster):

    .venv/bin/python bench/bench_core.py                       # against 847cd9e
    .venv/bin/python bench/bench_core.py --base 847cd9e --rounds 7 official-free-joker yatzy

Each measure is the best of its rounds, with the ratio of the rounds' medians beside it (a VM's
noisy neighbours make single runs vary by a third). Per variant: `dp` (in-process DP), `dp_sd`
(the DP with the exact SD), `pmf` (the exact distribution on a solved game), `process` (a whole
`yz solve --no-cache --quiet` process, SD included, started as the console script starts it),
`cached` (a whole `yz solve --quiet` process answered from the cache) and, once, `startup` (a
process that imports the solver as a library and loads its compiled kernels on a one-box game).
Both the `Model` API and the functions before it are driven. `--target N` adds `target` (the
target table up to N points on the solved game, once a round); `--measures` keeps some of the
measures, for a big game:

    .venv/bin/python bench/bench_core.py maxi-yatzy-no-saved-rolls --rounds 2 --measures dp dp_sd
    .venv/bin/python bench/bench_core.py official-free-joker --measures target --target 20

The base commit is checked out into a temporary git worktree and imported from there.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"yahtzee_rules": "rules", "solver": "solver", "variants": "variants",
           "cli": "cli", "examples": "examples"}

TIMING = """
import json, sys, time
from yz.rules import compile_rules, load_rules
from yz.solver.dp import solve_values
from yz.solver.distribution import score_distribution
try:  # the Model API (issue 21 on)
    from yz.solver import Model
    model = Model({name!r}, use_cache=False, max_seconds=1e9)  # a big game is timed, not refused
    game = getattr(model, "problem", model)  # what the DP takes: the problem (issue 38 on)
    solution = model.solve()
except ImportError:  # before it: the tables themselves
    from yz.solver import solve
    game = compile_rules(load_rules({name!r}))
    solution = solve(game, use_cache=False)
works = {{"dp": lambda: solve_values(game),
         "dp_sd": lambda: solve_values(game, with_sd=True),
         "pmf": lambda: score_distribution(solution)}}
if {target}:
    from yz.solver.target import solve_targets
    works["target"] = lambda: solve_targets(solution, {target})
    solve_targets(solution, 2)  # compile or load the kernels
works = {{key: work for key, work in works.items() if key in {measures!r}}}
if "dp_sd" in works: solve_values(game, with_sd=True)  # compile or load the kernels
if "pmf" in works: score_distribution(solution)
out = {{}}
for key, work in works.items():
    best = 1e9
    for _ in range(1 if key == "target" else 3):
        start = time.perf_counter(); work()
        best = min(best, time.perf_counter() - start)
    out[key] = best
print(json.dumps(out))
"""

STARTUP = """
import time
start = time.perf_counter()
from yz.rules import RuleSet, compile_rules
from yz.solver.dp import solve_values
rules = RuleSet.model_validate({"name": "one", "dice": 1, "rolls": 1, "categories": [
    {"key": "chance", "name": "Chance", "section": "lower", "pattern": "any",
     "score": "sum_all"}]})
try:
    from yz.solver import Model
    model = Model(rules, use_cache=False)
    solve_values(getattr(model, "problem", model))
except ImportError:
    solve_values(compile_rules(rules))
print(time.perf_counter() - start)
"""


def tree_of(commit: str, where: Path) -> Path:
    """A folder whose `yz` package is `commit`'s code (put on PYTHONPATH)."""
    subprocess.run(["git", "worktree", "add", "--detach", str(where / "wt"), commit], cwd=ROOT,
                   check=True, capture_output=True)
    package = where / "src" / "yz"
    package.mkdir(parents=True)
    for folder, name in FOLDERS.items():
        if (where / "wt" / folder).is_dir():
            (package / name).symlink_to(where / "wt" / folder)
    return where / "src"


def run(src: Path | None, code: str, env: dict) -> str:
    env = dict(env)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"a timed process failed:\n{out.stderr[-2000:]}")
    return out.stdout.strip().splitlines()[-1]


# What the `yz` console script runs: its entry module where the side has one, else `run`.
CONSOLE_SCRIPT = """
try:
    from yz.cli.entry import main
except ImportError:
    from yz.cli.main import run as main
main()
"""


def process_time(src: Path | None, name: str, env: dict, *options: str) -> float:
    args = ",".join(repr(a) for a in ("solve", *options, "--quiet", "-v", name))
    code = ("import subprocess,sys,time;t=time.perf_counter();"
            f"subprocess.run([sys.executable,'-c',{CONSOLE_SCRIPT!r},{args}],check=True,"
            "stdout=subprocess.DEVNULL);print(time.perf_counter()-t)")
    return float(run(src, code, env))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["official-free-joker", "yatzy"])
    parser.add_argument("--base", default="847cd9e", help="the commit to compare against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--target", type=int, default=0,
                        help="also time the target table up to this many points")
    measures = ("dp", "dp_sd", "pmf", "process", "cached", "target", "startup")
    parser.add_argument("--measures", nargs="+", choices=measures, default=measures)
    args = parser.parse_args()
    keys = [m for m in args.measures if m != "startup" and (m != "target" or args.target)]
    tmp = Path(tempfile.mkdtemp(prefix="yz-bench-core-"))
    env = dict(os.environ, YZ_CACHE_DIR=str(tmp / "cache"))
    try:
        base = tree_of(args.base, tmp)
        sides = {"before": base, "after": None}
        for side in sides.values():  # compile both sides' kernels once
            run(side, STARTUP, env)
        print(f"base {args.base} vs working tree, {args.rounds} alternating rounds; "
              "times are the best of each side, ratio = after / before; a noisy machine's lucky\n"
              "round moves the best, so the ratio of the rounds' medians is shown beside it")
        rows = {}
        for name in args.variants:
            got = {side: {key: [] for key in keys} for side in sides}
            timed = TIMING.format(name=name, target=args.target, measures=keys)
            for _ in range(args.rounds):
                for side, src in sides.items():
                    timing = json.loads(run(src, timed, env))
                    for key, seconds in timing.items():
                        got[side][key].append(seconds)
                    if "process" in keys:
                        got[side]["process"].append(process_time(src, name, env, "--no-cache"))
                    if "cached" in keys:
                        side_env = dict(env, YZ_CACHE_DIR=str(tmp / f"cache-{side}"))
                        process_time(src, name, side_env)  # fills this side's cache
                        got[side]["cached"].append(process_time(src, name, side_env))
            rows[name] = got
            for key in keys:
                before, after = min(got["before"][key]), min(got["after"][key])
                middle = statistics.median(got["after"][key]) / statistics.median(
                    got["before"][key])
                print(f"{name:<22}{key:<9} before {before:7.3f} s  after {after:7.3f} s  "
                      f"ratio {after / before:5.2f}  (of the medians {middle:5.2f})")
            if "dp" in keys and "dp_sd" in keys:
                sd_ratio = min(got["after"]["dp_sd"]) / min(got["after"]["dp"])
                print(f"{name:<22}dp_sd / dp after: {sd_ratio:.2f}")
        if "startup" not in args.measures:
            return
        starts = {side: [] for side in sides}
        for _ in range(args.rounds):
            for side, src in sides.items():
                starts[side].append(float(run(src, STARTUP, env)))
        before, after = statistics.median(starts["before"]), statistics.median(starts["after"])
        print(f"startup (imports + loading kernels, median): before {before:.3f} s  after "
              f"{after:.3f} s  ratio {after / before:.2f}")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tmp / "wt")], cwd=ROOT,
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
