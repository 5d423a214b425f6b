"""What this machine allows: memory for tables and the estimate behind a refusal; and the
bounds on what a request may ask for."""

from __future__ import annotations

import os

from yz.rules import InputError

MAX_MOVES = 400  # a game has at most boxes x (rolls + 1) moves; more is not a game


def machine_memory() -> int:
    """Physical memory in bytes (a generous 8 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def solve_bytes(t, layout, with_sd: bool, threads: int | None, cols: int,
                layered: bool = False) -> int:
    """Memory a solve needs: the value store (and the second moment with the SD), the layout's
    per-box-set tables and rows, and the scratch tables (keeps x `cols`) of each thread.
    `layered` (`solver.layered`): a process holds two adjacent layers of the store."""
    n_sets = 1 << t.n_categories
    sizes = layout.LAYER_PTR[1:] - layout.LAYER_PTR[:-1]
    held = int((sizes[1:] + sizes[:-1]).max()) if layered and len(sizes) > 1 else layout.size
    store = held * 8 * (2 if with_sd else 1)
    per_set = layout.OFFSET.nbytes + n_sets * (8 + 5 * 8 * layout.n_flags)  # U0/U1, rows
    scratch = thread_count(threads) * t.n_keeps * cols * 8 * (3 if with_sd else 1)
    return store + per_set + scratch


def cores() -> int:
    """The cores this process may run on (`NUMBA_NUM_THREADS` caps them, as it capped numba's
    own threads before the kernels ran on Python threads)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    env = os.environ.get("NUMBA_NUM_THREADS", "")
    return min(n, int(env)) if env.isdigit() and int(env) > 0 else n


def thread_count(threads: int | None = None) -> int:
    """The threads the kernels use: `threads` (at most the cores), or every core."""
    from yz.rules import InputError

    most = cores()
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InputError(f"threads: {threads!r} is not a positive whole number; give 1 to "
                         f"{most} (the cores here), or leave it out for all.", param="threads")
    return min(threads, most)


def check_solve_memory(t, layout, with_sd: bool, max_memory: int | None, threads: int | None,
                       cols: int, layered: bool = False, processes: int = 1) -> None:
    """InputError, with the estimate, when solving would need more than `max_memory` bytes
    (default: three quarters of this machine's memory). Cheap: run it before solving."""
    from yz.rules import InputError

    if max_memory is not None and (isinstance(max_memory, bool) or not isinstance(
            max_memory, int) or max_memory < 1):
        raise InputError(f"max memory: {max_memory!r} is not a positive number of bytes.",
                         param="max_memory")
    need = solve_bytes(t, layout, with_sd, threads, cols, layered) * processes
    limit = max_memory if max_memory is not None else machine_memory() * 3 // 4
    if need > limit:
        raise InputError(
            f"solving {t.rules.name} needs about {need / 2**30:.2f} GiB "
            f"({layout.size:,} stored states{' with the SD' if with_sd else ''}"
            + (", two layers at a time" if layered else "")
            + (f" in each of {processes} processes" if processes > 1 else "") + "), more than "
            f"the {limit / 2**30:.2f} GiB allowed; allow more memory, "
            + ("" if layered else "solve it layer by layer into a folder (two layers in "
               "memory), ")
            + "or use fewer boxes or a lower upper-bonus threshold.", param="max_memory")


# Turn-start states x keeps per second swept by the exact figures (a backward pass for the SD
# and a forward pass for the per-box figures), measured on this 2-core machine (Maxi Yatzy:
# 37.6 M states x 924 keeps in 9.5 min).
FIGURES_RATE = 60e6
# Exact figures expected to take longer than this are not computed unasked.
AUTO_FIGURES_SECONDS = 60.0


def figures_seconds(t, layout) -> float:
    """A rough estimate of the seconds `exact_figures` takes for these tables."""
    return layout.size * t.n_keeps / FIGURES_RATE


