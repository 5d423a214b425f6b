"""Exact optimal expected score of any rule set, by backward induction over turn-start states.

States. A turn starts in state s = (mask, flag, u): `mask` has bit c set when box c is filled,
`u` is the total of the boxes counting toward the upper bonus, capped at the threshold T (only
whether it reaches T matters), and `flag` is 1 when the Yahtzee box holds its full value (only
kept when the rule set has an extra Yahtzee bonus). V[s] is the expected score still to come
from s under optimal play; the game's value is V[0, 0, 0] and V[full mask] = 0.

One turn (the "widget" of Glenn 2006; Verhoeff 1999 uses the same recursion):

    E_last(r)  = max over legal open boxes c of
                 points(r, c | s) + bonus(r | s) + upper_bonus(u -> u') + V[mask | c, flag', u']
    K(k)       = mean over faces v of K(k + v)         (a keep k of fewer than n dice; K(r) = E(r))
    E_prev(r)  = max over keeps k inside r of K(k)     (done as "best sub-keep", one die at a time)
    V[s]       = sum over rolls r of P(r) E_first(r)

`points` applies the rule set's Joker (free or forced) and `bonus` the extra Yahtzee bonus,
both read from the compiled tables; there is no variant-specific code (the transition is
`solver.kernels.rule.end_turn`). States with the same number of filled boxes form a layer and
only depend on the next layer, so layers are solved from the full card backwards and the
states of a layer in parallel (`solver.kernels.layer`).

The same sweeps carry other payloads along the choices the values make: the second moment of
the final score (its SD), the moments of another strategy's play, or the keep choices
themselves (`backward`).

Two savings that do not change any value: upper totals above what the filled boxes can have
made are never computed (they are unreachable), and all totals from which the bonus can no
longer be reached share one value (the bonus is lost to all of them alike); see
`solver.state`. Every function here takes the `Problem` (`solver.problem`): the tables, the
layout, the kernels' bundles and the work sizes, and goes down to the kernels from there.

References: T. Verhoeff, "Optimal Solitaire Yahtzee Player" (1999); J. Glenn, "An Optimal
Strategy for Yahtzee" (2006).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from yz.rules import RuleSet, RuleTables, SolverError

from .problem import Memo, Problem
from .report import Step
from .state import StateLayout, filled_boxes

# Part of every cache key: a change to what the solver computes for some rule set (not only to
# how fast) must bump it, so no older table is ever read back as this version's.
SOLVER_VERSION = 3


@dataclass(frozen=True, eq=False)
class Solution:
    """A solved rule set: the value of every turn-start state, and how it was obtained."""

    problem: Problem = field(repr=False)
    # The flat value store (solver.state), float64; or a layered solve's values read from its
    # folder as they are asked for (`solver.store.StoreValues`, indexed alike).
    values: np.ndarray = field(repr=False)
    seconds: float
    states: int
    cached: bool = False
    cache_note: str | None = None
    sd: float | None = None  # SD of the final score under optimal play, when computed
    # What is computed from these values and kept with them (the advisor's turn tables).
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)

    @property
    def tables(self) -> RuleTables:
        return self.problem.tables

    @property
    def layout(self) -> StateLayout:
        return self.problem.layout

    @property
    def rules(self) -> RuleSet:
        return self.problem.rules

    @property
    def expected_score(self) -> float:
        return float(self.values[self.layout.start])

    def value(self, mask: int, upper_total: int = 0, yahtzee_full: bool = False,
              saved_rolls: int = 0) -> float:
        """Expected score still to come from a turn start (upper total is capped for you),
        with `saved_rolls` in games that save rolls."""
        return float(self.values[self.layout.index(mask, int(yahtzee_full), upper_total,
                                                   saved_rolls)])

    def to_dict(self) -> dict:
        """The figures as plain JSON values (`yz solve --json`)."""
        return {"variant": self.rules.name, "expected_score": self.expected_score,
                "sd": self.sd, "states": self.states, "seconds": self.seconds,
                "cached": self.cached}


def backward(problem: Problem, VAL: np.ndarray, store: np.ndarray | None = None,
             m1: np.ndarray | None = None, m2: np.ndarray | None = None,
             step: Step | None = None) -> None:
    """Sweep every layer from the full card back to the empty one, deciding by VAL.

    `store` (VAL itself for the DP) receives the values, `m1`/`m2` the moments of the points
    to come under VAL's play (the decision kernel; see `solver.kernels.layer`).
    """
    layout = problem.layout
    total = int(layout.LAYER_PTR[-2])  # every state but the full card
    for k in range(problem.tables.n_categories - 1, -1, -1):
        R, ptr, per_row = layer_plan(problem, k)
        done = total - int(layout.LAYER_PTR[k + 1])
        for part in parts(problem, R, ptr, per_row):
            sweep_part(problem, R, part, VAL, store, m1, m2)
            if step is not None:
                step(done + int(R.NU[: part[-1]].sum()) * per_row, total)


def parts(problem: Problem, R, ptr: np.ndarray, per_row: int):
    """The batches `ptr` (consecutive boundaries over a layer's rows R, each row standing for
    `per_row` banks: `layer_plan`) in parts of about `budget.PART_SECONDS` of work (big layers,
    such as Maxi Yatzy's, take half a minute or more)."""
    states = int(R.NU[ptr[0]:ptr[-1]].sum()) * per_row
    stride = max(1, (len(ptr) - 1) // max(1, states // problem.part_states))
    for b in range(0, len(ptr) - 1, stride):
        yield ptr[b:min(b + stride, len(ptr) - 1) + 1]


def layer_plan(problem: Problem, k: int):
    """Layer k's rows (`StateLayout.rows`), its batches (boundaries over those rows) and how
    many banks of saved rolls each batched row stands for (`layer.layer_batches`)."""
    from .kernels import layer

    R = problem.layout.rows(k)
    ptr, per_row = problem.remember(("layer-batches", k), lambda: layer.layer_batches(
        problem.K, R, problem.batch_width()))
    return R, ptr, per_row


def sweep_part(problem: Problem, R, part: np.ndarray, VAL: np.ndarray,
               store: np.ndarray | None, m1: np.ndarray | None = None,
               m2: np.ndarray | None = None) -> None:
    """Solve the batches `part` (consecutive boundaries of `layer_plan`'s) of a layer's rows R:
    the values into `store`, with `m1`/`m2` the moments (the decision kernel)."""
    from .kernels import layer
    from .kernels.bundle import Next

    K, L, cols = problem.K, problem.L, problem.batch_width()
    if m1 is not None or m2 is not None:
        layer.decide(K, L, R, part, cols, problem.threads, Next(VAL, m1, m2), store,
                     shared=True)
    else:
        layer.values(K, L, R, part, cols, problem.threads, VAL, store, shared=True)


def solve_values(problem: Problem, with_sd: bool = False, step: Step | None = None,
                 ) -> tuple[np.ndarray, float | None]:
    """Run the DP: the value store, and with `with_sd` the standard deviation of the final
    score under the optimal play it finds (else None)."""
    layout = problem.layout
    V = np.zeros(layout.size)
    M2 = np.zeros(layout.size) if with_sd else None
    backward(problem, V, store=V, m2=M2, step=step)
    check_values(problem.tables, layout, V, "expected points to come", 0.0)
    sd = None
    if M2 is not None:
        start = layout.start
        sd = float(np.sqrt(max(0.0, M2[start] - V[start] ** 2)))
    return V, sd


def check_values(t: RuleTables, layout: StateLayout, values: np.ndarray, what: str,
                 low: float, high: float = np.inf, start: int = 0) -> None:
    """SolverError naming the first state whose value is outside [low, high] (or not a
    number): a "no move" sentinel or a read of a neighbour's entry, never a result. `values`
    holds the states from store index `start` on, one row (or entry) each. One pass, a
    fraction of the solve's time."""
    if values.min() >= low and values.max() <= high:  # NaN fails both
        return
    inside = (values >= low) & (values <= high)
    where = np.flatnonzero(~inside.reshape(len(values), -1).all(axis=1))[:1]
    mask, flag, u = (int(x[0]) for x in layout.states_at(where + start))
    boxes = [t.rules.keys[c] for c in filled_boxes(mask, t.n_categories)]
    raise SolverError(
        f"{t.rules.name}: the solver computed {values[where[0]]!r} as the {what} of the state "
        f"with {', '.join(boxes) or 'no box'} filled, upper total {u} and flag {flag}, outside "
        f"[{low}, {high}]. This is a bug in yz, not in the rule file; please report it with the "
        "rule file.")
