"""The rule of a turn's end, written once: which boxes a final roll may fill, what it scores
(the Joker, the first-roll bonus, `only_after`), the bonuses it wins, and the state it leads to.

Plain Python that imports nothing but the state's scalar half (`state`), like `ties`: the
kernels call these functions compiled (`jit` registers them with numba), and the advisor and
the scorer (`yz.rules.position.box_choices`), which never load numba, call them as they are on
`RuleTables`, whose fields have the names of the kernels' `GameTables` bundle. So there is one
transition, not a kernel and a twin: `tests/naive.py` is the independent check.
"""

from __future__ import annotations

from .state import has, is_open, with_box

JOKER_NONE, JOKER_FREE, JOKER_FORCED = 0, 1, 2  # yz.rules.tables.JOKER_MODES


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
    extra = yf >= 0 and K.yahtzee_box >= 0 and has(mask, K.yahtzee_box)
    only_box = -1
    lower_only = False
    use_joker = False
    if extra and K.joker_mode != JOKER_NONE:
        ub = K.UPPER_BOX_OF_FACE[yf]
        ub_filled = ub < 0 or has(mask, ub)
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


def may_fill(K, mask, c, only_box, lower_only):
    """Whether box c may be filled in `mask` under `box_verdict`'s verdict."""
    return (is_open(K, mask, c) and (only_box < 0 or c == only_box)
            and (not lower_only or K.IS_LOWER[c] == 1))


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
    return pts, imm, with_box(mask, c), next_flag, K.COUNTS_UPPER[c] == 1, won


def upper_step(T, upper_bonus, u, pts, counted):
    """The upper total after scoring `pts` at total u (capped at the threshold T), and the
    upper bonus this completes."""
    if not counted:
        return u, 0
    bonus = upper_bonus if u < T <= u + pts else 0
    return min(T, u + pts), bonus


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


# What `jit` compiles for the kernels.
SCALAR = (box_verdict, may_fill, box_move, upper_step, end_turn)
