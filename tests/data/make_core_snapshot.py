"""Write `core_snapshot.json`: what the solver core computed before it was restructured.

Run once, with the code of commit ebcbbed (the last one before "one turn in one place"):

    python tests/data/make_core_snapshot.py

For every built-in it records the expected score and SD, the values of 200 random turn-start
states, the exact figures of every strategy, the best action (and its value) in 120 random
positions, and 3,000 simulated games per strategy (their score sum and a hash of the scores).
`tests/test_core_snapshot.py` checks the current code against it: the same actions, values
equal to 1e-12.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from solver import exact_figures, solve
from solver.advice import advise
from solver.simulate import simulate
from yahtzee_rules import builtin_names, load_rules
from yahtzee_rules.position import parse_filled

OUT = Path(__file__).with_name("core_snapshot.json")


def random_card(t, rng):
    keys = list(t.rules.keys)
    n = int(rng.integers(0, len(keys)))
    chosen = rng.choice(len(keys), size=n, replace=False)
    filled = {}
    for c in chosen:
        filled[keys[c]] = int(t.SCORE[rng.integers(0, t.n_rolls), c])
    return filled


def main() -> None:
    out = {}
    for name in builtin_names(big=False):
        solution = solve(load_rules(name), use_cache=False, with_sd=True)
        t = solution.tables
        V = solution.values
        rng = np.random.default_rng(2026)
        states = []
        while len(states) < 200:
            m = int(rng.integers(0, V.shape[0] - 1))
            f = int(rng.integers(0, V.shape[1]))
            u = int(rng.integers(0, V.shape[2]))
            if f == 1 and not (m >> t.yahtzee_cat) & 1:
                continue
            states.append([m, f, u, float(V[m, f, u])])
        figures = {s: exact_figures(solution, s, use_cache=False)
                   for s in ("optimal", "greedy", "heuristic")}
        positions = []
        while len(positions) < 120:
            filled = random_card(t, rng)
            if len(filled) >= len(t.rules.keys):
                continue
            pos = parse_filled(filled, t)
            dice = tuple(int(d) for d in t.ROLL_DICE[rng.integers(0, t.n_rolls)])
            left = int(rng.integers(0, t.n_rolls_per_turn))
            advice = advise(solution, pos, dice, left)
            best = advice.best
            positions.append({
                "filled": filled, "dice": list(dice), "rolls_left": left,
                "best": best.label(), "value": best.value,
                "position_value": advice.position_value,
                "n_actions": len(advice.actions),
            })
        games = {}
        for s in ("optimal", "greedy", "heuristic"):
            played = simulate(solution, 3000, seed=11, strategy=s)
            games[s] = {"sum": int(played.score.sum()),
                        "sha256": hashlib.sha256(played.score.astype(np.int64).tobytes())
                        .hexdigest()}
        out[name] = {"expected_score": solution.expected_score, "sd": solution.sd,
                     "states": states, "figures": figures, "positions": positions,
                     "games": games}
        print(name, solution.expected_score, solution.sd)
    OUT.write_text("{\n" + ",\n".join(
        f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in out.items())
        + "\n}\n")


if __name__ == "__main__":
    main()
