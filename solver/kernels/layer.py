"""The one driver of the backward induction: rows of turn-start states, batch by batch.

A batch puts the upper-total runs of several states side by side in one scratch table, so the
re-roll sweeps (the same for every state) run once over up to `cols` columns. The batches of
a call are shared among threads: `run_rows` (plain Python) starts `threads` Python threads,
thread t taking batches t, t + threads, ...; the kernels release the GIL, so the threads run
on separate cores, and each writes only its own batches' results. (Threads started from Python
rather than numba's `prange`: a parallel kernel takes numba several times longer to compile,
and compiling is what a new installation waits for.)

Two kernels, by what they must remember of a turn:

    _value_batches      values only: the DP (STORE), or target play (NEEDS: columns are points
                        still needed, values the best chance of reaching them)
    _decision_batches   the choices too: the keep chosen from every roll and the box of every
                        final roll, and with them (written to OUT_V, a `Next` of outputs)
                          M1, M2      the moments of the points to come under VAL's play
                                      (with NEEDS: the payloads the choices carry)
                          VAL         the values (the DP with the SD; empty: not wanted)
                          CHOICE      the choices: CHOICE[i, 0, r] the box for final roll r,
                                      CHOICE[i, L, r] the keep from roll r with L re-rolls
                                      left (n_keep + a box: stop there for a first-roll bonus)
                          OUT         where a turn leads (an `Outcomes` bundle)
                        CHOICE and OUT are None, or arrays (of zero length when not wanted, so
                        following a strategy compiles once for games and forward passes).

Each has a twin for games with saved rolls (`_banked_value_batches`, `_banked_decision_batches`,
chosen by `values` and `decide`): their stages are most of what compiling a driver costs, and a
game without saved rolls never needs them.

Only the drivers allocate (their scratch); the kernels they call are compiled without
reference counting (all but `_outcomes`, which takes a view once a batch), as
`solver.kernels.final` explains: a field of a bundle read in a loop would otherwise count a
reference at each read (that made target play 3x and the distribution of
games with saved rolls 14x slower).

VAL is always read: it is the table whose values make the decisions. See `solver.dp` for the
recursion, and `solver.kernels.final` and `keeps` for one turn.
"""

from __future__ import annotations

import threading

import numpy as np

from .bundle import Next, Work
from .final import final_rolls, final_rolls_target, first_roll_moves
from .jit import ZERO, kernel
from .keeps import best_subkeep, best_subkeep_arg, follow_choice, keep_average
from .optional import copy_rows, present, scratch, take_where, view
from .outcomes import turn_outcomes
from .state import bank_after, column


def run_threads(kernel_fn, calls: list[tuple]) -> None:
    """Run `kernel_fn(*args)` for every `args` in `calls`: the first on this thread, the others
    on the threads of a pool kept for the process. The kernels release the GIL, so the threads
    run at once; each call must write only its own share of the results. (Two callers at once
    share the pool: the second one's calls wait their turn, none is lost.)"""
    pool = _pool(len(calls) - 1)
    jobs = [pool.submit(kernel_fn, *args) for args in calls[1:]]
    try:
        kernel_fn(*calls[0])
    finally:
        for job in jobs:
            job.result()


_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int):
    """A pool of `workers` threads kept for the process (starting threads for every layer of a
    small game cost a few percent of its DP); none for no workers."""
    from concurrent.futures import ThreadPoolExecutor

    if not workers:
        return None
    with _POOLS_LOCK:
        if workers not in _POOLS:
            _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="yz-kernel")
        return _POOLS[workers]


def shares(threads: int, items: int) -> list[tuple]:
    """(first, step) for each of min(threads, items) threads: thread t takes items t, t + step,
    ... (interleaved, so big and small items spread evenly)."""
    step = max(1, min(threads, items))
    return [(np.int64(t), np.int64(step)) for t in range(step)]


def run_rows(kernel_fn, K, L, R, batch_ptr, cols: int, threads: int, *args,
             shared: bool = False) -> None:
    """Run `kernel_fn(K, L, R, (batch_ptr, cols, first, step, shared), *args)` on threads,
    each taking its share of the batches (`shared`: see `bank_span`)."""
    run_threads(kernel_fn, [(K, L, R, (batch_ptr, np.int64(cols), first, step, shared), *args)
                            for first, step in shares(threads, len(batch_ptr) - 1)])


