"""The argument bundles of the kernels: named tuples of plain arrays and numbers.

A kernel takes a few bundles instead of thirty positional arrays, so a new table is one field
here and one line where the bundle is built (`solver.layout.kernel_tables`). numba compiles a
named tuple of arrays into a struct of array descriptors: reading a field costs no more than
reading an argument, except that with reference counting on it counts one (see
`solver.kernels.final` on `_nrt=False`).

    GameTables (K)  the compiled rule tables a turn needs (see `yz.rules.tables`)
    Layout (L)      where each turn-start state's values live in a flat store (`solver.layout`)
    Rows (R)        runs of turn-start states solved side by side: state (mask, flag) at upper
                    totals u0 .. u0 + nu - 1, whose results go to out .. out + nu - 1
    Work, Next      a batch's scratch tables, and what its moves read of the states they lead
                    to (built inside the layer driver, `solver.kernels.layer`)
    Outcomes, Needs where a turn leads (the forward pass), target play
    States, Tally   states listed one by one, games being played

Bundles are built by keyword with `Rows.of(...)` (and so on: `build`), which checks every field
against its declared type (an array's dtype and dimensions, or a whole number): a misspelt,
missing or swapped field fails where the bundle is made, not as wrong numbers inside a kernel.
Every index a kernel loops over is int64, so each kernel compiles once per kind of work (numba
compiles a new version for every new combination of argument types).
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple, get_type_hints

import numpy as np


class Array(NamedTuple):
    """The declared type of an array field (what `build` checks)."""

    dtype: type
    ndim: int


I64_1 = Annotated[np.ndarray, Array(np.int64, 1)]
I64_2 = Annotated[np.ndarray, Array(np.int64, 2)]
F64_1 = Annotated[np.ndarray, Array(np.float64, 1)]
F64_2 = Annotated[np.ndarray, Array(np.float64, 2)]


class GameTables(NamedTuple):
    SCORE: I64_2  # [roll, box]: points under the normal rules
    JOKER_SCORE: I64_2  # [roll, box]: points when the Joker applies
    YAHTZEE_FACE: I64_1  # [roll]: face index of an all-equal roll, else -1
    UPPER_BOX_OF_FACE: I64_1  # [face]: the upper box of a face, -1 if none
    COUNTS_UPPER: I64_1  # [box]: 1 if the box counts toward the upper bonus
    IS_LOWER: I64_1  # [box]: 1 for lower-section boxes (the forced Joker)
    FIRST_BONUS: I64_1  # [box]: extra points for a score above 0 from a first roll
    ONLY_AFTER: I64_1  # [box]: 1 if the box scores only with the flag raised
    POS_INDPTR: I64_1  # [box + 1]: CSR of the rolls scoring > 0 in each box
    POS_ROLL: I64_1  # [entry]: the rolls, box by box
    SCORE_KEY: I64_2  # [roll, box]: the (box, normal score) pair's number
    KEY_ROLL: I64_1  # [key]: a roll with that box and score
    KEEP_CHILD: I64_2  # [keep, face]: the keep with one more die of that face
    SUB_INDPTR: I64_1  # [keep + 1]: CSR of the keeps one die smaller
    SUB_INDICES: I64_1  # [entry]: the sub-keeps, keep by keep
    ROLL_PROB: F64_1  # [roll]: probability of a roll of all the dice
    KEEP_OUT_INDPTR: I64_1  # [keep + 1]: CSR of the rolls a keep can become
    KEEP_OUT_ROLL: I64_1  # [entry]: those rolls
    KEEP_OUT_PROB: F64_1  # [entry]: their probabilities (the free dice thrown at once)
    KEEP_COUNTS: I64_2  # [keep, face]: dice of each face in a keep
    KEY_SORTED: I64_1  # [keep]: sorted mixed-radix keys of the keeps' face counts
    KEY_INDEX: I64_1  # [keep]: the keep of each sorted key
    n_dice: int
    n_faces: int
    rolls: int  # throws per turn
    threshold: int  # upper bonus threshold (0: no upper bonus)
    upper_bonus: int
    yahtzee_bonus: int
    yahtzee_box: int  # the Yahtzee box (bonus and Joker), -1 if none
    joker_mode: int  # JOKER_NONE, JOKER_FREE or JOKER_FORCED
    n_flags: int  # 2 when the state carries "the flag box holds a non-zero score"
    flag_box: int  # the box whose non-zero score raises the flag, -1 if none
    in_order: int  # 1: the only box a turn may fill is the first open one
    first_roll_bonus: int  # 1 when a turn may stop after its first roll for a bonus
    bank_carry: int  # 1: unused rolls are saved (else only saved rolls not drawn on stay)
    bank_cap: int  # the most rolls the bank holds, -1: no cap

    @classmethod
    def of(cls, **fields) -> GameTables:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class Layout(NamedTuple):
    U0: I64_1  # [mask]: first stored upper total (lower ones share its value)
    U1: I64_1  # [mask]: last reachable upper total
    OFFSET: I64_2  # [mask, flag + n_flags * bank]: store index of its U0[mask]; -1: none
    banks: int  # the most banks of saved rolls a layer holds (1: turns save no rolls)

    @classmethod
    def of(cls, **fields) -> Layout:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class Rows(NamedTuple):
    MASK: I64_1  # [row]
    FLAG: I64_1  # [row]
    BANK: I64_1  # [row]: saved rolls (0 without saved rolls)
    U0: I64_1  # [row]: first upper total of the run
    NU: I64_1  # [row]: totals in the run
    OUT: I64_1  # [row]: where the run's first result goes

    @classmethod
    def of(cls, **fields) -> Rows:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class Work(NamedTuple):
    """A batch's scratch tables [row, column]: rows are rolls and keeps (`solver.kernels.final`),
    columns turn-start states. KV is always there, the others only when carried (else None)."""

    KV: F64_2  # [row, column]: values (or chances, in target play)
    BOX: Any  # int64: the box chosen for each final roll (first best in card order; row
    # n_roll: the best zero move) or, at the first roll, the box stopped for (n_boxes: none)
    A1: Any  # float64: first moment of the points to come, following the choices
    A2: Any  # float64: second moment


class Next(NamedTuple):
    """What a turn's moves read of the states they lead to, by store index."""

    VAL: F64_1  # [store]: the values that make the decisions
    M1: Any  # float64 or None: first moment of the points to come from there
    M2: Any  # float64 or None: second moment


