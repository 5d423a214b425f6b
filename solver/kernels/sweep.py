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

from .bundle import Next, OutcomeScratch, Work
from .jit import kernel, prange
from .optional import carried, scratch, scratch_any, view, view3
from .turn import (
    best_subkeep,
    best_subkeep_arg,
    final_rolls,
    final_rolls_target,
    first_roll_moves,
    follow_choice,
    keep_average,
    turn_outcomes,
)


@kernel
def _expect_and_store(KV, cols, ROLL_PROB, OUT, R, rows, acc):
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
    for i in range(rows[0], rows[1]):
        out = R.OUT[i]
        for j in range(R.NU[i]):
            OUT[out + j] = acc[off + j]
        off += R.NU[i]


@kernel
def _record_stage(CH, ARG, left, n_roll, cols):
    """CH[left - 1, r] = the keep chosen from roll r with `left` re-rolls left."""
    if CH is None:
        return
    for r in range(n_roll):
        for j in range(cols):
            CH[left - 1, r, j] = ARG[r, j]


@kernel
def _outcomes(K, L, R, rows, CH, BOX, s_p, OUT, S):
    if OUT is None:
        return
    cols = 0
    for i in range(rows[0], rows[1]):
        cols += R.NU[i]
    n_rows = K.KEEP_CHILD.shape[0] + K.SCORE.shape[0]
    turn_outcomes(K, L, R, rows, CH, BOX, s_p[: n_rows * cols].reshape((n_rows, cols)), OUT, S)


@kernel
def _first_roll(K, L, V, NEEDS, R, rows, W, ARG):
    """Add stopping at the first roll to claim a first-roll bonus to the first-roll values
    (batch rows `rows` of R, scratch W with the stopping box in W.BOX, None when only values
    are wanted and ARG is None too); where that is the choice, ARG holds n_keep + the box."""
    n_keep = W.KV.shape[0]
    off = 0
    for i in range(rows[0], rows[1]):
        n0 = 0 if NEEDS is None else NEEDS.NEED0[i]
        first_roll_moves(K, L, NEEDS, V, W, (R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off), n0)
        off += R.NU[i]
    if ARG is not None:
        n_cat = K.SCORE.shape[1]
        for r in range(K.SCORE.shape[0]):
            for j in range(off):
                if W.BOX[r, j] < n_cat:
                    ARG[r, j] = n_keep + W.BOX[r, j]


@kernel
def _record_choice(CHOICE, ARG, R, rows, left, n_roll):
    if CHOICE is None:
        return
    off = 0
    for i in range(rows[0], rows[1]):
        out = R.OUT[i]
        for j in range(R.NU[i]):
            for r in range(n_roll):
                CHOICE[out + j, left - 1, r] = ARG[r, off + j]
        off += R.NU[i]


def sweep(K, L, R, batch_ptr, VAL, P, batch_cols, n_threads) -> None:
    """Solve the rows of `R` batch by batch (batch b: rows batch_ptr[b] .. batch_ptr[b+1]-1,
    at most batch_cols columns), carrying the payload P (a `Payload` bundle).

    A plain function: the kernel takes P's parts as arguments, because numba prunes the code
    of a part that is None only for an argument, and (0.68) loses stores made through a named
    tuple's field in a parallel loop. (A compiled wrapper would load a second copy of the
    whole sweep from the cache at every start.)
    """
    _sweep(K, L, R, (batch_ptr, batch_cols, n_threads), Next(VAL, P.M1, P.M2), P.STORE,
           P.CHOICE, P.OUT, P.NEEDS)


