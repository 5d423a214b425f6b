"""What to do now: the value of every keep and every box in one position, from a solved table.

This is the DP's turn recursion (see `yz.solver.dp`) for a single turn-start state, in NumPy, so
that `yz advise` answers from the cache without loading numba. The test suite checks it
against the kernel (the best action's value equals the position's value) and against a
brute-force search on small games.

Ties are broken as everywhere in yz (`solver.kernels.ties`): every action has a rank, and of
equally good actions the lower rank comes first (stopping for a first-roll bonus, then keeps
with more dice, then card order).

With saved rolls a turn begun with b of them has up to `rolls` - 1 + b re-rolls, and after any
roll it may also stop and fill a box, which leaves the saved rolls `bank_after` says: stopping
is listed beside the keeps (and wins a tie with them, as in the kernels), while keeping every
die, which only spends a roll, is left out: it is never better than the best other move (a
spent roll is worth no more than a saved one), and the kernels never choose it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from yz.rules import InputError, RuleTables
from yz.rules.position import BoxChoice, Position, box_choices, most_rolls_left

from .dp import Solution
from .kernels.rule import box_verdict, end_turn, may_fill
from .kernels.state import bank_after, has
from .kernels.ties import box_rank, keep_rank, stop_rank


@dataclass(frozen=True)
class Action:
    """One choice: keep some dice and re-roll the rest, or score the roll in a box."""

    kind: str  # "keep" or "score"
    value: float  # expected points still to come after this choice, this turn's included
    keep: tuple[int, ...] = ()
    reroll: tuple[int, ...] = ()
    box: BoxChoice | None = None
    saved_rolls: int | None = None  # with saved rolls: those the next turn starts with

    def label(self, box_name: bool = False) -> str:
        """The move in words; the box by its key, or with `box_name` by its name."""
        if self.kind == "score":
            extra = "".join(f" +{b} {what}" for b, what in (
                (self.box.yahtzee_bonus, "Yahtzee bonus"), (self.box.upper_bonus, "upper bonus"))
                if b)
            if self.box.first_roll_bonus:
                extra = f" (first roll: +{self.box.first_roll_bonus}){extra}"
            where = self.box.name if box_name else self.box.key
            if self.saved_rolls:
                n = self.saved_rolls
                extra += f", {n} saved roll{'s' if n > 1 else ''} left"
            return f"score {self.box.points} in {where}{extra}"
        if not self.reroll:
            return "keep all (stop rolling)"
        kept = " ".join(map(str, self.keep)) if self.keep else "nothing"
        return f"keep {kept}, re-roll {len(self.reroll)}"

    def to_dict(self, best_value: float, banked: int | None = None,
                target: int | None = None, objective: str = "mean") -> dict:
        """The move as plain JSON values (`yz advise --json`, the web page's options): its
        label, what it is worth (`value`, points still to come, and `expected_final` with the
        points banked; with a `target`, `p_target`, the chance of reaching it; playing to win,
        `p_win`, the chance of a win with a draw as half), what it loses against the best
        move, and its keep or its box (`BoxChoice.to_dict`)."""
        out: dict = {"kind": self.kind, "label": self.label()}
        if objective == "win":
            out["p_win"] = self.value
        elif target is not None:
            out["p_target"] = self.value
        else:
            out.update(value=self.value,
                       expected_final=None if banked is None else banked + self.value)
        out["loss"] = max(0.0, best_value - self.value)
        if self.kind == "keep":
            out.update(keep=list(self.keep), reroll=list(self.reroll))
        else:
            out.update(self.box.to_dict())
            if self.saved_rolls is not None:
                out["saved_rolls_after"] = self.saved_rolls
        return out


@dataclass(frozen=True)
class Advice:
    """The ranked actions in a position (best first) and the position's own value.

    Values are expected points still to come; with a `target`, they are instead the best
    chance of finishing with at least `target` points; playing to win (`objective` "win"),
    the best chance of a win with a draw as half (`solver.versus`).
    """

    position_value: float  # from the start of this turn
    actions: list[Action]  # empty before the first roll
    banked: int | None  # points already on the card, when every filled score is known
    target: int | None = None
    variant: str = ""
    position: Position | None = None
    dice: tuple[int, ...] | None = None
    rolls_left: int | None = None
    saved_rolls: int | None = None  # those the turn started with; None: the game saves none
    objective: str = "mean"  # what the values are: "mean", "target" or "win"

    @property
    def best(self) -> Action | None:
        return self.actions[0] if self.actions else None

    def to_dict(self, top: int = 5) -> dict:
        """The advice as plain JSON values (`yz advise --json`): the position, the best move
        and `top` alternatives (`Action.to_dict`)."""
        pos = self.position or Position()
        out: dict = {
            "variant": self.variant, "filled": pos.filled, "upper_total": pos.upper_total,
            "yahtzee_full": pos.yahtzee_full, "saved_rolls": self.saved_rolls,
            "dice": list(self.dice) if self.dice else None, "rolls_left": self.rolls_left,
            "banked": self.banked, "target": self.target, "objective": self.objective,
            "best": None, "alternatives": []}
        if self.objective == "win":
            out["position_p_win"] = self.position_value
        elif self.target is not None:
            out["position_p_target"] = self.position_value
        else:
            out["position_value"] = self.position_value
            out["position_expected_final"] = None if self.banked is None \
                else self.banked + self.position_value
        best = self.best
        if best is not None:
            out["best"] = best.to_dict(best.value, self.banked, self.target, self.objective)
            out["alternatives"] = [a.to_dict(best.value, self.banked, self.target,
                                             self.objective)
                                   for a in self.actions[1: 1 + top]]
        return out


def box_values(solution: Solution, pos: Position, roll: int, first: bool = False,
               left: int = 0) -> list[tuple[BoxChoice, float]]:
    """Every legal open box for a final roll (with `first`: for the turn's first roll, kept to
    claim a first-roll bonus; with saved rolls, `left` re-rolls unused), with its value
    (points now + expected after)."""
    bank = bank_after(solution.tables, pos.saved_rolls, left)
    return [(choice, choice.total + solution.value(pos.mask | (1 << choice.box),
                                                   choice.upper_after, choice.flag_after, bank))
            for choice in box_choices(solution.tables, roll, pos, first) if choice.legal]


def first_roll_stops(t: RuleTables, final_value, pos: Position,
                     roll: int) -> list[tuple[BoxChoice, float]]:
    """The boxes the first roll may be scored in for their first-roll bonus, with values
    (none in games without such a bonus)."""
    if not t.has_first_roll_bonus:
        return []
    return [(c, v) for c, v in final_value(pos, roll, True) if c.first_roll_bonus > 0]


@dataclass(frozen=True)
class TurnTables:
    """Values inside one turn: roll_values[L][r] with L re-rolls left, keep_values[L][k]
    (L up to `rolls` - 1, and the saved rolls the turn starts with)."""

    roll_values: list[np.ndarray]
    keep_values: list[np.ndarray | None]  # keep_values[L]: keep k now, L - 1 re-rolls after
    start_value: float

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (*self.roll_values, *self.keep_values) if a is not None)


def turn_tables(solution: Solution, pos: Position, final_value=None) -> TurnTables:
    """The turn recursion for one state: final rolls, then keeps and rolls, stage by stage.

    `final_value(pos, roll, first, left)` gives (box, value) pairs of a final roll, or with
    `first` of the first roll kept to claim a first-roll bonus; with saved rolls, of filling a
    box with `left` re-rolls unused (default: the solution's values, `successor_stops`). A
    given `final_value` may depend on `left` only through the bank it leaves (`bank_after`):
    its stops are computed once per (bank, first).
    """
    t = solution.tables
    top = most_rolls_left(t, pos)
    if final_value is None:
        stops = successor_stops(solution, pos)

        def final_value(p: Position, r: int, first: bool = False, left: int = 0):
            return box_values(solution, p, r, first, left)
    else:
        made: dict[tuple[int, bool], np.ndarray] = {}

        def stops(left: int, first: bool = False) -> np.ndarray:
            first = first and t.has_first_roll_bonus
            key = (bank_after(t, pos.saved_rolls, left), first)  # (all a stop's value reads)
            if key not in made:
                made[key] = np.array([max(v for _, v in final_value(pos, r, first, left))
                                      for r in range(t.n_distinct_rolls)])
            return made[key]

    # After any roll the turn may fill a box (the first roll with its first-roll bonus). It
    # is a move of its own only where it saves rolls; elsewhere it is keeping every die to
    # the end (at least as good: the same box then, or a better one), so the maximum leaves
    # the keeps' values unchanged, to the bit.
    rolls = [stops(0, top == 0)]
    keeps: list[np.ndarray | None] = [None]
    for left in range(1, top + 1):
        ek = keep_average(t, rolls[-1])
        keeps.append(ek)
        best = best_subkeep(t, ek)[: t.n_distinct_rolls]
        rolls.append(np.maximum(best, stops(left, left == top)))
    start = float(t.ROLL_PROB @ rolls[-1])
    return TurnTables(rolls, keeps, start)


def successor_stops(solution: Solution, pos: Position):
    """stops(left, first): for every roll, the best box to fill with it (its points and the
    value of the state it leads to, as `box_values` adds them) when `left` re-rolls go unused
    (`first`: the turn's first roll, kept for a first-roll bonus). The rule of a turn's end
    (`kernels.rule`) is run once per box and normal score: rolls end a turn alike when they
    score alike in a box, unless they are Yahtzees with the Yahtzee box filled (the Joker and
    the bonus look at them), which are run one by one, as the kernels' moves are told apart
    (`kernels.outcomes.add_move`). The values of every state the turn can lead to, at every
    bank of saved rolls it can leave, are then read at once: from a store on disk, only
    those rows (`solver.store`)."""
    t, layout, K = solution.tables, solution.layout, solution.problem.K
    mask, flag, u = pos.mask, int(pos.yahtzee_full), pos.upper_total
    boxes = np.array([c for c in range(t.n_categories) if not has(mask, c)], dtype=np.int64)
    n = t.n_distinct_rolls
    extra = np.array([box_verdict(K, mask, r)[3] for r in range(n)], dtype=bool)
    plain = np.flatnonzero(~extra)
    keys = K.SCORE_KEY[np.ix_(plain, boxes)]
    _, first_at, alike = np.unique(keys, return_index=True, return_inverse=True)

    def ends(first: bool):
        """[roll, open box]: points of the turn (-inf where the box may not be filled) and
        the state it leads to (mask, flag, upper total)."""
        out = np.zeros((4, n, len(boxes)))
        out[0] = -np.inf
        one = np.zeros((4, len(first_at)))
        for i, at in enumerate(first_at):  # the rule once per (box, normal score)
            r, j = plain[at // len(boxes)], at % len(boxes)
            one[:, i] = _end(K, mask, flag, u, r, boxes[j], first, (-1, False, False, False))
        out[:, plain] = one[:, alike.reshape(keys.shape)]
        for r in np.flatnonzero(extra):  # Yahtzees with the Yahtzee box filled: each alone
            verdict = box_verdict(K, mask, r)
            for j, c in enumerate(boxes):
                out[:, r, j] = _end(K, mask, flag, u, r, c, first, verdict)
        return out

    lists = {first: ends(first) for first in ((False, True) if t.has_first_roll_bonus
                                              else (False,))}
    legal = {first: np.isfinite(o[0]) for first, o in lists.items()}
    at = {first: layout.indices(*(o[1:][:, legal[first]].astype(np.int64)))
          for first, o in lists.items()}
    k = len(pos.filled) + 1  # the layer every successor is in
    banks = sorted({bank_after(t, pos.saved_rolls, left)
                    for left in range(most_rolls_left(t, pos) + 1)})
    if banks[-1] >= layout.banks[k]:
        raise ValueError(f"no turn-start state of layer {k} has {banks[-1]} saved rolls")
    states, where = np.unique(np.concatenate(list(at.values())), return_inverse=True)
    reads = states[None, :] + np.array(banks, dtype=np.int64)[:, None] * layout.BANK_STRIDE[k]
    values = np.asarray(solution.values[reads], dtype=np.float64)  # [bank, state]
    cut = int(legal[False].sum())
    state_of = {}
    for first, pieces in ((False, where[:cut]), (True, where[cut:])):
        if first in legal:
            full = np.zeros((n, len(boxes)), dtype=np.int64)  # (not legal: any state read)
            full[legal[first]] = pieces
            state_of[first] = full

    def stops(left: int, first: bool = False) -> np.ndarray:
        first = first and t.has_first_roll_bonus
        row = banks.index(bank_after(t, pos.saved_rolls, left))
        return np.max(lists[first][0] + values[row][state_of[first]], axis=1)

    return stops


def _end(K, mask: int, flag: int, u: int, r: int, c: int, first: bool, verdict) -> tuple:
    """(points of the turn, next mask, next flag, next upper total) of scoring roll r in box
    c under `box_verdict`'s `verdict`; -inf points where the box may not be filled."""
    only_box, lower_only, use_joker, extra = verdict
    if not may_fill(K, mask, c, only_box, lower_only):
        return -np.inf, mask, flag, u
    _, gained, next_mask, next_flag, next_u, *_ = end_turn(K, mask, flag, u, r, c, use_joker,
                                                           extra, first)
    return gained, next_mask, next_flag, next_u


# Memory for the turn tables kept with a solution (a game replays positions, and every roll of
# a turn shares one): about 5,000 positions of the official rules, fewer of a game with more
# keeps.
TURN_MEMO_BYTES = 64 << 20


def memo_turn_tables(solution: Solution, pos: Position) -> TurnTables:
    """`turn_tables` of a position from the solution's values, kept with the solution: every
    roll and re-roll count of a turn shares them, and a replayed game and the next request of
    a web page reuse them."""
    t = solution.tables
    upper = min(pos.upper_total, t.upper_threshold) if t.upper_threshold else 0
    # The values' identity is part of the key (a copy of the solution with other values, as
    # `dataclasses.replace` makes, shares the memo), and the entry holds them, so it stays.
    key = ("turn", id(solution.values), pos.mask, upper, pos.yahtzee_full, pos.saved_rolls)
    return solution.memo.bounded(key, lambda: (solution.values, turn_tables(solution, pos)),
                                 TURN_MEMO_BYTES, lambda entry: entry[1].nbytes)[1]


def _size_ranges(t: RuleTables) -> list[tuple[int, int, int]]:
    """(size, first, last+1) index ranges of the keeps, largest size first."""
    sizes = t.KEEP_SIZE
    cuts = [0, *(np.flatnonzero(np.diff(sizes)) + 1).tolist(), len(sizes)]
    return [(int(sizes[a]), a, b) for a, b in itertools.pairwise(cuts)]


def keep_average(t: RuleTables, roll_values: np.ndarray) -> np.ndarray:
    """Value of each keep when its free dice are thrown once (add one die at a time)."""
    ek = np.empty(t.n_keeps)
    ek[: t.n_distinct_rolls] = roll_values
    f = t.n_faces
    for size, lo, hi in _size_ranges(t):
        if size < t.n_dice:
            # Summed in the kernel's order (`kernels.keep_average`), so values match bit for bit
            # and ties are broken alike.
            child = ek[t.KEEP_CHILD[lo:hi]]
            acc = child[:, 0] + child[:, 1]
            v = 2
            while f - v > 2:
                acc = acc + (child[:, v] + child[:, v + 1])
                v += 2
            if v + 2 == f:
                acc = (acc + child[:, v] + child[:, v + 1]) * (1.0 / f)
            elif v + 1 == f:
                acc = (acc + child[:, v]) * (1.0 / f)
            else:
                acc = acc * (1.0 / f)
            ek[lo:hi] = acc
    return ek


def best_subkeep(t: RuleTables, keep_values: np.ndarray) -> np.ndarray:
    """For each keep, the best value of it or any keep inside it (remove one die at a time)."""
    best = keep_values.copy()
    for size, lo, hi in reversed(_size_ranges(t)):
        if size == 0:
            continue
        seg = t.SUB_INDICES[t.SUB_INDPTR[lo]: t.SUB_INDPTR[hi]]
        starts = t.SUB_INDPTR[lo:hi] - t.SUB_INDPTR[lo]
        best[lo:hi] = np.maximum(best[lo:hi], np.maximum.reduceat(best[seg], starts))
    return best


def sub_keeps(t: RuleTables, dice: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
    """Every distinct keep inside a roll: (keep index, kept dice), more dice first."""
    counts = [dice.count(v) for v in range(1, t.n_faces + 1)]
    out = []
    for pick in itertools.product(*[range(c, -1, -1) for c in counts]):
        kept = tuple(v + 1 for v in range(t.n_faces) for _ in range(pick[v]))
        out.append((t.keep_index(kept), kept))
    out.sort(key=lambda item: item[0])
    return out


def check_rolls_left(t: RuleTables, dice: tuple[int, ...] | None, rolls_left: int | None,
                     pos: Position | None = None) -> None:
    """InputError unless the re-rolls left fit the rule set and the saved rolls `pos` starts
    its turn with (and come with dice)."""
    saved = pos.saved_rolls if pos is not None else 0
    max_left = t.rolls - 1 + saved
    if dice is None:
        if rolls_left is not None:
            raise InputError("rolls left: give the dice showing now too, or leave out the "
                             "re-rolls left to get the value of the position before the roll.",
                             param="rolls_left")
        return
    if isinstance(rolls_left, bool) or not isinstance(rolls_left, int) or \
            not 0 <= rolls_left <= max_left:
        also = f", and this turn starts with {saved} saved roll{'s' if saved > 1 else ''}" \
            if saved else ""
        raise InputError(f"rolls left: give how many re-rolls remain this turn, 0 to {max_left} "
                         f"({t.rules.name} has {t.rolls} rolls per turn{also}).",
                         param="rolls_left")


def advise(solution: Solution, pos: Position, dice: tuple[int, ...] | None = None,
           rolls_left: int | None = None, banked: int | None = None) -> Advice:
    """Rank every action in a position; before the first roll (no dice) only its value."""
    return _ranked(solution, pos, dice, rolls_left, banked, None)


def check_target(t: RuleTables, pos: Position, banked: int | None, target: int) -> None:
    """InputError unless target play can be advised here (the banked points must be known)."""
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise InputError(f"target: {target!r} is not a score from 1 up.", param="target")
    if banked is None:
        raise InputError("target: playing for a target needs the points already banked: give "
                         "the score of every filled box.", param="target")


def advise_target(table, pos: Position, dice: tuple[int, ...] | None, rolls_left: int | None,
                  banked: int, target: int, objective: str = "target",
                  tables: TurnTables | None = None) -> Advice:
    """Rank every action by the best chance of finishing with at least `target` points, from
    a target table (`solver.target`) that reaches `target`; or by any utility of the final
    score (`objective`), from a table over the needs to reach its top `target` (`table.chance`
    of a need met: the utility's top). `tables`: the turn's recursion over these chances
    when it is at hand (`turn_tables` with `target_final_value`), not computed again."""
    solution = table.solution
    check_target(solution.tables, pos, banked, target)
    chance = target_final_value(table, banked, target)
    return _ranked(solution, pos, dice, rolls_left, banked, target, chance, objective, tables)


def target_final_value(table, banked: int, target: int):
    """The `final_value` of `turn_tables` that reads a target table (or a utility's): each
    legal box's chance of reaching `target` from the state it leads to."""
    solution = table.solution

    def chance(p: Position, roll: int, first: bool = False,
               left: int = 0) -> list[tuple[BoxChoice, float]]:
        bank = bank_after(solution.tables, p.saved_rolls, left)
        return [(c, table.chance(p.mask | (1 << c.box), c.upper_after, c.flag_after,
                                 target - banked - c.total, bank))
                for c in box_choices(solution.tables, roll, p, first) if c.legal]

    return chance


def _ranked(solution: Solution, pos: Position, dice, rolls_left, banked, target,
            final_value=None, objective: str | None = None,
            tables: TurnTables | None = None) -> Advice:
    t = solution.tables
    check_rolls_left(t, dice, rolls_left, pos)
    if tables is not None:  # (computed already, over the same final values)
        pass
    elif final_value is None:  # the optimal values: kept with them
        tables = memo_turn_tables(solution, pos)
    else:
        tables = turn_tables(solution, pos, final_value)
    final_value = final_value or (lambda p, r, first=False, left=0: box_values(solution, p, r,
                                                                             first, left))
    about = {"variant": t.rules.name, "position": pos, "dice": dice, "rolls_left": rolls_left,
             "saved_rolls": solution.layout.shown_bank(pos.saved_rolls),
             "objective": objective or ("mean" if target is None else "target")}
    if dice is None:
        return Advice(tables.start_value, [], banked, target, **about)
    roll = t.roll_index(dice)
    ranked: list[tuple[Action, int]] = []
    if solution.layout.saves_rolls:
        ranked = _banked_moves(t, pos, dice, roll, rolls_left, tables, final_value)
    elif rolls_left == 0:
        ranked = [(Action("score", value, box=choice), box_rank(choice.box))
                  for choice, value in final_value(pos, roll)]
    else:
        ek = tables.keep_values[rolls_left]
        for k, kept in sub_keeps(t, dice):
            rest = list(dice)
            for d in kept:
                rest.remove(d)
            ranked.append((Action("keep", float(ek[k]), keep=kept, reroll=tuple(rest)),
                           keep_rank(k, t.n_categories)))
        if rolls_left == t.rolls - 1:
            ranked += [(Action("score", value, box=choice), stop_rank(choice.box))
                       for choice, value in first_roll_stops(t, final_value, pos, roll)]
    ranked.sort(key=lambda item: (-item[0].value, item[1]))
    return Advice(tables.start_value, [action for action, _ in ranked], banked, target,
                  **about)


def moves_to_show(solution: Solution, dice: tuple[int, ...], rolls_left: int,
                  advise_at: Callable[[int], Advice]) -> Advice:
    """The moves a player is shown while playing (the coach's options, `yz play`, the web
    page, a match's advice), ranked by the values of `advise_at(n)`: the advice with n
    re-rolls left for these dice (`advise`, or a turn played to win). With saved rolls these
    are the advisor's moves, which list scoring now at every roll. Without them, before the
    last roll keeping every die stops rolling, so it is worth the best box now (the best of
    `advise_at(0)`), and every box may be scored now: that equals keeping all and never
    rolling again, so it never beats a keep and is listed after them; a first-roll bonus
    claim can, and is ranked with the keeps (`solver.kernels.ties`)."""
    advice = advise_at(rolls_left)
    if solution.layout.saves_rolls or not rolls_left or not advice.actions:
        return advice
    now = advise_at(0)
    stop = now.best.value
    n_boxes = solution.tables.n_categories
    rank = {kept: keep_rank(k, n_boxes) for k, kept in sub_keeps(solution.tables, dice)}
    ranked = [(a if a.reroll else replace(a, value=stop), rank[a.keep]) if a.kind == "keep"
              else (a, stop_rank(a.box.box)) for a in advice.actions]
    ranked.sort(key=lambda item: (-item[0].value, item[1]))
    claimed = {a.box.key for a in advice.actions if a.kind == "score"}
    rest = sorted((a for a in now.actions if a.box.key not in claimed),
                  key=lambda a: (-a.value, box_rank(a.box.box)))
    return replace(advice, actions=[a for a, _ in ranked] + rest)


def _banked_moves(t: RuleTables, pos: Position, dice: tuple[int, ...], roll: int,
                  rolls_left: int, tables: TurnTables, final_value) -> list[tuple[Action, int]]:
    """With saved rolls: filling a box now (the first roll with its first-roll bonus) and,
    with re-rolls left, every keep but all the dice, each with its tie rank."""
    saved = bank_after(t, pos.saved_rolls, rolls_left)
    first = rolls_left == most_rolls_left(t, pos)
    rank = stop_rank if rolls_left else box_rank
    moves = [(Action("score", value, box=choice, saved_rolls=saved), rank(choice.box))
             for choice, value in final_value(pos, roll, first, rolls_left)]
    if rolls_left:
        ek = tables.keep_values[rolls_left]
        for k, kept in sub_keeps(t, dice):
            if len(kept) < len(dice):
                rest = list(dice)
                for d in kept:
                    rest.remove(d)
                moves.append((Action("keep", float(ek[k]), keep=kept, reroll=tuple(rest)),
                              keep_rank(k, t.n_categories)))
    return moves
