"""The one DP driver: a layer of turn-start states, batch by batch, in parallel.

A batch puts the upper-total runs of several states side by side in one scratch table, so the
reroll sweeps (the same for every state) run once over up to `batch_cols` columns. Each thread
takes every n-th batch and reuses its scratch. What the sweep carries and writes depends on
which arrays its `Payload` bundle P holds (the others are None; numba compiles each
combination separately):

    STORE        write the layer's values (the DP: STORE is VAL itself)
    M1           write the first moment of the points to come under VAL's play (when VAL is
                 not the strategy's own value: greedy and heuristic play)
    M2           write the second moment (for the SD)
    CHOICE       write the keep chosen from every roll with L re-rolls left:
                 CHOICE[out + j, L - 1, r]
    OUT          write where a turn from each state leads (an `Outcomes` bundle): the dice
                 followed forward through the keeps chosen, then the box of each final roll
    NEEDS        target play (a `Needs` bundle): columns are points still needed, values the
                 best chance of reaching them; VAL holds the next layer's, STORE gets these

VAL is always read: it is the table whose values make the decisions (the solver's own values
for optimal play). See `solver.dp` for the recursion and `solver.kernels.turn` for one turn.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .jit import kernel, prange
from .turn import (
    average_if,
    best_subkeep,
    best_subkeep_arg,
    final_rolls,
    final_rolls_target,
    first_roll_moves,
    follow_choice,
    keep_average,
    turn_outcomes,
)


def _scratch(like, n, dtype):
    """A scratch table of n entries when `like` is carried, else None (numba only)."""


@overload(_scratch)
def _scratch_numba(like, n, dtype):
    # Chosen by type when compiling, so a carried table is a plain array, never an Optional.
    if isinstance(like, types.NoneType):
        return lambda like, n, dtype: None
    return lambda like, n, dtype: np.empty(n, dtype=dtype)


def _view(scratch, rows, cols):
    """The first rows x cols entries of a scratch table as a 2-D table (numba only)."""


@overload(_view)
def _view_numba(scratch, rows, cols):
    if isinstance(scratch, types.NoneType):
        return lambda scratch, rows, cols: None
    return lambda scratch, rows, cols: scratch[: rows * cols].reshape((rows, cols))


def _view3(scratch, stages, rows, cols):
    """The first stages x rows x cols entries of a scratch table as a 3-D table."""


@overload(_view3)
def _view3_numba(scratch, stages, rows, cols):
    if isinstance(scratch, types.NoneType):
        return lambda scratch, stages, rows, cols: None
    return lambda scratch, stages, rows, cols: \
        scratch[: stages * rows * cols].reshape((stages, rows, cols))


@kernel
def _expect_and_store(KV, cols, ROLL_PROB, OUT, R, b0, b1, acc):
    """OUT[R.OUT[i] + j] = sum over rolls of P(r) KV[r, column of (row i, total j)]."""
    if OUT is None:
        return
    for j in range(cols):
        acc[j] = 0.0
    for r in range(ROLL_PROB.shape[0]):
        p = ROLL_PROB[r]
        for j in range(cols):
            acc[j] += p * KV[r, j]
    off = 0
    for i in range(b0, b1):
        out = R.OUT[i]
        for j in range(R.NU[i]):
            OUT[out + j] = acc[off + j]
        off += R.NU[i]


def _either(a, b, n, dtype):
    """A scratch table of n entries when `a` or `b` is carried, else None (numba only)."""


@overload(_either)
def _either_numba(a, b, n, dtype):
    if isinstance(a, types.NoneType) and isinstance(b, types.NoneType):
        return lambda a, b, n, dtype: None
    return lambda a, b, n, dtype: np.empty(n, dtype=dtype)


@kernel
def _record_stage(CH, ARG, left, n_roll, cols):
    """CH[left - 1, r] = the keep chosen from roll r with `left` re-rolls left."""
    if CH is None:
        return
    for r in range(n_roll):
        for j in range(cols):
            CH[left - 1, r, j] = ARG[r, j]


@kernel
def _outcomes(K, L, R, b0, b1, CH, BOX, s_p, n_keep, cols, OUT, acc, touched, target_of,
              gain_of):
    if OUT is None:
        return
    n_rows = n_keep + K.SCORE.shape[0]
    turn_outcomes(K, L, R, b0, b1, CH, BOX, s_p[: n_rows * cols].reshape((n_rows, cols)), OUT,
                  acc, touched, target_of, gain_of)


@kernel
def _first_roll(K, L, VAL, M1, M2, NEEDS, R, b0, b1, KV, SBOX, A1, A2, ARG):
    """Add stopping at the first roll to claim a first-roll bonus to the first-roll values;
    where that is the choice, ARG holds n_keep + the box."""
    n_keep = KV.shape[0]
    off = 0
    for i in range(b0, b1):
        n0 = 0 if NEEDS is None else NEEDS.NEED0[i]
        first_roll_moves(K, L, NEEDS, VAL, M1, M2, R.MASK[i], R.FLAG[i], R.U0[i], n0, R.NU[i],
                         off, KV, SBOX, A1, A2)
        off += R.NU[i]
    if ARG is not None:
        n_cat = K.SCORE.shape[1]
        for r in range(K.SCORE.shape[0]):
            for j in range(off):
                if SBOX[r, j] < n_cat:
                    ARG[r, j] = n_keep + SBOX[r, j]


@kernel
def _record_choice(CHOICE, ARG, R, b0, b1, left, n_roll):
    if CHOICE is None:
        return
    off = 0
    for i in range(b0, b1):
        out = R.OUT[i]
        for j in range(R.NU[i]):
            for r in range(n_roll):
                CHOICE[out + j, left - 1, r] = ARG[r, off + j]
        off += R.NU[i]


@kernel
def sweep(K, L, R, batch_ptr, VAL, P, batch_cols, n_threads):
    """Solve the rows of `R` batch by batch (batch b: rows batch_ptr[b] .. batch_ptr[b+1]-1),
    carrying the payload P (a `Payload` bundle)."""
    # The parts as arguments: numba prunes the code of a part that is None only for an
    # argument, and (0.68) loses stores made through a named tuple's field in a parallel loop.
    _sweep(K, L, R, batch_ptr, VAL, P.STORE, P.M1, P.M2, P.CHOICE, P.OUT, P.NEEDS, batch_cols,
           n_threads)


@kernel(parallel=True)
def _sweep(K, L, R, batch_ptr, VAL, STORE, M1, M2, CHOICE, OUT, NEEDS, batch_cols, n_threads):
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    n_batches = batch_ptr.shape[0] - 1
    need_arg = M2 is not None or CHOICE is not None or OUT is not None
    n_keys = K.SCORE.shape[1] * 2 * (K.max_points + 1)
    for t in prange(min(n_threads, max(1, n_batches))):
        s_kv = np.empty(n_keep * batch_cols)
        s_a1 = _scratch(M1, n_keep * batch_cols, np.float64)
        s_a2 = _scratch(M2, n_keep * batch_cols, np.float64)
        s_box = _either(M2, OUT, (n_roll + 1) * batch_cols, np.int32)
        s_arg = np.empty(n_keep * batch_cols if need_arg else 0, dtype=np.int32)
        s_ch = _scratch(OUT, max(1, K.rolls - 1) * n_roll * batch_cols, np.int32)
        s_p = _scratch(OUT, (n_keep + n_roll) * batch_cols, np.float64)
        served = K.first_roll_bonus == 1
        s_sbox = np.empty(n_roll * batch_cols if served and need_arg else 0, dtype=np.int32)
        acc = np.empty(batch_cols)
        o_acc = np.zeros(n_keys if OUT is not None else 0)
        o_touched = np.empty(2 * n_roll, dtype=np.int64)
        o_target = np.empty(n_keys if OUT is not None else 0, dtype=np.int64)
        o_gain = np.empty(n_keys if OUT is not None else 0, dtype=np.int64)
        for b in range(t, n_batches, n_threads):
            b0 = batch_ptr[b]
            b1 = batch_ptr[b + 1]
            cols = 0
            for i in range(b0, b1):
                cols += R.NU[i]
            # Compact (keeps, cols) tables keep the working set small.
            KV = s_kv[: n_keep * cols].reshape((n_keep, cols))
            A1 = _view(s_a1, n_keep, cols)
            A2 = _view(s_a2, n_keep, cols)
            BOX = _view(s_box, n_roll + 1, cols)
            CH = _view3(s_ch, max(1, K.rolls - 1), n_roll, cols)
            off = 0
            for i in range(b0, b1):
                if NEEDS is None:
                    final_rolls(K, L, VAL, M1, M2, R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off,
                                KV, BOX, A1, A2)
                else:
                    final_rolls_target(K, L, NEEDS, VAL, R.MASK[i], R.FLAG[i], R.U0[i],
                                       NEEDS.NEED0[i], R.NU[i], off, KV)
                off += R.NU[i]
            for left in range(1, K.rolls):
                keep_average(KV, cols, n_roll, K.n_faces, K.KEEP_CHILD)
                average_if(A1, cols, n_roll, K.n_faces, K.KEEP_CHILD)
                average_if(A2, cols, n_roll, K.n_faces, K.KEEP_CHILD)
                first = served and left == K.rolls - 1
                if need_arg:
                    ARG = s_arg[: n_keep * cols].reshape((n_keep, cols))
                    best_subkeep_arg(KV, ARG, cols, K.SUB_INDPTR, K.SUB_INDICES)
                    follow_choice(A1, ARG, n_roll, cols)
                    follow_choice(A2, ARG, n_roll, cols)
                    if first:
                        _first_roll(K, L, VAL, M1, M2, NEEDS, R, b0, b1, KV,
                                    s_sbox[: n_roll * cols].reshape((n_roll, cols)), A1, A2, ARG)
                    _record_choice(CHOICE, ARG, R, b0, b1, left, n_roll)
                    _record_stage(CH, ARG, left, n_roll, cols)
                else:
                    best_subkeep(KV, cols, K.SUB_INDPTR, K.SUB_INDICES)
                    if first:
                        _first_roll(K, L, VAL, M1, M2, NEEDS, R, b0, b1, KV, None, A1, A2, None)
            _outcomes(K, L, R, b0, b1, CH, BOX, s_p, n_keep, cols, OUT, o_acc, o_touched,
                      o_target, o_gain)
            _expect_and_store(KV, cols, K.ROLL_PROB, STORE, R, b0, b1, acc)
            _expect_and_store(A1, cols, K.ROLL_PROB, M1, R, b0, b1, acc)
            _expect_and_store(A2, cols, K.ROLL_PROB, M2, R, b0, b1, acc)
