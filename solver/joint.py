"""The joint state of a two-player game, and where its values live.

Two players play the same rules; A moves first and they alternate. A joint turn start is
(i, j, d): the turn-start state i of the player to move (the mover), the other player's state
j, and d, the mover's points banked less the other's. i and j are stored turn-start states of
`solver.state` (upper totals, flags and banks of saved rolls included), named by their place in
their layer: store index - LAYER_PTR[k]. Joint states fall into joint layers (km, ko), the
boxes the mover and the other have filled, in play order

    (0, 0), (0, 1), (1, 1), (1, 2), ..., (n - 1, n), (n, n)

(k, k): A to move; (k, k + 1): B to move; (n, n): the game is over (A "moves" to read the
result). A turn in (km, ko) leads to (ko, km + 1), where the roles swap.

A joint layer's pairs are (i, j), mover-major: pair p = i x n_o + j, so the pairs of one mover
are consecutive (the block a sweep of the layer before reads; `solver.minimax`). Each pair
stores only the differences that are neither decided nor out of reach:

    decided      with d > M(j), the most points the other can still score
                 (`target.most_to_come`), the mover has won whatever happens (value 1); with
                 d < -M(i), lost (value 0);
    out of reach d is at least (the least i can have banked) - (the most j can have) and at most
                 (the most i can have banked) - (the least j can have)
                 (`distribution.state_windows`); no game gets elsewhere.

so pair p holds d = LO[p] .. LO[p] + WIDTH[p] - 1 at values[PTR[p] ..]. Where the two ranges
do not meet, WIDTH is 0. A read outside the stored range (`JointLayer.read`, and the sweeps'
tables) gets the decided value where d is decided, and otherwise the stored value at the
nearest end (or, for a pair with nothing stored, the value every reachable d of it has): values
never fall as d rises, so this keeps them in order, and only states no game reaches read it.

Crag (13 boxes, no upper bonus): 20,058,300 pairs, 4.0e9 stored differences in all, the largest
two adjacent layers 0.64e9 and 0.65e9.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numpy as np
from yz.rules import RuleTables

from .state import StateLayout

# Pairs counted one by one (their widths computed) at most when estimating a layer's size; a
# bigger layer is estimated from a fixed sample of its pairs (`layer_entries`).
COUNTED_PAIRS = 4_000_000
SAMPLED_PAIRS = 200_000
# Bytes of a pair's place (LO, WIDTH, PTR) beside its values.
PAIR_BYTES = 24


def joint_order(n_boxes: int) -> list[tuple[int, int]]:
    """The joint layers (km, ko) in play order, from the start to the full cards."""
    out = []
    for k in range(n_boxes):
        out += [(k, k), (k, k + 1)]
    return [*out, (n_boxes, n_boxes)]


def next_layer(km: int, ko: int) -> tuple[int, int]:
    """The joint layer a turn in (km, ko) leads to: the other moves, the mover has one more
    box."""
    return ko, km + 1


@dataclass(frozen=True)
class Bounds:
    """What bounds the differences of a player's stored states of one layer (int64 each): the
    most points still to come, and the least and most points banked."""

    most: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def __len__(self) -> int:
        return len(self.most)


def player_bounds(t: RuleTables, layout: StateLayout, k: int) -> Bounds:
    """The `Bounds` of every stored state of layer k, in store order."""
    from .distribution import state_windows
    from .target import most_to_come

    low, width = state_windows(t, layout, k)
    return Bounds(most_to_come(t, layout, k), low, low + width - 1)


def pair_ranges(mover: Bounds, other: Bounds) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of the stored differences of every pair of `mover` x `other` (broadcast: give
    arrays shaped to meet, e.g. the mover's as a column); empty where hi < lo."""
    lo = np.maximum(-mover.most, mover.low - other.high)
    hi = np.minimum(other.most, mover.high - other.low)
    return lo, hi


def _column(b: Bounds) -> Bounds:
    return Bounds(b.most[:, None], b.low[:, None], b.high[:, None])


