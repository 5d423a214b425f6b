"""The turn-start state, one state at a time: the scalar half of `solver.state`.

A turn starts in state (mask, flag, u, bank): bit c of `mask` set when box c is filled, `flag`
1 when the flag box holds a non-zero score, `u` the upper total (capped at the threshold when
stored) and `bank` the saved rolls. These functions are the only code that reads the filled
boxes' bits or a state's place in the value store one state at a time; `solver.state` does the
same for whole arrays of states (with these very functions: they work elementwise on NumPy
arrays too).

Plain Python that imports nothing, like `ties`: the kernels call them compiled (`jit` registers
each with numba, inlined where they are called), and the advisor and the scorer, which never
load numba, call them as they are, on `RuleTables` (whose fields have the names of the kernels'
`GameTables` bundle).
"""

from __future__ import annotations


def has(mask, c):
    """Whether box c is filled in box set `mask` (elementwise for arrays of masks)."""
    return ((mask >> c) & 1) == 1


def has_all(mask, boxes):
    """Whether box set `mask` has every box of box set `boxes` filled (elementwise for arrays
    of masks): the states a position can still reach."""
    return (mask & boxes) == boxes


def with_box(mask, c):
    """The box set after filling box c."""
    return mask | (1 << c)


def is_open(K, mask, c):
    """Whether a turn may fill box c in box set `mask`: it is open, and with the boxes filled
    in card order, it is the first open one."""
    below = (1 << c) - 1
    return not has(mask, c) and (K.in_order == 0 or (mask & below) == below)


def yahtzee_filled(K, mask):
    """Whether the Yahtzee box exists and is filled (with 0 or not): extra Yahtzees then act."""
    return K.yahtzee_box >= 0 and has(mask, K.yahtzee_box)


def column(K, flag, bank):
    """The layout column of a state's flag and bank (`solver.state.StateLayout.OFFSET`)."""
    return flag + K.n_flags * bank


def run_start(L, mask, column):
    """Where the run of a box set's stored upper totals begins: (the store index of its first
    stored total, that total U0)."""
    return L.OFFSET[mask, column], L.U0[mask]


def store_index(L, mask, column, u):
    """Where the value of turn-start state (mask, column, u) is stored (`column`: see
    `column`); totals below U0 share the value at U0: the bonus is out of reach from all of
    them."""
    return L.OFFSET[mask, column] + max(u, L.U0[mask]) - L.U0[mask]


def bank_after(K, bank, left):
    """The saved rolls after filling a box with `left` re-rolls unused, in a turn begun with
    `bank` (0 without saved rolls): the unused rolls when they are saved (up to the cap),
    else the saved rolls not drawn on (so always 0 in a game without saved rolls)."""
    if K.bank_carry:
        return left if K.bank_cap < 0 else min(K.bank_cap, left)
    return min(bank, left)


# What `jit` compiles for the kernels.
SCALAR = (has, has_all, with_box, is_open, yahtzee_filled, column, run_start, store_index,
          bank_after)
