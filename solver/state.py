"""The turn-start state: what it holds, how states are numbered, and where their values live.

A turn starts in state (mask, flag, u, bank):

    mask   the filled boxes (bit c: box c), k of them in layer k; a card filled in card order
           (`order: in_order`) has one box set per layer
    flag   1 when the flag box holds a non-zero score (the Yahtzee box with an extra Yahtzee
           bonus, or the box an `only_after` box waits for; see `RuleSet.flag_box_key`); one
           flag value without such a box
    u      the upper total, capped at the bonus threshold (0 without an upper bonus)
    bank   the saved rolls the turn starts with (`saved_rolls`); one bank, 0, without them

This module and its scalar half, `solver.kernels.state` (plain functions the kernels compile
and the advisor runs), are the only code that reads those encodings: every other module asks
them (which boxes are filled or open, a state's store index, its layer, the banks of a layer).
A new field of the state belongs here, as a new dimension of the layout, not as a branch in the
modules that use it.

Values are stored in one flat array, layer by layer, and inside a layer by bank, mask, flag,
then u:

    store[OFFSET[mask, flag + n_flags * bank] + (u - U0[mask])]     for U0[mask] <= u <= U1[mask]
    OFFSET[mask, flag + n_flags * bank] = BASE[mask, flag] + bank * BANK_STRIDE[k]   (k: layer)

so a batch of the DP, which rolls as often as its bank allows, holds one bank, and a game
without saved rolls has one bank, the layout above with bank 0. Every bank of a layer holds
the same states, so the layout keeps BASE and each layer's BANK_STRIDE (Maxi Yatzy: 8 MB);
the whole OFFSET, which the kernels take (344 MB for Maxi Yatzy, mostly banks a layer does not
have), is built the first time a kernel needs it. Only totals that can matter
are stored: above U1 (what the filled boxes can have made) no play arrives, and below U0 the
bonus is out of reach whatever comes, so those totals all share the value at U0 (`index` clips
them). Each layer is a contiguous slice (`layer_slice`), which is what the DP sweeps, the
cache checksums and (for big games) float32 or memory-mapped storage work on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from yz.rules import RuleTables

from .kernels.bundle import Layout, Rows, States
from .kernels.state import has


def filled_matrix(masks: np.ndarray, n_boxes: int) -> np.ndarray:
    """Bool [state, box]: which boxes each box set has filled."""
    return has(np.asarray(masks)[:, None], np.arange(n_boxes))


def filled_boxes(mask: int, n_boxes: int) -> list[int]:
    """The boxes box set `mask` has filled, in card order."""
    return [c for c in range(n_boxes) if has(mask, c)]


def filled_maxima(t: RuleTables, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per box set: the most its filled boxes can hold in all, and the most those that do not
    count toward the upper total can hold (int64)."""
    filled = filled_matrix(masks, t.n_categories).astype(np.int64)
    return filled @ t.BOX_MAX.astype(np.int64), \
        filled @ (t.BOX_MAX - t.UPPER_MAX).astype(np.int64)


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
    BASE: np.ndarray  # int64 [mask, flag]: store index of (mask, flag, U0) with bank 0; -1: none
    BANK_STRIDE: np.ndarray  # int64 [layer]: entries of one bank of the layer
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
        base = int(self.BASE[mask, flag]) if 0 <= mask < len(self.BASE) else -1
        k = int(self.MASK_LAYER[mask]) if base >= 0 else 0
        if base < 0 or not 0 <= bank < self.banks[k]:
            raise ValueError(f"no turn-start state has box set {mask:#b} with flag {flag}"
                             + (f" and {bank} saved rolls" if bank else ""))
        u = min(max(u, int(self.U0[mask])), self.threshold)
        if u > int(self.U1[mask]):
            raise ValueError(f"upper total {u} cannot be reached with box set {mask:#b}")
        return base + bank * int(self.BANK_STRIDE[k]) + u - int(self.U0[mask])

    def indices(self, mask: np.ndarray, flag: np.ndarray, u: np.ndarray,
                bank: np.ndarray | int = 0) -> np.ndarray:
        """`index` of many states at once (int64 arrays, or a bank for all), for states that
        exist: what the advisor asks of a turn's successors."""
        mask = np.asarray(mask, dtype=np.int64)
        flag = np.asarray(flag, dtype=np.int64) if self.n_flags == 2 else np.zeros_like(mask)
        u0 = self.U0[mask]
        u = np.minimum(np.maximum(np.asarray(u, dtype=np.int64), u0), self.threshold)
        return (self.BASE[mask, flag] + np.asarray(bank, dtype=np.int64)
                * self.BANK_STRIDE[self.MASK_LAYER[mask]] + u - u0)

    @property
    def n_rows(self) -> int:
        """Runs of stored upper totals, one per (mask, flag, bank) that exists: the rows the
        DP solves."""
        return int(((self.BASE >= 0).sum(axis=1) * np.asarray(self.banks)[self.MASK_LAYER]).sum())

    @cached_property
    def MASK_LAYER(self) -> np.ndarray:
        """int8 [mask]: the layer of each box set (its filled boxes)."""
        return popcounts(self.n_boxes)

    @cached_property
    def OFFSET(self) -> np.ndarray:
        """int64 [mask, flag + n_flags * bank]: store index of (mask, flag, U0[mask]) with that
        bank; -1 where there is no such state (the kernels' `Layout`; built on first use)."""
        n_banks = self.most_banks
        out = np.full((len(self.BASE), self.n_flags * n_banks), -1, dtype=np.int64)
        k = self.MASK_LAYER
        for bank in range(n_banks):
            cols = slice(self.n_flags * bank, self.n_flags * (bank + 1))
            has_bank = (np.asarray(self.banks)[k] > bank)[:, None] & (self.BASE >= 0)
            out[:, cols] = np.where(has_bank, self.BASE + bank * self.BANK_STRIDE[k][:, None],
                                    -1)
        return out

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
                with_flag = masks[has(masks, self.flag_box)]
                all_masks.append(with_flag)
                flags.append(np.ones(len(with_flag), dtype=np.int64))
            m1 = np.concatenate(all_masks)
            f1 = np.concatenate(flags)
            n_banks = self.banks[k]
            m = np.tile(m1, n_banks)
            f = np.tile(f1, n_banks)
            b = np.repeat(np.arange(n_banks, dtype=np.int64), len(m1))
            out = self.BASE[m, f] + b * self.BANK_STRIDE[k]
            order = np.argsort(out, kind="stable")
            m, f, b, out = m[order], f[order], b[order], out[order]
            u0 = self.U0[m].astype(np.int64)
            nu = (self.U1[m] - self.U0[m] + 1).astype(np.int64)
            self._rows[k] = Rows.of(MASK=m, FLAG=f, BANK=b, U0=u0, NU=nu, OUT=out)
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
        return Layout.of(U0=self.U0, U1=self.U1, OFFSET=self.OFFSET, banks=self.most_banks)

    def pack(self, mask: np.ndarray, flag: np.ndarray, upper: np.ndarray, bank: np.ndarray
             ) -> np.ndarray:
        """One whole number per state (the upper total capped here), in the order of (bank,
        mask, flag, upper total): sorting the numbers sorts the states as rows want them."""
        n_upper = self.threshold + 1
        capped = np.minimum(upper, self.threshold)
        return ((bank * (1 << self.n_boxes) + mask) * self.n_flags + flag) * n_upper + capped

    def unpack(self, keys: np.ndarray) -> States:
        """The states of `pack`'s numbers."""
        n_upper, n_masks = self.threshold + 1, 1 << self.n_boxes
        card = keys // n_upper // self.n_flags
        return States(card % n_masks, (keys // n_upper) % self.n_flags, keys % n_upper,
                      card // n_masks)

    def flag_values(self, masks: np.ndarray) -> np.ndarray:
        """How many flag values each box set is stored with: 2 where the flag box is filled
        (it may hold a non-zero score or not), else 1 (int64)."""
        if self.n_flags == 1:
            return np.ones(len(masks), dtype=np.int64)
        return 1 + has(masks, self.flag_box).astype(np.int64)

    @property
    def most_banks(self) -> int:
        """The most banks of saved rolls a layer holds (1: no saved rolls)."""
        return max(self.banks)

    @property
    def saves_rolls(self) -> bool:
        """Whether some turn starts with saved rolls (a bank carried between turns): a turn
        may then fill a box after any roll, each stop leaving its own bank."""
        return self.most_banks > 1

    def shown_bank(self, bank: int) -> int | None:
        """A turn's saved rolls as a person is shown them (advice, the coach's card, JSON):
        None in a game that saves no rolls, where there is no such count to show."""
        return bank if self.saves_rolls else None


def build_layout(t: RuleTables) -> StateLayout:
    """The layout of a rule set's turn-start states (milliseconds at 13 boxes)."""
    n_cat = t.n_categories
    T = t.upper_threshold
    n_masks = 1 << n_cat
    maxs = t.UPPER_MAX
    counted = np.flatnonzero(maxs > 0)
    # Upper totals depend only on which counting boxes are filled: work on those subsets.
    sub_bits = filled_matrix(np.arange(1 << len(counted)), len(counted)).astype(np.int64)
    sub_filled_max = sub_bits @ maxs[counted]
    sub_rem_max = maxs.sum() - sub_filled_max
    sub_hi = np.minimum(T, sub_filled_max)
    sub_lo = np.maximum(0, T - sub_rem_max)
    sub_start = np.where(sub_lo > 0, np.maximum(0, np.minimum(sub_lo - 1, sub_hi)), 0)
    masks = np.arange(n_masks, dtype=np.int64)
    subset = _counted_subsets(n_cat, counted)
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
        has_flag = has(masks, flag_box)
    banks = tuple(t.banks_in_layer(k) for k in range(n_cat + 1))
    BASE = np.full((n_masks, n_flags), -1, dtype=np.int64)
    stride = np.zeros(n_cat + 1, dtype=np.int64)
    ptr = [0]  # ptr[k]: where layer k starts
    for k in range(n_cat + 1):
        # Bank 0's states of the layer; every further bank holds the same, one stride on.
        ms = order[layer_start[k]:layer_start[k + 1]]
        row_w = np.stack([width[ms], np.where(has_flag[ms], width[ms], 0)], axis=1)
        ends = ptr[-1] + np.cumsum(row_w.ravel())
        starts = (ends - row_w.ravel()).reshape(-1, 2)
        BASE[ms, 0] = starts[:, 0]
        if n_flags == 2:
            BASE[ms[has_flag[ms]], 1] = starts[has_flag[ms], 1]
        stride[k] = int(row_w.sum())
        ptr.append(ptr[-1] + banks[k] * int(stride[k]))
    LAYER_PTR = np.array(ptr, dtype=np.int64)
    return StateLayout(n_cat, n_flags, T, flag_box, U0, U1, BASE, stride, layer_masks,
                       LAYER_PTR, _reachable_count(t, counted, subset, has_flag, pc),
                       banks, t.bank_start)


def _counted_subsets(n_boxes: int, counted: np.ndarray) -> np.ndarray:
    """Per box set 0 .. 2^n_boxes - 1, the subset of the boxes counting toward the upper total
    it has filled, as a number (bit i: the i-th counting box). Built by doubling, box by box
    (the sets holding box c are those below 2^c, plus c): two passes over the sets in all,
    where a test per counting box took twelve."""
    place = {int(c): i for i, c in enumerate(counted)}
    subset = np.zeros(1, dtype=np.int64)
    for c in range(n_boxes):
        subset = np.concatenate([subset, subset | (1 << place[c] if c in place else 0)])
    return subset


def prefix_masks(n_boxes: int) -> np.ndarray:
    """Bool [mask]: the box sets of a card filled in order (the first k boxes)."""
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    return (masks & (masks + 1)) == 0


def _reachable_count(t: RuleTables, counted: np.ndarray, subset: np.ndarray,
                     has_flag: np.ndarray, pc: np.ndarray) -> int:
    """Count (mask, flag, u) that some play reaches: u must be a capped sum of possible scores
    (`subset`, `has_flag`, `pc`: per box set, its counting boxes filled, whether it remembers
    the flag box, its boxes filled; `build_layout`'s)."""
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
    flags = 1 + has_flag.astype(np.int64)
    if t.in_order:
        flags = np.where(prefix_masks(t.n_categories), flags, 0)
    banks = np.array([t.banks_in_layer(k) for k in range(t.n_categories + 1)])
    flags = flags * banks[pc]
    return int((n_u_by_subset[subset] * flags)[:-1].sum())  # the full card starts no turn