@kernel(_nrt=False)
def _batch_columns(R, b0, b1):
    cols = ZERO
    for i in range(b0, b1):
        cols += R.NU[i]
    return cols


@kernel(_nrt=False)
def _expect_and_store(KV, cols, ROLL_PROB, OUT, R, rows, acc, shift):
    """OUT[R.OUT[i + shift] + j] = sum over rolls of P(r) KV[r, column of (row i, total j)]
    (none when OUT is None or empty); `shift` moves to the same states in another bank."""
    if OUT is None:
        return
    if OUT.shape[0] == 0:
        return
    for j in range(cols):
        acc[j] = 0.0
    for r in range(ROLL_PROB.shape[0]):
        p = ROLL_PROB[r]
        for j in range(cols):
            acc[j] += p * KV[r, j]
    off = ZERO
    for i in range(rows[0], rows[1]):
        out = R.OUT[i + shift]
        for j in range(R.NU[i]):
            OUT[out + j] = acc[off + j]
        off += R.NU[i]


@kernel(_nrt=False)
def _first_roll(K, L, V, NEEDS, R, rows, W, ARG):
    """Add stopping at the first roll to claim a first-roll bonus to the first-roll values
    (batch rows `rows` of R, scratch W with the stopping box in W.BOX, None when only values
    are wanted and ARG is None too); where that is the choice, ARG holds n_keep + the box."""
    n_keep = W.KV.shape[0]
    off = ZERO
    for i in range(rows[0], rows[1]):
        n0 = ZERO if NEEDS is None else NEEDS.NEED0[i]
        first_roll_moves(K, L, NEEDS, V, W, (R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off), n0,
                         ZERO)
        off += R.NU[i]
    if ARG is not None:
        n_cat = K.SCORE.shape[1]
        for r in range(K.SCORE.shape[0]):
            for j in range(off):
                if W.BOX[r, j] < n_cat:
                    ARG[r, j] = n_keep + W.BOX[r, j]


@kernel(_nrt=False)
def _stop_values(K, L, V, NEEDS, R, rows, S, F, bank, left, first):
    """S.KV[r, column]: the value of filling a box at once with roll r, keeping the `left`
    re-rolls unused (the bank that leaves: `bank_after`), in a batch whose turns began with
    `bank` saved rolls; `first`: these are the turn's first rolls (a first-roll bonus, offered
    through F: S's tables, with a BOX of its own when choices are recorded). With NEEDS
    (target play) the columns are needs and the values chances. Returns the batch's column
    count."""
    gcol = column(K, ZERO, bank_after(K, bank, left))
    off = ZERO
    for i in range(rows[0], rows[1]):
        run = (R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off)
        n0 = ZERO
        if NEEDS is None:
            final_rolls(K, L, V, S, run, gcol)
        else:
            n0 = NEEDS.NEED0[i]
            final_rolls_target(K, L, NEEDS, V, S, run, n0, gcol)
        if first and K.first_roll_bonus == 1:
            first_roll_moves(K, L, NEEDS, V, F, run, n0, gcol)
        off += R.NU[i]
    return off


@kernel(_nrt=False)
def _stop_now(K, L, V, NEEDS, R, rows, S, KV, bank, left, first):
    """With saved rolls: add filling a box at once (`_stop_values`) to the roll values
    KV[:n_roll] of a batch. S is scratch (a `Work` of n_roll + 1 rows)."""
    off = _stop_values(K, L, V, NEEDS, R, rows, S, S, bank, left, first)
    for r in range(K.SCORE.shape[0]):
        for j in range(off):
            KV[r, j] = max(KV[r, j], S.KV[r, j])


