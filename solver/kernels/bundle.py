"""The argument bundles of the kernels: named tuples of plain arrays and numbers.

A kernel takes a few bundles instead of thirty positional arrays, so a new table is one field
here and one line where the bundle is built (`solver.layout.kernel_tables`). numba compiles a
named tuple of arrays into a struct of array descriptors: reading a field costs no more than
reading an argument, except that with reference counting on it counts one (see
`solver.kernels.turn` on `_nrt=False`).

    Game (K)     the compiled rule tables a turn needs (see `yz.rules.tables` for their layout)
    Layout (L)   where each turn-start state's values live in a flat store (see `solver.layout`)
    Rows         runs of turn-start states solved side by side: state (mask, flag) at upper
                 totals u0 .. u0 + nu - 1, whose results go to out .. out + nu - 1
    Work, Next   a batch's scratch tables, and what its moves read of the states they lead to
                 (built inside the DP driver, `solver.kernels.sweep`)
    Payload      what a DP sweep carries and writes besides its decisions
    Outcomes, OutcomeScratch, Needs    where a turn leads (the distribution), target play
    States, Tally, Flow    states listed one by one, games being played, the forward pass

Inside a parallel loop, a kernel that writes through a bundle's field must be called, not
inlined: numba (0.68) loses such stores when they are compiled into the loop's body.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Game(NamedTuple):
    SCORE: np.ndarray  # int32 [roll, box]: points under the normal rules
    JOKER_SCORE: np.ndarray  # int32 [roll, box]: points when the Joker applies
    YAHTZEE_FACE: np.ndarray  # int8 [roll]: face index of an all-equal roll, else -1
    UPPER_BOX_OF_FACE: np.ndarray  # int32 [face]: the upper box of a face, -1 if none
    COUNTS_UPPER: np.ndarray  # int8 [box]: 1 if the box counts toward the upper bonus
    IS_LOWER: np.ndarray  # int8 [box]: 1 for lower-section boxes (the forced Joker)
    POS_INDPTR: np.ndarray  # int64 [box + 1]: CSR of the rolls scoring > 0 in each box
    POS_ROLL: np.ndarray  # int32
    KEEP_CHILD: np.ndarray  # int32 [keep, face]: the keep with one more die of that face
    SUB_INDPTR: np.ndarray  # int32 [keep + 1]: CSR of the keeps one die smaller
    SUB_INDICES: np.ndarray  # int32
    ROLL_PROB: np.ndarray  # float64 [roll]: probability of a roll of all the dice
    KEEP_OUT_INDPTR: np.ndarray  # int64 [keep + 1]: CSR of the rolls a keep can become
    KEEP_OUT_ROLL: np.ndarray  # int32
    KEEP_OUT_PROB: np.ndarray  # float64
    KEEP_COUNTS: np.ndarray  # int8 [keep, face]: dice of each face in a keep
    KEY_SORTED: np.ndarray  # int64: sorted mixed-radix keys of the keeps' face counts
    KEY_INDEX: np.ndarray  # int64: the keep of each sorted key
    n_dice: int
    n_faces: int
    rolls: int  # throws per turn
    threshold: int  # upper bonus threshold (0: no upper bonus)
    upper_bonus: int
    yahtzee_bonus: int
    ybox: int  # the Yahtzee box (bonus and Joker), -1 if none
    joker_mode: int  # JOKER_NONE, JOKER_FREE or JOKER_FORCED
    n_flags: int  # 2 when the state carries "the flag box holds a non-zero score"
    max_points: int  # the most points any box gives any roll (Joker, first-roll bonus included)
    FIRST_BONUS: np.ndarray  # int32 [box]: extra points for a score above 0 from a first roll
    ONLY_AFTER: np.ndarray  # int8 [box]: 1 if the box scores only with the flag raised
    flag_box: int  # the box whose non-zero score raises the flag, -1 if none
    in_order: int  # 1: the only box a turn may fill is the first open one
    first_roll_bonus: int  # 1 when some box pays a first-roll bonus (and a turn has re-rolls)


class Layout(NamedTuple):
    U0: np.ndarray  # int32 [mask]: first stored upper total (lower ones share its value)
    U1: np.ndarray  # int32 [mask]: last reachable upper total
    OFFSET: np.ndarray  # int64 [mask, flag]: store index of (mask, flag, U0[mask]); -1: none


class Rows(NamedTuple):
    MASK: np.ndarray  # int64 [row]
    FLAG: np.ndarray  # int64 [row]
    U0: np.ndarray  # int64 [row]: first upper total of the run
    NU: np.ndarray  # int64 [row]: totals in the run
    OUT: np.ndarray  # int64 [row]: where the run's first result goes


class Payload(NamedTuple):
    """What a sweep carries and writes besides the decisions (`solver.kernels.sweep`): each
    field an array or None; numba compiles one sweep per combination."""

    STORE: object  # float64 [store]: the values of the layer's states (the DP)
    M1: object  # float64 [store]: first moment of the points to come under VAL's play
    M2: object  # float64 [store]: second moment
    CHOICE: object  # int32 [state, re-rolls left - 1, roll]: the keeps chosen
    OUT: object  # Outcomes: where a turn from each state leads
    NEEDS: object  # Needs: target play


def payload(store=None, m1=None, m2=None, choice=None, out=None, needs=None) -> Payload:
    """A Payload with only the named parts carried."""
    return Payload(store, m1, m2, choice, out, needs)


class Work(NamedTuple):
    """A batch's scratch tables [row, column]: rows are rolls and keeps (`solver.kernels.turn`),
    columns turn-start states. KV is always there, the others only when carried (else None)."""

    KV: np.ndarray  # float64: values (or chances, in target play)
    BOX: object  # int32: the box chosen for each final roll (first best in card order; row
    # n_roll: the best zero move) or, at the first roll, the box stopped for (n_cat: none)
    A1: object  # float64: first moment of the points to come, following the choices
    A2: object  # float64: second moment


class Next(NamedTuple):
    """What a turn's moves read of the states they lead to, by store index."""

    VAL: np.ndarray  # float64: the values that make the decisions
    M1: object  # float64 or None: first moment of the points to come from there
    M2: object  # float64 or None: second moment


