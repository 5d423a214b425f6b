"""The optional-table helpers write what they say, and nothing for a table not carried.

They stand in for `if X is None` on tables reached through a bundle, in the DP's innermost
loop. A numba bug (0.68: stores dropped around inlined overloads) once made a final roll's
value never written; this checks the writes through bundles, in a loop, with and without
reference counting, as the kernels use them.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from yz.solver.kernels.bundle import Next, Work
from yz.solver.kernels.optional import copy_row, fill_row, prefers, put_if, read


def _offer_all(W, V, n):
    """Offer move c (points c, next state c) to column c, for c < n; then copy row 0 to 1."""
    fill_row(W.KV, 0, 0, n, -1.0e300)
    fill_row(W.BOX, 0, 0, n, 99)
    for c in range(n):
        for col in range(n):
            v = V.VAL[c]
            val = c + v
            cur = W.KV[0, col]
            take = prefers(W.BOX, 0, col, val, cur, c)
            W.KV[0, col] = val if take else cur
            put_if(W.BOX, 0, col, take, c)
            put_if(W.A1, 0, col, take, c + read(V.M1, c, v))
    copy_row(W.KV, 1, 0, 0, n)
    copy_row(W.BOX, 1, 0, 0, n)
    copy_row(W.A1, 1, 0, 0, n)


@pytest.mark.parametrize("nrt", [True, False])
@pytest.mark.parametrize("carried", [True, False])
def test_helpers_write_through_bundles(nrt, carried):
    kernel = numba.njit(_nrt=nrt)(_offer_all)
    n = 4
    KV = np.zeros((2, n))
    VAL = np.array([5.0, 0.0, 3.0, 2.0])  # move c is worth c + VAL[c]: 5, 1, 5, 5
    if carried:
        BOX = np.zeros((2, n), dtype=np.int32)
        A1 = np.zeros((2, n))
        M1 = VAL * 10
        kernel(Work(KV, BOX, A1, None), Next(VAL, M1, None), n)
        assert (BOX == 0).all()  # the first of the equal best moves
        assert (A1 == 50.0).all()  # its first moment: 0 + M1[0]
    else:
        kernel(Work(KV, None, None, None), Next(VAL, None, None), n)
    assert (KV == 5.0).all()


_write_block = numba.njit(_nrt=False)(_offer_all)


@numba.njit(parallel=True)
def _blocks(KV, BOX, A1, VAL, M1, n):
    """Each parallel iteration builds its own bundles over a block of rows, as the DP driver
    does, and hands them to a kernel that is called (never inlined)."""
    for b in numba.prange(KV.shape[0] // 2):
        W = Work(KV[2 * b: 2 * b + 2], BOX[2 * b: 2 * b + 2], A1[2 * b: 2 * b + 2], None)
        _write_block(W, Next(VAL, M1, None), n)


def test_bundles_built_in_a_parallel_loop_reach_the_tables():
    n = 4
    KV = np.zeros((8, n))
    BOX = np.zeros((8, n), dtype=np.int32)
    A1 = np.zeros((8, n))
    VAL = np.array([0.0, 9.0, 3.0, 2.0])  # move 1 is best: 1 + 9
    _blocks(KV, BOX, A1, VAL, VAL * 10, n)
    assert (KV == 10.0).all() and (BOX == 1).all() and (A1 == 91.0).all()
