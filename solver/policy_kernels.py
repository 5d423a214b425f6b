"""numba kernels that follow a strategy: simulated games and exact policy statistics.

A strategy is a table shaped like the solver's V (optimal play uses V itself, greedy play an
all-zero table). Within a turn the player maximises "points this turn + table value of the
next state", exactly as the DP does, so a strategy's decisions are:

    CHOICE[i, L - 1, r]  the keep to hold from roll r with L re-rolls left, in state i
    choose_box(...)      the box for a final roll

Tie-break (shared with `yz.solver.advice`): among equally good keeps, the one with more dice and
then the lower keep index; among equally good boxes, the first in card order.

Dice for simulations are drawn beforehand from a seeded generator and passed in, so a game
replays identically whatever the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .kernels import (
    _batch_columns,
    _expect_and_store,
    _may_fill,
    _open_box_rule,
    best_subkeep_arg,
    final_moments,
    final_roll_values,
    follow_choice,
    keep_average,
)


@njit(cache=True)
def choose_box(m, y, u, r, V, SCORE, JOKER_SCORE, YAHTZEE_FACE, UPPER_BOX_OF_FACE,
               COUNTS_UPPER, IS_LOWER, threshold, upper_bonus, yahtzee_bonus, ycat, joker_mode):
    """The strategy's box for final roll r in state (m, y, u) and what it brings.

    Returns (box, box points, points gained this turn, joker used, upper bonus made, Yahtzee
    bonus won, next flag, next capped upper total).
    """
    n_cat = SCORE.shape[1]
    n_flag = V.shape[1]
    only_box, lower_only, use_joker, extra = _open_box_rule(
        m, r, YAHTZEE_FACE, UPPER_BOX_OF_FACE, IS_LOWER, ycat, joker_mode, n_cat)
    bonus = yahtzee_bonus if (extra and y == 1) else 0
    best_val = -1.0e300
    best = -1
    for c in range(n_cat):
        if not _may_fill(m, c, only_box, lower_only, IS_LOWER):
            continue
        pts = JOKER_SCORE[r, c] if use_joker else SCORE[r, c]
        ny = 1 if (c == ycat and pts > 0 and n_flag == 2) else y
        nu_ = u
        imm = pts + bonus
        if COUNTS_UPPER[c]:
            nu_ = min(threshold, u + pts)
            if u < threshold <= u + pts:
                imm += upper_bonus
        val = imm + V[m | (1 << c), ny, nu_]
        if val > best_val:
            best_val = val
            best = c
    c = best
    pts = JOKER_SCORE[r, c] if use_joker else SCORE[r, c]
    gained = pts + bonus
    made = False
    nu_ = u
    if COUNTS_UPPER[c]:
        nu_ = min(threshold, u + pts)
        if u < threshold <= u + pts:
            gained += upper_bonus
            made = True
    ny = 1 if (c == ycat and pts > 0 and n_flag == 2) else y
    joker = use_joker and JOKER_SCORE[r, c] != SCORE[r, c]
    return c, pts, gained, joker, made, bonus > 0, ny, nu_


@njit(cache=True, parallel=True)
def keep_choices(w_mask, w_flag, w_u0, w_nu, w_col, batch_ptr, V, CHOICE, SCORE, JOKER_SCORE,
                 YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, POS_INDPTR, POS_ROLL,
                 KEEP_CHILD, SUB_INDPTR, SUB_INDICES, n_faces, rolls, threshold, upper_bonus,
                 yahtzee_bonus, ycat, joker_mode, batch_cols, n_threads):
    """CHOICE[w_col[w] + j, L - 1, r] for the states (w_mask[w], w_flag[w], w_u0[w] + j).

    States come as runs of consecutive upper totals ("widgets"), solved side by side in
    batches (batch b holds widgets batch_ptr[b] .. batch_ptr[b+1]-1), as in `solve_layer`.
    """
    n_roll = SCORE.shape[0]
    n_keep = KEEP_CHILD.shape[0]
    n_batches = batch_ptr.shape[0] - 1
    for t in prange(min(n_threads, max(1, n_batches))):
        scratch = np.empty(n_keep * batch_cols)
        arg_scratch = np.empty(n_keep * batch_cols, dtype=np.int32)
        for b in range(t, n_batches, n_threads):
            w0 = batch_ptr[b]
            w1 = batch_ptr[b + 1]
            cols = 0
            for w in range(w0, w1):
                cols += w_nu[w]
            KV = scratch[: n_keep * cols].reshape((n_keep, cols))
            ARG = arg_scratch[: n_keep * cols].reshape((n_keep, cols))
            off = 0
            for w in range(w0, w1):
                final_roll_values(w_mask[w], w_flag[w], w_u0[w], w_nu[w], off, V, KV, SCORE,
                                  JOKER_SCORE, YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER,
                                  IS_LOWER, POS_INDPTR, POS_ROLL, threshold, upper_bonus,
                                  yahtzee_bonus, ycat, joker_mode)
                off += w_nu[w]
            for left in range(1, rolls):
                keep_average(KV, cols, n_roll, n_faces, KEEP_CHILD)
                best_subkeep_arg(KV, ARG, cols, SUB_INDPTR, SUB_INDICES)
                off = 0
                for w in range(w0, w1):
                    for j in range(w_nu[w]):
                        for r in range(n_roll):
                            CHOICE[w_col[w] + j, left - 1, r] = ARG[r, off + j]
                    off += w_nu[w]


@njit(cache=True, inline="always")
def _roll_of(counts, n_dice, KEY_SORTED, KEY_INDEX):
    """Keep (or roll) index of a face-count vector: binary search of its mixed-radix key."""
    key = 0
    for v in range(counts.shape[0]):
        key = key * (n_dice + 1) + counts[v]
    return KEY_INDEX[np.searchsorted(KEY_SORTED, key)]


@njit(cache=True, parallel=True)
def play_turn(games, state_of_game, s_mask, s_flag, s_upper, CHOICE, DRAWS, V, mask, flag,
              upper, score, box_score, bonus_count, joker_count, upper_hit, SCORE, JOKER_SCORE,
              YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, KEEP_COUNTS, n_dice, rolls,
              threshold, upper_bonus, yahtzee_bonus, ycat, joker_mode, KEY_SORTED, KEY_INDEX):
    """Play one turn of every game in `games` in place.

    DRAWS[g, s, d] is the face (0-based) of die slot d at throw s of this turn for game g: the
    first throw uses n slots, a re-roll of m dice the first m.
    """
    n_faces = KEEP_COUNTS.shape[1]
    for gi in prange(games.shape[0]):
        g = games[gi]
        st = state_of_game[g]
        counts = np.zeros(n_faces, dtype=np.int64)
        for d in range(n_dice):
            counts[DRAWS[g, 0, d]] += 1
        for left in range(rolls - 1, 0, -1):
            k = CHOICE[st, left - 1, _roll_of(counts, n_dice, KEY_SORTED, KEY_INDEX)]
            n_kept = 0
            for v in range(n_faces):
                counts[v] = KEEP_COUNTS[k, v]
                n_kept += counts[v]
            for d in range(n_dice - n_kept):
                counts[DRAWS[g, rolls - left, d]] += 1
        r = _roll_of(counts, n_dice, KEY_SORTED, KEY_INDEX)
        c, pts, gained, joker, made, won, ny, _ = choose_box(
            s_mask[st], s_flag[st], s_upper[st], r, V, SCORE, JOKER_SCORE, YAHTZEE_FACE,
            UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, threshold, upper_bonus, yahtzee_bonus,
            ycat, joker_mode)
        box_score[g, c] = pts
        bonus_count[g] += won
        joker_count[g] += joker
        upper_hit[g] |= made
        if COUNTS_UPPER[c]:
            upper[g] += pts
        flag[g] = ny
        mask[g] |= 1 << c
        score[g] += gained


@njit(cache=True)
def final_roll_distribution(st, CHOICE, P, Q, ROLL_PROB, KEEP_OUT_INDPTR, KEEP_OUT_ROLL,
                            KEEP_OUT_PROB, n_roll, rolls):
    """P[r]: probability that a turn played by CHOICE[st] ends on roll r (Q is scratch)."""
    for r in range(n_roll):
        P[r] = ROLL_PROB[r]
    for left in range(rolls - 1, 0, -1):
        for k in range(Q.shape[0]):
            Q[k] = 0.0
        for r in range(n_roll):
            if P[r] > 0.0:
                Q[CHOICE[st, left - 1, r]] += P[r]
        for r in range(n_roll):
            P[r] = 0.0
        for k in range(Q.shape[0]):
            q = Q[k]
            if q > 0.0:
                for e in range(KEEP_OUT_INDPTR[k], KEEP_OUT_INDPTR[k + 1]):
                    P[KEEP_OUT_ROLL[e]] += q * KEEP_OUT_PROB[e]


@njit(cache=True, parallel=True)
def policy_moments(masks, flags, batch_ptr, U_START, U_END, V, M1, M2, SCORE, JOKER_SCORE,
                   YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, POS_INDPTR, POS_ROLL,
                   KEEP_CHILD, SUB_INDPTR, SUB_INDICES, ROLL_PROB, n_faces, rolls, threshold,
                   upper_bonus, yahtzee_bonus, ycat, joker_mode, batch_cols, n_threads, track_m1,
                   store_values):
    """M1/M2[mask, flag, u]: first and second moments of the points still to come when the
    strategy given by table V is followed, for one layer (batched like `solve_layer`).

    Moments average over dice exactly as values do, so they ride along the same sweeps; at
    every decision they follow the choice the values make. When V is the strategy's own value
    (optimal play), M1 is V: pass M1 = V and track_m1 = False. With store_values the layer's
    values are written into V too, which makes this the DP itself with the SD alongside.
    """
    n_roll = SCORE.shape[0]
    n_keep = KEEP_CHILD.shape[0]
    n_batches = batch_ptr.shape[0] - 1
    for t in prange(min(n_threads, max(1, n_batches))):
        s_kv = np.empty(n_keep * batch_cols)
        s_a1 = np.empty(n_keep * batch_cols)
        s_a2 = np.empty(n_keep * batch_cols)
        s_arg = np.empty(n_keep * batch_cols, dtype=np.int32)
        s_box = np.empty((n_roll + 1) * batch_cols, dtype=np.int32)
        acc = np.empty(batch_cols)
        for b in range(t, n_batches, n_threads):
            cols = _batch_columns(b, batch_ptr, masks, U_START, U_END)
            KV = s_kv[: n_keep * cols].reshape((n_keep, cols))
            A1 = s_a1[: n_keep * cols].reshape((n_keep, cols))
            A2 = s_a2[: n_keep * cols].reshape((n_keep, cols))
            ARG = s_arg[: n_keep * cols].reshape((n_keep, cols))
            BOX = s_box[: (n_roll + 1) * cols].reshape((n_roll + 1, cols))
            off = 0
            for i in range(batch_ptr[b], batch_ptr[b + 1]):
                u0 = U_START[masks[i]]
                nu = U_END[masks[i]] - u0 + 1
                final_moments(masks[i], flags[i], u0, nu, off, V, M1, M2, KV, A1, A2, BOX,
                              SCORE, JOKER_SCORE, YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER,
                              IS_LOWER, POS_INDPTR, POS_ROLL, threshold, upper_bonus,
                              yahtzee_bonus, ycat, joker_mode)
                off += nu
            for _ in range(1, rolls):
                keep_average(KV, cols, n_roll, n_faces, KEEP_CHILD)
                if track_m1:
                    keep_average(A1, cols, n_roll, n_faces, KEEP_CHILD)
                keep_average(A2, cols, n_roll, n_faces, KEEP_CHILD)
                best_subkeep_arg(KV, ARG, cols, SUB_INDPTR, SUB_INDICES)
                if track_m1:
                    follow_choice(A1, ARG, n_roll, cols)
                follow_choice(A2, ARG, n_roll, cols)
            if store_values:
                _expect_and_store(KV, cols, ROLL_PROB, V, b, batch_ptr, masks, flags, U_START,
                                  U_END, acc)
            if track_m1:
                _expect_and_store(A1, cols, ROLL_PROB, M1, b, batch_ptr, masks, flags, U_START,
                                  U_END, acc)
            _expect_and_store(A2, cols, ROLL_PROB, M2, b, batch_ptr, masks, flags, U_START, U_END,
                              acc)


@njit(cache=True, parallel=True)
def policy_forward(s_mask, s_flag, s_upper, CHOICE, V, PI, PI_NEXT, STATS, SCORE, JOKER_SCORE,
                   YAHTZEE_FACE, UPPER_BOX_OF_FACE, COUNTS_UPPER, IS_LOWER, ROLL_PROB,
                   KEEP_OUT_INDPTR, KEEP_OUT_ROLL, KEEP_OUT_PROB, U_START, rolls, threshold,
                   upper_bonus, yahtzee_bonus, ycat, joker_mode, n_threads):
    """Push the probability of each state of a layer through one turn of the strategy.

    Per thread t: PI_NEXT[t] collects next-layer state probabilities and STATS[t] the expected
    per-box scores (row 0), zero rates (row 1), and in row 2: upper bonus made, Yahtzee bonuses
    won, Joker uses (expected counts). Summed by the caller, so no two threads write one cell.
    """
    n_roll = SCORE.shape[0]
    n_keep = KEEP_OUT_INDPTR.shape[0] - 1
    n_state = s_mask.shape[0]
    for t in prange(n_threads):
        P = np.empty(n_roll)
        Q = np.empty(n_keep)
        for i in range(t, n_state, n_threads):
            m, y, u = s_mask[i], s_flag[i], s_upper[i]
            w = PI[m, y, u]
            if w == 0.0:
                continue
            final_roll_distribution(i, CHOICE, P, Q, ROLL_PROB, KEEP_OUT_INDPTR, KEEP_OUT_ROLL,
                                    KEEP_OUT_PROB, n_roll, rolls)
            for r in range(n_roll):
                p = P[r]
                if p == 0.0:
                    continue
                c, pts, _gained, joker, made, won, ny, nu_ = choose_box(
                    m, y, u, r, V, SCORE, JOKER_SCORE, YAHTZEE_FACE, UPPER_BOX_OF_FACE,
                    COUNTS_UPPER, IS_LOWER, threshold, upper_bonus, yahtzee_bonus, ycat,
                    joker_mode)
                wp = w * p
                nm = m | (1 << c)
                PI_NEXT[t, nm, ny, max(nu_, U_START[nm])] += wp
                STATS[t, 0, c] += wp * pts
                if pts == 0:
                    STATS[t, 1, c] += wp
                if made:
                    STATS[t, 2, 0] += wp
                if won:
                    STATS[t, 2, 1] += wp
                if joker:
                    STATS[t, 2, 2] += wp
