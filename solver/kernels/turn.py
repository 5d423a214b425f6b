"""One turn, for numba: the box transition, the values of final rolls, and the reroll sweeps.

Everything here works on one "batch": a scratch table KV[keep, column] whose columns are
turn-start states (runs of consecutive upper totals of one box set, side by side). The
transition of the game (what scoring roll r in box c gives and where it leads) is
`end_turn`, written once; `relax` is its form for a whole run of upper totals at once (the
only place it is unrolled, so the loops read contiguous memory and vectorise).

The batch's tables travel as a `Work` bundle W (KV, and when carried BOX, A1, A2), what the
moves read of the next states as a `Next` bundle V (VAL, and when carried M1, M2), and a run
of columns as a plain tuple `run` = (mask, flag, u0, nu, off). Optional tables select what a
sweep carries along ("payloads"): numba compiles one version per combination of arrays and
`None`s, and `solver.kernels.optional` drops the code of the absent ones, so the plain DP pays
nothing for the moments or the keep choices it does not need.

    W.BOX[r, col]     the box chosen for final roll r (first best in card order)
    W.A1, W.A2[k, col]  first and second moments of the points to come, following the choices
    ARG[k, col]       the keep chosen inside keep k (the best sub-keep)

Kernels that read bundles in their inner loops are compiled without reference counting
(`_nrt=False`): every field read of a bundle would otherwise count a reference (that made the
DP with the SD 3.5x slower). They must never allocate (numba refuses to compile that) nor
keep or return a slice of an array they are given. The kernels never validate and never
raise: the Python wrappers in `solver` pass only tables compiled from a validated rule set.
"""

from __future__ import annotations

import numpy as np

from .jit import better, kernel, unsigned
from .optional import copy_row, fill_row, prefers, put_if, read

NEG = -1.0e300  # below any value: "no move found yet"
JOKER_NONE, JOKER_FREE, JOKER_FORCED = 0, 1, 2  # yz.rules.tables.JOKER_MODES
# Bits of an outcome's FLAGS and columns of a game's EVENTS: what a move won.
EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, EVENT_JOKER = 0, 1, 2
N_EVENTS = 3
ZERO = np.int64(0)  # a zero of the type every score has (a literal 0 would make numba
# compile a second version of each function it is passed to)
NO = np.bool_(False)  # the same for False


# ---------------------------------------------------------------- the transition


@kernel(inline="always")
def is_open(K, mask, c):
    """Whether a turn may fill box c in box set `mask`: it is open, and with the boxes filled
    in card order, it is the first open one."""
    below = (1 << c) - 1
    return ((mask >> c) & 1) == 0 and (K.in_order == 0 or (mask & below) == below)


@kernel(inline="always")
def box_verdict(K, mask, r):
    """Which boxes roll r may fill in box set `mask`, and whether the Joker scores apply.

    Returns (only_box, lower_only, use_joker, extra): only_box >= 0 means the forced Joker
    allows just that box; lower_only restricts to lower boxes; extra means the roll is a
    Yahtzee with the Yahtzee box already filled (the Joker and the bonus look at it). The
    forced Joker chooses among the boxes this turn may fill (`is_open`), so on a card filled
    in order it never leaves a turn without a box; the Joker's full values need the upper box
    of the face filled (or absent) in both modes.
    """
    yf = K.YAHTZEE_FACE[r]
    extra = yf >= 0 and K.yahtzee_box >= 0 and ((mask >> K.yahtzee_box) & 1) == 1
    only_box = -1
    lower_only = False
    use_joker = False
    if extra and K.joker_mode != JOKER_NONE:
        ub = K.UPPER_BOX_OF_FACE[yf]
        ub_filled = ub < 0 or ((mask >> ub) & 1) == 1
        if K.joker_mode == JOKER_FREE:
            use_joker = ub_filled
        elif not ub_filled and is_open(K, mask, ub):
            only_box = ub
        else:
            for c in range(K.SCORE.shape[1]):
                if K.IS_LOWER[c] == 1 and is_open(K, mask, c):
                    lower_only = True
                    break
            use_joker = lower_only and ub_filled
    return only_box, lower_only, use_joker, extra


