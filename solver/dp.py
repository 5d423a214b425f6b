"""Exact optimal expected score of any rule set, by backward induction over turn-start states.

States. A turn starts in state s = (mask, flag, u): `mask` has bit c set when box c is filled,
`u` is the total of the boxes counting toward the upper bonus, capped at the threshold T (only
whether it reaches T matters), and `flag` is 1 when the Yahtzee box holds its full value (only
kept when the rule set has an extra Yahtzee bonus). V[s] is the expected score still to come
from s under optimal play; the game's value is V[0, 0, 0] and V[full mask] = 0.

One turn (the "widget" of Glenn 2006; Verhoeff 1999 uses the same recursion):

    E_last(r)  = max over legal open boxes c of
                 points(r, c | s) + bonus(r | s) + upper_bonus(u -> u') + V[mask | c, flag', u']
    K(k)       = mean over faces v of K(k + v)         (a keep k of fewer than n dice; K(r) = E(r))
    E_prev(r)  = max over keeps k inside r of K(k)     (done as "best sub-keep", one die at a time)
    V[s]       = sum over rolls r of P(r) E_first(r)

`points` applies the rule set's Joker (free or forced) and `bonus` the extra Yahtzee bonus,
both read from the compiled tables; there is no variant-specific code. States with the same
number of filled boxes form a layer and only depend on the next layer, so layers are solved from
the full card backwards and the states of a layer in parallel.

Two savings that do not change any value: upper totals above what the filled boxes can have
made are never computed (they are unreachable), and all totals from which the bonus can no
longer be reached share one value (the bonus is lost to all of them alike).

References: T. Verhoeff, "Optimal Solitaire Yahtzee Player" (1999); J. Glenn, "An Optimal
Strategy for Yahtzee" (2006).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from yz.rules import RuleTables

from . import config

SOLVER_VERSION = 1


@dataclass(frozen=True)
class StateSpace:
    """Shape of the value table and the upper totals worth computing for each box set."""

    n_masks: int
    n_flags: int
    n_upper: int
    U_START: np.ndarray  # per mask: first upper total computed (lower ones share its value)
    U_END: np.ndarray  # per mask: last reachable upper total
    reachable: int  # reachable turn-start states (full card excluded)


def upper_max_scores(t: RuleTables) -> np.ndarray:
    """Most points each box can add to the upper total (0 for boxes that do not count)."""
    best = np.maximum(t.SCORE.max(axis=0), t.JOKER_SCORE.max(axis=0))
    return np.where(t.COUNTS_UPPER == 1, best, 0).astype(np.int64)


_SPACES: dict[str, StateSpace] = {}


def state_space(t: RuleTables) -> StateSpace:
    """The state space of compiled tables (remembered per rule set: the solver, the exact
    figures and the simulator all ask for it)."""
    if t.digest not in _SPACES:
        _SPACES.clear()  # one rule set at a time is the common case; keep memory flat
        _SPACES[t.digest] = _state_space(t)
    return _SPACES[t.digest]


def _state_space(t: RuleTables) -> StateSpace:
    n_cat = t.n_categories
    n_masks = 1 << n_cat
    T = t.upper_threshold
    masks = np.arange(n_masks, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(n_cat)) & 1
    maxs = upper_max_scores(t)
    filled_max = bits @ maxs
    rem_max = maxs.sum() - filled_max
    hi = np.minimum(T, filled_max)
    lo = np.maximum(0, T - rem_max)
    start = np.where(lo > 0, np.maximum(0, np.minimum(lo - 1, hi)), 0)
    n_flags = 2 if t.yahtzee_bonus > 0 else 1
    return StateSpace(n_masks, n_flags, T + 1, start.astype(np.int32), hi.astype(np.int32),
                      _reachable_count(t, bits))


def _reachable_count(t: RuleTables, bits: np.ndarray) -> int:
    """Count (mask, flag, u) that some play reaches: u must be a capped sum of possible scores."""
    T = t.upper_threshold
    counted = [c for c in range(t.n_categories) if t.COUNTS_UPPER[c]]
    cap = (1 << (T + 1)) - 1
    # Reachable capped totals of every subset of the counted boxes, as bit sets (bit u: total
    # u); each subset extends the one without its highest box.
    reach = [1]
    for c in counted:
        values = np.union1d(t.SCORE[:, c], t.JOKER_SCORE[:, c]).tolist()
        for bitset in list(reach):
            out = 0
            for v in values:
                out |= bitset << v
            if out >> T:  # totals at or past the threshold count as the threshold
                out = (out & cap) | (1 << T)
            reach.append(out)
    n_u_by_subset = np.array([b.bit_count() for b in reach])
    subset_index = bits[:, counted] @ (1 << np.arange(len(counted))) if counted else \
        np.zeros(len(bits), dtype=np.int64)
    n_u = n_u_by_subset[subset_index]
    flags = np.ones(len(bits), dtype=np.int64)
    if t.yahtzee_bonus > 0:
        flags += bits[:, t.yahtzee_cat]
    return int((n_u * flags)[:-1].sum())  # the full card starts no turn


def layer_items(t: RuleTables, space: StateSpace, filled: int) -> tuple[np.ndarray, np.ndarray]:
    """The (box set, flag) pairs with `filled` boxes filled: flag 1 only with the Yahtzee box."""
    masks = np.arange(space.n_masks, dtype=np.int64)
    popcount = ((masks[:, None] >> np.arange(t.n_categories)) & 1).sum(axis=1)
    layer = masks[popcount == filled]
    items, flags = [layer], [np.zeros(len(layer), dtype=np.int64)]
    if space.n_flags == 2:
        with_flag = layer[(layer >> t.yahtzee_cat) & 1 == 1]
        items.append(with_flag)
        flags.append(np.ones(len(with_flag), dtype=np.int64))
    return np.concatenate(items), np.concatenate(flags)


def batch_width(t: RuleTables, widest: int) -> int:
    """Columns solved side by side: enough to fill the vector units, few enough that the
    scratch table (keeps x columns) stays in a core's L2 cache; at least `widest`, the widest
    run of columns that must stay together."""
    return max(widest, min(config.MAX_BATCH_COLS, config.SCRATCH_BYTES // (8 * t.n_keeps)))


def state_block(t: RuleTables) -> int:
    """States whose keep choices are held at once (CHOICE: rolls - 1 x rolls int32 each)."""
    per_state = max(1, t.n_rolls_per_turn - 1) * t.n_rolls * 4
    return max(1, min(config.SIM_STATE_BLOCK, config.CHOICE_BYTES // per_state))


def column_batches(widths: np.ndarray, limit: int) -> np.ndarray:
    """Split consecutive items into batches whose widths add up to at most `limit`."""
    ptr = [0]
    cols = 0
    for i, w in enumerate(widths.tolist()):
        if cols + w > limit:
            ptr.append(i)
            cols = 0
        cols += w
    ptr.append(len(widths))
    return np.array(ptr, dtype=np.int64)


def positive_scores(t: RuleTables) -> tuple[np.ndarray, np.ndarray]:
    """CSR list, per box, of the rolls that score more than 0 in it (normal scores)."""
    rolls_by_box = [np.flatnonzero(t.SCORE[:, c] > 0) for c in range(t.n_categories)]
    indptr = np.zeros(t.n_categories + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rolls_by_box])
    return indptr, np.concatenate(rolls_by_box).astype(np.int32)


@dataclass(frozen=True)
class Solution:
    """A solved rule set: the value of every turn-start state and how it was obtained."""

    tables: RuleTables
    values: np.ndarray  # V[mask, flag, u], float64
    seconds: float
    states: int
    cached: bool = False
    cache_note: str | None = None
    sd: float | None = None  # SD of the final score under optimal play, when computed

    @property
    def expected_score(self) -> float:
        return float(self.values[0, 0, 0])

    @property
    def rules(self):
        return self.tables.rules

    def value(self, mask: int, upper_total: int = 0, yahtzee_full: bool = False) -> float:
        """Expected score still to come from a turn start (upper total is capped for you)."""
        u = min(upper_total, self.tables.upper_threshold)
        flag = 1 if (yahtzee_full and self.values.shape[1] == 2) else 0
        return float(self.values[mask, flag, u])


def solve_values(t: RuleTables, progress: Callable[[int, int], None] | None = None,
                 with_sd: bool = False) -> tuple[np.ndarray, StateSpace, float | None]:
    """Run the DP on compiled tables: V[mask, flag, u], the state space, and with `with_sd`
    the standard deviation of the final score under the optimal play it finds (else None)."""
    import numba

    from . import kernels, policy_kernels

    space = state_space(t)
    n_cat = t.n_categories
    V = np.zeros((space.n_masks, space.n_flags, space.n_upper))
    M2 = np.zeros_like(V) if with_sd else np.zeros((1, 1, 1))
    pos_indptr, pos_roll = positive_scores(t)
    batch_cols = batch_width(t, space.n_upper)
    for done, filled in enumerate(range(n_cat - 1, -1, -1)):
        items, flags = layer_items(t, space, filled)
        batch_ptr = column_batches(space.U_END[items] - space.U_START[items] + 1, batch_cols)
        common = (t.SCORE, t.JOKER_SCORE, t.YAHTZEE_FACE, t.UPPER_BOX_OF_FACE, t.COUNTS_UPPER,
                  t.IS_LOWER, pos_indptr, pos_roll, t.KEEP_CHILD, t.SUB_INDPTR, t.SUB_INDICES,
                  t.ROLL_PROB)
        shape = (t.n_faces, t.n_rolls_per_turn, t.upper_threshold, t.upper_bonus,
                 t.yahtzee_bonus, t.yahtzee_cat, t.joker_mode, batch_cols,
                 numba.get_num_threads())
        if with_sd:
            # The same DP, with the second moment of optimal play carried along (its first
            # moment is V itself).
            policy_kernels.policy_moments(items, flags, batch_ptr, space.U_START, space.U_END,
                                          V, V, M2, *common, *shape, False, True)
        else:
            kernels.solve_layer(items, flags, batch_ptr, space.U_START, space.U_END, V, *common,
                                t.n_keeps, *shape)
        if progress is not None:
            progress(done + 1, n_cat)
    sd = float(np.sqrt(max(0.0, M2[0, 0, 0] - V[0, 0, 0] ** 2))) if with_sd else None
    return V, space, sd


def solve_tables(t: RuleTables, progress: Callable[[int, int], None] | None = None,
                 with_sd: bool = False) -> Solution:
    """Solve compiled tables from scratch (no cache); `with_sd` adds the exact SD."""
    start = time.perf_counter()
    V, space, sd = solve_values(t, progress, with_sd)
    return Solution(t, V, time.perf_counter() - start, space.reachable, sd=sd)