# What a solve and its exact distribution cost, counted in the steps of the turn recursion
# (solver.dp): for each stored state, the keep averages (keeps x faces x re-rolls, "keep
# steps") and the final roll's boxes (rolls x boxes, "box steps"); and once per row of states
# that share a card (mask, flag), both again. Seconds per step on this 2-core machine, fitted
# by `bench/bench_solve.py --rates` to 17 rule sets taking 0.4 s to 47 s; the estimate was
# within 0.5x to 1.3x of every measured time.
SOLVE_OVERHEAD_SECONDS = 0.4
SECONDS_PER_KEEP_STEP = 8.8e-10
SECONDS_PER_BOX_STEP = 1.55e-9
SECONDS_PER_ROW_STEP = 2.6e-10


# Of `solve_seconds` (the values, then the exact distribution), the share of the values
# (measured: the distribution takes a half to two thirds).
VALUES_SHARE = 0.35
# One thread's seconds per state and roll of the exact distribution of a game with saved
# rolls, and the part that runs on one thread whatever the count (the windows' additions:
# about a seventh). Measured on 2 threads, Yatzy with one saved roll: 9.1 us a state and roll
# (69 s) when these were first fitted; the moves' kernel then counted references (b98951d,
# 083dae5), and in one run on a faster day it went from 53.6 s to 14.0 s, so the figures are
# the old ones times 14.0 / 53.6, split as the profile splits them (Yatzy with saved rolls:
# see the README).
SECONDS_PER_BANKED_STAGE = 4.1e-6
SERIAL_SECONDS_PER_BANKED_STAGE = 0.4e-6
# A target-play table up to N (`solver.target`) costs about the DP's values times
# TARGET_SECONDS_PER_NEED x (TARGET_ROW_NEEDS + N): every state's needs are columns of the
# same sweep, and each row (a state's run of needs) has a fixed part besides. Fitted to the
# official rules and Yatzy (N = 2, 20, 60) measured on one (faster) day, scaled by how far
# `solve_seconds` was above that day's solve and distribution (4.3x, 6.3x): the estimate is
# within 0.7x to 1.2x of each (Yatzy with saved rolls, N = 3: 58.5 s that day, estimated at
# 166 s).
TARGET_SECONDS_PER_NEED = 0.33
TARGET_ROW_NEEDS = 6.0
# Work estimated to take longer than this stops before it starts, saying so (a budget).
LONG_WORK_SECONDS = 600.0
# Work expected to take longer than this is announced with its estimate before it starts.
ANNOUNCE_WORK_SECONDS = 120.0


class WorkTooLong(InputError):
    """A piece of work estimated to take longer than the budget, refused before it starts."""

    def __init__(self, what: str, seconds: float, budget: float, why: str):
        self.what, self.seconds, self.budget = what, seconds, budget
        self.hint = ""  # another way to go ahead, added by a front end that has one
        shown, cap = duration(seconds), duration(budget)
        if shown == cap:  # just over the budget: a finer figure, or it reads as "10 > 10"
            shown, cap = duration(seconds, finer=True), duration(budget, finer=True)
        self.estimate = (f"{what} would take about {shown} on this machine "
                         f"(estimated {why}), more than the budget of {cap}")
        super().__init__(f"{self.estimate}; give a larger budget (max_seconds, or None for "
                         "none) to go ahead.", param="max_seconds")


def duration(seconds: float, finer: bool = False) -> str:
    """Seconds in words a person reads at a glance: '40 s', '23 minutes', '18.2 hours'
    (`finer`: one more decimal, '10.1 minutes')."""
    if seconds < 90:
        return f"{seconds:.{1 if finer else 0}f} s"
    if seconds < 5400:
        return f"{seconds / 60:.{1 if finer else 0}f} minutes"
    return f"{seconds / 3600:.{2 if finer else 1}f} hours"


# Batches narrower than this many columns lose the vector units: a game with so many keeps
# that only 2 columns fit the scratch table (8 dice of 10 faces) ran 7.5x slower per step.
VECTOR_COLS = 16


