"""Add a built-in that came after the restructuring to `core_snapshot.json`, with today's code.

`make_core_snapshot.py` wrote the first seven built-ins with the code before the solver core was
restructured; a built-in added since (Crag) has no such past, so its entry is written by the
current code, once its value has been checked against the twin (`tests/test_crag.py`). It then
pins the same things for it: the expected score and SD, 200 sampled turn-start states, the exact
figures of every strategy, the best action in 120 random positions and 3,000 simulated games
per strategy. Usage (rewrites only that built-in's entry):

    .venv/bin/python tests/data/add_to_core_snapshot.py crag
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from yz.rules import load_rules
from yz.rules.position import parse_filled
from yz.solver import Model
from yz.solver.advice import advise
from yz.solver.simulate import simulate

OUT = Path(__file__).with_name("core_snapshot.json")


def entry(name: str) -> dict:
    model = Model(load_rules(name), use_cache=False)
    solution = model.solve(with_sd=True)
    t, layout = solution.tables, solution.layout
    rng = np.random.default_rng(2026)
    states = []
    while len(states) < 200:
        m = int(rng.integers(0, (1 << t.n_categories) - 1))
        f = int(rng.integers(0, layout.n_flags))
        u = int(rng.integers(0, t.upper_threshold + 1))
        if (f == 1 and not (m >> t.flag_box) & 1) or u > layout.U1[m]:
            continue
        states.append([m, f, u, solution.value(m, u, bool(f))])
    figures = {}
    for s in ("optimal", "greedy", "heuristic"):
        found = model.figures(s).as_dict()
        figures[s] = {k: v for k, v in found.items() if v is not None and k != "seconds"}
    positions = []
    keys = list(t.rules.keys)
    while len(positions) < 120:
        chosen = rng.choice(len(keys), size=int(rng.integers(0, len(keys))), replace=False)
        filled = {keys[c]: int(t.SCORE[rng.integers(0, t.n_distinct_rolls), c]) for c in chosen}
        dice = tuple(int(d) for d in t.ROLL_DICE[rng.integers(0, t.n_distinct_rolls)])
        left = int(rng.integers(0, t.rolls))
        advice = advise(solution, parse_filled(filled, t), dice, left)
        positions.append({"filled": filled, "dice": list(dice), "rolls_left": left,
                          "best": advice.best.label(), "value": advice.best.value,
                          "position_value": advice.position_value,
                          "n_actions": len(advice.actions)})
    games = {}
    for s in ("optimal", "greedy", "heuristic"):
        played = simulate(solution, 3000, seed=11, strategy=s, keep_scores=True)
        games[s] = {"sum": int(played.scores.sum()),
                    "sha256": hashlib.sha256(played.scores.astype(np.int64).tobytes())
                    .hexdigest()}
    return {"expected_score": solution.expected_score, "sd": solution.sd,
            "states": states, "figures": figures, "positions": positions, "games": games}


def main() -> None:
    out = json.loads(OUT.read_text())
    for name in sys.argv[1:]:
        out[name] = entry(name)
        print(name, out[name]["expected_score"], out[name]["sd"])
    OUT.write_text("{\n" + ",\n".join(
        f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in out.items())
        + "\n}\n")


if __name__ == "__main__":
    main()
