"""The values of a turn's final rolls, for numba: every box a roll may fill, the best one.

Everything here works on one "batch": a scratch table KV[keep, column] whose columns are
turn-start states (runs of consecutive upper totals of one box set, side by side). What
scoring roll r in box c gives and where it leads is the rule of `rule` (`end_turn`, written
once); `relax` is its form for a whole run of upper totals at once (the only place it is
unrolled, so the loops read contiguous memory and vectorise), and `relax_need` its form for
target play, whose columns are the points still needed.

The batch's tables travel as a `Work` bundle W (KV, and when carried BOX, A1, A2), what the
moves read of the next states as a `Next` bundle V (VAL, and when carried M1, M2), and a run
of columns as a plain tuple `run` = (mask, flag, u0, nu, off). Optional tables select what a
sweep carries along ("payloads"): numba compiles one version per combination of arrays and
`None`s, and `solver.kernels.optional` drops the code of the absent ones, so the plain DP pays
nothing for the moments or the box choices it does not need.

    W.BOX[r, col]       the box chosen for final roll r (first best in card order)
    W.A1, W.A2[k, col]  first and second moments of the points to come, following the choices

Kernels that read bundles in their inner loops are compiled without reference counting
(`_nrt=False`): every field read of a bundle would otherwise count a reference (that made the
DP with the SD 3.5x slower). They must never allocate (numba refuses to compile that) nor
keep or return a slice of an array they are given. The kernels never validate and never
raise: the Python wrappers in `solver` pass only tables compiled from a validated rule set.
"""

from __future__ import annotations

from .jit import NO, ZERO, kernel, unsigned
from .optional import copy_row, fill_row, prefers, put_if, read
from .rule import box_move, box_verdict, end_turn, may_fill, upper_step
from .state import is_open, run_start, store_index, with_box, yahtzee_filled

NEG = -1.0e300  # below any value: "no move found yet"


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
    ybox_filled = yahtzee_filled(K, mask)
    fill_row(W.KV, z, off, nu, NEG)
    fill_row(W.BOX, z, off, nu, n_cat)
    for c in range(n_cat):
        if not is_open(K, mask, c):
            continue
        relax(W, V, z, run, c, (ZERO, ZERO, NO), run_start(L, with_box(mask, c), flag + gcol),
              T, ub)
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
        dest = run_start(L, nm, nf + gcol)
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
            relax(W, V, r, run, c, (pts, imm, counted), run_start(L, nm, nf + gcol), T, ub)


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
                      run_start(L, nm, nf + gcol), K.threshold, K.upper_bonus)
            else:
                next_u, bonus = upper_step(K.threshold, K.upper_bonus, u0, pts, counted)
                relax_need(W, V, N, r, c, (off, nu), n0, imm + bonus,
                           need_row(L, N, nm, nf + gcol, next_u))


@kernel(inline="always")
def _take_need(W, r, col, c, value, p1, p2):
    """Move (box c, worth `value`, carrying the payloads p1, p2) becomes the choice at (r, col)
    if it is better, or (with W.BOX) as good and of a lower rank, as `_take` does for
    points."""
    cur = W.KV[r, col]
    take = prefers(W.BOX, r, col, value, cur, c)
    W.KV[r, col] = value if take else cur
    put_if(W.BOX, r, col, take, c)
    put_if(W.A1, r, col, take, p1)
    put_if(W.A2, r, col, take, p2)


@kernel(inline="always")
def need_row(L, N, mask, flag, u):
    """Where state (mask, flag, u) of the next layer starts in V.VAL (`Needs.next_first`)."""
    return (store_index(L, mask, flag, u) - N.next_base) * (N.n_need - N.next_first)


