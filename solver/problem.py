"""The problem every solver module works on: one rule set made ready for the kernels.

A `Problem` is a value (the shape of QuantEcon's `DiscreteDP`): the compiled rule tables, the
state layout (`solver.state`), the kernels' bundles of them, the threads the kernels run on and
the sizes of the work they are handed. `dp`, `forward`, `distribution`, `target`, `simulate`,
`layered`, `warmup` and `strategies` take it (or a `Solution` of it) and go down to the kernels
from there; none of them knows the `Model`, which is the user's object built on top of one.

    problem = Problem.of(compile_rules(load_rules("yatzy")))
    values, sd = solve_values(problem, with_sd=True)          # solver.dp
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from yz.rules import RuleSet, RuleTables

from . import budget
from .kernels.bundle import GameTables, Layout
from .state import StateLayout, build_layout


class Memo:
    """Results computed once and kept, thread-safe (a web server asks from several threads);
    `bounded` ones are let go, oldest first, beyond a number of bytes."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._kept: dict[Hashable, Any] = {}
        self._bounded: OrderedDict = OrderedDict()

    def remember(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """`make()`, computed once."""
        with self.lock:
            if key not in self._kept:
                self._kept[key] = make()
            return self._kept[key]

    def get(self, key: Hashable) -> Any:
        with self.lock:
            return self._kept.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self._kept[key] = value

    def bounded(self, key: Hashable, make: Callable[[], Any], most_bytes: int,
                nbytes: Callable[[Any], int] = lambda value: value.nbytes) -> Any:
        """`make()`, kept among the most recent values that fit in `most_bytes` (at least
        one; a value's size is `nbytes(value)`)."""
        with self.lock:
            if key in self._bounded:
                self._bounded.move_to_end(key)
                return self._bounded[key]
        value = make()
        with self.lock:
            self._bounded[key] = value
            self._bounded.move_to_end(key)
            most = max(1, most_bytes // max(1, nbytes(value)))
            while len(self._bounded) > most:
                self._bounded.popitem(last=False)
        return value

    def peek(self, key: Hashable) -> Any:
        """A value `bounded` keeps (now the most recent), or None."""
        with self.lock:
            if key not in self._bounded:
                return None
            self._bounded.move_to_end(key)
            return self._bounded[key]

    def __len__(self) -> int:
        return len(self._bounded)


@dataclass(frozen=True, eq=False)
class Problem:
    """One rule set ready to solve: tables, state layout, kernel bundles, threads, work
    sizes. Built once (`Problem.of`); what is derived from it is computed on first use and
    kept."""

    tables: RuleTables
    layout: StateLayout
    threads: int
    memo: Memo = field(default_factory=Memo, repr=False)

    @classmethod
    def of(cls, tables: RuleTables, threads: int | None = None) -> Problem:
        """The problem of these tables, on `threads` threads (default: every core)."""
        return cls(tables, build_layout(tables), budget.thread_count(threads))

    @property
    def rules(self) -> RuleSet:
        return self.tables.rules

    @property
    def name(self) -> str:
        return self.tables.rules.name

    @cached_property
    def K(self) -> GameTables:
        """The rule tables as the kernels take them."""
        return kernel_tables(self.tables)

    @cached_property
    def L(self) -> Layout:
        """The state layout as the kernels take it."""
        return self.layout.kernel_layout()

    def remember(self, key: Hashable, make: Callable[[], Any]) -> Any:
        return self.memo.remember(key, make)

    # ------------------------------------------------------------ work sizes (solver.budget)

    def batch_width(self, widest: int | None = None) -> int:
        """Columns the kernels solve side by side (`budget.batch_width`); at least `widest`
        (default: every upper total of a box set)."""
        return budget.batch_width(self.tables, self.layout, widest)

    @cached_property
    def state_block(self) -> int:
        """States whose choices are held at once (`budget.state_block`)."""
        return budget.state_block(self.tables, self.layout)

    @cached_property
    def outcome_block(self) -> int:
        """States whose turn outcomes are held at once (`budget.outcome_block`)."""
        return budget.outcome_block(self.tables, self.layout)[0]

    @cached_property
    def merged_block(self) -> int:
        """(box set, flag, total)s whose banks' moves are followed at once where they walk the
        dice as one (`budget.merged_block`)."""
        return budget.merged_block(self.tables, self.layout)

    @cached_property
    def most_outcomes(self) -> int:
        """The most distinct moves a turn can end with (`budget.most_outcomes`)."""
        return budget.most_outcomes(self.tables, self.layout)

    @cached_property
    def most_stages(self) -> int:
        """The most rolls a turn has (`budget.most_stages`)."""
        return budget.most_stages(self.tables, self.layout)

    @cached_property
    def part_states(self) -> int:
        """States the DP solves between two returns to Python (`budget.part_states`)."""
        return budget.part_states(self.tables, self.layout, self.batch_width(), self.threads)


def kernel_tables(t: RuleTables) -> GameTables:
    """The rule tables as the kernels take them (see `solver.kernels.bundle.GameTables`)."""
    rolls_by_box = [np.flatnonzero(t.SCORE[:, c] > 0) for c in range(t.n_categories)]
    pos_indptr = np.zeros(t.n_categories + 1, dtype=np.int64)
    pos_indptr[1:] = np.cumsum([len(r) for r in rolls_by_box])
    radix = (t.n_dice + 1) ** np.arange(t.n_faces - 1, -1, -1, dtype=np.int64)
    keys = t.KEEP_COUNTS.astype(np.int64) @ radix
    key_order = np.argsort(keys)
    # Number every (box, normal score) pair: rolls with the same pair end a turn alike.
    pairs = np.arange(t.n_categories)[None, :] * (int(t.SCORE.max()) + 1) + t.SCORE
    distinct, score_key = np.unique(pairs, return_inverse=True)
    key_roll = np.zeros(len(distinct), dtype=np.int64)
    key_roll[score_key.reshape(pairs.shape)] = np.arange(t.n_distinct_rolls)[:, None]
    return GameTables.of(
        SCORE=t.SCORE, JOKER_SCORE=t.JOKER_SCORE, YAHTZEE_FACE=t.YAHTZEE_FACE,
        UPPER_BOX_OF_FACE=t.UPPER_BOX_OF_FACE, COUNTS_UPPER=t.COUNTS_UPPER, IS_LOWER=t.IS_LOWER,
        FIRST_BONUS=t.FIRST_BONUS, ONLY_AFTER=t.ONLY_AFTER, POS_INDPTR=pos_indptr,
        POS_ROLL=np.concatenate(rolls_by_box), SCORE_KEY=score_key.reshape(pairs.shape),
        KEY_ROLL=key_roll, KEEP_CHILD=t.KEEP_CHILD, SUB_INDPTR=t.SUB_INDPTR,
        SUB_INDICES=t.SUB_INDICES, ROLL_PROB=t.ROLL_PROB, KEEP_OUT_INDPTR=t.KEEP_OUT_INDPTR,
        KEEP_OUT_ROLL=t.KEEP_OUT_ROLL, KEEP_OUT_PROB=t.KEEP_OUT_PROB, KEEP_COUNTS=t.KEEP_COUNTS,
        KEY_SORTED=keys[key_order], KEY_INDEX=key_order, n_dice=t.n_dice, n_faces=t.n_faces,
        rolls=t.rolls, threshold=t.upper_threshold, upper_bonus=t.upper_bonus,
        yahtzee_bonus=t.yahtzee_bonus, yahtzee_box=t.yahtzee_box, joker_mode=t.joker_mode,
        n_flags=t.n_flags, flag_box=t.flag_box, in_order=int(t.in_order),
        first_roll_bonus=int(t.has_first_roll_bonus), bank_carry=int(t.bank_carry),
        bank_cap=t.bank_cap)