@kernel(inline="always")
def may_fill(K, mask, c, only_box, lower_only):
    """Whether box c may be filled in `mask` under `box_verdict`'s verdict."""
    return (is_open(K, mask, c) and (only_box < 0 or c == only_box)
            and (not lower_only or K.IS_LOWER[c] == 1))


@kernel(inline="always")
def box_move(K, mask, flag, r, c, use_joker, extra, first):
    """The part of `end_turn` that does not depend on the upper total; `first`: the roll is
    the turn's first (a score above zero earns the box's first-roll bonus).

    Returns (points, points with the Yahtzee bonus, next mask, next flag, counts toward the
    upper bonus, Yahtzee bonus won).
    """
    pts = K.JOKER_SCORE[r, c] if use_joker else K.SCORE[r, c]
    if K.ONLY_AFTER[c] == 1 and flag == 0:  # waits for the flag box's non-zero score
        pts = 0
    if first and pts > 0:
        pts += K.FIRST_BONUS[c]
    won = extra and flag == 1 and K.yahtzee_bonus > 0
    imm = pts + (K.yahtzee_bonus if won else 0)
    next_flag = 1 if (c == K.flag_box and pts > 0) else flag
    return pts, imm, mask | (1 << c), next_flag, K.COUNTS_UPPER[c] == 1, won


@kernel(inline="always")
def upper_step(T, upper_bonus, u, pts, counted):
    """The upper total after scoring `pts` at total u (capped at the threshold T), and the
    upper bonus this completes."""
    if not counted:
        return u, 0
    bonus = upper_bonus if u < T <= u + pts else 0
    return min(T, u + pts), bonus


@kernel(inline="always")
def end_turn(K, mask, flag, u, r, c, use_joker, extra, first):
    """The transition: scoring roll r in box c from state (mask, flag, u); `first`: r is the
    turn's first roll, kept whole to claim a first-roll bonus.

    Returns (points in the box, points gained this turn with every bonus, next mask, next flag,
    next upper total, upper bonus made, Yahtzee bonus won, Joker used).
    """
    pts, imm, next_mask, next_flag, counted, won = box_move(K, mask, flag, r, c, use_joker,
                                                           extra, first)
    next_u, bonus = upper_step(K.threshold, K.upper_bonus, u, pts, counted)
    joker = use_joker and K.JOKER_SCORE[r, c] != K.SCORE[r, c]
    return pts, imm + bonus, next_mask, next_flag, next_u, bonus > 0, won, joker


@kernel(inline="always")
def bank_after(K, bank, left):
    """The saved rolls after filling a box with `left` re-rolls unused, in a turn begun with
    `bank` (0 without saved rolls): the unused rolls when they are saved (up to the cap),
    else the saved rolls not drawn on."""
    if K.bank_carry == 1:
        return left if K.bank_cap < 0 else min(K.bank_cap, left)
    return min(bank, left)


@kernel(inline="always")
def store_index(L, mask, flag, u):
    """Where the value of turn-start state (mask, flag, u) is stored (totals below U0 share
    the value at U0: the bonus is out of reach from all of them)."""
    return L.OFFSET[mask, flag] + max(u, L.U0[mask]) - L.U0[mask]


# ---------------------------------------------------------------- final rolls


@kernel(inline="always")
def _take(W, r, col, c, g, v, m1, m2):
    """Move (box c, points g, next value v) becomes the choice at (r, col) if it is better, or
    (with W.BOX, which records choices) as good and of a lower rank (`ties`: earlier on the
    card); its moments come along (W: a `Work` bundle)."""
    val = g + v
    cur = W.KV[r, col]
    take = prefers(W.BOX, r, col, val, cur, c)
    W.KV[r, col] = val if take else cur
    put_if(W.BOX, r, col, take, c)
    put_if(W.A1, r, col, take, g + m1)
    put_if(W.A2, r, col, take, g * g + 2.0 * g * m1 + m2)


