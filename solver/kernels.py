"""numba kernels of the DP: plain arrays and scalars in, values written into caller arrays.

They never validate and never raise: every rule set is validated by `yz.rules.models`
when it is loaded, and the Python wrappers in `solver` pass only tables compiled from it. See
`yz.solver.dp` for the mathematics and `yz.rules.tables` for the index layout of the tables.
Inner loops run over a contiguous range of upper totals so that they vectorise; rows are
indexed directly (no array views are made in the hot loops).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

NEG = -1.0e300


@njit(cache=True, inline="always")
def _open_box_rule(mask, r, YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER, ycat, joker_mode, n_cat):
    """Which boxes roll r may fill in box set `mask`, and whether the Joker scores apply.

    Returns (only_box, lower_only, use_joker, is_extra_yahtzee): only_box >= 0 means the forced
    Joker allows just that box; lower_only restricts to lower boxes; is_extra_yahtzee means the
    roll is a Yahtzee with the Yahtzee box already filled.
    """
    yf = YAHTZEE_FACE[r]
    extra = yf >= 0 and ycat >= 0 and ((mask >> ycat) & 1) == 1
    only_box = -1
    lower_only = False
    use_joker = False
    if extra and joker_mode != 0:
        ub = UPPER_BOX_OF_FACE[yf]
        ub_filled = ub < 0 or ((mask >> ub) & 1) == 1
        if joker_mode == 1:
            use_joker = ub_filled
        elif not ub_filled:
            only_box = ub
        else:
            for c in range(n_cat):
                if ((mask >> c) & 1) == 0 and IS_LOWER[c] == 1:
                    lower_only = True
                    break
            use_joker = lower_only
    return only_box, lower_only, use_joker, extra


@njit(cache=True, inline="always")
def _may_fill(mask, c, only_box, lower_only, IS_LOWER):
    """Whether box c is open in `mask` and allowed by `_open_box_rule`'s verdict."""
    return (((mask >> c) & 1) == 0 and (only_box < 0 or c == only_box)
            and (not lower_only or IS_LOWER[c] == 1))


@njit(cache=True, inline="always")
def _relax(out, r, off, u0, nu, V, next_mask, next_flag, pts, imm, counted, threshold,
           upper_bonus):
    """out[r, off + j] = max(itself, value of scoring `pts` in a box at upper total u0 + j)."""
    if counted:
        # Totals below `split` stay below the threshold; the rest reach or pass it.
        split = min(nu, max(0, threshold - pts - u0))
        base = u0 + pts
        for j in range(split):
            val = imm + V[next_mask, next_flag, base + j]
            if val > out[r, off + j]:
                out[r, off + j] = val
        # Points are added up before the table value, in the order every other consumer of
        # the strategy (simulation, advice, exact figures) uses, so equal moves tie exactly.
        capped = V[next_mask, next_flag, threshold]
        for j in range(split, nu):
            val = ((imm + upper_bonus) if u0 + j < threshold else imm) + capped
            if val > out[r, off + j]:
                out[r, off + j] = val
    else:
        for j in range(nu):
            val = imm + V[next_mask, next_flag, u0 + j]
            if val > out[r, off + j]:
                out[r, off + j] = val


