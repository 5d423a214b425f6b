"""numba kernels of the DP: plain arrays and scalars in, values written into caller arrays.

They never validate and never raise: `solver.dp` checks everything once, up front. See
`solver.dp` for the mathematics and `yahtzee_rules.tables` for the index layout of the tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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


@njit(cache=True)
def final_roll_values(mask, y, u0, nu, V, out, SCORE, JOKER_SCORE, YAHTZEE_FACE,
                      UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, threshold, upper_bonus,
                      yahtzee_bonus, ycat, joker_mode):
    """out[r, j]: value of ending the turn with roll r at upper total u0 + j (best open box)."""
    n_roll, n_cat = SCORE.shape
    n_flag = V.shape[1]
    for r in range(n_roll):
        only_box, lower_only, use_joker, extra = _open_box_rule(
            mask, r, YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER, ycat, joker_mode, n_cat)
        bonus = yahtzee_bonus if (extra and y == 1) else 0
        row = out[r]
        for j in range(nu):
            row[j] = -1.0e300
        for c in range(n_cat):
            if (mask >> c) & 1:
                continue
            if only_box >= 0 and c != only_box:
                continue
            if lower_only and IS_LOWER[c] == 0:
                continue
            pts = JOKER_SCORE[r, c] if use_joker else SCORE[r, c]
            ny = 1 if (c == ycat and pts > 0 and n_flag == 2) else y
            nxt = V[mask | (1 << c), ny]
            imm = float(pts + bonus)
            if COUNTS_UPPER[c]:
                # Totals below `split` stay below the threshold; the rest cap at it.
                split = min(nu, max(0, threshold - pts - u0))
                for j in range(split):
                    val = imm + nxt[u0 + j + pts]
                    if val > row[j]:
                        row[j] = val
                for j in range(split, nu):
                    val = imm + nxt[threshold]
                    if u0 + j < threshold:
                        val += upper_bonus
                    if val > row[j]:
                        row[j] = val
            else:
                for j in range(nu):
                    val = imm + nxt[u0 + j]
                    if val > row[j]:
                        row[j] = val


@njit(cache=True)
def rerolls(KV, nu, n_roll, n_faces, stages, KEEP_CHILD, SUB_INDPTR, SUB_INDICES):
    """Turn roll values into the values one decision earlier, `stages` times, in place.

    KV[:n_roll] holds roll values on entry and on exit. Each stage averages over the dice thrown
    (keep values, by adding one die at a time) then takes the best sub-keep of every keep (by
    removing one die at a time), which for a roll is the best keep before the throw.
    """
    n_keep = KV.shape[0]
    inv = 1.0 / n_faces
    for _ in range(stages):
        for k in range(n_roll, n_keep):
            row = KV[k]
            for j in range(nu):
                row[j] = 0.0
            for v in range(n_faces):
                child = KV[KEEP_CHILD[k, v]]
                for j in range(nu):
                    row[j] += child[j]
            for j in range(nu):
                row[j] *= inv
        for k in range(n_keep - 1, -1, -1):
            row = KV[k]
            for s in range(SUB_INDPTR[k], SUB_INDPTR[k + 1]):
                sub = KV[SUB_INDICES[s]]
                for j in range(nu):
                    if sub[j] > row[j]:
                        row[j] = sub[j]


@njit(cache=True, parallel=True)
def solve_layer(masks, flags, U_START, U_END, V, SCORE, JOKER_SCORE, YAHTZEE_FACE,
                UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, KEEP_CHILD, SUB_INDPTR, SUB_INDICES,
                ROLL_PROB, n_keep, n_faces, rolls, threshold, upper_bonus, yahtzee_bonus, ycat,
                joker_mode):
    """Fill V[mask, flag, :] for every (mask, flag) pair of one layer (same number of filled boxes).

    Upper totals below U_START[mask] cannot reach the bonus any more, so they all share the
    value computed at U_START[mask]; totals above U_END[mask] are unreachable and left alone.
    """
    n_roll = SCORE.shape[0]
    for i in prange(masks.shape[0]):
        mask = masks[i]
        y = flags[i]
        u0 = U_START[mask]
        nu = U_END[mask] - u0 + 1
        KV = np.empty((n_keep, nu))
        final_roll_values(mask, y, u0, nu, V, KV, SCORE, JOKER_SCORE, YAHTZEE_FACE,
                          UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, threshold, upper_bonus,
                          yahtzee_bonus, ycat, joker_mode)
        rerolls(KV, nu, n_roll, n_faces, rolls - 1, KEEP_CHILD, SUB_INDPTR, SUB_INDICES)
        out = V[mask, y]
        for j in range(nu):
            out[u0 + j] = 0.0
        for r in range(n_roll):
            p = ROLL_PROB[r]
            row = KV[r]
            for j in range(nu):
                out[u0 + j] += p * row[j]
        for u in range(u0):
            out[u] = out[u0]
