"""Tables a kernel may or may not carry (an array, or None), chosen by type when compiling.

numba drops the code of a table that is None only when the test `X is None` is on an argument
of the function being compiled. Tables reached through a bundle (`Work.BOX`, `Next.M1`) are
not arguments, so their reads and writes go through these helpers instead: each compiles to
the plain operation for an array and to nothing (or a fallback) for None, and costs nothing at
run time either way (LLVM inlines them). All are numba-only.

The ones used in inner loops are compiled without reference counting, like their callers
(see `solver.kernels.final`), and index columns with unsigned integers (see
`solver.kernels.jit.unsigned`). They must not be declared `inline="always"`: numba (0.68) then
drops stores that the caller makes after inlining them (seen: a final roll's value never
written).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from ..kernel_cache import DEBUG_KERNELS
from .jit import better, unsigned

# As the kernels that call them: no reference counting, and bounds checks in debug mode.
INNER = {"_nrt": False, **({"boundscheck": True} if DEBUG_KERNELS else {})}


def _absent(table) -> bool:
    return isinstance(table, types.NoneType)


def scratch(like, n, dtype):
    """A scratch table of n entries when `like` is carried, else None."""


@overload(scratch)
def _scratch(like, n, dtype):
    if _absent(like):
        return lambda like, n, dtype: None
    return lambda like, n, dtype: np.empty(n, dtype=dtype)


def scratch_any(tables, n, dtype):
    """A scratch table of n entries when any of the tuple `tables` is carried, else None."""


@overload(scratch_any)
def _scratch_any(tables, n, dtype):
    if all(_absent(table) for table in tables):
        return lambda tables, n, dtype: None
    return lambda tables, n, dtype: np.empty(n, dtype=dtype)


def present(table):
    """Whether a table that may be absent is there and not empty (an `Outcomes` bundle: its
    COUNT): an argument of zero length means "not wanted this time" without a new compile."""


@overload(present)
def _present(table):
    if _absent(table):
        return lambda table: False
    if isinstance(table, types.Array):
        return lambda table: table.shape[0] > 0
    return lambda table: table.COUNT.shape[0] > 0


def carried(table):
    """Whether the table is carried (a constant when compiling)."""


@overload(carried)
def _carried(table):
    if _absent(table):
        return lambda table: False
    return lambda table: True


def view(table, rows, cols):
    """The first rows x cols entries of a scratch table as a 2-D table."""


@overload(view)
def _view(table, rows, cols):
    if _absent(table):
        return lambda table, rows, cols: None
    return lambda table, rows, cols: table[: rows * cols].reshape((rows, cols))


def view3(table, stages, rows, cols):
    """The first stages x rows x cols entries of a scratch table as a 3-D table."""


@overload(view3)
def _view3(table, stages, rows, cols):
    if _absent(table):
        return lambda table, stages, rows, cols: None
    return lambda table, stages, rows, cols: \
        table[: stages * rows * cols].reshape((stages, rows, cols))


def read(table, index, fallback):
    """table[index], or `fallback` when the table is not carried."""


@overload(read, jit_options=INNER)
def _read(table, index, fallback):
    if _absent(table):
        return lambda table, index, fallback: fallback
    return lambda table, index, fallback: table[index]


def prefers(box, r, col, value, current, c):
    """Whether a move into box c worth `value` replaces the choice recorded at (r, col), worth
    `current`: it is better, or (when choices are recorded in `box`) as good and of a lower
    rank (`ties.better`; a box's rank is its place on the card). Without `box` only a better
    value counts, which gives the same values.

    As good and into the same box it replaces the choice too: a row offered a box twice is a
    final roll given the best zero move first and then its own positive score in that box
    (`final.final_rolls`' shortcut), and a roll that scores in a box cannot score 0 there. The
    box chosen is the same either way, but what the choice carries (the moments, the chances
    of a win or a draw) must be the move the roll makes."""


@overload(prefers, jit_options=INNER)
def _prefers(box, r, col, value, current, c):
    if _absent(box):
        return lambda box, r, col, value, current, c: value > current
    return lambda box, r, col, value, current, c: better(value, c, current, box[r, col]) | (
        (value == current) & (c == box[r, col]))


def put_if(table, r, col, take, value):
    """table[r, col] = value where `take`, when the table is carried."""


@overload(put_if, jit_options=INNER)
def _put_if(table, r, col, take, value):
    if _absent(table):
        return lambda table, r, col, take, value: None

    def put(table, r, col, take, value):
        table[r, col] = value if take else table[r, col]

    return put


def fill_row(table, r, off, n, value):
    """table[r, off .. off + n - 1] = value, when the table is carried."""


@overload(fill_row, jit_options=INNER)
def _fill_row(table, r, off, n, value):
    if _absent(table):
        return lambda table, r, off, n, value: None

    def fill(table, r, off, n, value):
        for j in range(n):
            table[r, unsigned(off + j)] = value

    return fill


def copy_row(table, dst, src, off, n):
    """table[dst, off .. off + n - 1] = table[src, same columns], when the table is carried."""


@overload(copy_row, jit_options=INNER)
def _copy_row(table, dst, src, off, n):
    if _absent(table):
        return lambda table, dst, src, off, n: None

    def copy(table, dst, src, off, n):
        for j in range(n):
            table[dst, unsigned(off + j)] = table[src, unsigned(off + j)]

    return copy


def take_where(dst, src, r, cols, take):
    """dst[r, j] = src[r, j] for the columns j < cols where take[r, j], when both are carried."""


@overload(take_where, jit_options=INNER)
def _take_where(dst, src, r, cols, take):
    if _absent(dst) or _absent(src):
        return lambda dst, src, r, cols, take: None

    def copy(dst, src, r, cols, take):
        for j in range(cols):
            if take[r, j]:
                dst[r, j] = src[r, j]

    return copy


def copy_rows(dst, src, rows, cols):
    """dst[:rows, :cols] = src[:rows, :cols], when both are carried."""


@overload(copy_rows, jit_options=INNER)
def _copy_rows(dst, src, rows, cols):
    if _absent(dst) or _absent(src):
        return lambda dst, src, rows, cols: None

    def copy(dst, src, rows, cols):
        for r in range(rows):
            for j in range(cols):
                dst[r, j] = src[r, j]
    return copy
