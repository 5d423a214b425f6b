"""The re-roll stages of a turn, for numba: the mean over the dice thrown, the best keep.

A batch's scratch table KV[keep, column] (see `final`) holds the values of the rolls in its
first rows; a stage turns them into the values of the rolls one throw earlier:
`keep_average` gives every smaller keep the mean over one more die, and `best_subkeep` gives
every roll the best keep inside it (`best_subkeep_arg` also records which, with the tie rule
of `ties`), the moments A1, A2 following the choice (`follow_choice`).

    ARG[k, col]       the keep chosen inside keep k (the best sub-keep)
"""

from __future__ import annotations

from .jit import better, kernel


@kernel(inline="always")
def _average_row(T, k, KEEP_CHILD, nu, n_faces, inv):
    """T[k] = the mean of T over keep k's children (one more die of each face)."""
    c0 = KEEP_CHILD[k, 0]
    c1 = KEEP_CHILD[k, 1]  # every die has at least two faces
    if n_faces == 6:  # the usual die in one pass: the same sums, in the same order, as below
        c2, c3, c4, c5 = KEEP_CHILD[k, 2], KEEP_CHILD[k, 3], KEEP_CHILD[k, 4], KEEP_CHILD[k, 5]
        for j in range(nu):
            T[k, j] = ((T[c0, j] + T[c1, j]) + (T[c2, j] + T[c3, j]) + T[c4, j] + T[c5, j]) * inv
        return
    for j in range(nu):
        T[k, j] = T[c0, j] + T[c1, j]
    v = 2
    while n_faces - v > 2:
        ca = KEEP_CHILD[k, v]
        cb = KEEP_CHILD[k, v + 1]
        for j in range(nu):
            T[k, j] += T[ca, j] + T[cb, j]
        v += 2
    if v + 2 == n_faces:
        ca = KEEP_CHILD[k, v]
        cb = KEEP_CHILD[k, v + 1]
        for j in range(nu):
            T[k, j] = (T[k, j] + T[ca, j] + T[cb, j]) * inv
    elif v + 1 == n_faces:
        ca = KEEP_CHILD[k, v]
        for j in range(nu):
            T[k, j] = (T[k, j] + T[ca, j]) * inv
    else:
        for j in range(nu):
            T[k, j] *= inv


@kernel
def keep_average(KV, A1, A2, nu, n_roll, n_faces, KEEP_CHILD):
    """KV[k] for every keep smaller than a roll: the mean over one more die (its children);
    the same for the moments A1 and A2 when carried, keep by keep, so the three share the
    child indices and the rows stay in cache.

    KV[:n_roll] holds roll values. Children are read two at a time and the division is folded
    into the last pass, so a row is swept about half as often (loop and store overhead, not
    arithmetic, bounds these short vector loops).
    """
    n_keep = KV.shape[0]
    inv = 1.0 / n_faces
    for k in range(n_roll, n_keep):
        _average_row(KV, k, KEEP_CHILD, nu, n_faces, inv)
        if A1 is not None:
            _average_row(A1, k, KEEP_CHILD, nu, n_faces, inv)
        if A2 is not None:
            _average_row(A2, k, KEEP_CHILD, nu, n_faces, inv)


@kernel
def best_subkeep(KV, nu, SUB_INDPTR, SUB_INDICES):
    """KV[k] = best of keep k and every keep inside it (one die removed at a time), in place.

    For a roll this is the value of the best keep before the next throw.
    """
    n_keep = KV.shape[0]
    for k in range(n_keep - 1, -1, -1):
        s = SUB_INDPTR[k]
        end = SUB_INDPTR[k + 1]
        while s + 1 < end:
            sa = SUB_INDICES[s]
            sb = SUB_INDICES[s + 1]
            for j in range(nu):
                KV[k, j] = max(KV[k, j], max(KV[sa, j], KV[sb, j]))
            s += 2
        if s < end:
            sa = SUB_INDICES[s]
            for j in range(nu):
                KV[k, j] = max(KV[k, j], KV[sa, j])


@kernel
def best_subkeep_arg(KV, ARG, nu, SUB_INDPTR, SUB_INDICES):
    """Like `best_subkeep`, also recording the best keep: ARG[k, j] is the lowest keep index
    among the keeps inside k (k included) of highest value. A keep's index is lower than its
    sub-keeps', so on a tie the larger keep wins. (Selects, not branches: it vectorises.)
    """
    n_keep = KV.shape[0]
    for k in range(n_keep - 1, -1, -1):
        for j in range(nu):
            ARG[k, j] = k
        for s in range(SUB_INDPTR[k], SUB_INDPTR[k + 1]):
            sub = SUB_INDICES[s]
            for j in range(nu):
                a = KV[sub, j]
                b = KV[k, j]
                ia = ARG[sub, j]
                ib = ARG[k, j]
                take = better(a, ia, b, ib)  # ranks: the keeps' indices (see ties)
                KV[k, j] = a if take else b
                ARG[k, j] = ia if take else ib


@kernel
def follow_choice(A, ARG, n_roll, nu):
    """A[r] = A[ARG[r]] for every roll: what the keep the strategy holds carries. ARG[r] is
    r itself or a keep with a higher index, so going up through r reads only unchanged rows."""
    if A is None:
        return
    for r in range(n_roll):
        for j in range(nu):
            A[r, j] = A[ARG[r, j], j]