def solve_seconds(t, layout, cols: int = 256) -> float:
    """A rough estimate of the seconds `solve` and then `distribution` take for these tables,
    with the kernels already compiled (`warmup.compile_seconds` more the first time), in
    batches of `cols` columns."""
    keep_stages, box_stages = turn_stages(t, layout)
    keep_steps = t.n_keeps * t.n_faces * keep_stages
    box_steps = t.n_distinct_rolls * t.n_categories * box_stages
    rows = int((layout.OFFSET >= 0).sum())
    narrow = max(1.0, VECTOR_COLS / max(1, cols))
    # The rates were fitted to reachable states; with saved rolls many reachable banks share
    # one stored entry (totals below U0), so the stored ones count (measured: Yatzy and Maxi
    # Yatzy with saved rolls, 17.3 and 790 million stored).
    states = layout.size if t.has_bank else layout.reachable
    return (SOLVE_OVERHEAD_SECONDS
            + narrow * states * (keep_steps * SECONDS_PER_KEEP_STEP
                                           + box_steps * SECONDS_PER_BOX_STEP)
            + rows * (keep_steps + box_steps) * SECONDS_PER_ROW_STEP)


def distribution_seconds(t, layout, cols: int = 256, threads: int | None = None) -> float:
    """A rough estimate of the seconds the exact distribution takes once the game is solved:
    the rest of `solve_seconds`; with saved rolls, a turn's moves are followed through
    every roll it may have (rolls + bank), state by state (SECONDS_PER_BANKED_STAGE)."""
    if not t.has_bank:
        return (1 - VALUES_SHARE) * solve_seconds(t, layout, cols)
    stages = 0.0  # states x (rolls + bank), by box set: banks 0 .. n - 1 of each are stored
    for k in range(t.n_categories):
        masks = layout.layer_masks[k]
        states = (layout.U1[masks] - layout.U0[masks] + 1).astype("int64") * (
            1 + ((masks >> layout.flag_box) & 1 if layout.n_flags == 2 else 0))
        n = layout.banks[k]
        stages += float(states.sum()) * (n * t.rolls + n * (n - 1) / 2)
    return stages * (SECONDS_PER_BANKED_STAGE / thread_count(threads)
                     + SERIAL_SECONDS_PER_BANKED_STAGE)


def target_seconds(t, layout, max_target: int, cols: int = 256) -> float:
    """A rough estimate of the seconds the target-play table up to `max_target` takes here
    (the DP's values not included; see TARGET_SECONDS_PER_NEED)."""
    values = VALUES_SHARE * (solve_seconds(t, layout, cols) - SOLVE_OVERHEAD_SECONDS)
    return values * TARGET_SECONDS_PER_NEED * (TARGET_ROW_NEEDS + max_target)


def turn_stages(t, layout) -> tuple[float, float]:
    """Re-roll stages and box-filling passes the DP runs per stored state, on average: rolls - 1
    and 1 without saved rolls. With them a turn begun with bank b has rolls - 1 + b re-roll
    stages and may fill a box after each roll; carried saved rolls share the stages of all the
    banks of a layer (`solver.kernels.layer.bank_span`)."""
    if not t.has_bank:
        return float(t.rolls - 1), 1.0
    import numpy as np  # (this module is read before numpy is needed elsewhere)

    sizes = np.diff(layout.LAYER_PTR)[:-1].astype(float)
    n = np.array(layout.banks[:-1], dtype=float)
    if t.bank_carry:  # one sweep of rolls - 2 + n stages for the n banks
        keep, boxes = (t.rolls - 2 + n) / n, (t.rolls - 1 + n) / n
    else:
        keep = t.rolls - 1 + (n - 1) / 2
        boxes = keep + 1
    share = sizes / max(1.0, sizes.sum())
    return float(share @ keep), float(share @ boxes)