def _row(b: Bounds) -> Bounds:
    return Bounds(b.most[None, :], b.low[None, :], b.high[None, :])


@dataclass(frozen=True)
class JointLayer:
    """The pairs of joint layer (km, ko) and where their stored differences are (see the module
    docstring)."""

    km: int
    ko: int
    mover: Bounds
    other: Bounds
    LO: np.ndarray  # int64 [pair]: the first stored difference
    WIDTH: np.ndarray  # int64 [pair]: how many are stored
    PTR: np.ndarray  # int64 [pair + 1]: where they are

    @property
    def n_m(self) -> int:
        return len(self.mover)

    @property
    def n_o(self) -> int:
        return len(self.other)

    @property
    def size(self) -> int:
        """Stored differences (entries of each of the layer's tables)."""
        return int(self.PTR[-1])

    @property
    def pairs(self) -> int:
        return self.n_m * self.n_o

    def block(self, i: int) -> slice:
        """The pairs of mover state i (consecutive)."""
        return slice(i * self.n_o, (i + 1) * self.n_o)

    def column(self, j: int) -> np.ndarray:
        """The pairs (i, j) of every mover state i, in the order of i."""
        return np.arange(self.n_m, dtype=np.int64) * self.n_o + j

    def read(self, table: np.ndarray, i: int, j: int, d: int, decided: tuple[float, float]
             = (0.0, 1.0)) -> float:
        """The entry of `table` at joint state (i, j, d): stored, decided (`decided` = (lost,
        won): (0, 1) for the mover's score, (0, 0) for a chance of a draw) or out of reach
        (the nearest stored entry). See the module docstring."""
        if d > self.other.most[j]:
            return decided[1]
        if d < -self.mover.most[i]:
            return decided[0]
        p = i * self.n_o + j
        lo, width = int(self.LO[p]), int(self.WIDTH[p])
        if width == 0:  # nothing reachable here but decided states
            return decided[1] if lo > self.other.most[j] else decided[0]
        return float(table[self.PTR[p] + min(max(d, lo), lo + width - 1) - lo])


def build_layer(bounds: dict[int, Bounds], km: int, ko: int) -> JointLayer:
    """Joint layer (km, ko) of players whose layers' bounds are `bounds` (by layer)."""
    mover, other = bounds[km], bounds[ko]
    lo, hi = pair_ranges(_column(mover), _row(other))
    width = np.maximum(0, hi - lo + 1).ravel()
    # A pair with nothing stored keeps, in LO, which side its reachable differences are on:
    # above the other's most (won) when its own lo is.
    lo = lo.ravel()
    ptr = np.zeros(len(width) + 1, dtype=np.int64)
    np.cumsum(width, out=ptr[1:])
    return JointLayer(km, ko, mover, other, lo.astype(np.int64), width.astype(np.int64), ptr)


def all_bounds(t: RuleTables, layout: StateLayout) -> dict[int, Bounds]:
    """Every layer's `Bounds`."""
    return {k: player_bounds(t, layout, k) for k in range(t.n_categories + 1)}


def _groups(b: Bounds) -> tuple[Bounds, np.ndarray, np.ndarray]:
    """The distinct bounds of a layer's states, how many states have each, and each state's
    group."""
    keys = np.stack([b.most, b.low, b.high], axis=1)
    distinct, inverse, counts = np.unique(keys, axis=0, return_inverse=True,
                                          return_counts=True)
    return Bounds(distinct[:, 0], distinct[:, 1], distinct[:, 2]), counts, inverse.ravel()


@dataclass(frozen=True)
class LayerSize:
    """How big joint layer (km, ko) is: its pairs, its stored differences (exact, or
    `sampled`: estimated from a fixed sample of pairs), and the most a sweep of it holds of it
    and the layer after it at once (`peak`, in entries of one table; see `layer_sizes`)."""

    km: int
    ko: int
    pairs: int
    entries: int
    sampled: bool
    mover_blocks: np.ndarray | None  # int64 [mover state]: entries of its pairs (exact only)
    other_columns: np.ndarray | None  # int64 [other state]: entries of its pairs