@kernel(inline="always")
def _offer_one(W, r, cols, c, g, V, idx):
    """`_take`, in columns cols = (a, b) of row r, of a move gaining g points into the one
    state stored at idx of V (a `Next`)."""
    v = V.VAL[idx]
    m1 = read(V.M1, idx, v)
    m2 = read(V.M2, idx, 0.0)
    for col in range(unsigned(cols[0]), unsigned(cols[1])):
        _take(W, r, col, c, g, v, m1, m2)


@kernel(inline="always")
def _offer_each(W, r, cols, c, g, V, idx):
    """`_take`, in column a + j of row r (cols = (a, b)), of a move gaining g points into the
    state stored at idx + j of V (a `Next`): consecutive states, read contiguously."""
    a = unsigned(cols[0])
    src = unsigned(idx)
    for j in range(unsigned(cols[1] - cols[0])):
        v = V.VAL[src + j]
        _take(W, r, a + j, c, g, v, read(V.M1, src + j, v), read(V.M2, src + j, 0.0))


def _relax(W, V, r, run, c, move, dest, T, upper_bonus):
    """Offer one move to the columns of `run` = (mask, flag, u0, nu, off): off .. off + nu - 1,
    the upper totals u0 .. u0 + nu - 1. The move is roll r in box c, `move` = (points
    in the box, points with the Yahtzee bonus, counts toward the upper bonus); `dest` = (store
    index of the next state's first stored total, that total).

    This is `upper_step` over a run of totals: below `low` the next total is under the next
    state's first stored total (they share its value); up to `split` it is u + pts (or u), read
    contiguously; from `split` on the threshold is reached, and the bonus is paid where the
    total was under it (up to `mid`). Points are added before the table value, in the order
    `end_turn`'s users do (choose_box), so equal moves tie exactly. (It takes the threshold and
    the bonus rather than the table bundle K, which it would otherwise need for nothing else.)
    Columns are indexed unsigned, so these loops vectorise (see `solver.kernels.jit.unsigned`).
    """
    _mask, _flag, u0, nu, off = run
    pts, imm, counted = move
    next_row, next_u0 = dest
    if nu == 1:  # one column (games without an upper bonus): no run to split
        next_u, bonus = upper_step(T, upper_bonus, u0, pts, counted)
        _offer_one(W, r, (off, off + 1), c, float(imm + bonus), V,
                   next_row + max(next_u, next_u0) - next_u0)
        return
    shift = pts if counted else 0
    low = min(nu, max(0, next_u0 - shift - u0))
    split = min(nu, max(low, T - shift - u0)) if counted else nu
    mid = min(nu, max(split, T - u0))
    g = float(imm)
    if low > 0:
        _offer_one(W, r, (off, off + low), c, g, V, next_row)
    if split > low:
        _offer_each(W, r, (off + low, off + split), c, g, V,
                    next_row + u0 + shift - next_u0 + low)
    top = next_row + T - next_u0  # the next state at the threshold
    if mid > split:
        _offer_one(W, r, (off + split, off + mid), c, g + upper_bonus, V, top)
    if nu > mid:
        _offer_one(W, r, (off + mid, off + nu), c, g, V, top)


# Two compiled forms of `_relax`: inlined where a run meets most of its moves (the positive
# scores of ordinary rolls), and called elsewhere (the zero moves, extra Yahtzees, first-roll
# stops): each inlined copy costs the first solve of an installation seconds of compiling.
relax_inline = kernel(inline="always")(_relax)
relax = kernel(_nrt=False)(_relax)