@njit(cache=True)
def final_roll_values(mask, y, u0, nu, off, V, out, SCORE, JOKER_SCORE, YAHTZEE_FACE,
                      UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, POS_INDPTR, POS_ROLL, threshold,
                      upper_bonus, yahtzee_bonus, ycat, joker_mode):
    """out[r, off + j]: value of ending the turn with roll r at upper total u0 + j.

    Scores are never negative, and neither V plus the upper bonus once it is made, nor V with
    the bonus flag raised, is ever lower (more upper total or a filled Yahtzee box never hurts),
    so scoring p > 0 in a box is never worse than scoring 0 there. An ordinary roll's value is
    therefore the best "zero" move over all open boxes, or one of its few positive-score moves
    (listed per box in POS_INDPTR/POS_ROLL). Extra Yahtzees, whose boxes and scores depend on
    the Joker and the bonus, are done one by one afterwards.
    """
    n_roll, n_cat = SCORE.shape
    n_flag = V.shape[1]
    ybox_filled = ycat >= 0 and ((mask >> ycat) & 1) == 1
    # The best zero move, shared by every roll.
    for j in range(nu):
        out[0, off + j] = NEG
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        _relax(out, 0, off, u0, nu, V, mask | (1 << c), y, 0, 0.0, False, threshold,
               upper_bonus)
    for r in range(1, n_roll):
        for j in range(nu):
            out[r, off + j] = out[0, off + j]
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        next_mask = mask | (1 << c)
        counted = COUNTS_UPPER[c] == 1
        ny = 1 if (c == ycat and n_flag == 2) else y
        for i in range(POS_INDPTR[c], POS_INDPTR[c + 1]):
            r = POS_ROLL[i]
            if ybox_filled and YAHTZEE_FACE[r] >= 0:
                continue
            pts = SCORE[r, c]
            _relax(out, r, off, u0, nu, V, next_mask, ny, pts, float(pts), counted, threshold,
                   upper_bonus)
    if not ybox_filled:
        return
    for r in range(n_roll):
        if YAHTZEE_FACE[r] < 0:
            continue
        only_box, lower_only, use_joker, _extra = _open_box_rule(
            mask, r, YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER, ycat, joker_mode, n_cat)
        bonus = yahtzee_bonus if y == 1 else 0
        for j in range(nu):
            out[r, off + j] = NEG
        for c in range(n_cat):
            if not _may_fill(mask, c, only_box, lower_only, IS_LOWER):
                continue
            pts = JOKER_SCORE[r, c] if use_joker else SCORE[r, c]
            ny = 1 if (c == ycat and pts > 0 and n_flag == 2) else y
            _relax(out, r, off, u0, nu, V, mask | (1 << c), ny, pts, float(pts + bonus),
                   COUNTS_UPPER[c] == 1, threshold, upper_bonus)


@njit(cache=True)
def keep_average(KV, nu, n_roll, n_faces, KEEP_CHILD):
    """KV[k] for every keep smaller than a roll: the mean over one more die (its children).

    KV[:n_roll] holds roll values. Children are read two at a time and the division is folded
    into the last pass, so a row is swept about half as often (loop and store overhead, not
    arithmetic, bounds these short vector loops).
    """
    n_keep = KV.shape[0]
    inv = 1.0 / n_faces
    for k in range(n_roll, n_keep):
        c0 = KEEP_CHILD[k, 0]
        c1 = KEEP_CHILD[k, 1]  # every die has at least two faces
        for j in range(nu):
            KV[k, j] = KV[c0, j] + KV[c1, j]
        v = 2
        while n_faces - v > 2:
            ca = KEEP_CHILD[k, v]
            cb = KEEP_CHILD[k, v + 1]
            for j in range(nu):
                KV[k, j] += KV[ca, j] + KV[cb, j]
            v += 2
        if v + 2 == n_faces:
            ca = KEEP_CHILD[k, v]
            cb = KEEP_CHILD[k, v + 1]
            for j in range(nu):
                KV[k, j] = (KV[k, j] + KV[ca, j] + KV[cb, j]) * inv
        elif v + 1 == n_faces:
            ca = KEEP_CHILD[k, v]
            for j in range(nu):
                KV[k, j] = (KV[k, j] + KV[ca, j]) * inv
        else:
            for j in range(nu):
                KV[k, j] *= inv


@njit(cache=True)
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


