"""Positions of real Maxi Yatzy whose worth can be worked out by hand, read from its store and
compared with that arithmetic (written here from the rules, sharing no code with yz):

    .venv/bin/yz solve --variant maxi-yatzy --store maxi-store --no-sd --yes   # about an hour
    .venv/bin/python bench/check_maxi_store_by_hand.py maxi-store

- only Chance open: 6 times a die's worth when each die is kept while it beats re-rolling;
- only Maxi Yatzy open: 100 times the chance of six of a kind, keeping the biggest group
  (a Markov chain on its size);
- only Sixes open at an upper total of 78: the sixes' mean plus 100 times the chance of at
  least one six (which reaches the bonus at 84).

Each saved roll is one more roll of the turn. (`position_value` is the expected points still
to come, the banked points left out.)
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from fractions import Fraction

DICE = 6


def die_worth(rolls: int) -> Fraction:
    """A die's expected face with `rolls` rolls, kept once it beats what re-rolling promises."""
    worth = Fraction(7, 2)
    for _ in range(rolls - 1):
        worth = sum(max(Fraction(face), worth) for face in range(1, 7)) / 6
    return worth


def chance_of_all_same(rolls: int) -> Fraction:
    """The chance of six of a kind within `rolls` rolls, keeping the biggest group each time."""
    def biggest_after(kept: int) -> Counter:
        out: Counter = Counter()
        rolled = DICE - kept
        for faces in itertools.product(range(6), repeat=rolled):
            count = Counter(faces)  # face 0 stands for the kept group's face
            biggest = max([kept + count.get(0, 0)] + [v for f, v in count.items() if f])
            out[biggest] += Fraction(1, 6 ** rolled)
        return out

    step = {kept: biggest_after(kept) for kept in range(DICE)}
    dist = step[0]
    for _ in range(rolls - 1):
        new: Counter = Counter()
        for kept, p in dist.items():
            for biggest, q in ({DICE: 1} if kept == DICE else step[kept]).items():
                new[biggest] += p * q
        dist = new
    return dist[DICE]


def sixes_worth_at_78(rolls: int) -> Fraction:
    """Only Sixes open, upper total 78: every six is kept, each die is a six with
    1 - (5/6)^rolls; the bonus (100) comes with the first six."""
    p = 1 - Fraction(5, 6) ** rolls
    return DICE * p * 6 + 100 * (1 - (1 - p) ** DICE)


def main() -> None:
    from yz.solver import Model

    store = sys.argv[1]
    model = Model("maxi-yatzy")
    keys = [c.key for c in model.tables.rules.categories]
    rolls = model.tables.rolls

    def worth(open_box: str, bank: int, **scores: int) -> float:
        filled = {k: 0 for k in keys if k != open_box}
        filled.update(scores)
        position = model.position(filled, saved_rolls=bank)
        return model.advise(position, store=store).position_value

    rows = [(f"only Chance open, {bank} saved", worth("chance", bank),
             DICE * die_worth(rolls + bank)) for bank in (0, 1, 4)]
    rows += [(f"only Maxi Yatzy open, {bank} saved", worth("maxi_yatzy", bank, chance=6),
              100 * chance_of_all_same(rolls + bank)) for bank in (0, 2)]
    rows += [("only Sixes open, upper total 78, none saved",
              worth("sixes", 0, ones=4, twos=12, threes=18, fours=24, fives=20, chance=6),
              sixes_worth_at_78(rolls))]
    differ = 0
    for name, got, want in rows:
        same = math.isclose(got, float(want), rel_tol=0, abs_tol=1e-9)
        differ += not same
        print(f"{name:45s} store {got:.10f}  by hand {float(want):.10f}  "
              f"{'same' if same else 'DIFFERENT'}")
    print("all the same" if not differ else f"{differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