@kernel(_nrt=False)
def bank_span(K, R, rows, shared):
    """The banks a batch's turns begin with, (lo, hi), and how many rows apart the layer's
    banks hold the same states. With saved rolls that are carried (`bank_after` is then the
    same for every bank), the roll values of a stage with `left` re-rolls left do not depend on
    the bank the turn began with: when R is a whole layer (`shared`, see `layer_batches`), one
    sweep of the stages serves every bank of the layer, and a batch is rows of bank 0 standing
    for all of them (rows i + b * per_bank: the layer stores its banks alike, see
    `solver.state`). Otherwise a batch holds one bank. (Only the drivers of games with saved
    rolls call it.)"""
    if shared and K.bank_carry == 1:
        top = R.BANK[R.BANK.shape[0] - 1]
        return ZERO, top, R.BANK.shape[0] // (top + 1)
    bank = R.BANK[rows[0]]
    return bank, bank, ZERO


@kernel(_nrt=False)
def _banked_stages(K, L, V, NEEDS, R, rows, shared, W, S, F, C, ARG, TAKE, cols, OUT_V, acc,
                   CHOICE):
    """The stages of a batch with saved rolls, after the final rolls are in W: with `left`
    re-rolls left, the best keep (`keep_average`, `best_subkeep`, the moments following)
    competes with filling a box at once (`_stop_now` / `_stop_choices`); where a bank's turns
    begin (left = rolls - 1 + bank) its turn-start values are stored, with the first-roll
    bonus offered to that roll only (on a copy C when later stages go on from W). S and F are
    the stops' scratch (see `_stop_choices`). ARG is None for values only; else the moments
    W.A1/A2 follow, stored to V.M1/V.M2, and stopping wins a tie; CHOICE (one bank a batch)
    records the choices: CHOICE[i, 0, r] the box, CHOICE[i, L, r] the keep or n_keep + the
    box filled at once. With NEEDS (target play, values only) columns are needs (`Needs`)."""
    n_roll = K.SCORE.shape[0]
    lo, hi, per_bank = bank_span(K, R, rows, shared)
    top = K.rolls - 1 + hi
    for left in range(top + 1):
        if left > 0:
            keep_average(W.KV, W.A1, W.A2, cols, n_roll, K.n_faces, K.KEEP_CHILD)
            if ARG is None:
                best_subkeep(W.KV, cols, K.SUB_INDPTR, K.SUB_INDICES)
            else:
                best_subkeep_arg(W.KV, ARG, cols, K.SUB_INDPTR, K.SUB_INDICES)
                follow_choice(W.A1, ARG, n_roll, cols)
                follow_choice(W.A2, ARG, n_roll, cols)
        bank = left - (K.rolls - 1)  # the bank whose turns begin with this roll, if >= lo
        begins = bank >= lo
        firsts = begins and K.first_roll_bonus == 1
        out = W
        if firsts and left < top:
            copy_rows(C.KV, W.KV, n_roll, cols)
            copy_rows(C.A1, W.A1, n_roll, cols)
            copy_rows(C.A2, W.A2, n_roll, cols)
            _stop(K, L, V, NEEDS, R, rows, S, F, C, ARG, TAKE, lo, left, True)
            out = C
        if left > 0 or (firsts and left == top):
            _stop(K, L, V, NEEDS, R, rows, S, F, W, ARG, TAKE, lo, left, firsts and left == top)
        if left == 0:
            _record(CHOICE, ZERO, W.BOX, R, rows, n_roll)
        else:
            _record(CHOICE, left, ARG, R, rows, n_roll)
        if begins:
            shift = (bank - lo) * per_bank
            _expect_and_store(out.KV, cols, K.ROLL_PROB, OUT_V.VAL, R, rows, acc, shift)
            _expect_and_store(out.A1, cols, K.ROLL_PROB, OUT_V.M1, R, rows, acc, shift)
            _expect_and_store(out.A2, cols, K.ROLL_PROB, OUT_V.M2, R, rows, acc, shift)


@kernel(_nrt=False)
def _stop(K, L, V, NEEDS, R, rows, S, F, W, ARG, TAKE, bank, left, first):
    """`_stop_now` (values only: ARG is None) or `_stop_choices` (NEEDS is then None)."""
    if ARG is None:
        _stop_now(K, L, V, NEEDS, R, rows, S, W.KV, bank, left, first)
    else:
        _stop_choices(K, L, V, NEEDS, R, rows, S, F, W, ARG, TAKE, bank, left, first)


