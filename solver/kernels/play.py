"""Following a strategy, for numba: simulated games and the exact forward pass.

A strategy is a value table shaped like the solver's store (optimal play uses the solved
values, greedy play zeros). Within a turn the player maximises "points this turn + table value
of the next state", exactly as the DP does, so a strategy's decisions are:

    CHOICE[i, L - 1, r]  the keep to hold from roll r with L re-rolls left, in state i
                         (from `solver.kernels.sweep.sweep` with a CHOICE table)
    choose_box(...)      the box for a final roll

Tie-break (shared with `solver.advice`): among equally good keeps, the one with more dice and
then the lower keep index; among equally good boxes, the first in card order.

Dice for simulations are drawn beforehand from a seeded generator and passed in, so a game
replays identically whatever the number of threads.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel, prange
from .turn import NEG, box_verdict, end_turn, may_fill, store_index

# Columns of Tally.EVENTS and of the forward pass's event totals.
EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, EVENT_JOKER = 0, 1, 2
N_EVENTS = 3


# Inlined: called once per roll and state, and a call would copy the whole table bundle K
# (a struct of array descriptors, about 1 KB) every time: that made the forward pass 12x slower.
@kernel(inline="always")
def choose_box(K, L, VAL, mask, flag, u, r):
    """The strategy's box for final roll r in state (mask, flag, u): the first best in card
    order. Returns (box, use_joker, extra) for `end_turn`."""
    only_box, lower_only, use_joker, extra = box_verdict(K, mask, r)
    best_val = NEG
    best = -1
    for c in range(K.SCORE.shape[1]):
        if not may_fill(K, mask, c, only_box, lower_only):
            continue
        _p, gained, nm, nf, nu_, _m, _w, _j = end_turn(K, mask, flag, u, r, c, use_joker, extra,
                                                       False)
        val = gained + VAL[store_index(L, nm, nf, nu_)]
        if val > best_val:
            best_val = val
            best = c
    return best, use_joker, extra


@kernel(inline="always")
def _roll_of(counts, n_dice, KEY_SORTED, KEY_INDEX):
    """Keep (or roll) index of a face-count vector: binary search of its mixed-radix key."""
    key = 0
    for v in range(counts.shape[0]):
        key = key * (n_dice + 1) + counts[v]
    return KEY_INDEX[np.searchsorted(KEY_SORTED, key)]


@kernel(parallel=True)
def play_turn(K, L, VAL, G, games, state_of_game, S, CHOICE, DRAWS):
    """Play one turn of every game in `games` in place (G: the games' Tally).

    DRAWS[g, s, d] is the face (0-based) of die slot d at throw s of this turn for game g: the
    first throw uses n slots, a re-roll of m dice the first m. S lists the distinct states and
    state_of_game[g] is game g's row in S and CHOICE.
    """
    n_faces = K.KEEP_COUNTS.shape[1]
    n_dice = K.n_dice
    n_keep = K.KEEP_COUNTS.shape[0]
    # Arrays written inside a prange loop are taken out of the bundle first: numba (0.68)
    # loses stores made through a named tuple's field inside a parallel loop.
    MASK, FLAG, UPPER, SCORE, BOX_SCORE, EVENTS = G
    for gi in prange(games.shape[0]):
        g = games[gi]
        st = state_of_game[g]
        counts = np.zeros(n_faces, dtype=np.int64)
        for d in range(n_dice):
            counts[DRAWS[g, 0, d]] += 1
        served = -1  # the box when the first roll is kept to claim its first-roll bonus
        for left in range(K.rolls - 1, 0, -1):
            k = CHOICE[st, left - 1, _roll_of(counts, n_dice, K.KEY_SORTED, K.KEY_INDEX)]
            if k >= n_keep:
                served = k - n_keep
                break
            n_kept = 0
            for v in range(n_faces):
                counts[v] = K.KEEP_COUNTS[k, v]
                n_kept += counts[v]
            for d in range(n_dice - n_kept):
                counts[DRAWS[g, K.rolls - left, d]] += 1
        r = _roll_of(counts, n_dice, K.KEY_SORTED, K.KEY_INDEX)
        m, f, u = S.MASK[st], S.FLAG[st], S.UPPER[st]
        if served >= 0:
            c = served
            _o, _l, use_joker, extra = box_verdict(K, m, r)
        else:
            c, use_joker, extra = choose_box(K, L, VAL, m, f, u, r)
        pts, gained, nm, nf, _nu, made, won, joker = end_turn(K, m, f, u, r, c, use_joker,
                                                              extra, served >= 0)
        BOX_SCORE[g, c] = pts
        EVENTS[g, EVENT_UPPER_BONUS] += made
        EVENTS[g, EVENT_YAHTZEE_BONUS] += won
        EVENTS[g, EVENT_JOKER] += joker
        if K.COUNTS_UPPER[c]:
            UPPER[g] += pts
        FLAG[g] = nf
        MASK[g] = nm
        SCORE[g] += gained


@kernel(inline="always")
def final_roll_distribution(K, CHOICE, st, P, Q):
    """P[r]: probability that a turn played by CHOICE[st] ends on final roll r, and
    Q[n_keep + r] that it stops at first roll r to claim a first-roll bonus (Q: n_keep +
    n_roll entries, the first n_keep scratch)."""
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    for r in range(n_roll):
        P[r] = K.ROLL_PROB[r]
        Q[n_keep + r] = 0.0
    for left in range(K.rolls - 1, 0, -1):
        for k in range(n_keep):
            Q[k] = 0.0
        for r in range(n_roll):
            if P[r] > 0.0:
                k = CHOICE[st, left - 1, r]
                Q[n_keep + r if k >= n_keep else k] += P[r]
        for r in range(n_roll):
            P[r] = 0.0
        for k in range(n_keep):
            q = Q[k]
            if q > 0.0:
                for e in range(K.KEEP_OUT_INDPTR[k], K.KEEP_OUT_INDPTR[k + 1]):
                    P[K.KEEP_OUT_ROLL[e]] += q * K.KEEP_OUT_PROB[e]


@kernel(parallel=True)
def policy_forward(K, L, VAL, S, PI_S, CHOICE, F, n_threads):
    """Push the probability PI_S[i] of each state S[i] of a layer through one turn, into F
    (a `Flow` bundle).

    Per thread t: F.PI_NEXT[t, index - F.next_base] collects next-layer state probabilities,
    F.BOX_STATS[t, 0, c] the expected score of box c and F.BOX_STATS[t, 1, c] the probability
    it holds 0, F.EVENTS[t, e] the expected count of each EVENT_*. Summed by the caller, so no
    two threads write one cell.
    """
    # Taken out of the bundle before the parallel loop, which writes them (see play_turn).
    PI_NEXT, BOX_STATS, EVENTS, next_base = F
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_OUT_INDPTR.shape[0] - 1
    n_state = S.MASK.shape[0]
    for t in prange(n_threads):
        P = np.empty(n_roll)
        Q = np.empty(n_keep + n_roll)
        for i in range(t, n_state, n_threads):
            w = PI_S[i]
            if w == 0.0:
                continue
            m, f, u = S.MASK[i], S.FLAG[i], S.UPPER[i]
            final_roll_distribution(K, CHOICE, i, P, Q)
            for e in range(2 * n_roll):
                first = e >= n_roll  # stopped at the first roll for a first-roll bonus
                r = e - n_roll if first else e
                p = Q[n_keep + r] if first else P[r]
                if p == 0.0:
                    continue
                if first:
                    c = CHOICE[i, K.rolls - 2, r] - n_keep
                    _o, _l, use_joker, extra = box_verdict(K, m, r)
                else:
                    c, use_joker, extra = choose_box(K, L, VAL, m, f, u, r)
                pts, _g, nm, nf, nu_, made, won, joker = end_turn(K, m, f, u, r, c, use_joker,
                                                                  extra, first)
                wp = w * p
                PI_NEXT[t, store_index(L, nm, nf, nu_) - next_base] += wp
                BOX_STATS[t, 0, c] += wp * pts
                if pts == 0:
                    BOX_STATS[t, 1, c] += wp
                if made:
                    EVENTS[t, EVENT_UPPER_BONUS] += wp
                if won:
                    EVENTS[t, EVENT_YAHTZEE_BONUS] += wp
                if joker:
                    EVENTS[t, EVENT_JOKER] += wp


# ---------------------------------------------------------------- score distributions


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
def window_bounds(slot, first, last, n):
    """The smallest `first` and largest `last` of the entries of each slot."""
    lo = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros(n, dtype=np.int64)
    for i in range(slot.shape[0]):
        s = slot[i]
        lo[s] = min(lo[s], first[i])
        hi[s] = max(hi[s], last[i])
    return lo, hi


@kernel(parallel=True)
def convolve_windows(ptr, order, E, src_windows, dst_windows):
    """new_pmf of target t = sum over its entries i of PROB[i] x (pmf of source SRC[i] shifted
    by GAIN[i]), E = (SRC, GAIN, PROB) the entries; windows: a source's lo/width/offset into
    pmf, src_windows = (lo, width, offset, pmf), a target's new_lo/new_offset, dst_windows =
    (new_lo, new_offset, new_pmf). Parallel over targets: every thread writes only its own
    targets' windows."""
    SRC, GAIN, PROB = E
    lo, width, offset, pmf = src_windows
    new_lo, new_offset, new_pmf = dst_windows
    for t in prange(ptr.shape[0] - 1):
        base = new_offset[t] - new_lo[t]
        for e in range(ptr[t], ptr[t + 1]):
            i = order[e]
            s = SRC[i]
            q = PROB[i]
            dst = base + lo[s] + GAIN[i]
            src = offset[s]
            for x in range(width[s]):
                new_pmf[dst + x] += q * pmf[src + x]
