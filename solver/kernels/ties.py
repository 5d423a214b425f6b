"""The tie rule: which of two equally good moves a strategy takes. Written once, here.

Every move of a turn has a rank, and of two moves with the same value the lower rank wins:

    stop after the first roll and score box c     rank c              (claiming a first-roll
                                                                        bonus beats any keep)
    keep k (with re-rolls left)                   rank n_boxes + k     (keeps are numbered with
                                                                        more dice first, then by
                                                                        sorted dice)
    score box c with the final roll               rank c              (card order)

so among equal keeps the one with more dice, then the lower keep index; among equal boxes the
first in card order; and stopping for a first-roll bonus beats an equally good keep. The
kernels (`solver.kernels.final` and `keeps`, compiled by numba) and the NumPy advisor
(`solver.advice`, which never loads numba) both decide with `better`, so their choices agree
decision by decision. This module imports nothing, so either may use it.
"""

from __future__ import annotations


def better(value, rank, than_value, than_rank):
    """Whether a move (value, rank) beats another: a higher value, or the same value and a
    lower rank. Written with & and | so that numba turns it into selects (it vectorises)."""
    return (value > than_value) | ((value == than_value) & (rank < than_rank))


def stop_rank(box: int) -> int:
    """The rank of stopping after the first roll to score `box`."""
    return box


def keep_rank(keep: int, n_boxes: int) -> int:
    """The rank of holding keep `keep` (its index among the keeps) and re-rolling the rest."""
    return n_boxes + keep


def box_rank(box: int) -> int:
    """The rank of scoring `box` with the final roll."""
    return box