@kernel(nogil=True)
def _value_batches(K, L, R, B, VAL, STORE, NEEDS):
    """Values only (see the module docstring), in a game without saved rolls; B = (batch_ptr,
    cols, first batch, step, shared)."""
    batch_ptr, max_cols, first_batch, step, _shared = B
    n_keep = K.KEEP_CHILD.shape[0]
    n_roll = K.SCORE.shape[0]
    s_kv = np.empty(n_keep * max_cols)
    acc = np.empty(max_cols)
    V = Next(VAL, None, None)
    for b in range(first_batch, batch_ptr.shape[0] - 1, step):
        rows = (batch_ptr[b], batch_ptr[b + 1])
        cols = _batch_columns(R, rows[0], rows[1])
        KV = s_kv[: n_keep * cols].reshape((n_keep, cols))
        W = Work(KV, None, None, None)
        _final_values(K, L, V, NEEDS, R, rows, W)
        for _left in range(1, K.rolls):
            keep_average(KV, None, None, cols, n_roll, K.n_faces, K.KEEP_CHILD)
            best_subkeep(KV, cols, K.SUB_INDPTR, K.SUB_INDICES)
        if K.first_roll_bonus == 1 and K.rolls > 1:
            _first_roll(K, L, V, NEEDS, R, rows, W, None)
        _expect_and_store(KV, cols, K.ROLL_PROB, STORE, R, rows, acc, ZERO)


@kernel(nogil=True)
def _banked_value_batches(K, L, R, B, VAL, STORE, NEEDS):
    """`_value_batches` for a game with saved rolls (see `bank_span` and `_banked_stages`): a
    kernel of its own, so that a game without them never waits for their stages to compile."""
    batch_ptr, max_cols, first_batch, step, shared = B
    n_keep = K.KEEP_CHILD.shape[0]
    nb = K.SCORE.shape[0] + 1
    s_kv = np.empty(n_keep * max_cols)
    s_stop = np.empty(nb * max_cols)
    nc = nb if K.first_roll_bonus == 1 else 0
    s_copy = np.empty(nc * max_cols)
    acc = np.empty(max_cols)
    V = Next(VAL, None, None)
    for b in range(first_batch, batch_ptr.shape[0] - 1, step):
        rows = (batch_ptr[b], batch_ptr[b + 1])
        cols = _batch_columns(R, rows[0], rows[1])
        W = Work(s_kv[: n_keep * cols].reshape((n_keep, cols)), None, None, None)
        _final_values(K, L, V, NEEDS, R, rows, W)
        S = Work(s_stop[: nb * cols].reshape((nb, cols)), None, None, None)
        C = Work(s_copy[: nc * cols].reshape((nc, cols)), None, None, None)
        _banked_stages(K, L, V, NEEDS, R, rows, shared, W, S, S, C, None, None, cols,
                       Next(STORE, None, None),
                       acc, None)


@kernel(_nrt=False)
def _final_values(K, L, V, NEEDS, R, rows, W):
    """The final rolls' values of a batch's rows, side by side in W.KV (`final_rolls`, or
    `final_rolls_target` with NEEDS)."""
    gcol = column(K, ZERO, bank_after(K, R.BANK[rows[0]], ZERO))
    off = ZERO
    for i in range(rows[0], rows[1]):
        run = (R.MASK[i], R.FLAG[i], R.U0[i], R.NU[i], off)
        if NEEDS is None:
            final_rolls(K, L, V, W, run, gcol)
        else:
            final_rolls_target(K, L, NEEDS, V, W, run, NEEDS.NEED0[i], gcol)
        off += R.NU[i]


@kernel(_nrt=False)
def _record(CHOICE, stage, TABLE, R, rows, n_roll):
    """CHOICE[out + j, stage, r] = TABLE[r, column of (row i, total j)]."""
    if CHOICE is None:  # (a separate test: numba drops the code below only for this one)
        return
    if CHOICE.shape[0] == 0:
        return
    off = ZERO
    for i in range(rows[0], rows[1]):
        out = R.OUT[i]
        for j in range(R.NU[i]):
            for r in range(n_roll):
                CHOICE[out + j, stage, r] = TABLE[r, off + j]
        off += R.NU[i]