class Outcomes(NamedTuple):
    """Where one turn leads from each state of a block, under a strategy: up to
    `TARGET.shape[1]` distinct moves per state (state i: the one at Rows.OUT + j), each with
    the next state, the points gained (every bonus included), the box and the points in it,
    what it won (FLAGS: bit 0 the upper bonus, bit 1 a Yahtzee bonus, bit 2 the Joker's full
    value) and its probability; COUNT[i] are filled. Zero-length arrays: not wanted."""

    TARGET: I64_2  # [state, n]: store index of the next state
    GAIN: I64_2  # [state, n]
    BOX: I64_2  # [state, n]
    POINTS: I64_2  # [state, n]
    FLAGS: I64_2  # [state, n]
    PROB: F64_2  # [state, n]
    COUNT: I64_1  # [state]

    @classmethod
    def of(cls, **fields) -> Outcomes:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class Needs(NamedTuple):
    """Target play and other utilities (`solver.target`): a row's columns are the points still
    needed NEED0[row] .. + NU[row] - 1 at the row's one upper total U0[row]; values are the
    best expected utility of what is to come (for a target, P(final points from here >=
    need)); a need met is worth `met`, and carries the payloads `met_m1` and `met_m2`."""

    NEED0: I64_1  # [row]
    n_need: int  # needs 0 .. n_need - 1 are those of the sweep
    next_base: int  # store index of the first state of the next layer (VAL holds that layer)
    # The next layer's table holds needs next_first .. n_need - 1 per state (row-major, so a
    # state's entries start at (state - next_base) * (n_need - next_first)); the needs 1 ..
    # next_first - 1 below it, which no state of that layer is swept at, are worth 0 and carry
    # nothing (0: every need stored).
    next_first: int
    met: float  # the worth of a need met: the utility's top (1 for a target)
    met_m1: float  # what a need met carries in the first payload (0 when none is carried)
    met_m2: float  # in the second

    @classmethod
    def of(cls, **fields) -> Needs:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class States(NamedTuple):
    """Turn-start states listed one by one (a simulation's distinct states, a layer)."""

    MASK: I64_1  # [state]
    FLAG: I64_1  # [state]
    UPPER: I64_1  # [state]: capped upper total
    BANK: I64_1  # [state]: saved rolls (0 without saved rolls)

    @classmethod
    def of(cls, **fields) -> States:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


class Tally(NamedTuple):
    """What a game accumulates, one row per game."""

    MASK: I64_1  # [game]: filled boxes
    FLAG: I64_1  # [game]
    UPPER: I64_1  # [game]: upper total, uncapped
    SCORE: I64_1  # [game]: points so far, every bonus included
    BOX_SCORE: I64_2  # [game, box]
    EVENTS: I64_2  # [game, event]: see EVENT_* in solver.kernels.outcomes
    BANK: I64_1  # [game]: saved rolls (0 without saved rolls)

    @classmethod
    def of(cls, **fields) -> Tally:
        """The bundle from its fields by name, each checked (`build`)."""
        return build(cls, **fields)


def build(bundle: type, **fields):
    """The bundle from its fields by name, each checked against its declared type: an array of
    the right dtype and dimensions (converted when only the integer or float width differs),
    or a whole number. TypeError naming the field otherwise, and for a missing or unknown
    field."""
    unknown = sorted(set(fields) - set(bundle._fields))
    missing = sorted(set(bundle._fields) - set(fields))
    if unknown or missing:
        raise TypeError(f"{bundle.__name__}: unknown fields {unknown}, missing {missing}")
    for name, hint in get_type_hints(bundle, include_extras=True).items():
        value = fields[name]
        if hint is float:
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise TypeError(f"{bundle.__name__}.{name}: a number, not {value!r}")
            fields[name] = float(value)
            continue
        if hint is int:
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise TypeError(f"{bundle.__name__}.{name}: a whole number, not {value!r}")
            fields[name] = int(value)
            continue
        want = next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Array)), None)
        if want is None:
            continue  # scratch or a payload: an array of any type, or None
        if not isinstance(value, np.ndarray) or value.ndim != want.ndim:
            raise TypeError(f"{bundle.__name__}.{name}: a {want.ndim}-d "
                            f"{np.dtype(want.dtype).name} array, not {type(value).__name__} "
                            f"{getattr(value, 'shape', '')}")
        if value.dtype != want.dtype:
            if value.dtype.kind not in "iu" or np.dtype(want.dtype).kind != "i":
                raise TypeError(f"{bundle.__name__}.{name}: {np.dtype(want.dtype).name}, not "
                                f"{value.dtype}")
            fields[name] = np.ascontiguousarray(value, dtype=want.dtype)
    return bundle(**fields)
