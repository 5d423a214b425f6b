"""Compile a rule set into flat, read-only numpy tables: the single source of truth downstream.

Index layout (n dice, F faces, C categories, R rolls, K keeps):

    keeps  0 .. R-1     every roll: the multisets of exactly n dice, in lexicographic order
    keeps  R .. K-1     the smaller keeps, by size n-1, n-2, ..., 0 (the empty keep is K-1)

so a roll's index is also its keep index, and every keep's children (one die added) have
smaller indices while its sub-keeps (one die removed) have larger ones. Kernels can therefore
sweep keeps upward for "roll the free dice" averages and downward for "best sub-keep" maxima.

    SCORE[r, c]          points box c gives roll r under the normal rules (with `rolls: 1`
                         every roll is a first roll: a first-roll bonus is part of every score
                         above zero, and FIRST_BONUS below, a bonus for stopping early, is 0)
    JOKER_SCORE[r, c]    points when the Joker lets roll r fill box c in full (else = SCORE)
    YAHTZEE_FACE[r]      face index (0-based) of an all-equal roll, -1 otherwise
    UPPER_BOX_OF_FACE[v] category of the upper box collecting face v+1, -1 if none
    COUNTS_UPPER[c]      1 if box c counts toward the upper bonus
    IS_LOWER[c]          1 if box c is in the lower section (the forced Joker needs this)
    FIRST_BONUS[c]       extra points when box c scores above zero with the turn's first roll,
                         kept whole when re-rolls were left (0 for every box with `rolls: 1`)
    BOX_SCORES[c]        every score box c can hold, sorted (Joker and first-roll bonus
                         included): the one home of the per-box bounds below
    BOX_MAX[c]           the most box c can hold
    UPPER_MAX[c]         the most box c adds to the upper total (0 if it does not count): a
                         first-roll bonus is part of the box's score, so it counts too
    ONLY_AFTER[c]        1 if box c scores only once the flag box holds a non-zero score
    KEEP_CHILD[k, v]     keep k plus one die of face v+1 (-1 for rolls)
    SUB_INDPTR/SUB_INDICES  CSR list of the keeps one die smaller than keep k
    ROLL_PROB[r]         probability of roll r when all n dice are thrown
    KEEP_ROLL_PROB       CSR (KEEP_OUT_INDPTR, KEEP_OUT_ROLL, KEEP_OUT_PROB): the rolls a keep
                         can become when its free dice are thrown, with probabilities
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from .models import RuleSet
from .scoring import category_scores, full_value_scores

JOKER_MODES = {"none": 0, "free": 1, "forced": 2}
TABLES_FORMAT = 2


@dataclass(frozen=True)
class RuleTables:
    """Everything the scorer, solver and advisor need from a rule set, as plain arrays."""

    rules: RuleSet
    n_dice: int
    n_faces: int
    rolls: int
    ROLL_DICE: np.ndarray
    ROLL_COUNTS: np.ndarray
    ROLL_PROB: np.ndarray
    SCORE: np.ndarray
    JOKER_SCORE: np.ndarray
    YAHTZEE_FACE: np.ndarray
    UPPER_BOX_OF_FACE: np.ndarray
    COUNTS_UPPER: np.ndarray
    IS_LOWER: np.ndarray
    FIRST_BONUS: np.ndarray
    ONLY_AFTER: np.ndarray
    BOX_SCORES: tuple[np.ndarray, ...]
    BOX_MAX: np.ndarray
    UPPER_MAX: np.ndarray
    KEEP_COUNTS: np.ndarray
    KEEP_SIZE: np.ndarray
    KEEP_CHILD: np.ndarray
    SUB_INDPTR: np.ndarray
    SUB_INDICES: np.ndarray
    KEEP_OUT_INDPTR: np.ndarray
    KEEP_OUT_ROLL: np.ndarray
    KEEP_OUT_PROB: np.ndarray
    upper_threshold: int
    upper_bonus: int
    yahtzee_bonus: int
    yahtzee_box: int
    joker_mode: int
    flag_box: int  # the box whose non-zero score the state remembers (-1: none)
    in_order: bool  # boxes are filled in card order, one per turn
    n_banks: int = 1  # banks of saved rolls a turn can start with (0 .. n_banks - 1); 1: none
    bank_carry: bool = False  # unused rolls go to the bank (else only saved ones not drawn on)
    bank_start: int = 0  # saved rolls at the first turn
    bank_cap: int = -1  # the most the bank holds, -1: no cap
    digest: str = field(default="")
    _roll_lookup: dict = field(default_factory=dict, repr=False)
    _keep_lookup: dict = field(default_factory=dict, repr=False)

    @property
    def n_categories(self) -> int:
        return self.SCORE.shape[1]

    @property
    def has_bank(self) -> bool:
        """Whether a turn can start with saved rolls (a bank carried between turns). A
        `saved_rolls` rule that never saves one (`cap: 0`, or one roll a turn with no start)
        is the game without it, and is solved, advised and played as that game."""
        saved = self.rules.saved_rolls
        return saved is not None and saved.most(self.n_categories, self.rolls) > 0

    def banks_in_layer(self, k: int) -> int:
        """Banks a turn can start with after k turns (k boxes filled)."""
        if not self.has_bank:
            return 1
        return self.rules.saved_rolls.most(k, self.rolls) + 1

    @property
    def highest_score(self) -> int:
        """An upper bound on any final score: every box at its best, both bonuses, and an extra
        Yahtzee bonus on every turn after the first."""
        return (int(self.BOX_MAX.sum()) + self.upper_bonus
                + self.yahtzee_bonus * max(0, self.n_categories - 1))

    @property
    def n_flags(self) -> int:
        """2 when the state remembers whether the flag box holds a non-zero score."""
        return 2 if self.flag_box >= 0 else 1

    @property
    def has_first_roll_bonus(self) -> bool:
        """Whether a turn may stop after its first roll to claim a first-roll bonus (with
        `rolls: 1` the bonus is part of every score instead)."""
        return bool(self.FIRST_BONUS.any())

    @property
    def n_distinct_rolls(self) -> int:
        """Distinct rolls: the multisets of all the dice (R in the layout above)."""
        return self.SCORE.shape[0]

    @property
    def n_keeps(self) -> int:
        return self.KEEP_COUNTS.shape[0]

    def roll_index(self, dice) -> int:
        """Index of the roll with these dice (any order); InputError if they are no roll."""
        key = tuple(sorted(int(d) for d in dice))
        if key not in self._roll_lookup:
            from .errors import InputError

            raise InputError(f"dice: {' '.join(map(str, key)) or 'none'} is not a roll of "
                             f"{self.rules.name} ({self.n_dice} dice, faces 1 to "
                             f"{self.n_faces}).", param="dice")
        return self._roll_lookup[key]

    def keep_index(self, dice) -> int:
        """Index of the keep holding these dice (any order, 0..n of them)."""
        counts = [0] * self.n_faces
        for d in dice:
            counts[int(d) - 1] += 1
        return int(self._keep_lookup[tuple(counts)])


def _multisets(n_faces: int, size: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(1, n_faces + 1), size))


@dataclass(frozen=True)
class _Dice:
    """What the dice alone decide (n dice of F faces, whatever the boxes): the rolls, the keeps
    and the odds between them. Read-only and shared by every rule set with these dice (each
    gets views, which cannot be made writable again; the lookups are only read)."""

    roll_dice: np.ndarray
    keep_counts: np.ndarray
    keep_size: np.ndarray
    keep_child: np.ndarray
    sub_indptr: np.ndarray
    sub_indices: np.ndarray
    keep_out_indptr: np.ndarray
    keep_out_roll: np.ndarray
    keep_out_prob: np.ndarray
    roll_prob: np.ndarray
    keep_lookup: dict
    roll_lookup: dict


@functools.lru_cache(maxsize=8)
def _dice(n: int, f: int) -> _Dice:
    """The dice's tables, built once per process for each (dice, faces): they are four fifths
    of compiling a rule set, which a sweep, `yz compare` or the web page does again and again
    with the same dice."""
    rolls = _multisets(f, n)
    keeps = [m for size in range(n, -1, -1) for m in _multisets(f, size)]
    n_rolls = len(rolls)
    keep_counts, keep_size, lookup, keep_child, sub_indptr, sub_indices = _keep_graph(keeps, n, f)
    keep_out_indptr, keep_out_roll, keep_out_prob = _keep_outcomes(keep_counts, keep_size,
                                                                   lookup, n, f)
    roll_dice = np.array(rolls, dtype=np.int8).reshape(n_rolls, n)
    roll_prob = np.zeros(n_rolls)
    first = slice(keep_out_indptr[-2], keep_out_indptr[-1])  # (the empty keep: a first roll)
    roll_prob[keep_out_roll[first]] = keep_out_prob[first]
    dice = _Dice(roll_dice, keep_counts, keep_size, keep_child, sub_indptr, sub_indices,
                 keep_out_indptr, keep_out_roll, keep_out_prob, roll_prob, lookup,
                 {tuple(int(d) for d in roll_dice[r]): r for r in range(n_rolls)})
    for name, value in vars(dice).items():
        if isinstance(value, np.ndarray):  # (each its own data, so no view can write to it)
            value = value.copy()
            value.flags.writeable = False
            object.__setattr__(dice, name, value)
    return dice


def compile_rules(rules: RuleSet) -> RuleTables:
    """Build the tables for a rule set (milliseconds for the built-ins)."""
    n, f = rules.dice, rules.faces
    d = _dice(n, f)
    n_rolls = len(d.roll_dice)
    roll_counts = d.keep_counts[:n_rolls]
    score, joker_score, yahtzee_face = _score_tables(rules, roll_counts)
    upper_box, counts_upper, is_lower, first_bonus, only_after = _box_flags(rules)
    if rules.rolls == 1 and rules.bank_sizes == 1:
        # Every roll is a first roll: the bonus is part of every score above 0. (With saved
        # rolls a turn may roll again: the solver adds the bonus to its first roll only.)
        score = np.where(score > 0, score + first_bonus, 0).astype(np.int32)
        joker_score = np.where(joker_score > 0, joker_score + first_bonus, 0).astype(np.int32)
        first_bonus = np.zeros_like(first_bonus)
    box_scores = _box_scores(score, joker_score, first_bonus, only_after)
    box_max = np.array([int(s[-1]) for s in box_scores], dtype=np.int64)
    flag_key = rules.flag_box_key

    tables = RuleTables(
        rules=rules, n_dice=n, n_faces=f, rolls=rules.rolls,
        ROLL_DICE=d.roll_dice.view(), ROLL_COUNTS=roll_counts, ROLL_PROB=d.roll_prob.view(),
        SCORE=score, JOKER_SCORE=joker_score, YAHTZEE_FACE=yahtzee_face,
        UPPER_BOX_OF_FACE=upper_box, COUNTS_UPPER=counts_upper, IS_LOWER=is_lower,
        FIRST_BONUS=first_bonus, ONLY_AFTER=only_after, BOX_SCORES=box_scores,
        BOX_MAX=box_max, UPPER_MAX=np.where(counts_upper == 1, box_max, 0),
        KEEP_COUNTS=d.keep_counts.view(), KEEP_SIZE=d.keep_size.view(),
        KEEP_CHILD=d.keep_child.view(), SUB_INDPTR=d.sub_indptr.view(),
        SUB_INDICES=d.sub_indices.view(), KEEP_OUT_INDPTR=d.keep_out_indptr.view(),
        KEEP_OUT_ROLL=d.keep_out_roll.view(), KEEP_OUT_PROB=d.keep_out_prob.view(),
        upper_threshold=rules.upper_bonus.threshold if rules.upper_bonus else 0,
        upper_bonus=rules.upper_bonus.amount if rules.upper_bonus else 0,
        yahtzee_bonus=rules.yahtzee_bonus.amount if rules.yahtzee_bonus else 0,
        yahtzee_box=rules.index_of(rules.yahtzee_category) if rules.uses_yahtzee_box else -1,
        joker_mode=JOKER_MODES[rules.joker.mode],
        flag_box=rules.index_of(flag_key) if flag_key is not None else -1,
        in_order=rules.order == "in_order",
        n_banks=rules.bank_sizes,
        bank_carry=bool(rules.saved_rolls and rules.saved_rolls.carry_unused),
        bank_start=rules.saved_rolls.start if rules.saved_rolls else 0,
        bank_cap=rules.saved_rolls.cap if rules.saved_rolls and rules.saved_rolls.cap is not None
        else -1,
    )
    object.__setattr__(tables, "_roll_lookup", d.roll_lookup)  # (shared, read only)
    object.__setattr__(tables, "_keep_lookup", d.keep_lookup)
    object.__setattr__(tables, "digest", _digest(tables))
    for name in tables.__dataclass_fields__:
        value = getattr(tables, name)
        for array in value if name == "BOX_SCORES" else (value,):
            if isinstance(array, np.ndarray):
                array.flags.writeable = False
    return tables


def _keep_graph(keeps: list[tuple[int, ...]], n: int, f: int):
    """Face counts and sizes of every keep, its index by counts (a tuple of Python ints: plain
    tuples hash fast, and a new installation's first command builds these tables), the keep
    one die more makes (KEEP_CHILD) and the keeps one die fewer makes (SUB_* in CSR form)."""
    counts = []
    for dice in keeps:
        c = [0] * f
        for d in dice:
            c[d - 1] += 1
        counts.append(tuple(c))
    lookup = {c: k for k, c in enumerate(counts)}
    keep_child = np.full((len(keeps), f), -1, dtype=np.int32)
    sub_lists: list[list[int]] = []
    for k, c in enumerate(counts):
        if len(keeps[k]) < n:
            keep_child[k] = [lookup[(*c[:v], c[v] + 1, *c[v + 1:])] for v in range(f)]
        sub_lists.append([lookup[(*c[:v], c[v] - 1, *c[v + 1:])] for v in range(f) if c[v]])
    sub_indptr = np.zeros(len(keeps) + 1, dtype=np.int32)
    sub_indptr[1:] = np.cumsum([len(s) for s in sub_lists])
    sub_indices = np.array([i for s in sub_lists for i in s], dtype=np.int32)
    keep_counts = np.array(counts, dtype=np.int8).reshape(len(keeps), f)
    keep_size = keep_counts.sum(axis=1).astype(np.int8)
    return keep_counts, keep_size, lookup, keep_child, sub_indptr, sub_indices


def _keep_outcomes(keep_counts: np.ndarray, keep_size: np.ndarray, lookup: dict, n: int,
                   f: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rolls each keep can become and their odds (CSR): the free dice form a multiset
    with multinomial odds. The last keep (no dice) gives the first roll's odds."""
    out_indptr = [0]
    out_roll: list[int] = []
    out_prob: list[float] = []
    # The free dice's face counts and multinomial odds, once per number of free dice.
    throws: dict[int, list[tuple[tuple[int, ...], float]]] = {}
    for free in range(n + 1):
        throws[free] = []
        for extra in _multisets(f, free):
            added = [0] * f
            for d in extra:
                added[d - 1] += 1
            mult = math.factorial(free)
            for m in added:
                mult //= math.factorial(m)
            throws[free].append((tuple(added), mult / f**free))
    for k, counts in enumerate(keep_counts.tolist()):
        for added, prob in throws[n - int(keep_size[k])]:
            out_roll.append(lookup[tuple(a + b for a, b in zip(counts, added, strict=True))])
            out_prob.append(prob)
        out_indptr.append(len(out_roll))
    return (np.array(out_indptr, dtype=np.int64), np.array(out_roll, dtype=np.int32),
            np.array(out_prob, dtype=np.float64))


def _score_tables(rules: RuleSet, roll_counts: np.ndarray):
    """Each roll's score in each box, as a Joker too, and the face of an all-same roll."""
    n = rules.dice
    score = np.zeros((len(roll_counts), len(rules.categories)), dtype=np.int32)
    joker_score = np.zeros_like(score)
    for c, cat in enumerate(rules.categories):
        score[:, c] = category_scores(cat, roll_counts)
        joker_score[:, c] = score[:, c]
    all_same = roll_counts.max(axis=1) == n
    yahtzee_face = np.where(all_same, roll_counts.argmax(axis=1), -1).astype(np.int8)
    for key in rules.joker.full_value:
        c = rules.index_of(key)
        full = full_value_scores(rules.categories[c], roll_counts)
        joker_score[all_same, c] = full[all_same]
    return score, joker_score, yahtzee_face


def _box_flags(rules: RuleSet):
    """Per face its upper box; per box: counts toward the upper bonus, lower section,
    first-roll bonus, has an only_after condition."""
    upper_box = np.full(rules.faces, -1, dtype=np.int32)
    for v in range(rules.faces):
        key = rules.upper_box_of_face(v + 1)
        if key is not None:
            upper_box[v] = rules.index_of(key)
    cats = rules.categories
    counts_upper = np.array([c.key in rules.bonus_categories for c in cats], np.int8)
    is_lower = np.array([c.section == "lower" for c in cats], dtype=np.int8)
    first_bonus = np.array([c.first_roll_bonus for c in cats], dtype=np.int32)
    only_after = np.array([c.only_after is not None for c in cats], dtype=np.int8)
    return upper_box, counts_upper, is_lower, first_bonus, only_after


def _box_scores(score: np.ndarray, joker_score: np.ndarray, first_bonus: np.ndarray,
                only_after: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every score each box can hold: what any roll scores in it, normally or by the Joker;
    0 for a box that waits for another (`only_after`); and a score above zero plus the box's
    first-roll bonus. Supersets are safe (a bound a little high costs a few unused states);
    a missing score is not (play would reach a state the layout does not store)."""
    out = []
    for c in range(score.shape[1]):  # (sets: np.union1d's first call imports numpy.ma)
        values = set(score[:, c].tolist()) | set(joker_score[:, c].tolist())
        if only_after[c]:
            values.add(0)
        if first_bonus[c]:
            values |= {v + int(first_bonus[c]) for v in values if v > 0}
        out.append(np.array(sorted(values), dtype=np.int64))
    return tuple(out)


def _digest(t: RuleTables) -> str:
    """Hash of everything that determines the game: the cache key of a solved strategy."""
    h = hashlib.sha256(f"tables-v{TABLES_FORMAT}".encode())
    for name in ("SCORE", "JOKER_SCORE", "COUNTS_UPPER", "IS_LOWER", "UPPER_BOX_OF_FACE",
                 "FIRST_BONUS", "ONLY_AFTER"):
        arr = np.ascontiguousarray(getattr(t, name))
        h.update(name.encode() + str(arr.shape).encode() + arr.tobytes())
    h.update(repr((t.n_dice, t.n_faces, t.rolls, t.upper_threshold, t.upper_bonus,
                   t.yahtzee_bonus, t.yahtzee_box, t.joker_mode, t.flag_box,
                   t.in_order)).encode())
    if t.has_bank:  # (games without saved rolls keep the keys they always had)
        h.update(repr(("saved_rolls", t.bank_carry, t.bank_start, t.bank_cap)).encode())
    return h.hexdigest()