@kernel(_nrt=False)
def _keep_stage(CH, ARG, left, n_roll, cols, OUT):
    """CH[left - 1, r] = the keep chosen from roll r with `left` re-rolls left (what the
    outcomes follow), when outcomes are wanted."""
    if OUT is None:
        return
    if OUT.COUNT.shape[0] == 0:
        return
    for r in range(n_roll):
        for j in range(cols):
            CH[left - 1, r, j] = ARG[r, j]


@kernel
def _outcomes(K, L, R, rows, CH, BOX, s_p, OUT, S):
    if OUT is None:
        return
    if OUT.COUNT.shape[0] == 0:
        return
    cols = _batch_columns(R, rows[0], rows[1])
    n_rows = K.KEEP_CHILD.shape[0] + K.SCORE.shape[0]
    turn_outcomes(K, L, R, rows, CH, BOX, s_p[: n_rows * cols].reshape((cols, n_rows)), OUT, S)


@kernel(_nrt=False)
def _stop_choices(K, L, V, NEEDS, R, rows, S, F, W, ARG, TAKE, bank, left, first):
    """`_stop_now` for the decision kernel: with saved rolls, filling a box at once with
    `left` re-rolls unused replaces the keep chosen from a roll where it is worth as much or
    more (stopping wins a tie); the moments follow, and ARG records n_keep + the box (with
    none left, W.BOX records the box). S and F are scratch `Work`s of n_roll + 1 rows (F:
    S's tables with its own BOX, for the first-roll bonus moves); TAKE is boolean scratch."""
    n_roll, n_cat = K.SCORE.shape
    n_keep = W.KV.shape[0]
    off = _stop_values(K, L, V, NEEDS, R, rows, S, F, bank, left, first)
    for r in range(n_roll):
        for j in range(off):
            if first and K.first_roll_bonus == 1 and F.BOX[r, j] < n_cat:
                S.BOX[r, j] = F.BOX[r, j]
            TAKE[r, j] = S.KV[r, j] >= W.KV[r, j]
            if TAKE[r, j]:
                W.KV[r, j] = S.KV[r, j]
                if left == 0:
                    W.BOX[r, j] = S.BOX[r, j]
                else:
                    ARG[r, j] = n_keep + S.BOX[r, j]
        take_where(W.A1, S.A1, r, off, TAKE)
        take_where(W.A2, S.A2, r, off, TAKE)