@kernel(parallel=True)
def _sweep(K, L, R, B, V, STORE, CHOICE, OUT, NEEDS):
    # Bundles are built here and handed to kernels that are called, never inlined: numba
    # (0.68) loses the stores an inlined function makes through a bundle in a parallel loop.
    batch_ptr, batch_cols, n_threads = B
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    n_batches = batch_ptr.shape[0] - 1
    # The moments follow the choices: with them, the keep and the box chosen are recorded.
    need_arg = carried(V.M1) or carried(V.M2) or CHOICE is not None or OUT is not None
    n_keys = K.SCORE.shape[1] * 2 * (K.max_points + 1)
    for t in prange(min(n_threads, max(1, n_batches))):
        s_kv = np.empty(n_keep * batch_cols)
        s_a1 = scratch(V.M1, n_keep * batch_cols, np.float64)
        s_a2 = scratch(V.M2, n_keep * batch_cols, np.float64)
        s_box = scratch_any((V.M1, V.M2, OUT), (n_roll + 1) * batch_cols, np.int32)
        s_arg = np.empty(n_keep * batch_cols if need_arg else 0, dtype=np.int32)
        s_ch = scratch(OUT, max(1, K.rolls - 1) * n_roll * batch_cols, np.int32)
        s_p = scratch(OUT, (n_keep + n_roll) * batch_cols, np.float64)
        served = K.first_roll_bonus == 1
        s_sbox = np.empty(n_roll * batch_cols if served and need_arg else 0, dtype=np.int32)
        acc = np.empty(batch_cols)
        o_scratch = OutcomeScratch(np.zeros(n_keys if OUT is not None else 0),
                                   np.empty(2 * n_roll, dtype=np.int64),
                                   np.empty(n_keys if OUT is not None else 0, dtype=np.int64),
                                   np.empty(n_keys if OUT is not None else 0, dtype=np.int64))
        for b in range(t, n_batches, n_threads):
            rows = (batch_ptr[b], batch_ptr[b + 1])
            cols = 0
            for i in range(rows[0], rows[1]):
                cols += R.NU[i]
            # Compact (keeps, cols) tables keep the working set small.
            KV = s_kv[: n_keep * cols].reshape((n_keep, cols))
            A1 = view(s_a1, n_keep, cols)
            A2 = view(s_a2, n_keep, cols)
            BOX = view(s_box, n_roll + 1, cols)
            CH = view3(s_ch, max(1, K.rolls - 1), n_roll, cols)
            W = Work(KV, BOX, A1, A2)
            off = 0
            for i in range(rows[0], rows[1]):
                run = (R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off)
                if NEEDS is None:
                    final_rolls(K, L, V, W, run)
                else:
                    final_rolls_target(K, L, NEEDS, V.VAL, run, NEEDS.NEED0[i], KV)
                off += R.NU[i]
            for left in range(1, K.rolls):
                keep_average(KV, A1, A2, cols, n_roll, K.n_faces, K.KEEP_CHILD)
                first = served and left == K.rolls - 1
                if need_arg:
                    ARG = s_arg[: n_keep * cols].reshape((n_keep, cols))
                    best_subkeep_arg(KV, ARG, cols, K.SUB_INDPTR, K.SUB_INDICES)
                    follow_choice(A1, ARG, n_roll, cols)
                    follow_choice(A2, ARG, n_roll, cols)
                    if first:
                        _first_roll(K, L, V, NEEDS, R, rows,
                                    Work(KV, s_sbox[: n_roll * cols].reshape((n_roll, cols)),
                                         A1, A2), ARG)
                    _record_choice(CHOICE, ARG, R, rows, left, n_roll)
                    _record_stage(CH, ARG, left, n_roll, cols)
                else:
                    best_subkeep(KV, cols, K.SUB_INDPTR, K.SUB_INDICES)
                    if first:
                        _first_roll(K, L, V, NEEDS, R, rows, Work(KV, None, A1, A2), None)
            _outcomes(K, L, R, rows, CH, BOX, s_p, OUT, o_scratch)
            _expect_and_store(KV, cols, K.ROLL_PROB, STORE, R, rows, acc)
            _expect_and_store(A1, cols, K.ROLL_PROB, V.M1, R, rows, acc)
            _expect_and_store(A2, cols, K.ROLL_PROB, V.M2, R, rows, acc)