@kernel(_nrt=False)
def final_rolls(K, L, V, W, run, gcol):
    """W.KV[r, off + j]: the value of ending the turn with roll r at upper total u0 + j, for
    `run` = (mask, flag, u0, nu, off) (best box; with W.BOX, which box, and with W.A1/A2 the
    moments of what follows, read from V, a `Next` bundle). The next state's bank of saved
    rolls is b when `gcol` = b * n_flags (its layout column is the flag + gcol).

    Scores are never negative, and neither a value plus the upper bonus once made, nor a value
    with the bonus flag raised, is ever lower (more upper total or a filled Yahtzee box never
    hurts), so scoring p > 0 in a box is never worse than scoring 0 there. An ordinary roll's
    value is therefore the best "zero" move over all open boxes (row n_roll of KV), or one of
    its few positive-score moves (listed per box in POS_INDPTR/POS_ROLL). Extra Yahtzees,
    whose boxes and scores depend on the Joker and the bonus, are done box by box afterwards.
    """
    mask, flag, _u0, nu, off = run
    n_roll, n_cat = K.SCORE.shape
    T = K.threshold
    ub = K.upper_bonus
    z = n_roll
    ybox_filled = K.yahtzee_box >= 0 and ((mask >> K.yahtzee_box) & 1) == 1
    fill_row(W.KV, z, off, nu, NEG)
    fill_row(W.BOX, z, off, nu, n_cat)
    for c in range(n_cat):
        if not is_open(K, mask, c):
            continue
        nm = mask | (1 << c)
        relax(W, V, z, run, c, (ZERO, ZERO, NO), (L.OFFSET[nm, flag + gcol], L.U0[nm]), T, ub)
    for r in range(n_roll):
        if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
            continue
        copy_row(W.KV, r, z, off, nu)
        copy_row(W.BOX, r, z, off, nu)
        copy_row(W.A1, r, z, off, nu)
        copy_row(W.A2, r, z, off, nu)
    for c in range(n_cat):
        start = K.POS_INDPTR[c]
        if not is_open(K, mask, c) or start == K.POS_INDPTR[c + 1]:
            continue
        if K.ONLY_AFTER[c] == 1 and flag == 0:  # scores nothing yet: the zero move covers it
            continue
        # For an ordinary roll scoring > 0, the move depends on the roll only through its
        # points: the next state is the same for all of them.
        _p, _i, nm, nf, counted, _won = box_move(K, mask, flag, K.POS_ROLL[start], c, False,
                                                 False, False)
        dest = (L.OFFSET[nm, nf + gcol], L.U0[nm])
        for i in range(start, K.POS_INDPTR[c + 1]):
            r = K.POS_ROLL[i]
            if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
                continue
            pts = K.SCORE[r, c]
            relax_inline(W, V, r, run, c, (pts, pts, counted), dest, T, ub)
    if not ybox_filled:
        return
    for r in range(n_roll):
        if K.YAHTZEE_FACE[r] < 0:
            continue
        only_box, lower_only, use_joker, extra = box_verdict(K, mask, r)
        fill_row(W.KV, r, off, nu, NEG)
        fill_row(W.BOX, r, off, nu, n_cat)
        for c in range(n_cat):
            if not may_fill(K, mask, c, only_box, lower_only):
                continue
            pts, imm, nm, nf, counted, _won = box_move(K, mask, flag, r, c, use_joker, extra,
                                                       False)
            relax(W, V, r, run, c, (pts, imm, counted), (L.OFFSET[nm, nf + gcol], L.U0[nm]), T,
                  ub)