@kernel(nogil=True)
def _decision_batches(K, L, R, B, V, OUT_V, CHOICE, OUT, NEEDS):
    """Values with the choices that make them (see the module docstring), in a game without
    saved rolls; B = (batch_ptr, cols, first batch, step, shared)."""
    batch_ptr, max_cols, first_batch, step, _shared = B
    n_roll, n_cat = K.SCORE.shape
    n_keep = K.KEEP_CHILD.shape[0]
    s_kv = np.empty(n_keep * max_cols)
    s_a1 = scratch(V.M1, n_keep * max_cols, np.float64)
    s_a2 = scratch(V.M2, n_keep * max_cols, np.float64)
    s_box = np.empty((n_roll + 1) * max_cols, dtype=np.int32)
    s_arg = np.empty(n_keep * max_cols, dtype=np.int32)
    s_stop = np.empty(n_roll * max_cols if K.first_roll_bonus == 1 else 0, dtype=np.int32)
    acc = np.empty(max_cols)
    wants_out = present(OUT)
    stages = max(1, K.rolls - 1) if wants_out else 0
    s_ch = np.empty(stages * n_roll * max_cols, dtype=np.int64)
    s_p = np.empty((n_keep + n_roll) * max_cols if wants_out else 0)
    n_keys = 2 * K.KEY_ROLL.shape[0] + 2 * K.n_faces * n_cat if wants_out else 0
    o_scratch = (np.zeros(n_keys), np.empty(2 * n_roll, dtype=np.int64),
                 np.empty(n_keys, dtype=np.int64), np.empty(n_keys, dtype=np.int64))
    for b in range(first_batch, batch_ptr.shape[0] - 1, step):
        rows = (batch_ptr[b], batch_ptr[b + 1])
        cols = _batch_columns(R, rows[0], rows[1])
        KV = s_kv[: n_keep * cols].reshape((n_keep, cols))
        A1 = view(s_a1, n_keep, cols)
        A2 = view(s_a2, n_keep, cols)
        BOX = s_box[: (n_roll + 1) * cols].reshape((n_roll + 1, cols))
        CH = s_ch[: stages * n_roll * cols].reshape((stages, n_roll, cols))
        ARG = s_arg[: n_keep * cols].reshape((n_keep, cols))
        _final_values(K, L, V, NEEDS, R, rows, Work(KV, BOX, A1, A2))
        _record(CHOICE, ZERO, BOX, R, rows, n_roll)
        for left in range(1, K.rolls):
            keep_average(KV, A1, A2, cols, n_roll, K.n_faces, K.KEEP_CHILD)
            best_subkeep_arg(KV, ARG, cols, K.SUB_INDPTR, K.SUB_INDICES)
            follow_choice(A1, ARG, n_roll, cols)
            follow_choice(A2, ARG, n_roll, cols)
            if K.first_roll_bonus == 1 and left == K.rolls - 1:
                stops = Work(KV, s_stop[: n_roll * cols].reshape((n_roll, cols)), A1, A2)
                _first_roll(K, L, V, NEEDS, R, rows, stops, ARG)
            _record(CHOICE, left, ARG, R, rows, n_roll)
            _keep_stage(CH, ARG, left, n_roll, cols, OUT)
        _outcomes(K, L, R, rows, CH, BOX, s_p, OUT, o_scratch)
        _expect_and_store(KV, cols, K.ROLL_PROB, OUT_V.VAL, R, rows, acc, ZERO)
        _expect_and_store(A1, cols, K.ROLL_PROB, OUT_V.M1, R, rows, acc, ZERO)
        _expect_and_store(A2, cols, K.ROLL_PROB, OUT_V.M2, R, rows, acc, ZERO)


@kernel(nogil=True)
def _banked_decision_batches(K, L, R, B, V, OUT_V, CHOICE, OUT, NEEDS):
    """`_decision_batches` for a game with saved rolls (see `bank_span` and
    `_banked_stages`; where its turns lead is not followed: OUT is not read), a kernel of its
    own for the reason `_banked_value_batches` gives."""
    batch_ptr, max_cols, first_batch, step, shared = B
    n_roll = K.SCORE.shape[0]
    n_keep = K.KEEP_CHILD.shape[0]
    s_kv = np.empty(n_keep * max_cols)
    s_a1 = scratch(V.M1, n_keep * max_cols, np.float64)
    s_a2 = scratch(V.M2, n_keep * max_cols, np.float64)
    s_box = np.empty((n_roll + 1) * max_cols, dtype=np.int32)
    s_arg = np.empty(n_keep * max_cols, dtype=np.int32)
    nb = n_roll + 1  # (the stops' scratch)
    b_kv = np.empty(nb * max_cols)
    b_a1 = scratch(V.M1, nb * max_cols, np.float64)
    b_a2 = scratch(V.M2, nb * max_cols, np.float64)
    b_box = np.empty(nb * max_cols, dtype=np.int32)
    b_first = np.empty(nb * max_cols, dtype=np.int32)
    b_take = np.empty(n_roll * max_cols, dtype=np.bool_)
    nc = nb if K.first_roll_bonus == 1 else 0  # (a copy of the first roll's values)
    c_kv = np.empty(nc * max_cols)
    c_a1 = scratch(V.M1, nc * max_cols, np.float64)
    c_a2 = scratch(V.M2, nc * max_cols, np.float64)
    c_box = np.empty(nc * max_cols, dtype=np.int32)
    acc = np.empty(max_cols)
    for b in range(first_batch, batch_ptr.shape[0] - 1, step):
        rows = (batch_ptr[b], batch_ptr[b + 1])
        cols = _batch_columns(R, rows[0], rows[1])
        W = Work(s_kv[: n_keep * cols].reshape((n_keep, cols)),
                 s_box[: (n_roll + 1) * cols].reshape((n_roll + 1, cols)),
                 view(s_a1, n_keep, cols), view(s_a2, n_keep, cols))
        _final_values(K, L, V, NEEDS, R, rows, W)
        S = Work(b_kv[: nb * cols].reshape((nb, cols)),
                 b_box[: nb * cols].reshape((nb, cols)), view(b_a1, nb, cols),
                 view(b_a2, nb, cols))
        F = Work(S.KV, b_first[: nb * cols].reshape((nb, cols)), S.A1, S.A2)
        C = Work(c_kv[: nc * cols].reshape((nc, cols)),
                 c_box[: nc * cols].reshape((nc, cols)), view(c_a1, nc, cols),
                 view(c_a2, nc, cols))
        ARG = s_arg[: n_keep * cols].reshape((n_keep, cols))
        TAKE = b_take[: n_roll * cols].reshape((n_roll, cols))
        _banked_stages(K, L, V, NEEDS, R, rows, shared, W, S, F, C, ARG, TAKE, cols, OUT_V,
                       acc, CHOICE)


