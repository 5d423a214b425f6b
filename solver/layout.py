"""Where every turn-start state's value lives: the state layout and the kernel bundles.

A turn-start state is (mask, flag, u): the filled boxes, whether the flag box holds a non-zero
score (the Yahtzee box with an extra Yahtzee bonus, or the box an `only_after` box waits for;
see `RuleSet.flag_box_key`), and the upper total
capped at the threshold. Values are stored in one flat array, layer by layer (layer k: the
states with k boxes filled), and inside a layer by mask, flag, then u:

    store[OFFSET[mask, flag] + (u - U0[mask])]     for U0[mask] <= u <= U1[mask]

With saved rolls (`saved_rolls`) the state also holds the bank b of saved rolls: its column
of OFFSET is flag + n_flags * b, and a layer stores its banks one after the other (bank, then
mask, then flag), so a batch of the DP, which rolls as often as its bank allows, holds one
bank. Without saved rolls there is one bank and the layout is the one above.

Only totals that can matter are stored: above U1 (what the filled boxes can have made) no play
arrives, and below U0 the bonus is out of reach whatever comes, so those totals all share the
value at U0 (`index` clips them). Each layer is a contiguous slice (`layer_slice`), which is
what the DP sweeps, the cache checksums and (for big games) float32 or memory-mapped storage
work on. Nothing outside this module and the kernels' `store_index` knows the formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from yz.rules import RuleTables

from .kernels.bundle import GameTables, Layout, Rows, build


def popcounts(n_boxes: int) -> np.ndarray:
    """Number of filled boxes of every mask 0 .. 2^n_boxes - 1."""
    masks = np.arange(1 << n_boxes, dtype=np.uint32)
    return np.bitwise_count(masks).astype(np.int8)


@dataclass(frozen=True)
class StateLayout:
    """The turn-start states of a rule set and their places in the flat value store."""

    n_boxes: int
    n_flags: int  # 2 when the state remembers whether the flag box holds a non-zero score
    threshold: int  # upper bonus threshold, 0 without an upper bonus
    flag_box: int  # the box whose non-zero score raises the flag, -1 without a flag
    U0: np.ndarray  # int64 [mask]
    U1: np.ndarray  # int64 [mask]
    OFFSET: np.ndarray  # int64 [mask, flag + n_flags * bank]; -1 where there is no such state
    layer_masks: tuple[np.ndarray, ...]  # int64 masks with k boxes filled, k = 0 .. n_boxes
    LAYER_PTR: np.ndarray  # int64 [n_boxes + 2]: store slice of layer k
    reachable: int  # turn-start states some play reaches (the full card excluded)
    banks: tuple[int, ...] = (1,)  # banks of saved rolls in each layer (1: no saved rolls)
    start_bank: int = 0  # saved rolls at the game's first turn
    _rows: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def size(self) -> int:
        """Entries in the value store."""
        return int(self.LAYER_PTR[-1])

    def layer_slice(self, k: int) -> slice:
        return slice(int(self.LAYER_PTR[k]), int(self.LAYER_PTR[k + 1]))

    def index(self, mask: int, flag: int, u: int, bank: int = 0) -> int:
        """Store index of state (mask, flag, u) with `bank` saved rolls; u is capped at the
        threshold, totals below the first stored one share its value. ValueError for a state
        that does not exist."""
        flag = flag if self.n_flags == 2 else 0
        column = flag + self.n_flags * bank
        base = int(self.OFFSET[mask, column]) if 0 <= column < self.OFFSET.shape[1] else -1
        if base < 0:
            raise ValueError(f"no turn-start state has box set {mask:#b} with flag {flag}"
                             + (f" and {bank} saved rolls" if bank else ""))
        u = min(max(u, int(self.U0[mask])), self.threshold)
        if u > int(self.U1[mask]):
            raise ValueError(f"upper total {u} cannot be reached with box set {mask:#b}")
        return base + u - int(self.U0[mask])

    @property
    def start(self) -> int:
        """Store index of the game's first turn: the empty card (with the starting bank)."""
        return self.index(0, 0, 0, self.start_bank)

    def rows(self, k: int) -> Rows:
        """Every state of layer k as runs of upper totals: one row per (mask, flag, bank), in
        store order (so the rows of a bank are consecutive)."""
        if k not in self._rows:
            masks = self.layer_masks[k]
            flags = [np.zeros(len(masks), dtype=np.int64)]
            all_masks = [masks]
            if self.n_flags == 2:
                with_flag = masks[(masks >> self.flag_box) & 1 == 1]
                all_masks.append(with_flag)
                flags.append(np.ones(len(with_flag), dtype=np.int64))
            m1 = np.concatenate(all_masks)
            f1 = np.concatenate(flags)
            n_banks = self.banks[k]
            m = np.tile(m1, n_banks)
            f = np.tile(f1, n_banks)
            b = np.repeat(np.arange(n_banks, dtype=np.int64), len(m1))
            out = self.OFFSET[m, f + self.n_flags * b]
            order = np.argsort(out, kind="stable")
            m, f, b, out = m[order], f[order], b[order], out[order]
            u0 = self.U0[m].astype(np.int64)
            nu = (self.U1[m] - self.U0[m] + 1).astype(np.int64)
            self._rows[k] = build(Rows, MASK=m, FLAG=f, BANK=b, U0=u0, NU=nu, OUT=out)
        return self._rows[k]

    def state_arrays(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every stored state of layer k: (mask, flag, u, store index), in store order."""
        r = self.rows(k)
        starts = np.cumsum(r.NU) - r.NU
        within = np.arange(int(r.NU.sum())) - np.repeat(starts, r.NU)
        return (np.repeat(r.MASK, r.NU), np.repeat(r.FLAG, r.NU),
                np.repeat(r.U0, r.NU) + within, np.repeat(r.OUT, r.NU) + within)

    def states_at(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mask, flag, u) of the states stored at `index` (store indices)."""
        return self.banked_states_at(index)[:3]

    def banked_states_at(self, index: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(mask, flag, u, bank of saved rolls) of the states stored at `index`."""
        if "all" not in self._rows:
            every = [self.rows(k) for k in range(self.n_boxes + 1)]
            self._rows["all"] = tuple(np.concatenate(col) for col in zip(*every, strict=True))
        mask, flag, bank, u0, _nu, out = self._rows["all"]
        row = np.searchsorted(out, index, side="right") - 1
        return mask[row], flag[row], u0[row] + index - out[row], bank[row]

    def kernel_layout(self) -> Layout:
        return build(Layout, U0=self.U0, U1=self.U1, OFFSET=self.OFFSET)


def build_layout(t: RuleTables) -> StateLayout:
    """The layout of a rule set's turn-start states (milliseconds at 13 boxes)."""
    n_cat = t.n_categories
    T = t.upper_threshold
    n_masks = 1 << n_cat
    maxs = t.UPPER_MAX
    counted = np.flatnonzero(maxs > 0)
    # Upper totals depend only on which counting boxes are filled: work on those subsets.
    sub_bits = (np.arange(1 << len(counted))[:, None] >> np.arange(len(counted))) & 1
    sub_filled_max = sub_bits @ maxs[counted]
    sub_rem_max = maxs.sum() - sub_filled_max
    sub_hi = np.minimum(T, sub_filled_max)
    sub_lo = np.maximum(0, T - sub_rem_max)
    sub_start = np.where(sub_lo > 0, np.maximum(0, np.minimum(sub_lo - 1, sub_hi)), 0)
    masks = np.arange(n_masks, dtype=np.int64)
    subset = np.zeros(n_masks, dtype=np.int64)
    for i, c in enumerate(counted):
        subset |= ((masks >> c) & 1) << i
    U0 = sub_start[subset].astype(np.int64)
    U1 = sub_hi[subset].astype(np.int64)
    width = (U1 - U0 + 1).astype(np.int64)

    n_flags = t.n_flags
    flag_box = t.flag_box
    pc = popcounts(n_cat)
    if t.in_order:  # only the first k boxes can be filled after k turns: other sets hold nothing
        width[~prefix_masks(n_cat)] = 0
    order = np.argsort(pc, kind="stable")  # by layer, then by mask
    layer_start = np.searchsorted(pc[order], np.arange(n_cat + 2))
    layer_masks = tuple(order[layer_start[k]:layer_start[k + 1]].astype(np.int64)
                        for k in range(n_cat + 1))
    if t.in_order:
        layer_masks = tuple(np.array([(1 << k) - 1], dtype=np.int64) for k in range(n_cat + 1))
    # Rows in store order: layer, bank, mask, flag.
    has_flag = np.zeros(n_masks, dtype=bool)
    if n_flags == 2:
        has_flag = ((masks >> flag_box) & 1) == 1
    banks = tuple(t.banks_in_layer(k) for k in range(n_cat + 1))
    OFFSET = np.full((n_masks, n_flags * t.n_banks), -1, dtype=np.int64)
    ptr = [0]  # ptr[k]: where layer k starts
    for k in range(n_cat + 1):
        ms = order[layer_start[k]:layer_start[k + 1]]
        row_w = np.stack([width[ms], np.where(has_flag[ms], width[ms], 0)], axis=1)
        at = ptr[-1]
        for bank in range(banks[k]):
            ends = at + np.cumsum(row_w.ravel())
            starts = (ends - row_w.ravel()).reshape(-1, 2)
            OFFSET[ms, n_flags * bank] = starts[:, 0]
            if n_flags == 2:
                OFFSET[ms[has_flag[ms]], n_flags * bank + 1] = starts[has_flag[ms], 1]
            at = int(ends[-1]) if len(ends) else at
        ptr.append(at)
    LAYER_PTR = np.array(ptr, dtype=np.int64)
    return StateLayout(n_cat, n_flags, T, flag_box, U0, U1, OFFSET, layer_masks, LAYER_PTR,
                       _reachable_count(t, masks, counted, n_flags, flag_box), banks,
                       t.bank_start)


def prefix_masks(n_boxes: int) -> np.ndarray:
    """Bool [mask]: the box sets of a card filled in order (the first k boxes)."""
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    return (masks & (masks + 1)) == 0


def _reachable_count(t: RuleTables, masks: np.ndarray, counted: np.ndarray, n_flags: int,
                     flag_box: int) -> int:
    """Count (mask, flag, u) that some play reaches: u must be a capped sum of possible scores."""
    T = t.upper_threshold
    cap = (1 << (T + 1)) - 1
    # Reachable capped totals of every subset of the counted boxes, as bit sets (bit u: total
    # u); each subset extends the one without its highest box.
    reach = [1]
    for c in counted:
        values = t.BOX_SCORES[c].tolist()
        for bitset in list(reach):
            out = 0
            for v in values:
                out |= bitset << v
            if out >> T:  # totals at or past the threshold count as the threshold
                out = (out & cap) | (1 << T)
            reach.append(out)
    n_u_by_subset = np.array([b.bit_count() for b in reach])
    subset = np.zeros(len(masks), dtype=np.int64)
    for i, c in enumerate(counted):
        subset |= ((masks >> c) & 1) << i
    flags = np.ones(len(masks), dtype=np.int64)
    if n_flags == 2:
        flags += (masks >> flag_box) & 1
    if t.in_order:
        flags = np.where(prefix_masks(t.n_categories), flags, 0)
    banks = np.array([t.banks_in_layer(k) for k in range(t.n_categories + 1)])
    flags = flags * banks[popcounts(t.n_categories)]
    return int((n_u_by_subset[subset] * flags)[:-1].sum())  # the full card starts no turn


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
    return build(
        GameTables, SCORE=t.SCORE, JOKER_SCORE=t.JOKER_SCORE, YAHTZEE_FACE=t.YAHTZEE_FACE,
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
        first_roll_bonus=int(t.has_first_roll_bonus), n_banks=t.n_banks,
        bank_carry=int(t.bank_carry), bank_cap=t.bank_cap)
