"""The forward pass: where a strategy leads from the empty card, one layer of states at a time.

The decision kernel (`solver.kernels.layer`) lists, for every state a turn starts in, the
distinct moves the turn ends with under the strategy (the same choices and tie rule as
`yz advise` and `yz simulate`): the next state, the points gained, the box and the points in
it, what it won, and the probability. One walk over those outcomes, from the empty card to the
full one, gives

- the chance of reaching each state, and so every box's expected score and zero rate, the
  chance of the upper bonus and the expected numbers of extra Yahtzee bonuses and of Joker
  full values (`Walk.box_mean` ...);
- with `pmf`, the distribution of the points banked on reaching each state: a window of scores
  [lo(s), lo(s) + width(s)) per state, the next layer's being the probability-weighted sum of
  the shifted windows that lead to it (a convolution per target state, on several threads,
  each reading the sources and writing only its own targets). After the last box the full
  card's distributions add up to the final score's.

Glenn (2006) computed the official rules' distribution "in about 24 hours"; windows keep it to
seconds: a state's window spans only the banked totals it can be reached with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from .dp import Solution
from .kernels.bundle import Next, Outcomes, Rows, States
from .problem import Problem
from .report import Step


@dataclass(frozen=True)
class Walk:
    """What the forward pass found (see the module docstring); the figures are None when
    only the distribution was asked for."""

    box_mean: np.ndarray | None  # float64 [box]: expected score in each box
    box_zero_rate: np.ndarray | None  # float64 [box]: probability it ends with 0
    events: np.ndarray | None  # float64 [event]: expected count of each EVENT_* (kernels.outcomes)
    scores: np.ndarray | None  # int64: lowest .. highest final score (with `pmf`)
    probabilities: np.ndarray | None  # float64


FIGURE_COLUMNS = ("target", "gain", "box", "points", "flags", "prob")


def walk(solution: Solution, V: np.ndarray, pmf: bool = False, step: Step | None = None,
         figures: bool = True, start: int | None = None) -> Walk:
    """Follow the play that V's values make (the solved values: optimal play) from the empty
    card (or the state stored at `start`) to the full one: the figures (unless `figures` is
    False) and, with `pmf`, the distribution of the points banked on the way too. The
    distribution alone of a game with saved rolls from its start streams its moves
    (`_streamed_pmf`)."""
    from .kernels.outcomes import N_EVENTS

    problem = solution.problem
    t, layout = problem.tables, problem.layout
    first = 0 if start is None else int(np.searchsorted(layout.LAYER_PTR, start, "right")) - 1
    if pmf and not figures and problem.layout.saves_rolls and first == 0:
        scores, probabilities = _streamed_pmf(problem, V, step)
        return Walk(None, None, None, scores, probabilities)
    n_cat = t.n_categories
    index = np.array([layout.start if start is None else start], dtype=np.int64)
    reach = np.ones(1)
    windows = _Windows.start() if pmf else None
    box_stats = np.zeros((2, n_cat))
    events = np.zeros(N_EVENTS)
    for k in range(first, n_cat):
        # Only the columns used: each is a gather of millions of moves per layer.
        names = ("target", "prob", *(("box", "points", "flags") if figures else ()),
                 *(("gain",) if pmf else ()))
        src, out = layer_outcomes(problem, V, index, names)
        index, slot = distinct(out.pop("target"))
        if figures:
            w = reach[src] * out["prob"]
            _add_figures(box_stats, events, w, out["box"], out["points"], out["flags"])
            reach = np.bincount(slot, weights=w, minlength=len(index))
        if windows is not None:
            windows = windows.convolve(src, slot, out["gain"], out["prob"], len(index),
                                       problem.threads)
        del src, slot, out  # (before the next layer's moves are gathered)
        if step is not None:
            step(k + 1, n_cat)
    scores, probabilities = windows.final() if windows is not None else (None, None)
    if not figures:
        return Walk(None, None, None, scores, probabilities)
    return Walk(box_stats[0], box_stats[1], events, scores, probabilities)


def _add_figures(box_stats: np.ndarray, events: np.ndarray, w: np.ndarray, box: np.ndarray,
                 points: np.ndarray, flags: np.ndarray) -> None:
    """Add moves of weight `w` (reach times probability) to each box's expected points and
    zero rate (`box_stats`) and to the expected count of each event (FLAGS: bit e set when
    the move won event e)."""
    n_cat = box_stats.shape[1]
    box_stats[0] += np.bincount(box, weights=w * points, minlength=n_cat)
    box_stats[1] += np.bincount(box, weights=w * (points == 0), minlength=n_cat)
    for e in range(len(events)):
        events[e] += w[np.bitwise_and(flags, 1 << e) != 0].sum()


def layer_outcomes(problem: Problem, V: np.ndarray, index: np.ndarray,
                   names: tuple[str, ...] = FIGURE_COLUMNS) -> tuple[np.ndarray, dict]:
    """Every move a turn ends with from the states at store indices `index` (sorted): the
    position in `index` of its source, and the columns `names` of FIGURE_COLUMNS (its target,
    gain, box, points, flags and prob)."""
    return _joined(list(outcome_blocks(problem, V, index, names)), names)


def outcome_blocks(problem: Problem, V: np.ndarray, index: np.ndarray,
                   names: tuple[str, ...] = FIGURE_COLUMNS):
    """`layer_outcomes`' moves a block of states at a time, as `_filled` gives them: a layer's
    moves can be too many to hold at once (Maxi Yatzy's)."""
    from .kernels import layer

    t, layout = problem.tables, problem.layout
    mask, flag, u, bank = layout.banked_states_at(index)
    if layout.saves_rolls:
        yield from _banked_blocks(problem, V, index, names, (mask, flag, u, bank))
        return
    most = problem.most_outcomes
    no_choice = np.zeros((0, t.rolls, t.n_distinct_rolls), dtype=np.int64)
    block = problem.outcome_block
    buffers = _outcome_buffers(min(block, len(index)), most)
    for b0 in range(0, len(index), block):
        part = slice(b0, b0 + block)
        n = len(mask[part])
        rows = rows_of_states(States(mask[part], flag[part], u[part],
                                     np.zeros(n, dtype=np.int64)))
        out = Outcomes.of(**{name: array[:n] for name, array in buffers.items()})
        cols = problem.batch_width(int(rows.NU.max(initial=1)))
        layer.decide(problem.K, problem.L, rows, layer.batches(rows.NU, cols), cols,
                     problem.threads, Next(V, None, None), choice=no_choice, out=out)
        yield _filled(out, n, most, np.arange(b0, b0 + n, dtype=np.int32), names)


@dataclass(frozen=True)
class Reached:
    """Where a streamed forward pass stands between two layers: layer `layer`'s reached states
    (their store indices, sorted) and the chance of reaching each, with the boxes' and the
    events' sums so far: what `streamed_figures` starts from and hands to `keep` (the layered
    store keeps it on disk, so a stopped pass goes on from its last layer)."""

    layer: int
    index: np.ndarray  # int64 [reached state]
    reach: np.ndarray  # float64 [reached state]
    box_stats: np.ndarray  # float64 [2, box]: the boxes' means and zero rates so far
    events: np.ndarray  # float64 [event]


def streamed_figures(problem: Problem, values_after: Callable[[int], np.ndarray],
                     step: Step | None = None, share: bool = True,
                     start: Reached | None = None,
                     keep: Callable[[Reached], None] | None = None) -> Walk:
    """`walk`'s figures (no distribution) of optimal play from the empty card, a block of
    moves at a time: each block's moves add their weight to the boxes, the events and the
    chance of reaching each state of the next layer as soon as they are listed, and are let
    go. `values_after(k)` gives a value table whose layer k + 1 holds the solved values (the
    rest is not read), so a layered solve's folder serves a layer at a time
    (`layered.store_figures`). Memory: the next layer's reach and one block of moves, never a
    layer's moves (Maxi Yatzy's run to billions). The sums run in another order than
    `walk`'s: the figures agree to rounding, not to the bit. `share`: with carried saved rolls,
    the banks of a (box set, flag, total) share its choices and one walk of the dice
    (`_merged_moves`; False: each bank makes its own, as `walk` does, for a check).
    `start`: go on from there (a `Reached` that `keep` was given); `keep` is given where the
    pass stands after each layer."""
    from .kernels.outcomes import N_EVENTS
    from .kernels.play import add_reach

    t, layout = problem.tables, problem.layout
    n_cat = t.n_categories
    if start is None:
        start = Reached(0, np.array([layout.start], dtype=np.int64), np.ones(1),
                        np.zeros((2, n_cat)), np.zeros(N_EVENTS))
    index, reach, first = start.index, start.reach, start.layer
    box_stats, events = start.box_stats.copy(), start.events.copy()
    del start  # (its layer goes once the next is reached)
    total = int(layout.LAYER_PTR[n_cat])  # (progress: the stored states of the layers done)
    for k in range(first, n_cat):
        base, end = int(layout.LAYER_PTR[k + 1]), int(layout.LAYER_PTR[k + 2])
        reach_next = np.zeros(end - base)
        V = values_after(k)
        followed = 0  # (states of this layer whose moves came)
        for count, target, w, box, points, flags in _weighted_moves(problem, V, index, reach,
                                                                    share):
            _add_figures(box_stats, events, w, box, points, flags)
            if add_reach(reach_next, base, target, w):  # (a bug: a move outside the layer)
                raise RuntimeError(f"moves of layer {k} of {problem.name} lead outside the "
                                   "next layer")
            followed += count
            if step is not None and count:  # (the stored states of the layers so far)
                done = followed / len(index)
                step(int(layout.LAYER_PTR[k] + done * (base - layout.LAYER_PTR[k])), total)
        del V
        places = np.flatnonzero(reach_next)
        index, reach = places + base, reach_next[places]
        del reach_next
        if keep is not None and k + 1 < n_cat:
            keep(Reached(k + 1, index, reach, box_stats.copy(), events.copy()))
        if step is not None:
            step(base, total)
    return Walk(box_stats[0], box_stats[1], events, None, None)


def _outcome_buffers(n: int, most: int) -> dict[str, np.ndarray]:
    """One set of `Outcomes` arrays for every block of a layer (fresh ones would be paged in
    again block by block)."""
    buffers = {name: np.empty((n, most), dtype=np.int64)
               for name in ("TARGET", "GAIN", "BOX", "POINTS", "FLAGS")}
    buffers["PROB"] = np.empty((n, most))
    buffers["COUNT"] = np.zeros(n, dtype=np.int64)
    return buffers


def _filled(out, n: int, most: int, src: np.ndarray, names: tuple[str, ...]
            ) -> list[np.ndarray]:
    """A block's moves (state i's are its first COUNT[i] slots): the position of each one's
    source in the layer's list (state i's is src[i], int32), and its columns `names` (a list:
    `_joined` lets each go once copied)."""
    count = out.COUNT
    first = np.cumsum(count) - count
    slots = np.repeat(np.arange(n, dtype=np.int64) * most - first, count)
    slots += np.arange(len(slots), dtype=np.int64)
    return [np.repeat(src, count),
            *(getattr(out, name.upper()).ravel()[slots].astype(COLUMN_TYPES[name], copy=False)
              for name in names)]


# A move's columns as kept for a layer (millions of moves): the narrowest types that hold them
# (a source's position in its layer as int32; store indices stay int64).
COLUMN_TYPES = {"target": np.int64, "gain": np.int32, "box": np.int32, "points": np.int32,
                "flags": np.int32, "prob": np.float64}


def _joined(parts: list[list], names: tuple[str, ...]) -> tuple[np.ndarray, dict]:
    """The blocks' moves as one list: (source positions, {name: column}). Joined a column at
    a time, each block's piece let go as soon as it is copied, so the moves are held about
    once, not twice."""
    columns = []
    for c in range(len(names) + 1):
        columns.append(np.concatenate([part[c] for part in parts]) if len(parts) > 1
                       else parts[0][c])
        for part in parts:
            part[c] = None
    return columns[0], dict(zip(names, columns[1:], strict=True))


def _banked_blocks(problem: Problem, V: np.ndarray, index: np.ndarray,
                   names: tuple[str, ...], states: tuple):
    """The moves of the states at `index` with saved rolls, a block of states at a time (as
    `_filled` gives them): the decision kernel records the choices at every stage (one bank a
    batch), then `outcomes.banked_outcomes` follows the dice through them. `index` is sorted by
    store index, which orders the states by bank, mask, flag and total, as the rows want.
    `states`: their (mask, flag, u, bank)."""
    from .kernels.layer import run_threads
    from .kernels.outcomes import banked_outcomes

    block = problem.outcome_block
    size = min(block, len(index))
    buffers = _outcome_buffers(size, problem.most_outcomes)
    choices = np.empty((size, problem.most_stages, problem.tables.n_distinct_rolls),
                       dtype=np.int64)
    scratches = _banked_scratches(problem)
    same_row = np.arange(size, dtype=np.int64)
    for b0 in range(0, len(index), block):
        part = slice(b0, b0 + block)
        n = len(index[part])
        rows = rows_of_states(States(*(a[part] for a in states)))
        _decide_banked(problem, V, rows, choices[:n])
        out = Outcomes.of(**{name: array[:n] for name, array in buffers.items()})
        run_threads(banked_outcomes, [
            (problem.K, problem.L, share, choices[:n], same_row[:n], out, scratches[i])
            for i, share in enumerate(split_rows(rows, len(scratches)))])
        yield _filled(out, n, problem.most_outcomes, np.arange(b0, b0 + n, dtype=np.int32),
                      names)


def _decide_banked(problem: Problem, V: np.ndarray, rows: Rows, choice: np.ndarray) -> None:
    """The choices of the states of `rows` (with saved rolls) at every stage, into `choice`:
    the decision kernel, one bank a batch, recording them and nothing else. The batches are
    narrowed so that every thread has one: a block of states may be smaller than one batch
    (Maxi Yatzy's: 60 states, each holding up to 19,866 moves)."""
    from .kernels import layer

    none = np.zeros((0, 0), dtype=np.int64)
    no_outcomes = Outcomes(none, none, none, none, none, np.zeros((0, 0)),
                           np.zeros(0, dtype=np.int64))
    widest = int(rows.NU.max(initial=1))
    each = -(-int(rows.NU.sum()) // problem.threads)  # (a thread's share of the columns)
    cols = max(widest, min(problem.batch_width(widest), each))
    layer.decide(problem.K, problem.L, rows, layer.batches(rows.NU, cols, rows.BANK), cols,
                 problem.threads, Next(V, None, None), choice=choice, out=no_outcomes)


def _banked_scratches(problem: Problem) -> list[tuple]:
    """One scratch per thread for `outcomes.banked_outcomes` and `merged_banked_outcomes`."""
    from .kernels.outcomes import key_space

    t = problem.tables
    space = key_space(problem.K, problem.most_stages)
    return [(np.zeros(t.n_keeps), np.zeros(t.n_keeps), np.zeros(space),
             np.zeros(space, dtype=np.int64), np.zeros(space, dtype=np.int64),
             np.zeros(space, dtype=np.int64)) for _ in range(problem.threads)]


def _weighted_moves(problem: Problem, V: np.ndarray, index: np.ndarray, reach: np.ndarray,
                    share: bool):
    """The moves of the states at `index` (sorted), reached with the chances `reach`, a block
    at a time: (states followed, target, weight, box, points, flags), the weight being the
    chance of reaching the state and making the move. With `share`, carried saved rolls and
    no first-roll bonus, the banks of a (box set, flag, total) are followed as one
    (`_merged_moves`); otherwise each state's moves are listed (`outcome_blocks`)."""
    t, layout = problem.tables, problem.layout
    if share and layout.saves_rolls and t.bank_carry and not t.has_first_roll_bonus:
        yield from _merged_moves(problem, V, index, reach)
        return
    names = ("target", "prob", "box", "points", "flags")
    for src, target, prob, box, points, flags in outcome_blocks(problem, V, index, names):
        followed = 1 + int(np.count_nonzero(src[1:] != src[:-1])) if len(src) else 0
        yield followed, target, reach[src] * prob, box, points, flags  # (a state's moves
        # come together)


def _merged_moves(problem: Problem, V: np.ndarray, index: np.ndarray, reach: np.ndarray):
    """`_weighted_moves` with carried saved rolls and no first-roll bonus: what a turn does
    with `left` re-rolls left, and where it leads, do not depend on the bank it began with
    (the bank a box leaves is the re-rolls unused). So the choices are recorded once for each
    (mask, flag, total) reached, with the largest bank it is reached with (the most stages),
    and its banks' turns are one walk of the dice (`outcomes.merged_banked_outcomes`), each
    bank's first throw joining it, weighted by its chance, at its own number of re-rolls: the
    cost of one bank's turn for all of a layer's banks (up to 41 in Maxi Yatzy, whose layers
    hold up to 147 million states: what is held here is about 12 bytes a state beside them,
    no sort of them)."""
    from .kernels.layer import run_threads
    from .kernels.outcomes import merged_banked_outcomes
    from .kernels.play import group_by

    t, layout = problem.tables, problem.layout
    stages, most = problem.most_stages, problem.most_outcomes
    mask, flag, u, bank = layout.banked_states_at(index)
    # The layer stores its banks alike (`solver.state`): a state less its bank's stride is the
    # same (mask, flag, total) in bank 0, an index into one bank's entries.
    k = int(np.searchsorted(layout.LAYER_PTR, index[0], "right")) - 1
    stride = int(layout.BANK_STRIDE[k])
    key = index - bank * stride
    key -= int(layout.LAYER_PTR[k])
    reached = np.zeros(stride, dtype=bool)
    reached[key] = True
    firsts = np.flatnonzero(reached)  # (in store order: by mask, flag and total)
    del reached
    rank = np.full(stride, -1, dtype=np.int32)
    rank[firsts] = np.arange(len(firsts), dtype=np.int32)
    which = rank[key]  # each state's (mask, flag, total) among the reached ones
    del rank, key
    top = np.zeros(len(firsts), dtype=np.int64)
    np.maximum.at(top, which, bank)  # the largest bank each is reached with
    one = np.empty(len(firsts), dtype=np.int64)
    one[which] = np.arange(len(which))  # (any of its states: they share mask, flag, total)
    # The groups by (bank, mask, flag, total), as the rows want.
    order = np.argsort(top, kind="stable")
    pick = one[order]
    groups = (mask[pick], flag[pick], u[pick], top[order])
    del one, pick, mask, flag, u
    place = np.empty(len(order), dtype=np.int32)
    place[order] = np.arange(len(order), dtype=np.int32)
    del firsts, top, order
    np.take(place, which, out=which)  # each state's group
    del place
    ptr, members = group_by(which, len(groups[0]))  # each group's states
    n_groups = len(groups[0])
    size = min(problem.merged_block, n_groups)
    buffers = _outcome_buffers(size, most)
    choices = np.empty((size, stages, t.n_distinct_rolls), dtype=np.int64)
    scratches = _banked_scratches(problem)
    for d0 in range(0, n_groups, size):
        d1 = min(d0 + size, n_groups)
        n = d1 - d0
        rows = rows_of_states(States(*(a[d0:d1] for a in groups)))
        _decide_banked(problem, V, rows, choices[:n])
        src = members[int(ptr[d0]):int(ptr[d1])]
        start = np.bincount((which[src] - d0).astype(np.int64) * stages
                            + (t.rolls - 1 + bank[src]), weights=reach[src],
                            minlength=n * stages).reshape(n, stages)
        out = Outcomes.of(**{name: array[:n] for name, array in buffers.items()})
        run_threads(merged_banked_outcomes, [
            (problem.K, problem.L, share, choices[:n], start, out, scratches[i])
            for i, share in enumerate(split_rows(rows, len(scratches)))])
        _, target, w, box, points, flags = _filled(
            out, n, most, np.zeros(n, dtype=np.int32), ("target", "prob", "box", "points", "flags"))
        yield len(src), target, w, box, points, flags


def _streamed_pmf(problem: Problem, V: np.ndarray, step: Step | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """`walk`'s distribution for a game with saved rolls, whose layers have too many moves to
    hold at once (Yatzy with saved rolls: over 143 million in one): every stored state of the
    next layer gets its window in advance (`distribution.state_windows`: what its boxes can
    add), each block of moves is added into those windows as soon as it is listed and then
    let go, and the next layer's windows are cut to the states reached and the totals they
    hold. Per target the moves add up in the order `walk` adds them, so the distribution is
    the same to the bit; memory is the windows' (`distribution.banked_distribution_bytes`)."""
    from .distribution import state_windows
    from .kernels.play import scatter_windows, trim_windows

    t, layout = problem.tables, problem.layout
    index = np.array([layout.start], dtype=np.int64)
    windows = _Windows.start()
    names = ("target", "gain", "prob")
    for k in range(t.n_categories):
        base = int(layout.LAYER_PTR[k + 1])
        lo, width = state_windows(t, layout, k + 1)
        offset = (np.cumsum(width) - width).astype(np.int64)
        pmf = np.zeros(int(width.sum()))
        sources = (windows.lo, windows.width, windows.offset, windows.pmf)
        for src, target, gain, prob in _banked_blocks(problem, V, index, names,
                                                       layout.banked_states_at(index)):
            outside = scatter_windows(src, target - base, gain, prob, sources,
                                      (lo, width, offset, pmf))
            if outside:  # (a bug: `state_windows` must hold every total a state can have)
                raise RuntimeError(f"{outside} moves of layer {k} fall outside the windows "
                                   f"of {problem.name}'s next layer")
        del sources
        windows = None  # (let go before the trimmed copy is made)
        places, *trimmed = trim_windows(lo, width, offset, pmf)
        del pmf
        windows = _Windows(*trimmed)
        index = places + base
        if step is not None:
            step(k + 1, t.n_categories)
    return windows.final()


def split_rows(rows: Rows, parts: int) -> list[Rows]:
    """Rows in at most `parts` consecutive shares of about equal numbers of states (views:
    each share's results still go to the rows' own places), one per thread."""
    ends = np.cumsum(rows.NU)
    if len(ends) == 0 or parts <= 1:
        return [rows]
    cuts = np.searchsorted(ends, ends[-1] * np.arange(1, parts) / parts, side="left") + 1
    bounds = np.unique(np.concatenate([[0], np.minimum(cuts, len(ends)), [len(ends)]]))
    return [Rows(*(field[a:b] for field in rows)) for a, b in pairwise(bounds)]


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, return_inverse=True)` for store indices (the inverse as int32), by
    marking rather than sorting: a layer's moves (millions) lead into one layer's range of
    the store, so a table over that range costs less than sorting them."""
    from .kernels.play import distinct_slots

    if len(values) == 0:
        return values.copy(), np.zeros(0, dtype=np.int32)
    low = int(values.min())
    return distinct_slots(values, np.int64(low), np.int64(int(values.max()) - low + 1))


def rows_of_states(states: States) -> Rows:
    """States sorted by (bank, mask, flag, upper total) as rows: runs of consecutive totals of
    one box set and bank, each result going to the state's position in the list."""
    m, f, u, b = states
    n = len(m)
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (m[1:] != m[:-1]) | (f[1:] != f[:-1]) | (u[1:] != u[:-1] + 1) | \
        (b[1:] != b[:-1])
    first = np.flatnonzero(new_run).astype(np.int64)
    width = np.diff(np.append(first, n)).astype(np.int64)
    return Rows.of(MASK=m[first], FLAG=f[first], BANK=b[first], U0=u[first], NU=width,
                 OUT=first)


@dataclass(frozen=True)
class _Windows:
    """The distribution of the points banked on reaching each state of a layer: state i's
    probabilities of banked totals lo[i] .. lo[i] + width[i] - 1 are pmf[offset[i]:][:width]."""

    lo: np.ndarray
    width: np.ndarray
    offset: np.ndarray
    pmf: np.ndarray

    @classmethod
    def start(cls) -> _Windows:
        one = np.ones(1, dtype=np.int64)
        return cls(one - 1, one, one - 1, np.ones(1))

    def convolve(self, src, slot, gain, prob, n_targets: int, threads: int) -> _Windows:
        """The next layer's windows: target `slot[e]` gets `prob[e]` times source `src[e]`'s
        window shifted by `gain[e]`."""
        from .kernels.layer import run_threads, shares
        from .kernels.play import convolve_windows, group_by, window_bounds

        ptr, order = group_by(slot, n_targets)
        new_lo, new_hi = window_bounds(slot, src, gain, self.lo, self.width, n_targets)
        new_width = new_hi - new_lo
        new_offset = np.concatenate([[0], np.cumsum(new_width)[:-1]]).astype(np.int64)
        new_pmf = np.zeros(int(new_width.sum()))
        sources = (self.lo, self.width, self.offset, self.pmf)
        run_threads(convolve_windows, [(ptr, order, (src, gain, prob), sources,
                                        (new_lo, new_offset, new_pmf), part)
                                       for part in shares(threads, n_targets)])
        return _Windows(new_lo, new_width, new_offset, new_pmf)

    def final(self) -> tuple[np.ndarray, np.ndarray]:
        """The final score's distribution: every full-card window added up, trimmed to the
        scores with a nonzero probability."""
        base = int(self.lo.min())
        total = np.zeros(int((self.lo + self.width).max()) - base)
        for s in range(len(self.lo)):
            start = int(self.lo[s]) - base
            total[start: start + int(self.width[s])] += \
                self.pmf[self.offset[s]: self.offset[s] + self.width[s]]
        nonzero = np.flatnonzero(total > 0)
        first, last = int(nonzero[0]), int(nonzero[-1])
        return np.arange(base + first, base + last + 1, dtype=np.int64), total[first: last + 1]
