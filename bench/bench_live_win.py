"""Live play to win against expected-score play, simulated with common random numbers.

Player A plays against B, who plays for the expected score (the optimal bot), or with
`--against minimax` plays minimax (both playing to win, seeing each other's card: small games,
whose two-player solve is kept whole in memory). For every seed and both seatings (A first, A
second) A plays the same game several ways, on the same dice (`match.seat_seed`: each seat's
dice come from its own stream of the seed, each throw of each turn drawn apart, so A's throws
are the same in every arm, the dice A keeps aside, and so are B's; against expected-score
play B's whole game is the same in every arm, and A's mean and blind games do not depend on
the seating, so they are played once per seed):

- "mean": A plays for the expected score too (the baseline; its exact chances are known);
- "blind": A plays the blind best response to B's final score from the empty card, never
  looking at B's card (its exact chances are `yz duel A A --best-response`'s);
- "live": A plays blind until the last `--live-turns` turns, then at every decision the best
  move to win against B's final score given B's card (`Model.win_turn`, re-solved when B's
  card changes: what `yz play --opponent` and `yz advise --opponent-card` advise).

- "minimax" (with `--against minimax`): A plays minimax too (its exact score is known: a check).

Against minimax, every move of A's is also priced (`advantage`, unless `--no-costs`): its
value when both play minimax from then on, less the best move's. A game's prices add up to
what A's play lost against minimax's in that game's positions, and their mean plus minimax's
exact score is an unbiased estimate of the arm's score (the values telescope: B's minimax
moves and the dice add nothing in expectation) whose standard error is 10 to 100 times smaller
than the results' own: most moves cost nothing, and the dice's luck is not in it. Expected-
score play's exact score against minimax checks it.

The blind and live arms assume, as `yz play --opponent` does, that B plays for the expected
score, also where B plays minimax: they are #26's play, measured against the two-player
optimum. Each game's result for A is 1, 1/2 or 0. The gain of an arm over "mean" is the mean
of the paired differences, with its standard error (the same dice make the pairs close, so
the error is far smaller than two independent runs would give); over both seatings each
seed's two differences are averaged first (they share the seed's dice). The exact gain is
printed beside the simulated one where it is known, as a check on the simulation.

    python bench/bench_live_win.py -v crag --games 2000
    python bench/bench_live_win.py -v official-free-joker --games 300 --live-turns 5
    python bench/bench_live_win.py -v gist --games 500 --part 0/2   # and --part 1/2 beside it
    python bench/bench_live_win.py -v crag --against minimax --minimax-store FOLDER \
        --exact-json crag-exact.json --arms blind live     # the whole Crag (30 GiB of disk)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np


def blind_tables(model, opponent, folder: str | None = None) -> tuple[dict, float]:
    """({layer: versus.UtilityTable}, A's exact score) of the blind best response against
    `opponent`, every layer of the game kept (float32: the official game's layers take 1.9 GB
    so): the need sweep from the empty card that `versus.blind_best_response` runs. Its value
    at the start, E[u(final score)], is A's score (P(win) + P(draw) / 2) itself. With
    `folder`, the layers are saved there (layer-K.npy, blind.json) or, when it holds them for
    this game and opponent, memory-mapped from it: parts of a run share one sweep."""
    from yz.solver.target import need_sweep
    from yz.solver.versus import TAIL, UtilityTable

    solution = model.solve()
    top = opponent.top_score(TAIL)
    u, _win, _tie = opponent.outcome(top)
    kept: dict = {}
    start = solution.layout.start
    n = solution.tables.n_categories
    meta = {"game": model.name, "opponent": opponent.digest, "top": top}
    if folder and os.path.exists(os.path.join(folder, "blind.json")):
        with open(os.path.join(folder, "blind.json")) as saved:
            found = json.load(saved)
        if {k: found.get(k) for k in meta} == meta and "first" in found:
            tables = {k: UtilityTable(solution, k, np.load(os.path.join(folder, f"layer-{k}.npy"),
                                                           mmap_mode="r"), top, float(u[top]),
                                      found["first"][k])
                      for k in range(n + 1)}
            return tables, found["score"]

    def keep(k: int, here: slice, table: np.ndarray, _payloads, first: int) -> None:
        kept[k] = UtilityTable(solution, k, table.astype(np.float32), top, float(u[top]), first)
        if k == 0:
            kept["score"] = float(table[start - here.start, top - first])

    need_sweep(solution, top + 1, u[::-1].copy(), float(u[top]), keep, windows=True,
               what="chances of winning", reach=max(0, top - int(opponent.scores[0])))
    score = kept.pop("score")
    row = u[::-1].copy()  # the full card's layer: the utility itself
    size = int(np.diff(solution.layout.LAYER_PTR)[n])
    full = np.tile(row, (size, 1))
    full[:, 0] = u[top]
    kept[n] = UtilityTable(solution, n, full, top, float(u[top]))
    if folder:
        os.makedirs(folder, exist_ok=True)
        for k in range(n + 1):
            np.save(os.path.join(folder, f"layer-{k}.npy"), kept[k].table)
        with open(os.path.join(folder, "blind.json"), "w") as out:
            json.dump({**meta, "score": score, "first": [kept[k].first for k in range(n + 1)]},
                      out)
    return kept, score


def minimax_move(minimax, game, other):
    """The move minimax plays now (`MinimaxPlay`): keeping every die is scoring now."""
    lead = game.banked - other.banked
    best = minimax.advise(game.position, other.position, lead, game.dice, game.rolls_left).best
    if best.kind == "keep" and not best.reroll:
        best = minimax.advise(game.position, other.position, lead, game.dice, 0).best
    return best


def same_move(a, b) -> bool:
    """Whether two actions are the same move (the dice kept, or the box scored)."""
    if a.kind != b.kind:
        return False
    if a.kind == "score":
        return a.box.key == b.box.key
    return sorted(a.keep) == sorted(b.keep) and bool(a.reroll) == bool(b.reroll)


def advantage(minimax, game, other, chosen) -> float:
    """The chosen move's minimax value less the best move's (<= 0): what the move costs A
    against the two-player optimum, both playing minimax from then on. Summed over A's
    decisions in a game against minimax, its mean is A's score less minimax's own exact one
    (the values telescope: B's minimax moves and the dice add nothing in expectation), with
    far less noise than the games' results."""
    lead = game.banked - other.banked
    advice = minimax.advise(game.position, other.position, lead, game.dice, game.rolls_left)
    if chosen.kind == "keep" and not chosen.reroll:
        # Keeping every die ends the rolls (the game then scores these dice): worth the best
        # box now, not the advice's keep-all, which may still re-roll later.
        now = minimax.advise(game.position, other.position, lead, game.dice, 0)
        return now.best.value - advice.best.value
    for action in advice.actions:
        if same_move(action, chosen):
            return action.value - advice.best.value
    if chosen.kind == "score":  # (scoring before the last roll: keeping every die)
        now = minimax.advise(game.position, other.position, lead, game.dice, 0)
        for action in now.actions:
            if same_move(action, chosen):
                return action.value - advice.best.value
    raise RuntimeError(f"no move {chosen.label()} among minimax's")


def as_move(action) -> dict:
    return {"score": action.box.key} if action.kind == "score" else {"keep": list(action.keep)}


def play(model, seed: int, first: int, arm: str, live_turns: int, blind: dict | None,
         minimax=None, costs: list | None = None):
    """A's result (1, 1/2, 0) in one match of the arm, A in seat 0; B plays for the expected
    score, or minimax's moves where `minimax` (a `MinimaxPlay`) is given, and then, with
    `costs`, the sum of A's moves' `advantage`s is appended to it."""
    from yz.solver.match import BotMove, Match
    from yz.solver.versus import WinTurn

    n = model.solve().tables.n_categories

    class Arm(Match):
        def win_turn(self, seat: int):
            game = self.games[seat]
            if seat != 0 or game.over:
                return super().win_turn(seat)
            filled = len(game.position.filled)
            if arm == "blind" or filled < n - live_turns:
                return WinTurn.of(blind[filled + 1], game.position, game.banked)
            return super().win_turn(seat)

        def bot_move(self) -> BotMove:
            if minimax is None:
                return super().bot_move()
            seat, game = self.current, self.game
            action = minimax_move(minimax, game, self.games[1 - seat])
            return BotMove(seat, game.turn, game.dice, game.rolls_left, as_move(action),
                           action, "win")

    match = Arm(model, seed, ("person", "optimal"), first,
                win_chances=arm in ("blind", "live"))
    cost = 0.0
    while not match.over:
        if match.is_bot(match.current):
            match.step()
            continue
        if arm == "minimax":
            best = minimax_move(minimax, match.game, match.games[1])
        else:
            best = match.options()[0][0]
        if costs is not None and match.game.phase in ("keep", "score"):
            cost += advantage(minimax, match.game, match.games[1], best)
        match.play(as_move(best))
    if costs is not None:
        costs.append(cost)
    a, b = (g.banked for g in match.games)
    return 1.0 if a > b else 0.0 if a < b else 0.5


def cut(variant: str, boxes: int):
    """The rule set, cut to its last `boxes` boxes (0: whole), as `bench_crag.py` cuts it."""
    from yz.rules import RulesError, load_rules, rules_from_text

    rules = load_rules(variant)
    if not boxes:
        return rules
    drop = list(rules.keys[:len(rules.keys) - boxes])
    text = f"name: {rules.name}-last-{boxes}\nextends: {variant}\nremove_categories: {drop}\n"
    try:
        return rules_from_text(text)
    except RulesError as exc:  # (no upper box left: no upper bonus either)
        if "no box counts toward the upper bonus" not in str(exc):
            raise
        return rules_from_text(text + "upper_bonus: null\n")


def main() -> None:
    from yz.solver import Model
    from yz.solver.minimax import MinimaxPlay
    from yz.solver.versus import Opponent, chances_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--variant", default="crag")
    parser.add_argument("--boxes", type=int, default=0, help="keep the last N boxes (0: all)")
    parser.add_argument("--games", type=int, default=200, help="seeds (each played seated "
                        "first and second)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--live-turns", type=int, default=None,
                        help="A plays live in its last this many turns (default: all)")
    parser.add_argument("--against", choices=("optimal", "minimax"), default="optimal",
                        help="B's play: for the expected score, or minimax (small games: the "
                        "two-player solve is kept whole in memory)")
    parser.add_argument("--minimax-store", default=None, metavar="FOLDER",
                        help="with --against minimax: read minimax's moves from this folder of "
                        "joint layers (`Model.minimax_store`, solved into it the first time), "
                        "for games whose two-player solve does not fit in memory whole, such "
                        "as the whole Crag; expected-score play's exact chances against "
                        "minimax then come from --exact-json")
    parser.add_argument("--exact-json", default=None, metavar="FILE",
                        help="what `yz duel V --exact --json` printed for this game: the "
                        "exact references with --minimax-store")
    parser.add_argument("--arms", nargs="+", default=None, metavar="ARM",
                        help="play only these arms (mean, blind, live, minimax; mean always)")
    parser.add_argument("--no-costs", action="store_true",
                        help="with --against minimax: do not price A's moves by minimax's "
                        "values (`advantage`; about a minimax advice per decision of A's)")
    parser.add_argument("--part", default="0/1", help="I/N: this process plays every Nth seed")
    parser.add_argument("--tables", default=None, metavar="FOLDER",
                        help="keep the blind best response's tables here (parts share them)")
    parser.add_argument("--out", default=None, help="write the per-game results here (JSON)")
    parser.add_argument("--report", nargs="+", default=None, metavar="FILE",
                        help="print the report of the results --out wrote (the parts of one "
                        "run merged), play nothing")
    args = parser.parse_args()
    if args.report:
        runs = []
        for path in args.report:
            with open(path) as saved:
                runs.append(json.load(saved))
        r = runs[0]
        results = {key: [x for run in runs for x in run["results"][key]]
                   for key in r["results"]}
        seeds = [seed for run in runs for seed in run["seeds"]]
        per_match = {arm: float(np.mean([run["per_match"][arm] for run in runs]))
                     for arm in r["per_match"]}
        exact = {(key.split("/")[0], int(key.split("/")[1])): v for key, v in r["exact"].items()}
        costs = {key: [x for run in runs for x in run.get("costs", {}).get(key, [])]
                 for key in r.get("costs", {})}
        report(r["variant"], r["against"], results, exact, r["live_turns"], r["boxes"],
               per_match, len(seeds), costs)
        return
    part, parts = (int(x) for x in args.part.split("/"))

    begin = time.perf_counter()
    model = Model(cut(args.variant, args.boxes), max_seconds=None)  # (a bench: as --yes)
    solution = model.solve()
    n = solution.tables.n_categories
    live_turns = n if args.live_turns is None else args.live_turns
    b_final = model.final_score_from(None, "optimal")
    opponent = Opponent.of(b_final)
    blind, exact_blind = blind_tables(model, opponent, args.tables)
    # Exact references of A's score, seated first (0) and second (1), where they are known.
    exact = {("mean", 0): chances_of(b_final, opponent).score, ("blind", 0): exact_blind}
    exact[("mean", 1)], exact[("blind", 1)] = exact[("mean", 0)], exact_blind
    minimax = None
    arms = ["mean", "blind", "live"]
    if args.against == "minimax" and args.minimax_store:
        if not args.exact_json:
            parser.error("--minimax-store needs --exact-json (the exact references)")
        with open(args.exact_json) as saved:
            found = json.load(saved)
        minimax = MinimaxPlay(solution, store=model.minimax_store(args.minimax_store))
        scores = (found["minimax"]["score"], found["minimax_first"]["score"],
                  found["minimax_second"]["score"])
    elif args.against == "minimax":
        duel = model.minimax(chances=False, against_optimal=True, keep=True)
        minimax = MinimaxPlay(solution, duel)
        scores = (duel.value, duel.minimax_first.score, duel.minimax_second.score)
    if minimax is not None:
        arms.append("minimax")
        # (each seat's score is minimax's, P(win) + P(draw) / 2: expected-score play's is
        # what is left)
        value, first, second = scores
        exact = {("mean", 0): 1 - second, ("mean", 1): 1 - first,
                 ("minimax", 0): value, ("minimax", 1): 1 - value}
    if args.arms:
        arms = [arm for arm in arms if arm == "mean" or arm in args.arms]
    setup = time.perf_counter() - begin
    print(f"{model.name}: set up in {setup:.1f} s (load {os.getloadavg()[0]:.1f}); B plays "
          f"{args.against}; exact A scores (first, second): " + ", ".join(
              f"{arm} {exact[(arm, 0)]:.6f} {exact[(arm, 1)]:.6f}" for arm in arms
              if (arm, 0) in exact), flush=True)

    results: dict = {f"{arm}/{first}": [] for arm in arms for first in (0, 1)}
    priced = minimax is not None and not args.no_costs
    costs: dict = {key: [] for key in results} if priced else {}
    seeds = [s for s in range(args.seed, args.seed + args.games) if s % parts == part]
    timing = {arm: 0.0 for arm in arms}
    played = {arm: 0 for arm in arms}
    for count, seed in enumerate(seeds, 1):
        for first in (0, 1):
            for arm in arms:
                if first == 1 and minimax is None and arm in ("mean", "blind"):
                    results[f"{arm}/1"].append(results[f"{arm}/0"][-1])  # (the same game)
                    continue
                t0 = time.perf_counter()
                results[f"{arm}/{first}"].append(play(model, seed, first, arm, live_turns,
                                                      blind, minimax,
                                                      costs.get(f"{arm}/{first}")))
                timing[arm] += time.perf_counter() - t0
                played[arm] += 1
        if count % 10 == 0 or count == len(seeds):
            print(f"  {count}/{len(seeds)} seeds, {time.perf_counter() - begin:.0f} s, load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    if args.out:
        with open(args.out, "w") as out:
            json.dump({"variant": model.name, "against": args.against, "boxes": n,
                       "live_turns": live_turns, "seeds": seeds, "results": results,
                       "costs": costs, "seconds": timing, "setup_seconds": setup,
                       "per_match": {arm: timing[arm] / max(1, played[arm]) for arm in arms},
                       "exact": {f"{a}/{f}": v for (a, f), v in exact.items()}}, out)
    report(model.name, args.against, results, exact, live_turns, n,
           {arm: timing[arm] / max(1, played[arm]) for arm in arms}, len(seeds), costs)


def priced_report(costs: dict, exact: dict) -> None:
    """Each arm's score against minimax from its moves' prices: minimax's exact score in the
    seat plus the mean of the games' summed `advantage`s, with its standard error; for
    expected-score play the exact score beside (a check of the estimate)."""
    print("  by the moves' minimax prices (minimax's exact score + the mean summed price):")
    for key in sorted(costs):
        arm, first = key.split("/")
        d = np.array(costs[key])
        if not len(d):
            continue
        se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
        base = exact[("minimax", int(first))]
        line = (f"    {arm:<7} seated {'first' if first == '0' else 'second':<6}: "
                f"{base + d.mean():.5f} ± {se:.5f} (price {d.mean():+.5f}; "
                f"{int((d < 0).sum())} of {len(d)} games priced below 0)")
        if (arm, int(first)) in exact and arm != "minimax":
            line += f"; exact {exact[(arm, int(first))]:.5f}"
        print(line)


def paired(results: dict, arm: str, base: str, keys: tuple) -> tuple[float, float, float]:
    """(the arm's mean score, the mean paired difference to `base`, its standard error) over
    the seatings `keys`; each seed's differences averaged over its seatings first."""
    score = np.mean([results[f"{arm}/{f}"] for f in keys], axis=0)
    d = score - np.mean([results[f"{base}/{f}"] for f in keys], axis=0)
    se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return float(score.mean()), float(d.mean()), float(se)


def report(variant: str, against: str, results: dict, exact: dict, live_turns: int, n: int,
           per_match: dict, games: int, costs: dict | None = None) -> None:
    """Each arm's score beside "mean"'s, the gain paired by seed, seated first, second and
    both; the exact score beside where it is known (a check on the simulation)."""
    print(f"{variant} against {against}, {games} seeds x 2 seatings; A live in its last "
          f"{live_turns} of {n} turns; seconds per match played: " + ", ".join(
              f"{arm} {seconds:.2f}" for arm, seconds in per_match.items()))
    arms = [arm for arm in per_match if arm != "mean"]
    for first, seat in ((0, "A seated first"), (1, "A seated second"), (None, "both")):
        keys = (0, 1) if first is None else (first,)
        mean = float(np.mean([results[f"mean/{f}"] for f in keys]))
        for arm in arms:
            score, gain, se = paired(results, arm, "mean", keys)
            line = (f"  {seat:<16} {arm:<7}: {score:.4f} vs {mean:.4f} (mean); gain "
                    f"{gain:+.4f} ± {se:.4f} (s.e.)")
            if all((a, f) in exact for a in (arm, "mean") for f in keys):
                gain = np.mean([exact[(arm, f)] - exact[("mean", f)] for f in keys])
                line += f"; exact gain {gain:+.4f}"
            print(line)
        if "live" in per_match and all(("blind", f) in exact and ("mean", f) in exact
                                       for f in keys):
            # Live against blind, paired: they differ only where live play does, so the
            # error is smaller; added to the blind best response's exact gain.
            _score, gain, se = paired(results, "live", "blind", keys)
            exact_gain = np.mean([exact[("blind", f)] - exact[("mean", f)] for f in keys])
            print(f"  {seat:<16} live - blind: {gain:+.4f} ± {se:.4f} (s.e.); live's gain "
                  f"over mean = exact blind gain {exact_gain:+.4f} + that = "
                  f"{exact_gain + gain:+.4f} ± {se:.4f}")
    if costs:
        priced_report(costs, exact)


if __name__ == "__main__":
    main()
