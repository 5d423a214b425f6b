"""Slow, obviously-correct twins of the scorer, the Joker rules and the solver: a test oracle.

Nothing here comes from ``yz.rules.scoring`` or ``yz.rules.tables``; only the pydantic
rule objects are read (by their ``kind`` strings and plain fields). Dice are ordered tuples of
faces 1..F, and everything is written straight from the rule language's definition with plain
loops over every possibility:

- ``naive_score``: the points a category gives a roll under the normal rules;
- ``naive_box_points``: the points of putting a final roll in an open box in a given position,
  with the Joker and the extra Yahtzee bonus (``None`` if the forced Joker forbids that box);
- ``naive_solve``: the optimal expected final score by expectimax over ordered dice outcomes,
  with saved rolls (a bank of unused rolls carried to later turns) when asked;
- ``naive_solve_multiset``: the same by expectimax over dice multisets with multinomial
  chances (a second, faster oracle for 6-dice games, checked against ``naive_solve``).
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product
from math import factorial

# ---------------------------------------------------------------- one category, one roll


def _count(dice, face: int) -> int:
    return sum(1 for d in dice if d == face)


def naive_match(pattern, dice) -> int | None:
    """Best sum of the dice that form the pattern, or None if the roll does not fit it."""
    kind = pattern.kind
    if kind == "any":
        return sum(dice)
    if kind == "all_same":
        return sum(dice) if all(d == dice[0] for d in dice) else None
    if kind == "face":
        if _count(dice, pattern.face) >= pattern.min_count:
            return sum(d for d in dice if d == pattern.face)
        return None
    if kind == "of_a_kind":
        k = pattern.count
        best = None
        for face in set(dice):
            c = _count(dice, face)
            if c == k or (c > k and not pattern.exact):
                best = face if best is None else max(best, face)
        return None if best is None else k * best
    if kind == "groups":
        best = None
        # Every way to give each group a face that shows on some die (a group needs >= 1 die).
        for assignment in product(sorted(set(dice)), repeat=len(pattern.sizes)):
            if pattern.distinct and len(set(assignment)) != len(assignment):
                continue
            need: dict[int, int] = {}
            for size, face in zip(pattern.sizes, assignment, strict=True):
                need[face] = need.get(face, 0) + size
            if pattern.exact:
                ok = all(_count(dice, face) == n for face, n in need.items())
            else:
                ok = all(_count(dice, face) >= n for face, n in need.items())
            if ok:
                points = sum(size * face for size, face in zip(pattern.sizes, assignment,
                                                               strict=True))
                best = points if best is None else max(best, points)
        return best
    if kind == "total":
        total = sum(dice)
        if pattern.equals is not None:
            fits = total == pattern.equals
        else:
            fits = ((pattern.min is None or total >= pattern.min)
                    and (pattern.max is None or total <= pattern.max))
        return total if fits else None
    if kind == "either":
        # At least one of its patterns matches; the one whose dice sum highest forms it.
        sums = [naive_match(p, dice) for p in pattern.patterns]
        sums = [x for x in sums if x is not None]
        return max(sums) if sums else None
    if kind == "both":
        # Both match; the first one's dice form it.
        first, second = pattern.patterns
        if naive_match(second, dice) is None:
            return None
        return naive_match(first, dice)
    if kind == "straight":
        if pattern.faces is not None:
            return sum(pattern.faces) if all(f in dice for f in pattern.faces) else None
        if pattern.any_of is not None:
            shown = [sum(s) for s in pattern.any_of if all(f in dice for f in s)]
            return max(shown) if shown else None
        best = None
        for low in range(1, max(dice) + 1):
            run = list(range(low, low + pattern.length))
            if all(f in dice for f in run):
                best = sum(run) if best is None else max(best, sum(run))
        return best
    raise TypeError(f"unknown pattern kind {kind!r}")


def naive_score(category, dice, first_roll: bool = False) -> int:
    """Points the box gives this roll (ordered dice) under the normal rules; with
    `first_roll`, the dice are the turn's first roll and a score above zero earns the box's
    `first_roll_bonus` too."""
    points = _naive_points(category, tuple(dice))
    if first_roll and points > 0:
        points += category.first_roll_bonus
    return points


def _naive_points(category, dice) -> int:
    matched = naive_match(category.pattern, dice)
    if matched is None:
        return 0
    form = category.score
    if form.kind == "fixed":
        return form.points
    if form.kind == "sum_all":
        return sum(dice)
    if form.kind == "sum_matched":
        return matched
    if form.kind == "face_total":
        return category.pattern.face * _count(dice, category.pattern.face)
    raise TypeError(f"unknown scoring form {form.kind!r}")


def naive_full_value(category, dice) -> int:
    """Points of the box when the Joker makes its pattern count as matched by all the dice."""
    form = category.score
    if form.kind == "fixed":
        return form.points
    if form.kind in ("sum_all", "sum_matched"):
        return sum(dice)
    if form.kind == "face_total":
        return category.pattern.face * _count(dice, category.pattern.face)
    raise TypeError(f"unknown scoring form {form.kind!r}")


# ---------------------------------------------------------------- one box in a position


def _category(rules, key: str):
    for cat in rules.categories:
        if cat.key == key:
            return cat
    raise KeyError(key)


def _upper_box(rules, face: int) -> str | None:
    for cat in rules.categories:
        if cat.section == "upper" and cat.pattern.kind == "face" and cat.pattern.face == face:
            return cat.key
    return None


def _has_yahtzee_box(rules) -> bool:
    return any(cat.key == rules.yahtzee_category for cat in rules.categories)


def naive_flag_key(rules) -> str | None:
    """The box whose non-zero score the state remembers: the Yahtzee box with a Yahtzee
    bonus, else the box some box waits for (`only_after`)."""
    if rules.yahtzee_bonus is not None:
        return rules.yahtzee_category
    waited = [c.only_after for c in rules.categories if c.only_after is not None]
    return waited[0] if waited else None


def naive_box_parts(rules, dice, category_key: str, filled: frozenset[str],
                    yahtzee_full: bool, first: bool = False) -> tuple[int, int] | None:
    """(box score, extra Yahtzee bonus) of scoring this roll in this open box, or None if the
    box is filled, not the next box of a card filled in order, or the forced Joker forbids it.
    The box score is what counts toward the upper bonus; the extra bonus never does.
    `yahtzee_full`: the flag box holds a non-zero score; `first`: the dice are the turn's
    first roll (a score above zero earns the box's first-roll bonus)."""
    if category_key in filled:
        return None
    if rules.order == "in_order":
        next_open = next(c.key for c in rules.categories if c.key not in filled)
        if category_key != next_open:
            return None
    parts = _box_parts(rules, dice, category_key, filled, yahtzee_full)
    if parts is None:
        return None
    box, bonus = parts
    cat = _category(rules, category_key)
    if cat.only_after is not None and not yahtzee_full:
        box = 0
    if first and box > 0:
        box += cat.first_roll_bonus
    return box, bonus


def _may_fill_this_turn(rules, key: str, filled) -> bool:
    """A turn may fill an open box; on a card filled in order, only the first open one."""
    if key in filled:
        return False
    if rules.order == "in_order":
        return key == next(c.key for c in rules.categories if c.key not in filled)
    return True


def _box_parts(rules, dice, category_key, filled, yahtzee_full):
    """The Joker as the rule reference words it: a Yahtzee of face v rolled when the Yahtzee
    box is filled. `free`: any box; the full-value boxes score in full when the upper box of v
    is filled (or does not exist). `forced`: the upper box of v if this turn may fill it; else
    a lower box this turn may fill (full value as for `free`); only when there is none, any
    box this turn may fill, scored normally. "May fill": open, and on a card filled in order
    the first open box, so the forced Joker never leaves a turn without a box."""
    cat = _category(rules, category_key)
    dice = tuple(dice)
    yahtzee_roll = all(d == dice[0] for d in dice)
    ybox = rules.yahtzee_category
    bonus = 0
    if (yahtzee_roll and yahtzee_full and rules.yahtzee_bonus is not None
            and _has_yahtzee_box(rules)):
        bonus = rules.yahtzee_bonus.amount
    normal = naive_score(cat, dice)
    mode = rules.joker.mode
    joker = yahtzee_roll and mode != "none" and ybox in filled
    if not joker:
        return normal, bonus
    upper = _upper_box(rules, dice[0])
    upper_filled = upper is None or upper in filled
    in_full = category_key in rules.joker.full_value and upper_filled
    scored = naive_full_value(cat, dice) if in_full else normal
    if mode == "free":
        return scored, bonus
    if not upper_filled and _may_fill_this_turn(rules, upper, filled):
        return (normal, bonus) if category_key == upper else None
    lower = [c.key for c in rules.categories
             if c.section == "lower" and _may_fill_this_turn(rules, c.key, filled)]
    if lower:
        return (scored, bonus) if cat.section == "lower" else None
    return normal, bonus  # no lower box to fill: any box this turn may fill, scored normally


def naive_box_points(rules, dice, category_key: str, filled: frozenset[str],
                     yahtzee_full: bool, first: bool = False) -> int | None:
    """Points of putting this roll in this open box (Joker, extra Yahtzee bonus and with
    `first` the first-roll bonus included), or None if the box may not take it."""
    parts = naive_box_parts(rules, dice, category_key, filled, yahtzee_full, first)
    return None if parts is None else parts[0] + parts[1]


# ---------------------------------------------------------------- the whole game


def naive_bonus_keys(rules) -> frozenset[str]:
    """The boxes counting toward the upper bonus."""
    if rules.upper_bonus is None:
        return frozenset()
    if rules.upper_bonus.categories is not None:
        return frozenset(rules.upper_bonus.categories)
    return frozenset(c.key for c in rules.categories if c.section == "upper")


class NaiveGame:
    """Plain expectimax over ordered dice for one rule set (only for tiny games).

    Turn-start states are (filled boxes, upper total capped at the threshold, whether the
    flag box holds a non-zero score). Within a turn the dice are an ordered tuple; after each
    roll but the last, any subset of dice positions is kept and the others are re-thrown (each
    of the F**m outcomes of the m thrown dice has probability 1/F**m). The turn's first roll
    earns first-roll bonuses: after it, with re-rolls left, the player may stop and fill a box
    with it; with `rolls: 1` it is also the final roll.

    Saved rolls (`saved`: an object with `carry_unused`, `start` and `cap`, by default the
    rules' `saved_rolls` if they have one) add the bank b of saved rolls to the state. A turn
    that starts with b saved rolls may roll up to `rolls` + b times (at least once) and may
    stop and fill a box after any roll. Filling a box with L re-rolls still unused leaves a
    bank of min(cap, L) when unused rolls are carried (no cap: L), else of min(b, L): the
    regular rolls left are lost and only the saved rolls not drawn on stay. The game starts
    with `start` saved rolls.
    """

    def __init__(self, rules, saved=None):
        self.rules = rules
        self.saved = saved if saved is not None else getattr(rules, "saved_rolls", None)
        self.keys = tuple(c.key for c in rules.categories)
        self.threshold = rules.upper_bonus.threshold if rules.upper_bonus is not None else 0
        self.amount = rules.upper_bonus.amount if rules.upper_bonus is not None else 0
        self.counted = naive_bonus_keys(rules)
        self.outcomes = list(product(range(1, rules.faces + 1), repeat=rules.dice))
        self.flag_key = naive_flag_key(rules)
        self._values: dict = {}
        self._after_box: dict = {}

    def is_first(self, left: int, bank: int = 0) -> bool:
        """Whether a roll with `left` re-rolls left is the first of a turn begun with `bank`
        saved rolls."""
        return left == self.rules.rolls - 1 + bank

    def start_bank(self) -> int:
        return self.saved.start if self.saved is not None else 0

    def next_bank(self, bank: int, left: int) -> int:
        """Saved rolls after filling a box with `left` re-rolls unused, in a turn begun with
        `bank` saved rolls."""
        if self.saved is None:
            return 0
        if self.saved.carry_unused:
            return left if self.saved.cap is None else min(self.saved.cap, left)
        return min(bank, left)

    def value(self, filled: frozenset[str], upper: int, yfull: bool, bank: int = 0) -> float:
        """Expected points still to come from the start of a turn in this state."""
        key = (filled, upper, yfull, bank)
        if key not in self._values:
            full = len(filled) == len(self.keys)
            self._values[key] = 0.0 if full else self._turn_value(filled, upper, yfull, bank)
        return self._values[key]

    def _turn_value(self, filled, upper, yfull, bank: int = 0) -> float:
        """Expected points of this turn and the rest, over every ordered first roll."""
        memo: dict = {}
        return sum(self.first_roll_value(filled, upper, yfull, o, memo, bank)
                   for o in self.outcomes) / len(self.outcomes)

    def first_roll_value(self, filled, upper, yfull, dice, memo=None, bank: int = 0) -> float:
        """Value of the turn's first roll: play on, or (with re-rolls left) stop and score it
        with its first-roll bonus."""
        memo = {} if memo is None else memo
        return self._hold(filled, upper, yfull, dice, self.rules.rolls - 1 + bank, memo, bank)

    def box_values(self, filled, upper, yfull, dice, first: bool = False, bank: int = 0,
                   left: int = 0) -> dict[str, float]:
        """Value of scoring a roll in each legal open box (points now + what follows); with
        `first` the roll is the turn's first; `bank` and `left` (saved rolls at the turn's
        start, re-rolls unused) decide the bank the next turn starts with."""
        out = {}
        after_bank = self.next_bank(bank, left)
        for key in self.keys:
            parts = naive_box_parts(self.rules, dice, key, filled, yfull, first)
            if parts is not None:
                out[key] = self._move_value(filled, upper, yfull, key, *parts, after_bank)
        assert out, "no legal box: the rules left a roll nowhere to go"
        return out

    def move(self, state, key: str, box: int, ybonus: int):
        """The game's one transition: (points gained, next state) of putting `box` points
        (and `ybonus`) in box `key` from state (filled, upper, flag), the upper bonus
        included."""
        filled, upper, yfull = state
        points = box + ybonus
        new_upper = upper
        if key in self.counted:
            new_upper = min(self.threshold, upper + box)
            if upper < self.threshold <= upper + box:
                points += self.amount
        new_yfull = yfull or (key == self.flag_key and box > 0)
        return points, (filled | {key}, new_upper, new_yfull)

    def _move_value(self, filled, upper, yfull, key, box, ybonus, bank: int = 0) -> float:
        """Points of a move plus the value of the state it leads to (with `bank` saved)."""
        points, after = self.move((filled, upper, yfull), key, box, ybonus)
        memo_key = (filled, key, after[1], after[2], bank)  # cheaper to hash than a frozenset
        if memo_key not in self._after_box:
            self._after_box[memo_key] = self.value(*after, bank)
        return points + self._after_box[memo_key]

    def keep_values(self, filled, upper, yfull, dice, left, memo: dict | None = None,
                    bank: int = 0) -> dict[tuple[int, ...], float]:
        """Value of each keep (as sorted kept dice) with `left` re-rolls remaining, left >= 1."""
        memo = {} if memo is None else memo
        n, faces = self.rules.dice, self.rules.faces
        out = {}
        for mask in range(1 << n):  # bit i set: die i is kept
            kept = tuple(sorted(dice[i] for i in range(n) if mask >> i & 1))
            thrown = [i for i in range(n) if not mask >> i & 1]
            total = 0.0
            for new_faces in product(range(1, faces + 1), repeat=len(thrown)):
                new = list(dice)
                for i, face in zip(thrown, new_faces, strict=True):
                    new[i] = face
                total += self._hold(filled, upper, yfull, tuple(new), left - 1, memo, bank)
            out[kept] = total / faces ** len(thrown)
        return out

    def _hold(self, filled, upper, yfull, dice, left, memo, bank: int = 0) -> float:
        """Value of holding these dice with `left` re-throws still allowed, in a turn begun
        with `bank` saved rolls (`memo` is that turn's): fill a box now (with none left, after
        the first roll, or at any roll with saved rolls), or keep some dice and throw again."""
        key = (dice, left)
        if key not in memo:
            first = self.is_first(left, bank)
            best = -float("inf")
            if left == 0 or first or self.saved is not None:
                best = max(self.box_values(filled, upper, yfull, dice, first=first, bank=bank,
                                           left=left).values())
            if left > 0:
                best = max(best, *self.keep_values(filled, upper, yfull, dice, left, memo,
                                                   bank).values())
            memo[key] = best
        return memo[key]


class NaiveMoments(NaiveGame):
    """The mean of the points to come under optimal play and the range of their second
    moment over every way of breaking ties, over ordered dice.

    Where two moves are worth the same, an optimal player may take either, and the second
    moment (so the SD) depends on which. So each decision keeps the lowest and highest second
    moment among its best moves, and a chance node averages both bounds: any tie-breaking rule,
    followed throughout, gives a second moment inside (second_low, second_high).
    """

    def __init__(self, rules, saved=None):
        super().__init__(rules, saved)
        self._moments: dict = {}

    def start_moments(self) -> tuple[float, float, float]:
        """(mean, lowest second moment, highest second moment) of the final score."""
        return self.moments(frozenset(), 0, False, self.start_bank())

    def moments(self, filled, upper, yfull, bank) -> tuple[float, float, float]:
        """(E[points to come], and the bounds of E[(points to come)^2]) from a turn start."""
        key = (filled, upper, yfull, bank)
        if key not in self._moments:
            if len(filled) == len(self.keys):
                self._moments[key] = (0.0, 0.0, 0.0)
            else:
                memo: dict = {}
                last = self.rules.rolls - 1 + bank
                rolls = [self._hold2(filled, upper, yfull, o, last, memo, bank)
                         for o in self.outcomes]
                self._moments[key] = _mean_moments(rolls)
        return self._moments[key]

    def _hold2(self, filled, upper, yfull, dice, left, memo, bank):
        key = (dice, left)
        if key in memo:
            return memo[key]
        options = []
        first = self.is_first(left, bank)
        if left == 0 or first or self.saved is not None:
            after_bank = self.next_bank(bank, left)
            for box in self.keys:
                parts = naive_box_parts(self.rules, dice, box, filled, yfull, first)
                if parts is None:
                    continue
                g, after = self.move((filled, upper, yfull), box, *parts)
                v, q_low, q_high = self.moments(*after, after_bank)
                options.append((g + v, g * g + 2 * g * v + q_low, g * g + 2 * g * v + q_high))
        if left > 0:
            n, faces = self.rules.dice, self.rules.faces
            for mask in range(1 << n):
                thrown = [i for i in range(n) if not mask >> i & 1]
                outcomes = []
                for new_faces in product(range(1, faces + 1), repeat=len(thrown)):
                    new = list(dice)
                    for i, face in zip(thrown, new_faces, strict=True):
                        new[i] = face
                    outcomes.append(self._hold2(filled, upper, yfull, tuple(new), left - 1,
                                                memo, bank))
                options.append(_mean_moments(outcomes))
        best = max(v for v, _, _ in options)
        tied = [o for o in options if abs(o[0] - best) <= 1e-9 * max(1.0, abs(best))]
        memo[key] = (best, min(o[1] for o in tied), max(o[2] for o in tied))
        return memo[key]


def _mean_moments(outcomes: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    n = len(outcomes)
    return tuple(sum(o[i] for o in outcomes) / n for i in range(3))


def naive_solve(rules, saved=None) -> float:
    """Optimal expected final score of a whole game (see NaiveGame; `saved`: saved rolls)."""
    game = NaiveGame(rules, saved)
    return game.value(frozenset(), 0, False, game.start_bank())


START = (frozenset(), 0, False)  # the empty card: no box filled, upper total 0, flag down


# ---------------------------------------------------------------- the whole game, dice as multisets


def naive_multisets(faces: int, size: int) -> list[tuple[int, ...]]:
    """Every multiset of `size` dice, as a sorted tuple of faces 1..`faces`."""
    return list(combinations_with_replacement(range(1, faces + 1), size))


def naive_multiset_chance(dice, faces: int) -> float:
    """Chance that len(dice) fair dice show exactly this multiset: the number of orders it can
    come in (the multinomial m! / prod(count!)) over the faces**m equally likely orders."""
    ways = factorial(len(dice))
    for face in set(dice):
        ways //= factorial(_count(dice, face))
    return ways / faces ** len(dice)


def naive_sub_multisets(dice) -> list[tuple[int, ...]]:
    """Every keep of a roll: each sub-multiset of the sorted dice (kept 0..count of each face),
    once, as a sorted tuple; the empty keep and the whole roll included."""
    shown = sorted(set(dice))
    return [tuple(face for face, n in zip(shown, picks, strict=True) for _ in range(n))
            for picks in product(*(range(_count(dice, face) + 1) for face in shown))]


class NaiveMultisetGame(NaiveGame):
    """Plain expectimax over dice multisets: the same game as NaiveGame, fast enough for 6 dice.

    The order of the dice never matters to a score, so a roll is a sorted tuple drawn with its
    multinomial chance, a keep is a sub-multiset of the roll and the thrown dice are a multiset
    with its own multinomial chance. States and every scoring rule are NaiveGame's (through
    ``naive_box_parts`` and ``move``). Within a turn, the value of a keep depends only on
    (keep, re-rolls left), not on the roll it came from, so a turn is worked out backwards one
    re-roll at a time over every roll and every keep.
    """

    def __init__(self, rules):
        super().__init__(rules)
        assert self.saved is None, "saved rolls: NaiveGame (ordered dice) only, so far"
        n, faces = rules.dice, rules.faces
        # The dice arithmetic is the same in every state: work it out once.
        self.rolls = [(d, naive_multiset_chance(d, faces)) for d in naive_multisets(faces, n)]
        self.keeps = {d: naive_sub_multisets(d) for d, _ in self.rolls}
        # For every keep (every multiset of 0..n dice): each roll it can end up as, with the
        # chance that the n - len(keep) thrown dice show the missing multiset.
        self.after = {
            kept: [(tuple(sorted(kept + thrown)), naive_multiset_chance(thrown, faces))
                   for thrown in naive_multisets(faces, n - size)]
            for size in range(n + 1) for kept in naive_multisets(faces, size)}
        self._parts: dict = {}
        self._stages: dict = {}

    def _turn_value(self, filled, upper, yfull, bank: int = 0) -> float:
        """Expected points of this turn and the rest, over every first roll (a multiset)."""
        first = self.first_roll_values(filled, upper, yfull)
        return sum(p * first[d] for d, p in self.rolls)

    def stages(self, filled, upper, yfull) -> list[dict[tuple[int, ...], float]]:
        """stages[left][dice]: the value of holding a roll with `left` re-rolls left, by
        backward induction over the re-rolls: with none left a roll is scored in its best box;
        with one more left it takes its best keep, a keep being worth the chance-weighted value
        of the rolls it can become. The first roll may also stop at once (with re-rolls left)
        and be scored with its first-roll bonus."""
        key = (filled, upper, yfull)
        if key not in self._stages:
            hold = {d: max(self.box_values(filled, upper, yfull, d,
                                           first=self.is_first(0)).values())
                    for d, _ in self.rolls}
            out = [hold]
            for _ in range(self.rules.rolls - 1):
                kept = {k: sum(p * hold[d] for d, p in after) for k, after in self.after.items()}
                hold = {d: max(kept[k] for k in self.keeps[d]) for d, _ in self.rolls}
                out.append(hold)
            if self.rules.rolls > 1:
                out[-1] = {d: max(v, *self.box_values(filled, upper, yfull, d,
                                                      first=True).values())
                           for d, v in out[-1].items()}
            self._stages[key] = out
        return self._stages[key]

    def first_roll_values(self, filled, upper, yfull) -> dict[tuple[int, ...], float]:
        """Value of each first roll of a turn in this state (sorted dice)."""
        return self.stages(filled, upper, yfull)[-1]

    def roll_value(self, state, dice, left: int) -> float:
        """Best expected points still to come holding `dice` (any order) with `left` re-rolls
        left in a turn that started in `state`: what the best move is worth."""
        return self.stages(*state)[left][tuple(sorted(dice))]

    def box_values(self, filled, upper, yfull, dice, first: bool = False, bank: int = 0,
                   left: int = 0) -> dict[str, float]:
        """NaiveGame.box_values, with the legal boxes of each roll worked out once per
        (filled, flag, first)."""
        after_bank = self.next_bank(bank, left)
        out = {key: self._move_value(filled, upper, yfull, key, box, ybonus, after_bank)
               for key, box, ybonus in self.legal_boxes(filled, yfull, first)[dice]}
        assert out, "no legal box: the rules left a roll nowhere to go"
        return out

    def legal_boxes(self, filled, yfull, first) -> dict[tuple[int, ...], list]:
        """(box, box score, extra Yahtzee bonus) of every legal box for every roll, from
        naive_box_parts; worked out once per (filled, flag, first), as it does not depend on
        the upper total."""
        key = (filled, yfull, first)
        if key not in self._parts:
            self._parts[key] = {
                d: [(k, *parts) for k in self.keys
                    if (parts := naive_box_parts(self.rules, d, k, filled, yfull, first))
                    is not None]
                for d, _ in self.rolls}
        return self._parts[key]

    def turn_outcomes(self, state, choose) -> dict[tuple[int, tuple], float]:
        """Where one turn from `state` leads when every decision is `choose(state, sorted dice,
        re-rolls left)`: the dice to keep (a sorted tuple) with re-rolls left, else a box key
        (a box key after the first roll: stop and score it with its first-roll bonus).
        Returns {(points gained, next state): probability}."""
        out: dict = {}

        def score(dice, key, left, p):
            parts = naive_box_parts(self.rules, dice, key, state[0], state[2], self.is_first(left))
            assert parts is not None, f"{key} may not take {dice}"
            move = self.move(state, key, *parts)
            out[move] = out.get(move, 0.0) + p

        mass = dict(self.rolls)
        for left in range(self.rules.rolls - 1, 0, -1):
            thrown: dict = {}
            for dice, p in mass.items():
                pick = choose(state, dice, left)
                if isinstance(pick, str):
                    assert self.is_first(left), "only the first roll may stop early"
                    score(dice, pick, left, p)
                    continue
                assert pick in self.keeps[dice], f"{pick} is no keep of {dice}"
                for new, q in self.after[tuple(pick)]:
                    thrown[new] = thrown.get(new, 0.0) + p * q
            mass = thrown
        for dice, p in mass.items():
            score(dice, choose(state, dice, 0), 0, p)
        return out


def naive_solve_multiset(rules) -> float:
    """Optimal expected final score of a whole game (see NaiveMultisetGame); equal to
    naive_solve, but feasible for 6 dice on a few faces."""
    return NaiveMultisetGame(rules).value(frozenset(), 0, False)


def naive_distribution_multiset(rules, choose, game: NaiveMultisetGame | None = None
                                ) -> dict[int, float]:
    """The final score's distribution when every decision is `choose(state, sorted dice,
    re-rolls left)` (see NaiveMultisetGame.turn_outcomes), by chaining the turns' outcome
    distributions from the empty card; exact probabilities."""
    game = game or NaiveMultisetGame(rules)
    memo: dict = {}

    def rest(state) -> dict[int, float]:
        if state not in memo:
            if len(state[0]) == len(game.keys):
                memo[state] = {0: 1.0}
            else:
                out: dict[int, float] = {}
                for (points, nxt), p in game.turn_outcomes(state, choose).items():
                    for score, q in rest(nxt).items():
                        out[score + points] = out.get(score + points, 0.0) + p * q
                memo[state] = out
        return memo[state]

    return rest(START)


class NaiveMultisetTarget:
    """The best chance of scoring at least `need` more points from a turn-start state
    (expectimax over chances, dice as multisets; only for tiny games)."""

    def __init__(self, rules, game: NaiveMultisetGame | None = None):
        self.game = game or NaiveMultisetGame(rules)
        self.memo: dict = {}

    def chance(self, state, need: int) -> float:
        if need <= 0:
            return 1.0
        g = self.game
        if len(state[0]) == len(g.keys):
            return 0.0
        key = (state, need)
        if key not in self.memo:
            filled, _upper, yfull = state

            def best_box(dice, first):
                return max(self.chance(nxt, need - points) for key_, box, ybonus
                           in g.legal_boxes(filled, yfull, first)[dice]
                           for points, nxt in [g.move(state, key_, box, ybonus)])

            hold = {d: best_box(d, g.is_first(0)) for d, _ in g.rolls}
            for _ in range(g.rules.rolls - 1):
                kept = {k: sum(p * hold[d] for d, p in after) for k, after in g.after.items()}
                hold = {d: max(kept[k] for k in g.keeps[d]) for d, _ in g.rolls}
            if g.rules.rolls > 1:
                hold = {d: max(v, best_box(d, True)) for d, v in hold.items()}
            self.memo[key] = sum(p * hold[d] for d, p in g.rolls)
        return self.memo[key]


# ---------------------------------------------------------------- score cards


def naive_card_total(rules, boxes: dict[str, int], yahtzee_bonuses: int = 0) -> int:
    """Final score of a filled card: the boxes, the upper bonus if the counted boxes reach the
    threshold, and the extra Yahtzee bonuses (given as a count; they never count upward)."""
    total = sum(boxes.values())
    counted = naive_bonus_keys(rules)
    upper = sum(points for key, points in boxes.items() if key in counted)
    if rules.upper_bonus is not None and upper >= rules.upper_bonus.threshold:
        total += rules.upper_bonus.amount
    if yahtzee_bonuses:
        total += yahtzee_bonuses * rules.yahtzee_bonus.amount
    return total


def naive_play(rules, turns) -> int:
    """Final score of a game given as (final dice, box) per turn; ValueError on an illegal box."""
    filled: frozenset[str] = frozenset()
    yfull = False
    boxes: dict[str, int] = {}
    bonuses = 0
    for dice, key in turns:
        parts = naive_box_parts(rules, dice, key, filled, yfull, first=rules.rolls == 1)
        if parts is None:
            raise ValueError(f"{dice} may not go in {key!r} with {sorted(filled)} filled")
        box, ybonus = parts
        boxes[key] = box
        bonuses += ybonus > 0
        yfull = yfull or (key == naive_flag_key(rules) and box > 0)
        filled |= {key}
    return naive_card_total(rules, boxes, bonuses)


# ---------------------------------------------------------------- distributions and targets


class _Moves:
    """The moves of a tiny game: what scoring a final roll in a box gives and where it goes."""

    def __init__(self, rules):
        self.rules = rules
        self.game = NaiveGame(rules)
        self.keys = self.game.keys
        self.outcomes = self.game.outcomes

    def score(self, state, dice, key, first: bool = False):
        """(points gained, next state) of a roll in a box (with `first`, the turn's first roll),
        None if not allowed. States are (filled, upper total capped at the threshold, flag box
        non-zero)."""
        filled, _upper, yfull = state
        parts = naive_box_parts(self.rules, dice, key, filled, yfull, first)
        return None if parts is None else self.game.move(state, key, *parts)

    def rethrows(self, dice, kept):
        """Every ordered outcome of keeping the dice `kept` (a sorted tuple) and re-throwing the
        rest, each with its probability."""
        rest = list(dice)
        for d in kept:
            rest.remove(d)
        m = len(rest)
        for new in product(range(1, self.rules.faces + 1), repeat=m):
            yield tuple(kept) + new, 1.0 / self.rules.faces ** m


def naive_distribution(rules, choose) -> dict[int, float]:
    """The final score's distribution when every decision is `choose(state, sorted dice,
    re-rolls left)`: the dice to keep (a sorted tuple) with re-rolls left, else a box key (a
    box key after the first roll: stop and score it with its first-roll bonus). Every game is
    enumerated over ordered dice outcomes with exact probabilities."""
    moves = _Moves(rules)
    memo: dict = {}

    def game(state) -> dict[int, float]:
        if state in memo:
            return memo[state]
        if len(state[0]) == len(moves.keys):
            return {0: 1.0}
        out: dict[int, float] = {}

        def turn(dice, left, p):
            dice = tuple(sorted(dice))
            pick = choose(state, dice, left)
            if left == 0 or isinstance(pick, str):
                points, nxt = moves.score(state, dice, pick, first=left == rules.rolls - 1)
                for score, q in game(nxt).items():
                    out[score + points] = out.get(score + points, 0.0) + p * q
                return
            kept = pick
            for new, q in moves.rethrows(dice, kept):
                turn(new, left - 1, p * q)

        for dice in moves.outcomes:
            turn(dice, rules.rolls - 1, 1.0 / len(moves.outcomes))
        memo[state] = out
        return out

    return game((frozenset(), 0, False))


class NaiveTarget:
    """The best chance of scoring at least `need` points in a whole game (expectimax with
    probabilities over ordered dice; only for tiny games).

    With saved rolls (the rules' `saved_rolls`, read as `NaiveGame` reads them) the state
    holds the bank b too: a turn begun with b saved rolls has `rolls` - 1 + b re-rolls, any
    roll may be scored (the first with its first-roll bonus), and scoring with L re-rolls
    unused leaves the bank `NaiveGame.next_bank` says."""

    def __init__(self, rules):
        self.rules = rules
        self.moves = _Moves(rules)
        self.banked = self.moves.game.saved is not None
        self.memo: dict = {}
        self._thrown: dict = {}  # (dice thrown, kept) -> sorted outcomes and their odds

    def chance(self, state, n, bank: int = 0) -> float:
        if n <= 0:
            return 1.0
        if len(state[0]) == len(self.moves.keys):
            return 0.0
        key = (state, n, bank)
        if key not in self.memo:
            outcomes = self.moves.outcomes
            self.memo[key] = sum(self.hold(state, n, d, self.rules.rolls - 1 + bank, bank)
                                 for d in outcomes) / len(outcomes)
        return self.memo[key]

    def score_now(self, state, n, dice, left, bank: int = 0) -> dict[str, float]:
        """The chance after filling each box the roll may go in now, with `left` re-rolls
        unused (the turn's first roll with its first-roll bonus)."""
        game = self.moves.game
        first = game.is_first(left, bank)
        after = game.next_bank(bank, left)
        out = {}
        for box in self.moves.keys:
            move = self.moves.score(state, dice, box, first=first)
            if move is not None:
                out[box] = self.chance(move[1], n - move[0], after)
        return out

    def keep_chances(self, state, n, dice, left, bank: int = 0) -> dict[tuple, float]:
        """The chance after keeping each sub-multiset of the dice (a sorted tuple) and
        throwing the rest, with `left` re-rolls left before the throw."""
        out = {}
        for mask in range(1 << len(dice)):
            kept = tuple(sorted(dice[i] for i in range(len(dice)) if mask >> i & 1))
            if kept not in out:
                out[kept] = sum(q * self.hold(state, n, new, left - 1, bank)
                                for new, q in self.thrown(dice, kept))
        return out

    def thrown(self, dice, kept) -> list[tuple[tuple[int, ...], float]]:
        """`_Moves.rethrows` with equal sorted outcomes added up (the same sums, fewer
        look-ups)."""
        key = (len(dice), kept)
        if key not in self._thrown:
            odds: dict = {}
            for new, q in self.moves.rethrows(dice, kept):
                new = tuple(sorted(new))
                odds[new] = odds.get(new, 0.0) + q
            self._thrown[key] = list(odds.items())
        return self._thrown[key]

    def hold(self, state, n, dice, left, bank: int = 0) -> float:
        dice = tuple(sorted(dice))
        key = (state, n, dice, left, bank)
        if key in self.memo:
            return self.memo[key]
        best = 0.0
        if left == 0 or self.banked or self.moves.game.is_first(left, bank):
            best = max(self.score_now(state, n, dice, left, bank).values(), default=0.0)
        if left > 0:
            best = max(best, *self.keep_chances(state, n, dice, left, bank).values())
        self.memo[key] = best
        return best


def naive_target(rules, need: int, game: NaiveTarget | None = None) -> float:
    """The best chance of scoring at least `need` points in a whole game (see NaiveTarget;
    pass one to reuse its memo across targets)."""
    game = game or NaiveTarget(rules)
    return game.chance((frozenset(), 0, False), need, game.moves.game.start_bank())


class NaiveUtility(NaiveTarget):
    """The best expected utility u(final score) of a whole game, for any function u of the
    final score (expectimax over ordered dice, the state holding the points banked; only for
    tiny games), and, for each of `payloads` (functions of the final score), the lowest and
    highest expectation it can have under play that keeps the best E[u] (the tie rule decides
    between those). Written from the README's words, as NaiveTarget is; sharing no code with
    yz's solver."""

    TIE = 1e-12

    def __init__(self, rules, u, payloads=()):
        super().__init__(rules)
        self.u = u
        self.payloads = payloads

    def value(self, state, banked: int, bank: int = 0) -> tuple:
        """(best E[u], then (low, high) of each payload's E under the best play), from a turn
        start."""
        if len(state[0]) == len(self.moves.keys):
            return (self.u(banked), *((p(banked), p(banked)) for p in self.payloads))
        key = ("v", state, banked, bank)
        if key not in self.memo:
            outcomes = self.moves.outcomes
            parts = [self.best(state, banked, d, self.rules.rolls - 1 + bank, bank)
                     for d in outcomes]
            self.memo[key] = self._mean(parts, [1.0 / len(outcomes)] * len(parts))
        return self.memo[key]

    def _mean(self, parts: list[tuple], weights: list[float]) -> tuple:
        value = sum(w * p[0] for p, w in zip(parts, weights, strict=True))
        ranges = tuple((sum(w * p[1 + i][0] for p, w in zip(parts, weights, strict=True)),
                        sum(w * p[1 + i][1] for p, w in zip(parts, weights, strict=True)))
                       for i in range(len(self.payloads)))
        return (value, *ranges)

    def best(self, state, banked, dice, left, bank: int = 0) -> tuple:
        dice = tuple(sorted(dice))
        key = ("b", state, banked, dice, left, bank)
        if key in self.memo:
            return self.memo[key]
        options = []
        game = self.moves.game
        if left == 0 or self.banked or game.is_first(left, bank):
            first = game.is_first(left, bank)
            after = game.next_bank(bank, left)
            for box in self.moves.keys:
                move = self.moves.score(state, dice, box, first=first)
                if move is not None:
                    options.append(self.value(move[1], banked + move[0], after))
        if left > 0:
            seen = set()
            for mask in range(1 << len(dice)):
                kept = tuple(sorted(dice[i] for i in range(len(dice)) if mask >> i & 1))
                if kept in seen:
                    continue
                seen.add(kept)
                thrown = self.thrown(dice, kept)
                options.append(self._mean([self.best(state, banked, new, left - 1, bank)
                                           for new, _q in thrown], [q for _new, q in thrown]))
        top = max(o[0] for o in options)
        tied = [o for o in options if o[0] >= top - self.TIE]
        self.memo[key] = (top, *((min(o[1 + i][0] for o in tied), max(o[1 + i][1] for o in tied))
                                 for i in range(len(self.payloads))))
        return self.memo[key]

    def start(self) -> tuple:
        return self.value((frozenset(), 0, False), 0, self.moves.game.start_bank())


# ---------------------------------------------------------------- two players playing to win


class NaiveDuel:
    """Two players of the same rules, A first, in turn, each seeing the other's card; a win
    counts 1, a draw 1/2 (only for tiny games, without saved rolls). Written from the README's
    words, by plain recursion over (the mover's state, the other's state, the mover's lead d),
    the turn by `NaiveMultisetGame`'s dice (rolls as multisets, every keep, every legal box),
    sharing no code with yz's solver.

    `minimax(mover, other, d)`: (the mover's best P(win) + P(draw)/2 when both play to win,
    and the lowest and highest P(draw) under play that keeps the best: ties between equally
    good moves may be broken either way).

    `versus(seat, mover, other, d)`: a minimax player against an expected-score player who is
    seated first ("first": the minimax player is A) or second: (low, high) of the mover's
    P(win) + P(draw)/2 and of P(draw), over the ways of breaking ties of both players (the
    minimax player chooses by `minimax`'s values, the other by the expected points of the
    solitaire game, `NaiveMultisetGame.value`). Seats "br-first" and "br-second": the same
    pairing with the player to win choosing by its own chances instead of minimax's (the
    full-information best response to expected-score play): its score is the best of its
    moves', each a range, so a decision's range runs from the highest low to the highest
    high, and its chance of a draw over every move that may be the best (`_pick_best`).
    """

    TIE = 1e-12  # minimax values this close are equally good
    EV_TIE = 1e-9  # and expected scores

    def __init__(self, rules):
        self.game = NaiveMultisetGame(rules)
        self.n = len(self.game.keys)
        self.memo: dict = {}

    @staticmethod
    def _end(d: int) -> tuple[float, float]:
        return (1.0 if d > 0 else 0.5 if d == 0 else 0.0), (1.0 if d == 0 else 0.0)

    def minimax(self, mover, other, d: int) -> tuple[float, float, float]:
        """See the class docstring; states are (filled, upper capped, flag)."""
        if len(mover[0]) == self.n:  # A to move with both cards full: A reads the result
            v, dr = self._end(d)
            return v, dr, dr
        key = ("m", mover, other, d)
        if key not in self.memo:
            def after(points, nxt):  # (key, payload ranges) of a move
                v, lo, hi = self.minimax(other, nxt, -(d + points))
                return 1.0 - v, ((lo, hi),)

            v, ((lo, hi),) = self._turn(mover, after, self.TIE)
            self.memo[key] = (v, lo, hi)
        return self.memo[key]

    def versus(self, seat: str, mover, other, d: int):
        """See the class docstring: ((score low, high), (draw low, high)) of the mover."""
        if len(mover[0]) == self.n:
            v, dr = self._end(d)
            return (v, v), (dr, dr)
        key = ("v", seat, mover, other, d)
        if key not in self.memo:
            a_moves = len(mover[0]) == len(other[0])
            plays_minimax = a_moves == (seat in ("first", "br-first"))

            def after(points, nxt):
                (s_lo, s_hi), draw = self.versus(seat, other, nxt, -(d + points))
                if plays_minimax and seat.startswith("br-"):
                    choose = 1.0 - (s_lo + s_hi) / 2  # (not what it picks by: `_pick_best`)
                elif plays_minimax:
                    choose = 1.0 - self.minimax(other, nxt, -(d + points))[0]
                else:
                    choose = points + self.game.value(*nxt)
                return choose, ((1.0 - s_hi, 1.0 - s_lo), draw)

            own = plays_minimax and seat.startswith("br-")
            _v, ranges = self._turn(mover, after, self.TIE if plays_minimax else self.EV_TIE,
                                    _pick_best if own else _pick)
            self.memo[key] = ranges
        return self.memo[key]

    def _turn(self, state, after, tie: float, pick=None):
        """One turn from `state`: every roll, keep and legal box, each final move worth
        `after(points gained, next state)` = (what the mover chooses by, payload ranges);
        chance nodes average both, decisions take the best and join the ranges of the moves
        within `tie` of it (`pick`, default `_pick`)."""
        pick = pick or _pick
        g = self.game
        filled, _upper, yfull = state

        def best_box(dice, first):
            options = [after(*g.move(state, key, box, ybonus))
                       for key, box, ybonus in g.legal_boxes(filled, yfull, first)[dice]]
            return pick(options, tie)

        hold = {dice: best_box(dice, g.is_first(0)) for dice, _ in g.rolls}
        for _ in range(g.rules.rolls - 1):
            kept = {k: _average([(q, hold[dice]) for dice, q in outcomes])
                    for k, outcomes in g.after.items()}
            hold = {dice: pick([kept[k] for k in g.keeps[dice]], tie) for dice, _ in g.rolls}
        if g.rules.rolls > 1:
            hold = {dice: pick([v, best_box(dice, True)], tie) for dice, v in hold.items()}
        return _average([(p, hold[dice]) for dice, p in g.rolls])


def _pick(options: list, tie: float):
    """The best of (key, ranges) options, with each range the union over those within `tie`
    of the best key."""
    top = max(o[0] for o in options)
    tied = [o for o in options if o[0] >= top - tie]
    return top, tuple((min(o[1][i][0] for o in tied), max(o[1][i][1] for o in tied))
                      for i in range(len(options[0][1])))


def _pick_best(options: list, tie: float):
    """A decision by the mover's own score, whose ranges are (score, draw): the score's range
    is the highest low to the highest high; the draw's, every move whose score may be the
    best (its high within `tie` of the highest low)."""
    low = max(o[1][0][0] for o in options)
    high = max(o[1][0][1] for o in options)
    may = [o for o in options if o[1][0][1] >= low - tie]
    draw = (min(o[1][1][0] for o in may), max(o[1][1][1] for o in may))
    return (low + high) / 2, ((low, high), draw)


def _average(weighted: list):
    """The probability-weighted average of (key, ranges) options."""
    key = sum(w * o[0] for w, o in weighted)
    first = weighted[0][1][1]
    return key, tuple((sum(w * o[1][i][0] for w, o in weighted),
                       sum(w * o[1][i][1] for w, o in weighted)) for i in range(len(first)))
