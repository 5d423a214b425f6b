"""Where a turn leads, for numba: the distinct moves it ends with under recorded choices.

The forward pass (`solver.forward`) and the exact distribution need, for every state, the
moves its turn ends with under a strategy: the next state, the points gained (every bonus
included), the box and the points in it, what it won, and the probability. The dice are
followed forward through the choices the decision kernel recorded (`follow_dice`, and with
saved rolls `banked_outcomes`, where a turn may stop at any roll), and moves that score
alike are merged by a key (`add_move`) before the rule of `rule` runs once per move
(`put_move`).
"""

from __future__ import annotations

import numpy as np

from .jit import ZERO, kernel
from .rule import box_verdict, end_turn
from .state import bank_after, store_index, yahtzee_filled

# Bits of an outcome's FLAGS and columns of a game's EVENTS: what a move won.
EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, EVENT_JOKER = 0, 1, 2
N_EVENTS = 3


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
    OUT.TARGET[row, e] = store_index(L, nm, nf + gcol, nu_)
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
        ybox_filled = yahtzee_filled(K, mask)
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


@kernel(inline="always")
def _banked_stage(K, P, Q, CHOICE, crow, left, keys, count, first, ybox_filled, shift):
    """One roll of a turn with saved rolls, `left` re-rolls left, P the chance of each roll:
    the mass of a roll whose choice (CHOICE[crow, left, r]) is to fill a box becomes a move
    (`add_move` into keys = (acc, touched, rep_roll, rep_box), `shift` for the bank it
    leaves); the rest moves to its keep and on to the rolls the keep's free dice make, which
    P holds after (Q is scratch). Returns the moves touched."""
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    for k in range(n_keep):
        Q[k] = 0.0
    for r in range(n_roll):
        p = P[r]
        if p == 0.0:
            continue
        c = CHOICE[crow, left, r]
        if left > 0 and c < n_keep:
            Q[c] += p  # held (all the dice: the same roll again)
            continue
        if left > 0:
            c -= n_keep
        count = add_move(K, keys, count, r, c, first, ybox_filled, shift, p)
    for r in range(n_roll):
        P[r] = Q[r]
    for k in range(n_roll, n_keep):
        q = Q[k]
        if q > 0.0:
            for e in range(K.KEEP_OUT_INDPTR[k], K.KEEP_OUT_INDPTR[k + 1]):
                P[K.KEEP_OUT_ROLL[e]] += q * K.KEEP_OUT_PROB[e]
    return count


@kernel(inline="always")
def _put_moves(K, L, OUT, row, state, keys, count, space):
    """The `count` moves touched in keys = (acc, touched, rep_roll, rep_box) as row `row` of
    OUT (moves `space` keys apart leave different banks); acc is left zero for the next."""
    acc, touched, rep_roll, rep_box = keys
    n_keys = K.KEY_ROLL.shape[0]
    for e in range(count):
        key = touched[e]
        r, c = rep_roll[key], rep_box[key]
        base = key % space
        first = n_keys <= base < 2 * n_keys or (base >= 2 * n_keys and base % 2 == 1)
        put_move(K, L, OUT, (row, e), state, r, c, first, (key // space) * K.n_flags,
                 acc[key])
        acc[key] = 0.0
    OUT.COUNT[row] = count


@kernel(nogil=True, _nrt=False)
def banked_outcomes(K, L, R, CHOICE, CROW, OUT, S):
    """With saved rolls: for every state of R (rows of one box set, flag and bank, their
    results at R.OUT), the distinct moves its turn ends with under the choices CHOICE (state
    row's in CHOICE[CROW[row]], see the module docstring), into OUT (an `Outcomes` bundle),
    as `turn.turn_outcomes` does without saved rolls. (With carried saved rolls the choices
    of a stage do not depend on the bank the turn began with, so states that differ only in
    their bank may share one row of CHOICE, recorded for the largest of their banks.)

    The dice are followed forward from the first throw: at each roll the mass of a roll whose
    choice is to fill a box ends the turn there, leaving the bank `bank_after` says (so a
    state's moves are known by their box and score, first roll or not, and that bank); the
    rest moves to the keep chosen and on to the rolls its free dice make. S = (P, Q, acc,
    touched, rep_roll, rep_box) is scratch: P and Q n_keep long, the others `key_space`."""
    P, Q, acc, touched, rep_roll, rep_box = S
    keys = (acc, touched, rep_roll, rep_box)
    n_roll, n_cat = K.SCORE.shape
    space = 2 * K.KEY_ROLL.shape[0] + 2 * K.n_faces * n_cat  # keys of one bank
    for i in range(R.NU.shape[0]):
        mask, flag, bank = R.MASK[i], R.FLAG[i], R.BANK[i]
        ybox_filled = yahtzee_filled(K, mask)
        top = K.rolls - 1 + bank
        for j in range(R.NU[i]):
            row = R.OUT[i] + j
            count = 0
            for r in range(n_roll):
                P[r] = K.ROLL_PROB[r]
            for left in range(top, -1, -1):
                first = left == top and K.first_roll_bonus == 1  # (else no key of its own)
                count = _banked_stage(K, P, Q, CHOICE, CROW[row], left, keys, count, first,
                                      ybox_filled, space * bank_after(K, bank, left))
            _put_moves(K, L, OUT, row, (mask, flag, R.U0[i] + j), keys, count, space)


@kernel(nogil=True, _nrt=False)
def merged_banked_outcomes(K, L, R, CHOICE, START, OUT, S):
    """`banked_outcomes` for every bank of a (box set, flag, total) at once, each weighted:
    with carried saved rolls and no first-roll bonus, what a turn does with `left` re-rolls
    left and where it leads do not depend on the bank it began with, so the turns of all the
    banks are one walk of the dice. R's states are the (mask, flag, total)s with the largest
    bank each is reached with (row `row`'s choices in CHOICE[row]); START[row, left] is the
    weight (its chance of being reached, summed over its banks) of the turns that begin with
    `left` re-rolls left, whose first throw joins the walk there. Each row's moves go to OUT
    with their weighted probabilities, a forward pass's weights to add and nothing more. This
    is the cost of one bank's turn for all of them, a layer's 41 banks' in Maxi Yatzy."""
    P, Q, acc, touched, rep_roll, rep_box = S
    keys = (acc, touched, rep_roll, rep_box)
    n_roll, n_cat = K.SCORE.shape
    space = 2 * K.KEY_ROLL.shape[0] + 2 * K.n_faces * n_cat
    for i in range(R.NU.shape[0]):
        mask, flag, top_bank = R.MASK[i], R.FLAG[i], R.BANK[i]
        ybox_filled = yahtzee_filled(K, mask)
        top = K.rolls - 1 + top_bank
        for j in range(R.NU[i]):
            row = R.OUT[i] + j
            count = 0
            for r in range(n_roll):
                P[r] = 0.0
            for left in range(top, -1, -1):
                w = START[row, left]
                if w != 0.0:
                    for r in range(n_roll):
                        P[r] += w * K.ROLL_PROB[r]
                count = _banked_stage(K, P, Q, CHOICE, row, left, keys, count, False,
                                      ybox_filled, space * bank_after(K, top_bank, left))
            _put_moves(K, L, OUT, row, (mask, flag, R.U0[i] + j), keys, count, space)


def key_space(K, most_bank: int) -> int:
    """The keys `banked_outcomes` tells moves apart by, for banks up to `most_bank`."""
    return (2 * K.KEY_ROLL.shape[0] + 2 * K.n_faces * K.SCORE.shape[1]) * (most_bank + 1)