def layer_size(bounds: dict[int, Bounds], km: int, ko: int) -> LayerSize:
    """The size of joint layer (km, ko) without building it: pairs grouped by their states'
    bounds (few distinct ones in most games), or a fixed sample of pairs where the groups are
    too many (official Yahtzee)."""
    mover, other = bounds[km], bounds[ko]
    pairs = len(mover) * len(other)
    gm, cm, im = _groups(mover)
    go, co, io = _groups(other)
    if len(gm) * len(go) <= COUNTED_PAIRS:
        lo, hi = pair_ranges(_column(gm), _row(go))
        width = np.maximum(0, hi - lo + 1)
        by_mover = width @ co  # [mover group]: entries of a state's pairs
        by_other = cm @ width  # [other group]
        return LayerSize(km, ko, pairs, int(cm @ by_mover), False, by_mover[im].astype(np.int64),
                         by_other[io].astype(np.int64))
    rng = np.random.default_rng(42)
    i = rng.integers(0, len(mover), SAMPLED_PAIRS)
    j = rng.integers(0, len(other), SAMPLED_PAIRS)
    lo, hi = pair_ranges(Bounds(mover.most[i], mover.low[i], mover.high[i]),
                         Bounds(other.most[j], other.low[j], other.high[j]))
    mean = float(np.maximum(0, hi - lo + 1).mean())
    return LayerSize(km, ko, pairs, round(mean * pairs), True, None, None)


def layer_sizes(t: RuleTables, layout: StateLayout) -> list[LayerSize]:
    """Every joint layer's size, in play order."""
    bounds = all_bounds(t, layout)
    return [layer_size(bounds, km, ko) for km, ko in joint_order(t.n_categories)]


def peak_entries(now: LayerSize, after: LayerSize, releases: bool) -> int:
    """The most entries of one table held at once while layer `now` is swept from the layer
    `after` it: both whole; or, where a block of `after` is handed back once read
    (`Table.release`: the sweep reads after's blocks in the order it writes now's columns),
    the largest sum over the sweep of what is left of `after` and what is written of `now`."""
    if not releases or now.other_columns is None or after.mover_blocks is None:
        return now.entries + after.entries
    left = after.entries - np.concatenate([[0], np.cumsum(after.mover_blocks)[:-1]])
    written = np.cumsum(now.other_columns)
    return int((left + written).max(initial=0))


# ---------------------------------------------------------------- the tables


class Table:
    """One float64 table of a joint layer (an entry per stored difference), in memory mapped
    from nothing (pages are taken as they are written), whose parts a sweep has read for the
    last time can be handed back to the system (`release`).

    The mapping is private: an anonymous mapping is shared by default, and the system keeps
    a shared mapping's pages after MADV_DONTNEED (it only unmaps them from the process, whose
    resident size falls while the machine's free memory does not), so the memory the
    estimates count as handed back never was (the whole Crag's second pass was killed for
    want of memory at 14.8 GB resident on a 24 GB machine)."""

    releases = hasattr(mmap, "MADV_DONTNEED") and hasattr(mmap, "MAP_PRIVATE")

    def __init__(self, entries: int):
        size = max(1, entries) * 8
        self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) \
            if self.releases else mmap.mmap(-1, size)
        self.array = np.frombuffer(self._map, dtype=np.float64, count=entries)

    def release(self, start: int, stop: int) -> None:
        """Hand back the whole pages of entries start .. stop - 1 (read as 0 afterwards: only
        for parts never read again)."""
        if not self.releases:
            return
        page = mmap.PAGESIZE
        a = -(-start * 8 // page) * page
        b = stop * 8 // page * page
        if b > a:
            self._map.madvise(mmap.MADV_DONTNEED, a, b - a)