@kernel(_nrt=False)
def first_roll_moves(K, L, N, V, W, run, n0, gcol):
    """Offer, to the first-roll values W.KV[r, off + j], stopping at once to fill a box that
    pays a first-roll bonus; `run` = (mask, flag, u0, nu, off). Without N (a `Needs` bundle)
    the columns are upper totals u0 + j and KV holds values: with W.BOX, a column whose best
    move this is records the box (else n_cat), A1/A2 follow as in `final_rolls`, and on a tie
    with a keep, stopping wins. With N (target play) the columns are points needed n0 + j at
    upper total u0, and KV holds chances of reaching them (V.VAL: the next layer's).
    """
    mask, flag, u0, nu, off = run
    n_roll, n_cat = K.SCORE.shape
    for r in range(n_roll):
        fill_row(W.BOX, r, off, nu, n_cat)
    for r in range(n_roll):
        only_box, lower_only, use_joker, extra = box_verdict(K, mask, r)
        for c in range(n_cat):
            if K.FIRST_BONUS[c] == 0 or not may_fill(K, mask, c, only_box, lower_only):
                continue
            pts, imm, nm, nf, counted, _won = box_move(K, mask, flag, r, c, use_joker, extra,
                                                       True)
            if pts == 0:
                continue
            if N is None:
                relax(W, V, r, run, c, (pts, imm, counted),
                      (L.OFFSET[nm, nf + gcol], L.U0[nm]), K.threshold, K.upper_bonus)
            else:
                next_u, bonus = upper_step(K.threshold, K.upper_bonus, u0, pts, counted)
                relax_need(W.KV, r, off, n0, nu, imm + bonus, V.VAL,
                           (store_index(L, nm, nf + gcol, next_u) - N.next_base) * N.n_need)


@kernel(inline="always")
def relax_need(KV, r, off, n0, nn, g, VAL, next_row):
    """Offer a move gaining g points to the columns off .. off + nn - 1, the needs n0 .. : the
    chance of reaching the target is certain once the need is met, else the next state's at
    need - g (read contiguously)."""
    met = min(nn, max(0, g - n0 + 1))  # needs n0 + j <= g
    for col in range(unsigned(off), unsigned(off + met)):  # unsigned: see jit.unsigned
        KV[r, col] = 1.0
    a = unsigned(off + met)
    src = unsigned(next_row + n0 - g + met)
    for j in range(unsigned(nn - met)):
        v = VAL[src + j]
        if v > KV[r, a + j]:
            KV[r, a + j] = v


@kernel(_nrt=False)
def final_rolls_target(K, L, N, VAL, run, n0, KV, gcol):
    """KV[r, off + j]: the best chance of reaching the target with final roll r at upper total
    u, needing n0 + j more points, for `run` = (mask, flag, u, nn, off); VAL holds the next
    layer (N.n_need values per state), whose bank of saved rolls is b when `gcol` = b * n_flags
    (as in `final_rolls`).

    The same best-zero-move shortcut as `final_rolls` holds: the chance never falls with more
    upper total, a raised flag or fewer points needed.
    """
    mask, flag, u, nn, off = run
    n_roll, n_cat = K.SCORE.shape
    z = n_roll
    ybox_filled = K.yahtzee_box >= 0 and ((mask >> K.yahtzee_box) & 1) == 1
    for j in range(nn):
        KV[z, off + j] = 0.0
    for c in range(n_cat):
        if not is_open(K, mask, c):
            continue
        nm = mask | (1 << c)
        relax_need(KV, z, off, n0, nn, ZERO,
                   VAL, (store_index(L, nm, flag + gcol, u) - N.next_base) * N.n_need)
    for r in range(n_roll):
        if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
            continue
        for j in range(nn):
            KV[r, off + j] = KV[z, off + j]
    for c in range(n_cat):
        start = K.POS_INDPTR[c]
        if not is_open(K, mask, c) or start == K.POS_INDPTR[c + 1]:
            continue
        if K.ONLY_AFTER[c] == 1 and flag == 0:
            continue
        for i in range(start, K.POS_INDPTR[c + 1]):
            r = K.POS_ROLL[i]
            if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
                continue
            _p, gained, nm, nf, nu_, _m, _w, _j = end_turn(K, mask, flag, u, r, c, False, False,
                                                           False)
            relax_need(KV, r, off, n0, nn, gained, VAL,
                       (store_index(L, nm, nf + gcol, nu_) - N.next_base) * N.n_need)
    if not ybox_filled:
        return
    for r in range(n_roll):
        if K.YAHTZEE_FACE[r] < 0:
            continue
        only_box, lower_only, use_joker, extra = box_verdict(K, mask, r)
        for j in range(nn):
            KV[r, off + j] = 0.0
        for c in range(n_cat):
            if not may_fill(K, mask, c, only_box, lower_only):
                continue
            _p, gained, nm, nf, nu_, _m, _w, _j = end_turn(K, mask, flag, u, r, c, use_joker,
                                                           extra, False)
            relax_need(KV, r, off, n0, nn, gained, VAL,
                       (store_index(L, nm, nf + gcol, nu_) - N.next_base) * N.n_need)