@kernel(inline="always")
def relax_need(W, V, N, r, c, cols, n0, g, next_row):
    """Offer box c's move gaining g points to the columns cols = (off, nn): off .. off + nn - 1,
    the needs n0 .. n0 + nn - 1. A need the move meets is worth N.met (the utility's top: 1
    for a target), the others the next state's entry at need - g, read contiguously from
    V.VAL from its row `next_row` (`need_row`; the needs below `N.next_first`, not stored, read
    as 0); the payloads V.M1, V.M2 (when carried: what a strategy's choices carry, such as
    the chance of a win and of a draw) come along, N.met_m1 and N.met_m2 once met."""
    off, nn = cols
    met = min(nn, max(0, g - n0 + 1))  # needs n0 + j <= g
    for col in range(unsigned(off), unsigned(off + met)):  # unsigned: see jit.unsigned
        _take_need(W, r, col, c, N.met, N.met_m1, N.met_m2)
    # Needs left below the next layer's first stored one are worth 0 (`Needs.next_first`).
    below = min(nn - met, max(0, N.next_first - (n0 + met - g)))
    for col in range(unsigned(off + met), unsigned(off + met + below)):
        _take_need(W, r, col, c, 0.0, 0.0, 0.0)
    a = unsigned(off + met + below)
    src = unsigned(next_row + n0 - g + met + below - N.next_first)
    for j in range(unsigned(nn - met - below)):
        _take_need(W, r, a + j, c, V.VAL[src + j], read(V.M1, src + j, 0.0),
                   read(V.M2, src + j, 0.0))


@kernel(_nrt=False)
def final_rolls_target(K, L, N, V, W, run, n0, gcol):
    """W.KV[r, off + j]: the best value of ending the turn with final roll r at upper total u,
    needing n0 + j more points, for `run` = (mask, flag, u, nn, off): a chance of reaching a
    target, or an expected utility (see `solver.target`); V.VAL holds the next layer (N.n_need
    - N.next_first values per state: `need_row`), whose bank of saved rolls is b when `gcol` =
    b * n_flags (as in `final_rolls`). With W.BOX the box chosen (ties as `ties` says), with
    W.A1 and W.A2 the payloads V.M1 and V.M2 that the choice carries.

    The same best-zero-move shortcut as `final_rolls` holds: the value never falls with more
    upper total, a raised flag or fewer points needed (a utility never falls as the score
    rises).
    """
    mask, flag, u, nn, off = run
    n_roll, n_cat = K.SCORE.shape
    z = n_roll
    ybox_filled = yahtzee_filled(K, mask)
    cols = (off, nn)
    fill_row(W.KV, z, off, nn, NEG)
    fill_row(W.BOX, z, off, nn, n_cat)
    for c in range(n_cat):
        if not is_open(K, mask, c):
            continue
        nm = with_box(mask, c)
        relax_need(W, V, N, z, c, cols, n0, ZERO,
                   need_row(L, N, nm, flag + gcol, u))
    for r in range(n_roll):
        if ybox_filled and K.YAHTZEE_FACE[r] >= 0:
            continue
        copy_row(W.KV, r, z, off, nn)
        copy_row(W.BOX, r, z, off, nn)
        copy_row(W.A1, r, z, off, nn)
        copy_row(W.A2, r, z, off, nn)
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
            relax_need(W, V, N, r, c, cols, n0, gained,
                       need_row(L, N, nm, nf + gcol, nu_))
    if not ybox_filled:
        return
    for r in range(n_roll):
        if K.YAHTZEE_FACE[r] < 0:
            continue
        only_box, lower_only, use_joker, extra = box_verdict(K, mask, r)
        fill_row(W.KV, r, off, nn, NEG)
        fill_row(W.BOX, r, off, nn, n_cat)
        for c in range(n_cat):
            if not may_fill(K, mask, c, only_box, lower_only):
                continue
            _p, gained, nm, nf, nu_, _m, _w, _j = end_turn(K, mask, flag, u, r, c, use_joker,
                                                           extra, False)
            relax_need(W, V, N, r, c, cols, n0, gained,
                       need_row(L, N, nm, nf + gcol, nu_))
