"""Exact figures of a strategy: the spread of the final score and per-box statistics.

Two passes over the turn-start states, following the strategy's decisions (see
`solver.kernels.play`; ties are broken as documented there, which moves the 4th decimal of
the SD):

- backward, layer by layer from the full card: the first and second moments of the points
  still to come, carried along the DP's own sweeps, so SD = sqrt(M2 - M1^2) at the start
  (Verhoeff: 59.6117 for the official rules);
- forward from the empty card: the probability of reaching each state, pushed through one turn
  at a time, which gives each box's expected score and zero rate, the chance of the upper bonus,
  and the expected numbers of extra Yahtzee bonuses and Joker uses.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from .dp import Solution, backward, kernel_threads
from .kernels.bundle import Flow, Rows, States, payload
from .layout import batch_width, batches, state_block
from .strategies import check_strategy, strategy_values


@dataclass(frozen=True)
class Moments:
    """Exact mean and standard deviation of the final score under a strategy."""

    strategy: str
    expected_score: float
    sd: float
    cached: bool = False  # read from the cache (or stored with the values), not computed now


@dataclass(frozen=True)
class ExactFigures:
    """Exact expectations under a strategy (one shape for every strategy and caller)."""

    strategy: str
    expected_score: float
    sd: float | None  # None only in `known_figures` (a solve without the SD)
    box_mean: dict[str, float]  # empty in `known_figures`, as are the zero rates
    box_zero_rate: dict[str, float]
    p_upper_bonus: float | None  # None without an upper bonus (or in `known_figures`)
    yahtzee_bonus_mean: float | None  # expected number of extra Yahtzee bonuses
    joker_uses_mean: float | None  # expected turns the Joker gave a box its full value
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def known_figures(solution: Solution) -> ExactFigures:
    """Optimal play's figures that need no further pass: the mean (the solved value) and the
    SD when the solve computed it; the per-box and bonus figures are left out. For games
    whose full figures take minutes (Maxi Yatzy)."""
    return ExactFigures("optimal", solution.expected_score, solution.sd, {}, {}, None, None,
                        None, 0.0)


def exact_moments(solution: Solution, strategy: str = "optimal",
                  threads: int | None = None) -> Moments:
    """Exact mean and SD of the final score under `strategy` (the backward pass)."""
    check_strategy(strategy)
    t = solution.tables
    layout = solution.layout
    start = layout.index(0, 0, 0)
    if strategy == "optimal" and solution.sd is not None:
        return Moments(strategy, solution.expected_score, solution.sd)
    V = strategy_values(solution, strategy)
    # Optimal play's own value is V, so its first moment needs no carrying.
    M1 = None if strategy == "optimal" else np.zeros(layout.size)
    M2 = np.zeros(layout.size)
    backward(t, layout, solution.kernel_tables(), V, m1=M1, m2=M2, threads=threads)
    mean = float((V if M1 is None else M1)[start])
    return Moments(strategy, mean, float(np.sqrt(max(0.0, M2[start] - mean * mean))))


def keep_choices(solution: Solution, V: np.ndarray, states: States,
                 threads: int | None = None) -> np.ndarray:
    """CHOICE[i, L - 1, r]: the strategy's keep for roll r with L re-rolls left in state i.

    States must be sorted by (mask, flag, upper total); runs of consecutive totals of one box
    set are solved as one row, side by side, as the DP does.
    """
    from .kernels.sweep import sweep

    t = solution.tables
    rows = rows_of_states(states)
    cols = batch_width(t, int(rows.NU.max(initial=1)))
    choice = np.empty((len(states.MASK), max(1, t.n_rolls_per_turn - 1), t.n_rolls),
                      dtype=np.int32)
    with kernel_threads(threads) as n_threads:
        sweep(solution.kernel_tables(), solution.layout.kernel_layout(), rows,
              batches(rows.NU, cols), V, payload(choice=choice), cols, n_threads)
    return choice


def rows_of_states(states: States) -> Rows:
    """States sorted by (mask, flag, upper total) as rows: runs of consecutive totals of one
    box set, each result going to the state's position in the list."""
    m, f, u = states
    n = len(m)
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (m[1:] != m[:-1]) | (f[1:] != f[:-1]) | (u[1:] != u[:-1] + 1)
    first = np.flatnonzero(new_run).astype(np.int64)
    width = np.diff(np.append(first, n)).astype(np.int64)
    return Rows(m[first], f[first], u[first], width, first)


def exact_figures(solution: Solution, strategy: str = "optimal",
                  threads: int | None = None) -> ExactFigures:
    """Exact mean, SD and per-box statistics of `strategy` (see the module docstring)."""
    from .kernels.play import EVENT_JOKER, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, N_EVENTS

    begin = time.perf_counter()
    moments = exact_moments(solution, strategy, threads)
    t = solution.tables
    layout = solution.layout
    V = strategy_values(solution, strategy)
    PI = np.zeros(layout.size)
    PI[layout.index(0, 0, 0)] = 1.0
    with kernel_threads(threads) as n_threads:
        box_stats = np.zeros((n_threads, 2, t.n_categories))
        events = np.zeros((n_threads, N_EVENTS))
        _forward(solution, V, PI, box_stats, events, n_threads)
    box = box_stats.sum(axis=0)
    ev = events.sum(axis=0)
    keys = t.rules.keys
    return ExactFigures(
        strategy=strategy, expected_score=moments.expected_score, sd=moments.sd,
        box_mean={k: float(box[0, c]) for c, k in enumerate(keys)},
        box_zero_rate={k: float(box[1, c]) for c, k in enumerate(keys)},
        p_upper_bonus=float(ev[EVENT_UPPER_BONUS]) if t.upper_threshold else None,
        yahtzee_bonus_mean=float(ev[EVENT_YAHTZEE_BONUS]),
        joker_uses_mean=float(ev[EVENT_JOKER]),
        seconds=time.perf_counter() - begin)


def _forward(solution: Solution, V: np.ndarray, PI: np.ndarray, box_stats: np.ndarray,
             events: np.ndarray, n_threads: int) -> None:
    """Push state probabilities PI from the empty card to the full one, layer by layer."""
    from .kernels.play import policy_forward

    t = solution.tables
    layout = solution.layout
    game = solution.kernel_tables()
    L = layout.kernel_layout()
    block = state_block(t)
    for k in range(t.n_categories):
        mask, flag, u, index = layout.state_arrays(k)
        live = PI[index] > 0.0
        mask, flag, u, index = mask[live], flag[live], u[live], index[live]
        nxt = layout.layer_slice(k + 1)
        pi_next = np.zeros((n_threads, nxt.stop - nxt.start))
        for b0 in range(0, len(mask), block):
            part = slice(b0, b0 + block)
            states = States(mask[part], flag[part], u[part])
            choice = keep_choices(solution, V, states, n_threads)
            policy_forward(game, L, V, states, PI[index[part]], choice,
                           Flow(pi_next, box_stats, events, nxt.start), n_threads)
        PI[nxt] += pi_next.sum(axis=0)