# ---------------------------------------------------------------- rerolls


@kernel(inline="always")
def _average_row(T, k, KEEP_CHILD, nu, n_faces, inv):
    """T[k] = the mean of T over keep k's children (one more die of each face)."""
    c0 = KEEP_CHILD[k, 0]
    c1 = KEEP_CHILD[k, 1]  # every die has at least two faces
    if n_faces == 6:  # the usual die in one pass: the same sums, in the same order, as below
        c2, c3, c4, c5 = KEEP_CHILD[k, 2], KEEP_CHILD[k, 3], KEEP_CHILD[k, 4], KEEP_CHILD[k, 5]
        for j in range(nu):
            T[k, j] = ((T[c0, j] + T[c1, j]) + (T[c2, j] + T[c3, j]) + T[c4, j] + T[c5, j]) * inv
        return
    for j in range(nu):
        T[k, j] = T[c0, j] + T[c1, j]
    v = 2
    while n_faces - v > 2:
        ca = KEEP_CHILD[k, v]
        cb = KEEP_CHILD[k, v + 1]
        for j in range(nu):
            T[k, j] += T[ca, j] + T[cb, j]
        v += 2
    if v + 2 == n_faces:
        ca = KEEP_CHILD[k, v]
        cb = KEEP_CHILD[k, v + 1]
        for j in range(nu):
            T[k, j] = (T[k, j] + T[ca, j] + T[cb, j]) * inv
    elif v + 1 == n_faces:
        ca = KEEP_CHILD[k, v]
        for j in range(nu):
            T[k, j] = (T[k, j] + T[ca, j]) * inv
    else:
        for j in range(nu):
            T[k, j] *= inv


@kernel
def keep_average(KV, A1, A2, nu, n_roll, n_faces, KEEP_CHILD):
    """KV[k] for every keep smaller than a roll: the mean over one more die (its children);
    the same for the moments A1 and A2 when carried, keep by keep, so the three share the
    child indices and the rows stay in cache.

    KV[:n_roll] holds roll values. Children are read two at a time and the division is folded
    into the last pass, so a row is swept about half as often (loop and store overhead, not
    arithmetic, bounds these short vector loops).
    """
    n_keep = KV.shape[0]
    inv = 1.0 / n_faces
    for k in range(n_roll, n_keep):
        _average_row(KV, k, KEEP_CHILD, nu, n_faces, inv)
        if A1 is not None:
            _average_row(A1, k, KEEP_CHILD, nu, n_faces, inv)
        if A2 is not None:
            _average_row(A2, k, KEEP_CHILD, nu, n_faces, inv)


@kernel
def best_subkeep(KV, nu, SUB_INDPTR, SUB_INDICES):
    """KV[k] = best of keep k and every keep inside it (one die removed at a time), in place.

    For a roll this is the value of the best keep before the next throw.
    """
    n_keep = KV.shape[0]
    for k in range(n_keep - 1, -1, -1):
        s = SUB_INDPTR[k]
        end = SUB_INDPTR[k + 1]
        while s + 1 < end:
            sa = SUB_INDICES[s]
            sb = SUB_INDICES[s + 1]
            for j in range(nu):
                KV[k, j] = max(KV[k, j], max(KV[sa, j], KV[sb, j]))
            s += 2
        if s < end:
            sa = SUB_INDICES[s]
            for j in range(nu):
                KV[k, j] = max(KV[k, j], KV[sa, j])