def decide(K, L, R, batch_ptr, cols: int, threads: int, V, store=None, choice=None,
           out=None, shared: bool = False, needs=None, payload=None) -> None:
    """The decision kernel over R's batches (see the module docstring; `shared`: R is a whole
    layer, batched by `layer_batches`). The values go to `store`, the moments the choices
    carry to V's own M1 and M2 (one store for every layer: the DP), or with `needs` (target
    play and other utilities, whose layers are tables of their own) the payloads to
    `payload` = (M1, M2) of the layer solved."""
    banked = L.banks > 1
    if banked and ((shared and choice is not None and choice.size) or (
            out is not None and out.COUNT.size)):
        raise NotImplementedError("outcomes of games with saved rolls, or their choices "
                                  "over a whole layer")
    if needs is not None and (choice is not None or out is not None):
        raise NotImplementedError("the choices or outcomes of target play")
    driver = _banked_decision_batches if banked else _decision_batches
    written = Next(store, V.M1, V.M2) if payload is None else Next(store, *payload)
    run_rows(driver, K, L, R, batch_ptr, cols, threads, V, written, choice, out, needs,
             shared=shared)


def values(K, L, R, batch_ptr, cols: int, threads: int, VAL, store=None, needs=None,
           shared: bool = False) -> None:
    """The value kernel over R's batches (see the module docstring and `decide`)."""
    driver = _banked_value_batches if L.banks > 1 else _value_batches
    run_rows(driver, K, L, R, batch_ptr, cols, threads, VAL, store, needs, shared=shared)


def layer_batches(K, R, cols: int) -> tuple[np.ndarray, int]:
    """A whole layer's batches (boundaries over R's rows) and how many banks each batched row
    stands for: all of the layer's when saved rolls are carried (`bank_span`), else 1."""
    if K.bank_carry == 1 and len(R.BANK) and R.BANK[-1] > 0:
        banks = int(R.BANK[-1]) + 1
        return batches(R.NU[: len(R.NU) // banks], cols), banks
    return batches(R.NU, cols, R.BANK), 1


def batches(widths: np.ndarray, limit: int, groups: np.ndarray | None = None) -> np.ndarray:
    """Split consecutive rows into batches whose widths add up to at most `limit` (each row
    alone fits): the boundaries, batch b being rows ptr[b] .. ptr[b+1]-1. With `groups` (a
    label per row, equal labels consecutive: the bank of saved rolls), a batch holds one
    label only."""
    if groups is not None and len(groups) and groups[0] != groups[-1]:
        cut = np.flatnonzero(np.diff(groups)) + 1
        parts = [batches(w, limit) for w in np.split(widths, cut)]
        starts = np.concatenate([[0], cut])
        return np.concatenate([[0], *(p[1:] + s for p, s in zip(parts, starts, strict=True))]
                              ).astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(widths)])
    ptr = [0]
    n = len(widths)
    while ptr[-1] < n:
        ptr.append(max(ptr[-1] + 1, int(np.searchsorted(cum, cum[ptr[-1]] + limit, "right")) - 1))
    return np.array(ptr, dtype=np.int64)