class OutcomeScratch(NamedTuple):
    """Scratch for grouping a turn's moves by (box, points, Yahtzee bonus won) keys."""

    acc: np.ndarray  # float64 [key]: probability gathered (kept at zero between uses)
    touched: np.ndarray  # int64 [2 x rolls]: the keys used
    target_of: np.ndarray  # int64 [key]: store index of the next state
    gain_of: np.ndarray  # int64 [key]: points gained


class States(NamedTuple):
    """Turn-start states listed one by one (a simulation's distinct states, a layer)."""

    MASK: np.ndarray  # int64 [state]
    FLAG: np.ndarray  # int64 [state]
    UPPER: np.ndarray  # int64 [state]: capped upper total


class Tally(NamedTuple):
    """What a game (or an exact forward pass) accumulates, one row per game or thread."""

    MASK: np.ndarray  # int64 [game]: filled boxes
    FLAG: np.ndarray  # int64 [game]
    UPPER: np.ndarray  # int64 [game]: upper total, uncapped
    SCORE: np.ndarray  # int64 [game]: points so far, every bonus included
    BOX_SCORE: np.ndarray  # int32 [game, box]
    EVENTS: np.ndarray  # int32 [game, event]: see EVENT_* in solver.kernels.play


class Flow(NamedTuple):
    """Where the exact forward pass (`solver.kernels.play.policy_forward`) gathers a layer's
    probability, one row per thread."""

    PI_NEXT: np.ndarray  # float64 [thread, state of the next layer]
    BOX_STATS: np.ndarray  # float64 [thread, 2, box]: expected score, probability of a zero
    EVENTS: np.ndarray  # float64 [thread, event]: expected count of each EVENT_*
    next_base: int  # store index of the next layer's first state


class Outcomes(NamedTuple):
    """What one turn can lead to from each state of a block, under a strategy: up to
    `TARGET.shape[1]` distinct (next state, points gained) pairs per state, with their
    probabilities (row i: the state at Rows.OUT + j; COUNT[i] pairs are filled)."""

    TARGET: np.ndarray  # int64 [state, n]: store index of the next state
    GAIN: np.ndarray  # int32 [state, n]: points gained this turn, every bonus included
    PROB: np.ndarray  # float64 [state, n]
    COUNT: np.ndarray  # int32 [state]


class Needs(NamedTuple):
    """Target play: a row's columns are the points still needed NEED0[row] .. + NU[row] - 1
    at the row's one upper total U0[row]; values are P(final points from here >= need)."""

    NEED0: np.ndarray  # int64 [row]
    n_need: int  # needs 0 .. n_need - 1 are stored per state
    next_base: int  # store index of the first state of the next layer (VAL holds that layer)