@kernel
def best_subkeep_arg(KV, ARG, nu, SUB_INDPTR, SUB_INDICES):
    """Like `best_subkeep`, also recording the best keep: ARG[k, j] is the lowest keep index
    among the keeps inside k (k included) of highest value. A keep's index is lower than its
    sub-keeps', so on a tie the larger keep wins. (Selects, not branches: it vectorises.)
    """
    n_keep = KV.shape[0]
    for k in range(n_keep - 1, -1, -1):
        for j in range(nu):
            ARG[k, j] = k
        for s in range(SUB_INDPTR[k], SUB_INDPTR[k + 1]):
            sub = SUB_INDICES[s]
            for j in range(nu):
                a = KV[sub, j]
                b = KV[k, j]
                ia = ARG[sub, j]
                ib = ARG[k, j]
                take = better(a, ia, b, ib)  # ranks: the keeps' indices (see ties)
                KV[k, j] = a if take else b
                ARG[k, j] = ia if take else ib


@kernel
def follow_choice(A, ARG, n_roll, nu):
    """A[r] = A[ARG[r]] for every roll: what the keep the strategy holds carries. ARG[r] is
    r itself or a keep with a higher index, so going up through r reads only unchanged rows."""
    if A is None:
        return
    for r in range(n_roll):
        for j in range(nu):
            A[r, j] = A[ARG[r, j], j]


# ---------------------------------------------------------------- where a turn leads


@kernel(_nrt=False)
def follow_dice(K, CH, P, cols):
    """P[j, r]: the chance that a turn from column j's state, choosing CH[L - 1, r, j] with L
    re-rolls left, ends on final roll r; P[j, n_keep + r] that it stops at first roll r to
    claim a first-roll bonus (CH >= n_keep: n_keep + the box). P has a row of n_keep + n_roll
    per column, so one column's walk stays in a few cache lines.

    The dice are followed forward: the first throw's odds, then at each re-roll the mass of a
    roll moves to the keep chosen from it, and each keep's mass to the rolls its free dice can
    make, with their (correctly rounded) multinomial odds.
    """
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    for j in range(cols):
        Pj = P[j]
        if j > 0 and _same_keeps(CH, j, K.rolls - 1, n_roll):
            for e in range(n_keep + n_roll):  # neighbouring totals often keep alike
                Pj[e] = P[j - 1, e]
            continue
        for r in range(n_roll):
            Pj[r] = K.ROLL_PROB[r]
            Pj[n_keep + r] = 0.0
        for left in range(K.rolls - 1, 0, -1):
            for k in range(n_roll, n_keep):
                Pj[k] = 0.0
            for r in range(n_roll):
                k = CH[left - 1, r, j]
                if k >= n_keep:
                    Pj[n_keep + r] = Pj[r]
                    Pj[r] = 0.0
                elif k != r:
                    Pj[k] += Pj[r]
                    Pj[r] = 0.0
            for k in range(n_roll, n_keep):
                q = Pj[k]
                if q > 0.0:
                    for e in range(K.KEEP_OUT_INDPTR[k], K.KEEP_OUT_INDPTR[k + 1]):
                        Pj[K.KEEP_OUT_ROLL[e]] += q * K.KEEP_OUT_PROB[e]


@kernel(_nrt=False)
def _same_keeps(CH, j, stages, n_roll):
    """Whether column j chooses every keep as column j - 1 does."""
    for left in range(stages):
        for r in range(n_roll):
            if CH[left, r, j] != CH[left, r, j - 1]:
                return False
    return True


@kernel(inline="always")
def add_move(K, S, count, r, c, first, ybox_filled, shift, p):
    """Add probability p to the move that scores roll r in box c (`first`: the turn's first
    roll) in S = (acc, touched, rep_roll, rep_box): moves are known by the box and its normal
    score (K.SCORE_KEY), or, for a Yahtzee rolled with the Yahtzee box filled, by its face and
    box; `shift` sets apart the moves that leave another bank. Returns the moves touched."""
    acc, touched, rep_roll, rep_box = S
    n_keys = K.KEY_ROLL.shape[0]
    if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
        key = 2 * n_keys + ((K.YAHTZEE_FACE[r] * K.SCORE.shape[1] + c) * 2
                            + (1 if first else 0))
    else:
        key = K.SCORE_KEY[r, c] + (n_keys if first else 0)
    key += shift
    if acc[key] == 0.0:
        touched[count] = key
        count += 1
        rep_roll[key] = r
        rep_box[key] = c
    acc[key] += p
    return count