@njit(cache=True)
def best_subkeep_arg(KV, ARG, nu, SUB_INDPTR, SUB_INDICES):
    """Like `kernels.best_subkeep`, also recording the best keep: ARG[k, j] is the lowest keep
    index among the keeps inside k (k included) of highest value. A keep's index is lower than
    its sub-keeps', so on a tie the larger keep wins. (Selects, not branches: it vectorises.)
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
                take = (a > b) | ((a == b) & (ia < ib))
                KV[k, j] = a if take else b
                ARG[k, j] = ia if take else ib


@njit(cache=True, inline="always")
def _choose(KV, BOX, A1, A2, r, col, c, g, val, m1, m2):
    """Box c with gain g and value val becomes the choice at (r, col) if it is better, or as
    good and earlier on the card; its moments come along."""
    cur = KV[r, col]
    take = (val > cur) | ((val == cur) & (c < BOX[r, col]))
    KV[r, col] = val if take else cur
    BOX[r, col] = c if take else BOX[r, col]
    A1[r, col] = (g + m1) if take else A1[r, col]
    A2[r, col] = (g * g + 2.0 * g * m1 + m2) if take else A2[r, col]


@njit(cache=True)
def final_moments(mask, y, u0, nu, off, V, M1, M2, KV, A1, A2, BOX, SCORE, JOKER_SCORE,
                  YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, POS_INDPTR, POS_ROLL,
                  threshold, upper_bonus, yahtzee_bonus, ycat, joker_mode):
    """For every final roll r and upper total u0 + j: the strategy's value (KV) and the first
    and second moments (A1, A2) of the points gained from there on, for the box it picks (the
    first best in card order, as `choose_box` does; BOX is scratch for that tie-break).

    As in `kernels.final_roll_values`, an ordinary roll starts from the best zero move (a box
    where it scores nothing; kept in row n_roll) and then tries only its positive-score moves:
    a box's positive move always beats its zero move, so a zero move that is not really open
    to the roll can never be chosen.
    """
    n_roll, n_cat = SCORE.shape
    n_flag = V.shape[1]
    ybox_filled = ycat >= 0 and ((mask >> ycat) & 1) == 1
    z = n_roll
    for j in range(nu):
        KV[z, off + j] = -1.0e300
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        nm = mask | (1 << c)
        for j in range(nu):
            u = u0 + j
            val = V[nm, y, u]
            if val > KV[z, off + j]:
                KV[z, off + j] = val
                BOX[z, off + j] = c
                A1[z, off + j] = M1[nm, y, u]
                A2[z, off + j] = M2[nm, y, u]
    for r in range(n_roll):
        if ybox_filled and YAHTZEE_FACE[r] >= 0:
            continue
        for j in range(nu):
            KV[r, off + j] = KV[z, off + j]
            BOX[r, off + j] = BOX[z, off + j]
            A1[r, off + j] = A1[z, off + j]
            A2[r, off + j] = A2[z, off + j]
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        nm = mask | (1 << c)
        ny = 1 if (c == ycat and n_flag == 2) else y
        counted = COUNTS_UPPER[c] == 1
        for i in range(POS_INDPTR[c], POS_INDPTR[c + 1]):
            r = POS_ROLL[i]
            if ybox_filled and YAHTZEE_FACE[r] >= 0:
                continue
            pts = SCORE[r, c]
            # As in `kernels._relax`: totals below `split` stay below the threshold (reads are
            # contiguous), the rest reach it; selects, not branches, so the loops vectorise.
            split = min(nu, max(0, threshold - pts - u0)) if counted else nu
            shift = u0 + (pts if counted else 0)
            g = float(pts)
            for j in range(split):
                un = shift + j
                _choose(KV, BOX, A1, A2, r, off + j, c, g, g + V[nm, ny, un], M1[nm, ny, un],
                        M2[nm, ny, un])
            for j in range(split, nu):
                gj = g + upper_bonus if u0 + j < threshold else g
                _choose(KV, BOX, A1, A2, r, off + j, c, gj, gj + V[nm, ny, threshold],
                        M1[nm, ny, threshold], M2[nm, ny, threshold])
    if not ybox_filled:
        return
    for r in range(n_roll):
        if YAHTZEE_FACE[r] < 0:
            continue
        only_box, lower_only, use_joker, extra = _open_box_rule(
            mask, r, YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER, ycat, joker_mode, n_cat)
        bonus = yahtzee_bonus if (extra and y == 1) else 0
        for j in range(nu):
            KV[r, off + j] = -1.0e300
        for c in range(n_cat):
            if not _may_fill(mask, c, only_box, lower_only, IS_LOWER):
                continue
            pts = JOKER_SCORE[r, c] if use_joker else SCORE[r, c]
            nm = mask | (1 << c)
            ny = 1 if (c == ycat and pts > 0 and n_flag == 2) else y
            counted = COUNTS_UPPER[c] == 1
            for j in range(nu):
                u = u0 + j
                un = u
                g = float(pts + bonus)
                if counted:
                    un = min(threshold, u + pts)
                    if u < threshold <= u + pts:
                        g += upper_bonus
                val = g + V[nm, ny, un]
                col = off + j
                if val > KV[r, col]:  # boxes in card order: the first best stays
                    m1 = M1[nm, ny, un]
                    KV[r, col] = val
                    A1[r, col] = g + m1
                    A2[r, col] = g * g + 2.0 * g * m1 + M2[nm, ny, un]


@njit(cache=True)
def follow_choice(A, ARG, n_roll, nu):
    """A[r] = A[ARG[r]] for every roll: the moments of the keep the strategy holds. ARG[r] is
    r itself or a keep with a higher index, so going up through r reads only unchanged rows."""
    for r in range(n_roll):
        for j in range(nu):
            A[r, j] = A[ARG[r, j], j]


@njit(cache=True)
def rerolls(KV, nu, n_roll, n_faces, stages, KEEP_CHILD, SUB_INDPTR, SUB_INDICES):
    """Turn roll values into the values one decision earlier, `stages` times, in place.

    KV[:n_roll] holds roll values on entry and on exit: each stage averages over the dice
    thrown, then takes the best keep inside every roll.
    """
    for _ in range(stages):
        keep_average(KV, nu, n_roll, n_faces, KEEP_CHILD)
        best_subkeep(KV, nu, SUB_INDPTR, SUB_INDICES)


@njit(cache=True)
def _batch_columns(b, batch_ptr, masks, U_START, U_END):
    """Number of upper-total columns of batch b."""
    cols = 0
    for i in range(batch_ptr[b], batch_ptr[b + 1]):
        cols += U_END[masks[i]] - U_START[masks[i]] + 1
    return cols


@njit(cache=True)
def _expect_and_store(KV, cols, ROLL_PROB, out, b, batch_ptr, masks, flags, U_START, U_END, acc):
    """out[mask, flag, u] = sum over rolls of P(r) KV[r, column of u], for batch b; totals
    below U_START share the value at U_START."""
    for j in range(cols):
        acc[j] = 0.0
    for r in range(ROLL_PROB.shape[0]):
        p = ROLL_PROB[r]
        for j in range(cols):
            acc[j] += p * KV[r, j]
    off = 0
    for i in range(batch_ptr[b], batch_ptr[b + 1]):
        mask = masks[i]
        y = flags[i]
        u0 = U_START[mask]
        nu = U_END[mask] - u0 + 1
        for j in range(nu):
            out[mask, y, u0 + j] = acc[off + j]
        for u in range(u0):
            out[mask, y, u] = acc[off]
        off += nu


@njit(cache=True, parallel=True)
def solve_layer(masks, flags, batch_ptr, U_START, U_END, V, SCORE, JOKER_SCORE, YAHTZEE_FACE,
                UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, POS_INDPTR, POS_ROLL, KEEP_CHILD,
                SUB_INDPTR, SUB_INDICES, ROLL_PROB, n_keep, n_faces, rolls, threshold,
                upper_bonus, yahtzee_bonus, ycat, joker_mode, batch_cols, n_threads):
    """Fill V[mask, flag, :] for every (mask, flag) pair of one layer (same number of filled boxes).

    Upper totals below U_START[mask] cannot reach the bonus any more, so they all share the
    value computed at U_START[mask]; totals above U_END[mask] are unreachable and left alone.

    Pairs are solved in batches (batch b holds pairs batch_ptr[b]..batch_ptr[b+1]-1): their
    upper-total columns sit side by side in one scratch table, so the reroll sweeps, which are
    the same for every pair, run once over up to `batch_cols` columns. Each thread takes every
    n-th batch and reuses one scratch table.
    """
    n_roll = SCORE.shape[0]
    n_batches = batch_ptr.shape[0] - 1
    for t in prange(min(n_threads, max(1, n_batches))):
        scratch = np.empty(n_keep * batch_cols)
        acc = np.empty(batch_cols)
        for b in range(t, n_batches, n_threads):
            cols = _batch_columns(b, batch_ptr, masks, U_START, U_END)
            # A compact (n_keep, cols) table keeps the working set small.
            KV = scratch[: n_keep * cols].reshape((n_keep, cols))
            off = 0
            for i in range(batch_ptr[b], batch_ptr[b + 1]):
                u0 = U_START[masks[i]]
                nu = U_END[masks[i]] - u0 + 1
                final_roll_values(masks[i], flags[i], u0, nu, off, V, KV, SCORE, JOKER_SCORE,
                                  YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER,
                                  POS_INDPTR, POS_ROLL, threshold, upper_bonus, yahtzee_bonus,
                                  ycat, joker_mode)
                off += nu
            rerolls(KV, cols, n_roll, n_faces, rolls - 1, KEEP_CHILD, SUB_INDPTR, SUB_INDICES)
            _expect_and_store(KV, cols, ROLL_PROB, V, b, batch_ptr, masks, flags, U_START, U_END,
                              acc)
