"""What a two-player game's chances of winning cost, turn by turn (`yz play --opponent`).

Plays one seeded match of a rule set, a person (who plays the best move to win, as the coach
ranks it) against a bot, and prints for every piece of work the match asks for (a turn's
chances of winning, the other's final score from its card) the turn, the seat, the boxes
filled, the estimate and the time it took, then the whole match's time. The machine's load is
printed beside it: the times are this machine's as it is.

    python bench/bench_match.py                        # official rules, the optimal bot
    python bench/bench_match.py -v no-bonus --bot win --win-seconds 60
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    from yz.solver import Model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--variant", default="official-free-joker")
    parser.add_argument("--bot", default="optimal")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--win-seconds", type=float, default=20.0)
    parser.add_argument("--first", type=int, default=0)
    args = parser.parse_args()

    rows = []
    model = Model(args.variant)
    model.solve()
    match = None

    def compute(what, seconds, make, key=None):
        begin = time.perf_counter()
        out = make()
        took = time.perf_counter() - begin
        seat = match.current if match is not None else 0
        filled = len(match.games[seat].position.filled) if match is not None else 0
        rows.append((what, filled, seconds, took, os.getloadavg()[0]))
        print(f"{what:<55} filled {filled:2d}  estimate {seconds:8.2f} s  took {took:8.2f} s  "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        return out

    begin = time.perf_counter()
    match = model.match(args.seed, ("person", args.bot), args.first,
                        win_seconds=args.win_seconds, compute=compute)
    skipped = 0
    while not match.over:
        if match.is_bot(match.current):
            match.step()
            continue
        options, objective = match.options()
        skipped += objective == "mean"
        best = options[0]
        match.play({"score": best.box.key} if best.kind == "score" else {"keep": list(best.keep)})
    whole = time.perf_counter() - begin
    begin = time.perf_counter()  # what a web request pays at the end: the whole match replayed
    again = type(match).from_state(model, match.state(), args.win_seconds, compute)
    again.view()
    replay = time.perf_counter() - begin
    print(f"{args.variant}, you against the {args.bot} bot, seed {args.seed}, --win-seconds "
          f"{args.win_seconds:g}: {len(match.log)} decisions, {skipped} judged by the mean "
          f"(turns over the time allowed); totals {match.review()['totals']}; the whole match "
          f"{whole:.1f} s, of which the chances {sum(r[3] for r in rows):.1f} s "
          f"(load {os.getloadavg()[0]:.1f} at the end); replayed from its state with its "
          f"view, as a web request does: {replay:.2f} s")


if __name__ == "__main__":
    main()