@kernel(inline="always")
def put_move(K, L, OUT, at, state, r, c, first, gcol, p):
    """Move `at` = (row, e) of OUT (an `Outcomes` bundle): scoring roll r in box c (`first`:
    the turn's first roll, for a first-roll bonus) from `state` = (mask, flag, u), with
    probability p, into the next layer's bank column `gcol` (bank * n_flags; 0 without saved
    rolls): where it leads, what it gains and wins."""
    row, e = at
    mask, flag, u = state
    _o, _l, use_joker, extra = box_verdict(K, mask, r)
    pts, gained, nm, nf, nu_, made, won, joker = end_turn(K, mask, flag, u, r, c, use_joker,
                                                          extra, first)
    OUT.TARGET[row, e] = L.OFFSET[nm, nf + gcol] + max(nu_, L.U0[nm]) - L.U0[nm]
    OUT.GAIN[row, e] = gained
    OUT.BOX[row, e] = c
    OUT.POINTS[row, e] = pts
    OUT.FLAGS[row, e] = (np.int64(made) << EVENT_UPPER_BONUS
                         | np.int64(won) << EVENT_YAHTZEE_BONUS
                         | np.int64(joker) << EVENT_JOKER)
    OUT.PROB[row, e] = p


@kernel(_nrt=False)
def turn_outcomes(K, L, R, rows, CH, BOX, P, OUT, S):
    """For every column of a batch: the distinct moves a turn ends with under the choices made
    (CH[L - 1, r, col]: the keep from roll r with L re-rolls left; BOX[r, col]: the box for
    final roll r), with where they lead, what they win and their probabilities, into OUT (an
    `Outcomes` bundle). The batch is `rows` = (b0, b1): rows b0 .. b1 - 1 of R; P (a row of
    n_keep + n_roll per column, see `follow_dice`) and S = (acc, touched, rep_roll, rep_box)
    are scratch.

    A move is known by its box and the box's normal score (K.SCORE_KEY) and whether it was a
    first roll kept whole: every roll with the same key scores the same and leads to the same
    state, so `end_turn` runs once per key, not once per roll. Only a Yahtzee rolled with the
    Yahtzee box filled (the Joker and the bonus look at it) is a key of its own.
    """
    b0, b1 = rows
    acc, touched, rep_roll, rep_box = S
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    n_keys = K.KEY_ROLL.shape[0]
    cols = ZERO
    for i in range(b0, b1):
        cols += R.NU[i]
    follow_dice(K, CH, P, cols)
    off = ZERO
    for i in range(b0, b1):
        mask, flag = R.MASK[i], R.FLAG[i]
        ybox_filled = K.yahtzee_box >= 0 and ((mask >> K.yahtzee_box) & 1) == 1
        for j in range(R.NU[i]):
            col = off + j
            count = 0
            for e in range(2 * n_roll if K.first_roll_bonus == 1 else n_roll):
                first = e >= n_roll
                r = e - n_roll if first else e
                p = P[col, n_keep + r] if first else P[col, r]
                if p == 0.0:
                    continue
                c = CH[K.rolls - 2, r, col] - n_keep if first else BOX[r, col]
                count = add_move(K, S, count, r, c, first, ybox_filled, ZERO, p)
            row = R.OUT[i] + j
            u = R.U0[i] + j
            for e in range(count):
                key = touched[e]
                r, c = rep_roll[key], rep_box[key]
                first = n_keys <= key < 2 * n_keys or (key >= 2 * n_keys and key % 2 == 1)
                put_move(K, L, OUT, (row, e), (mask, flag, u), r, c, first, ZERO, acc[key])
                acc[key] = 0.0
            OUT.COUNT[row] = count
        off += R.NU[i]
