"""Following a strategy, for numba: simulated games, and the forward pass's convolutions.

A strategy's decisions come from the layer driver (`solver.kernels.layer`, the decision
kernel), which records them as it makes them, with the tie rule of `solver.kernels.ties`:

    CHOICE[i, 0, r]      the box for final roll r, in state i
    CHOICE[i, L, r]      the keep to hold from roll r with L re-rolls left (n_keep + a box:
                         fill that box at once: for its first-roll bonus, or with saved
                         rolls to save the L re-rolls left)

Dice for simulations are drawn beforehand from a seeded generator and passed in, so a game
replays identically whatever the number of threads. Kernels here release the GIL and are
run on several Python threads at once (`solver.kernels.layer.run_rows` explains why not
`prange`), each on its own share of the games or states.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel, unsigned
from .outcomes import EVENT_JOKER, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS
from .rule import box_verdict, end_turn
from .state import bank_after


@kernel(inline="always")
def _roll_of(counts, n_dice, KEY_SORTED, KEY_INDEX):
    """Keep (or roll) index of a face-count vector: binary search of its mixed-radix key."""
    key = 0
    for v in range(counts.shape[0]):
        key = key * (n_dice + 1) + counts[v]
    return KEY_INDEX[np.searchsorted(KEY_SORTED, key)]


@kernel(nogil=True)
def play_turn(K, G, part, state_of_game, CHOICE, DRAWS):
    """Play one turn of the games `part` = (games, first, step): games[first::step], in place
    (G: the games' `Tally`).

    DRAWS[g, s, d] is the face (0-based) of die slot d at throw s of this turn for game g: the
    first throw uses n slots, a re-roll of m dice the first m. state_of_game[g] is game g's
    row in CHOICE (the choices of its state). With saved rolls a game whose turn begins with b
    saved rolls (G.BANK) may throw rolls + b times and fill a box after any throw; the bank
    it leaves is `bank_after`.
    """
    _play_games(K, G, part, state_of_game, CHOICE, DRAWS,
                np.zeros(K.KEEP_COUNTS.shape[1], dtype=np.int64))


@kernel(_nrt=False)
def _play_games(K, G, part, state_of_game, CHOICE, DRAWS, counts):
    """`play_turn`'s games, with `counts` its scratch: without reference counting, as the
    kernels of `solver.kernels.final` (each read of a field of K or G in these loops would
    otherwise count a reference)."""
    games, first, step = part
    n_faces = K.KEEP_COUNTS.shape[1]
    n_dice = K.n_dice
    n_keep = K.KEEP_COUNTS.shape[0]
    for gi in range(first, games.shape[0], step):
        g = games[gi]
        st = state_of_game[g]
        counts[:] = 0
        for d in range(n_dice):
            counts[DRAWS[g, 0, d]] += 1
        bank = G.BANK[g]
        top = K.rolls - 1 + bank  # re-rolls left after the first throw
        stop = -1  # the box filled at once, before the last throw
        left = top
        while left > 0:
            k = CHOICE[st, left, _roll_of(counts, n_dice, K.KEY_SORTED, K.KEY_INDEX)]
            if k >= n_keep:
                stop = k - n_keep
                break
            n_kept = 0
            for v in range(n_faces):
                counts[v] = K.KEEP_COUNTS[k, v]
                n_kept += counts[v]
            for d in range(n_dice - n_kept):
                counts[DRAWS[g, top - left + 1, d]] += 1
            left -= 1
        r = _roll_of(counts, n_dice, K.KEY_SORTED, K.KEY_INDEX)
        m, f = G.MASK[g], G.FLAG[g]
        u = min(G.UPPER[g], K.threshold)
        c = stop if stop >= 0 else CHOICE[st, 0, r]
        # Filled with the turn's first throw: its first-roll bonus (folded into the scores of
        # a one-roll game without saved rolls, whose FIRST_BONUS is then 0).
        first = left == top
        _o, _l, use_joker, extra = box_verdict(K, m, r)
        pts, gained, nm, nf, _nu, made, won, joker = end_turn(K, m, f, u, r, c, use_joker,
                                                              extra, first)
        G.BANK[g] = bank_after(K, bank, left)
        G.BOX_SCORE[g, c] = pts
        G.EVENTS[g, EVENT_UPPER_BONUS] += made
        G.EVENTS[g, EVENT_YAHTZEE_BONUS] += won
        G.EVENTS[g, EVENT_JOKER] += joker
        if K.COUNTS_UPPER[c]:
            G.UPPER[g] += pts
        G.FLAG[g] = nf
        G.MASK[g] = nm
        G.SCORE[g] += gained


# ---------------------------------------------------------------- score distributions


@kernel(nogil=True)
def add_reach(REACH, base, TARGET, W):
    """REACH[TARGET[i] - base] += W[i] for every move i: the chance of reaching each state of
    the next layer, added move by move (a block of a big layer's moves touches a few of its
    states: no pass over the whole layer per block). Returns how many moves lead outside
    REACH (none: a bug otherwise), left out."""
    outside = 0
    for i in range(TARGET.shape[0]):
        t = TARGET[i] - base
        if t < 0 or t >= REACH.shape[0]:
            outside += 1
            continue
        REACH[t] += W[i]
    return outside


@kernel
def group_by(slot, n):
    """Counting sort: ptr[s] .. ptr[s + 1] - 1 are the positions in `order` of the entries i
    with slot[i] == s, in their original order."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(slot.shape[0]):
        ptr[slot[i] + 1] += 1
    for s in range(n):
        ptr[s + 1] += ptr[s]
    fill = ptr[:-1].copy()
    order = np.empty(slot.shape[0], dtype=np.int64)
    for i in range(slot.shape[0]):
        order[fill[slot[i]]] = i
        fill[slot[i]] += 1
    return ptr, order


@kernel
def window_bounds(slot, src, gain, lo, width, n):
    """Each target's window: the lowest first and the highest end of the source windows
    (lo, width) its entries i shift by gain[i] (no temporary per entry: a layer has millions)."""
    new_lo = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    new_hi = np.zeros(n, dtype=np.int64)
    for i in range(slot.shape[0]):
        t = slot[i]
        first = lo[src[i]] + gain[i]
        new_lo[t] = min(new_lo[t], first)
        new_hi[t] = max(new_hi[t], first + width[src[i]])
    return new_lo, new_hi


@kernel(nogil=True)
def scatter_windows(SRC, TARGET, GAIN, PROB, src_windows, dst_windows):
    """Add every move i's share to its target's window: PROB[i] times source SRC[i]'s window
    shifted by GAIN[i], into target TARGET[i]'s (a place in dst_windows = (lo, width, offset,
    pmf), windows fixed in advance). Per target the moves add up in their order, as in
    `convolve_windows`. A shifted window outside its target's is not added (it would write
    past it) but counted: the count is returned, 0 when the windows hold every move."""
    lo, width, offset, pmf = src_windows
    new_lo, new_width, new_offset, new_pmf = dst_windows
    outside = 0
    for i in range(SRC.shape[0]):
        s = SRC[i]
        t = TARGET[i]
        shift = lo[s] + GAIN[i] - new_lo[t]
        if shift < 0 or shift + width[s] > new_width[t]:
            outside += 1
            continue
        q = PROB[i]
        dst = unsigned(new_offset[t] + shift)  # unsigned: see jit.unsigned
        src = unsigned(offset[s])
        for x in range(unsigned(width[s])):
            new_pmf[dst + x] += q * pmf[src + x]
    return outside


@kernel
def trim_windows(lo, width, offset, pmf):
    """The windows that hold some probability, each cut to its first .. last nonzero entry:
    (their places among the given ones, lo, width, offset, pmf). A cut changes no sum: the
    entries left out are zeros."""
    n = lo.shape[0]
    first = np.zeros(n, dtype=np.int64)
    kept = np.zeros(n, dtype=np.int64)
    n_kept = 0
    total = 0
    for s in range(n):
        a = offset[s]
        i = 0
        while i < width[s] and pmf[a + i] == 0.0:
            i += 1
        j = width[s]
        while j > i and pmf[a + j - 1] == 0.0:
            j -= 1
        first[s] = i
        kept[s] = j - i
        if j > i:
            n_kept += 1
            total += j - i
    places = np.empty(n_kept, dtype=np.int64)
    new_lo = np.empty(n_kept, dtype=np.int64)
    new_width = np.empty(n_kept, dtype=np.int64)
    new_offset = np.empty(n_kept, dtype=np.int64)
    new_pmf = np.empty(total)
    at = 0
    put = 0
    for s in range(n):
        if kept[s] == 0:
            continue
        places[at] = s
        new_lo[at] = lo[s] + first[s]
        new_width[at] = kept[s]
        new_offset[at] = put
        for x in range(kept[s]):
            new_pmf[put + x] = pmf[offset[s] + first[s] + x]
        put += kept[s]
        at += 1
    return places, new_lo, new_width, new_offset, new_pmf


@kernel
def distinct_slots(values, low, n_range):
    """The sorted distinct values (all in low .. low + n_range - 1) and each value's place
    among them (int32: a layer's moves are many), by marking rather than sorting."""
    seen = np.zeros(n_range, dtype=np.bool_)
    for i in range(values.shape[0]):
        seen[values[i] - low] = True
    rank = np.empty(n_range, dtype=np.int64)
    found = 0
    for v in range(n_range):
        rank[v] = found
        found += seen[v]
    uniq = np.empty(found, dtype=np.int64)
    for v in range(n_range):
        if seen[v]:
            uniq[rank[v]] = low + v
    slot = np.empty(values.shape[0], dtype=np.int32)
    for i in range(values.shape[0]):
        slot[i] = rank[values[i] - low]
    return uniq, slot


@kernel(nogil=True)
def convolve_windows(ptr, order, E, src_windows, dst_windows, part):
    """new_pmf of target t = sum over its entries i of PROB[i] x (pmf of source SRC[i] shifted
    by GAIN[i]), E = (SRC, GAIN, PROB) the entries; windows: a source's lo/width/offset into
    pmf, src_windows = (lo, width, offset, pmf), a target's new_lo/new_offset, dst_windows =
    (new_lo, new_offset, new_pmf). Parallel over targets: every thread writes only its own
    targets' windows."""
    SRC, GAIN, PROB = E
    lo, width, offset, pmf = src_windows
    new_lo, new_offset, new_pmf = dst_windows
    first, step = part
    for t in range(first, ptr.shape[0] - 1, step):
        base = new_offset[t] - new_lo[t]
        for e in range(ptr[t], ptr[t + 1]):
            i = order[e]
            s = SRC[i]
            q = PROB[i]
            dst = unsigned(base + lo[s] + GAIN[i])  # unsigned: see jit.unsigned
            src = unsigned(offset[s])
            for x in range(unsigned(width[s])):
                new_pmf[dst + x] += q * pmf[src + x]
