"""What work costs and what this machine allows, in one place: the sizes the kernels are handed,
the estimates of memory and time behind every refusal and every "about N minutes", and the
bounds on what a request may ask for.

Every figure here changes how fast yz works or what it refuses, never a result. The estimates
are functions of the compiled tables and the state layout alone, so a refusal costs nothing:
nothing is solved before it. `Budget` binds them to one model's limits (`max_memory`,
`max_seconds`) and its `Reporter`: it refuses work estimated to take longer than the budget
(`WorkTooLong`) and announces work of minutes before it starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from yz.rules import InputError, RuleTables, WorkTooLong
from yz.rules.errors import duration

from .state import StateLayout, filled_maxima

__all__ = ["Budget", "WorkTooLong", "duration"]

MAX_MOVES = 400  # a game has at most boxes x (rolls + 1) moves; more is not a game

# ---------------------------------------------------------------- the sizes of the work

# Upper-total columns solved side by side in one scratch table (`solver.kernels.layer`).
MAX_BATCH_COLS = 256
# Target size of a thread's scratch table: about half of a core's L2 cache here.
SCRATCH_BYTES = 1 << 20
# States whose keep choices are held at once while simulating or following a strategy, at
# most (4096 x 2 x 252 int32 ~ 8 MB for five dice), and at most CHOICE_BYTES in all.
SIM_STATE_BLOCK = 4096
CHOICE_BYTES = 64 << 20
MERGED_BLOCK_BYTES = 512 << 20  # (`merged_block`)
# Seconds of work between two returns to Python within a layer: progress moves, and Ctrl-C
# (which Python handles only between kernel calls) stops a solve within about this long.
PART_SECONDS = 0.5
# States per chunk of a layered solve, about: 8 MB of values (a layer of 4M: 4 tasks).
CHUNK_STATES = 1 << 20
# Bytes per checksum block of a layered solve's chunk files: advice reads a few rows of many
# chunks and checks only the blocks those rows are in (Maxi Yatzy: about 1,000 of 64 KiB).
STORE_BLOCK_BYTES = 1 << 16
# Chunk files of a store kept open (memory-mapped) at once; each holds a file descriptor.
STORE_OPEN_FILES = 256
# Batches narrower than this many columns lose the vector units: a game with so many keeps
# that only 2 columns fit the scratch table (8 dice of 10 faces) ran 7.5x slower per step.
VECTOR_COLS = 16


def batch_width(t: RuleTables, layout: StateLayout, widest: int | None = None) -> int:
    """Columns the kernels solve side by side: enough to fill the vector units, few enough
    that the scratch table (keeps x columns) stays in a core's L2 cache; at least `widest`,
    the widest run of columns that must stay together (default: the value store's, every
    upper total of a box set)."""
    if widest is None:
        widest = int(layout.U1.max() - layout.U0.min() + 1)
    return max(widest, min(MAX_BATCH_COLS, SCRATCH_BYTES // (8 * t.n_keeps)))


def state_block(t: RuleTables, layout: StateLayout) -> int:
    """States whose choices are held at once (every roll at every stage, int64 each)."""
    per_state = most_stages(t, layout) * t.n_distinct_rolls * 8
    return max(1, min(SIM_STATE_BLOCK, CHOICE_BYTES // per_state))


def most_stages(t: RuleTables, layout: StateLayout) -> int:
    """The most rolls a turn has: `rolls`, and with saved rolls the largest bank."""
    return t.rolls + layout.most_banks - 1


def most_outcomes(t: RuleTables, layout: StateLayout) -> int:
    """The most distinct moves a turn can end with: a box for every final roll, and for
    every first roll kept whole to claim a first-roll bonus; with saved rolls at most one
    box for each roll at each stage."""
    if layout.saves_rolls:
        return t.n_distinct_rolls * most_stages(t, layout)
    return t.n_distinct_rolls * (2 if t.has_first_roll_bonus else 1)


def outcome_block(t: RuleTables, layout: StateLayout) -> tuple[int, int]:
    """States whose turn outcomes the forward pass holds at once, and the bytes of each
    (six numbers per outcome; with saved rolls also the choices at every stage)."""
    per_state = most_outcomes(t, layout) * 6 * 8
    if layout.saves_rolls:
        per_state += most_stages(t, layout) * t.n_distinct_rolls * 8
    return max(1, min(SIM_STATE_BLOCK, CHOICE_BYTES // per_state)), per_state


def part_states(t: RuleTables, layout: StateLayout, cols: int, threads: int) -> int:
    """States the DP solves between two returns to Python: about PART_SECONDS of work."""
    work = VALUES_SHARE * (solve_seconds(t, layout, cols) - SOLVE_OVERHEAD_SECONDS)
    per_state = max(1e-9, work * threads / max(1, layout.size))  # one thread's seconds
    return max(1, int(PART_SECONDS * threads / per_state))


# ---------------------------------------------------------------- the machine


def machine_memory() -> int:
    """Physical memory in bytes (a generous 8 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def cores() -> int:
    """The cores this process may run on (`NUMBA_NUM_THREADS` caps them, as it capped numba's
    own threads before the kernels ran on Python threads)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    env = os.environ.get("NUMBA_NUM_THREADS", "")
    return min(n, int(env)) if env.isdigit() and int(env) > 0 else n


def free_cores(threads: int) -> float:
    """The cores `threads` busy threads of this process can count on now: every one on an
    idle machine; on a busy one, their fair share beside the other runnable work (the
    one-minute load average, less this process's own running thread)."""
    try:
        others = max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):  # (no load average on this system: assume idle)
        others = 0.0
    n = cores()
    if threads + others <= n:
        return float(min(threads, n))
    return n * threads / (threads + others)


def slowdown(threads: int) -> float:
    """How much longer work on `threads` threads takes now than on a quiet machine (1.0 when
    the cores it needs are free; see `free_cores`)."""
    return min(threads, cores()) / free_cores(threads)


def thread_count(threads: int | None = None) -> int:
    """The threads the kernels use: `threads` (at most the cores), or every core."""
    most = cores()
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InputError(f"threads: {threads!r} is not a positive whole number; give 1 to "
                         f"{most} (the cores here), or leave it out for all.", param="threads")
    return min(threads, most)


def memory_limit(max_memory: int | None, share: float = 0.75) -> int:
    """`max_memory` (checked), else `share` of this machine's memory."""
    if max_memory is not None and (isinstance(max_memory, bool) or not isinstance(
            max_memory, int) or max_memory < 1):
        raise InputError(f"max memory: {max_memory!r} is not a positive number of bytes.",
                         param="max_memory")
    return max_memory if max_memory is not None else int(machine_memory() * share)


# ---------------------------------------------------------------- memory

def solve_bytes(t: RuleTables, layout: StateLayout, with_sd: bool, threads: int | None,
                cols: int, layered: bool = False) -> int:
    """Memory a solve needs: the value store (and the second moment with the SD), the layout's
    per-box-set tables and rows, and the scratch tables (keeps x `cols`) of each thread.
    `layered` (`solver.layered`): a process holds two adjacent layers of the store."""
    n_sets = 1 << t.n_categories
    sizes = layout.LAYER_PTR[1:] - layout.LAYER_PTR[:-1]
    held = int((sizes[1:] + sizes[:-1]).max()) if layered and len(sizes) > 1 else layout.size
    store = held * 8 * (2 if with_sd else 1)
    # The kernels' OFFSET (`StateLayout.OFFSET`), U0/U1 and rows.
    per_set = n_sets * (8 * layout.n_flags * layout.most_banks + 8 + 5 * 8 * layout.n_flags)
    scratch = thread_count(threads) * t.n_keeps * cols * 8 * (3 if with_sd else 1)
    return store + per_set + scratch


def check_solve_memory(t: RuleTables, layout: StateLayout, with_sd: bool,
                       max_memory: int | None, threads: int | None, cols: int,
                       layered: bool = False, processes: int = 1) -> None:
    """InputError, with the estimate, when solving would need more than `max_memory` bytes
    (default: three quarters of this machine's memory). Cheap: run it before solving."""
    limit = memory_limit(max_memory)
    need = solve_bytes(t, layout, with_sd, threads, cols, layered) * processes
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


# Bytes a move of the forward pass can take at once with saved rolls when a layer's moves are
# held (the per-box figures; `forward.COLUMN_TYPES`): source 4, target 8, probability 8, box,
# points and flags 12, one column's copy while a layer's blocks are joined (8), the target's
# place (4) and the figures' weights and their products (16).
MOVE_BYTES = 64


def distribution_bytes(t: RuleTables, layout: StateLayout) -> int:
    """The most memory the forward pass can need: two layers of windows, each state's as wide
    as every possible score (real windows are far narrower); with saved rolls also a layer's
    moves, which are many (`moves_per_state` for every state of the layer)."""
    sizes = np.diff(layout.LAYER_PTR)
    windows = 2 * int(sizes.max()) * (t.highest_score + 1) * 8
    if not layout.saves_rolls:
        return windows
    moves = max(int(sizes[k]) * moves_per_state(t, layout, k) for k in range(t.n_categories))
    return windows + moves * MOVE_BYTES + block_bytes(t, layout)


def moves_per_state(t: RuleTables, layout: StateLayout, k: int) -> int:
    """The most distinct moves a turn can end with from a state of layer k in a game with
    saved rolls: one for each roll at each stage at most, and at most one per key that
    `outcomes.banked_outcomes` tells moves apart by: a box still open (the k filled leave the
    n - k with the most keys at most), its score (or, for a Yahtzee rolled with the Yahtzee
    box filled, its face), whether it is the first roll (with a first-roll bonus only) and
    the bank the move leaves (`bank_after` over the layer's banks and re-rolls)."""
    from .kernels.state import bank_after

    banks = layout.banks[k]
    stages = t.rolls + banks - 1
    left_banks = {bank_after(t, b, left) for b in range(banks) for left in range(t.rolls + b)}
    extra = t.n_faces if t.yahtzee_box >= 0 else 0  # (Yahtzees with the Yahtzee box filled)
    keys = np.sort([len(np.unique(t.SCORE[:, c])) + extra for c in range(t.n_categories)])
    open_keys = int(keys[k:].sum()) * (2 if t.has_first_roll_bonus else 1)
    return min(t.n_distinct_rolls * stages, open_keys * len(left_banks))


def window_bytes(t: RuleTables, layout: StateLayout) -> np.ndarray:
    """Per layer, the bytes of every stored state's window (`distribution.state_windows`,
    float64), added up by box set (its totals are U0 .. U1, the same for each flag and bank
    it is stored with): no array per state or row, so the check of a game with hundreds of
    millions of states stays quick and small."""
    out = np.zeros(t.n_categories + 1, dtype=np.int64)
    threshold = int(t.upper_threshold) if t.upper_bonus else 0
    for k in range(t.n_categories + 1):
        masks = layout.layer_masks[k]
        u0 = layout.U0[masks].astype(np.int64)
        nu = (layout.U1[masks] - layout.U0[masks] + 1).astype(np.int64)
        flags = layout.flag_values(masks)
        every, others = filled_maxima(t, masks)
        if threshold:
            top = np.clip(u0 + nu - np.maximum(threshold, u0), 0, nu)
            first_low = (threshold > u0).astype(np.int64)  # (U0: up to U0 upper points)
            exact = nu - top - first_low
            width = (top * (every - threshold) + first_low * (u0 + others)
                     + exact * others + nu)
        else:
            width = nu * (every + t.upper_bonus + 1)
        # The Yahtzee bonuses widen only the copy with the flag set (`state_windows`).
        bonuses = nu * (flags - 1) * t.yahtzee_bonus * max(0, k - 1)
        out[k] = int(((width * flags + bonuses) * layout.banks[k]).sum()) * 8
    return out


def banked_distribution_bytes(t: RuleTables, layout: StateLayout) -> int:
    """The most the streamed forward pass of a game with saved rolls holds
    (`forward._streamed_pmf`): a layer's windows as reached beside every window of the
    next (`window_bytes`), or the next's twice while they are trimmed to what was reached,
    and one block of states' moves (`block_bytes`)."""
    w = window_bytes(t, layout)
    return int(np.maximum(w[:-1] + w[1:], 2 * w[1:]).max()) + block_bytes(t, layout)


def merged_block(t: RuleTables, layout: StateLayout) -> int:
    """States (box set, flag, total) whose banks' moves the store figures' pass follows at once
    where the banks walk the dice as one (`forward._merged_moves`): more than `outcome_block`
    (MERGED_BLOCK_BYTES), so the decision kernel's batches spread evenly over the threads
    (Maxi Yatzy: 60 -> 482 a block, 10% less time measured on a slice of its layer 9)."""
    block, per_state = outcome_block(t, layout)
    return max(block, min(SIM_STATE_BLOCK, MERGED_BLOCK_BYTES // per_state))


def block_bytes(t: RuleTables, layout: StateLayout) -> int:
    """The forward pass's buffers for a block of states with saved rolls (`outcome_block`)
    and the block's moves as listed."""
    block, per_state = outcome_block(t, layout)
    return 2 * min(block, int(np.diff(layout.LAYER_PTR).max())) * per_state


def streamed_figures_bytes(t: RuleTables, layout: StateLayout) -> int:
    """The most the figures' pass from a layered store holds (`forward.streamed_figures`): at
    layer k, its reached states (at most the layer: index and chance, their mask, flag, total
    and bank, and the shared choices' keys, about 12 bytes, 60 in all), the next layer's values
    (read whole) and its chances, one block of moves (`block_bytes`, `merged_block`), and the
    layout's rows
    (each layer's and all of them joined, 48 bytes a row each)."""
    n = np.diff(layout.LAYER_PTR[:t.n_categories + 1]).astype(np.int64)
    per_layer = 60 * n[:-1] + 16 * n[1:]
    merged = 2 * merged_block(t, layout) * outcome_block(t, layout)[1]  # (`merged_block`)
    return int(per_layer.max(initial=0)) + max(block_bytes(t, layout), merged) + \
        2 * 48 * layout.n_rows


def pmf_bytes(t: RuleTables, layout: StateLayout) -> int:
    """What the exact distribution alone needs: the held pass's bound, or with saved rolls the
    streamed pass's (`forward.walk`)."""
    if layout.saves_rolls:
        return banked_distribution_bytes(t, layout)
    return distribution_bytes(t, layout)


def check_distribution_memory(t: RuleTables, layout: StateLayout, max_memory: int | None,
                              streamed: bool = False) -> None:
    """InputError, with the estimate, when the forward pass might not fit in `max_memory`
    bytes (default: half of this machine's memory): the pass that holds a layer's moves (the
    per-box figures), or with `streamed` the one the distribution alone takes (`pmf_bytes`).
    Cheap: run it before solving."""
    need = pmf_bytes(t, layout) if streamed else distribution_bytes(t, layout)
    limit = memory_limit(max_memory, 0.5)
    if need > limit:
        raise InputError(f"the exact distribution of {t.rules.name} may need up to "
                         f"{need / 2**30:.1f} GiB, more than the {limit / 2**30:.1f} GiB "
                         "allowed here; simulate the game instead.")


def figures_fit(t: RuleTables, layout: StateLayout, max_memory: int | None = None) -> bool:
    """Whether the exact distribution and the per-box figures are computed along with a
    game's other results (the coach's rank, `compare`, mean play beside target play): always
    without saved rolls; with them where the forward pass that holds a layer's moves fits in
    `max_memory` bytes (default: half of this machine's memory). The big ones (Yatzy with
    saved rolls) get the distribution only when asked (streamed), Maxi Yatzy not at all."""
    return not layout.saves_rolls or \
        distribution_bytes(t, layout) <= memory_limit(max_memory, 0.5)


def target_table_bytes(layout: StateLayout, max_target: int) -> int:
    """Memory the target table takes while it is solved: the float32 table and two float64
    layers."""
    widest = int(np.diff(layout.LAYER_PTR).max())
    return layout.size * (max_target + 1) * 4 + 2 * widest * (max_target + 1) * 8


def need_sweep_bytes(layout: StateLayout, n_need: int, tables: int = 1) -> int:
    """Memory a need sweep (`target.need_sweep`) holds besides what it keeps: two float64
    layers of each of its `tables` (the values, and the payloads they carry), at most (a
    windowed sweep's layers hold only the needs from their first on: about two thirds of the
    official game's biggest pair)."""
    widest = int(np.diff(layout.LAYER_PTR).max())
    return 2 * tables * widest * n_need * 8


def check_need_memory(t: RuleTables, layout: StateLayout, n_need: int, tables: int,
                      max_memory: int | None, what: str) -> None:
    """InputError, with the estimate, when a need sweep of `tables` tables up to need
    n_need - 1 would not fit in `max_memory` (default: half of this machine's memory)."""
    need = need_sweep_bytes(layout, n_need, tables)
    limit = memory_limit(max_memory, 0.5)
    if need > limit:
        raise InputError(f"{what} {t.rules.name} needs about {need / 2**30:.1f} GiB (scores up "
                         f"to {n_need - 1}), more than the {limit / 2**30:.1f} GiB allowed.")


def check_target_memory(t: RuleTables, layout: StateLayout, max_target: int,
                        max_memory: int | None = None, param: str = "max_target") -> None:
    """InputError, with the estimate, when the table up to `max_target` would not fit in
    `max_memory` bytes (default: half of this machine's memory). Cheap: run it before solving.
    `param` names the caller's parameter that asked for this maximum."""
    need = target_table_bytes(layout, max_target)
    limit = memory_limit(max_memory, 0.5)
    if need > limit:
        raise InputError(f"{param.replace('_', ' ')}: the target table of {t.rules.name} up to "
                         f"{max_target} needs about {need / 2**30:.1f} GiB, more than the "
                         f"{limit / 2**30:.1f} GiB allowed; give a lower target.", param=param)


# ---------------------------------------------------------------- time

# Turn-start states x keeps per second swept by the exact figures (a backward pass for the SD
# and a forward pass for the per-box figures), measured on this 2-core machine (Maxi Yatzy:
# 37.6 M states x 924 keeps in 9.5 min).
FIGURES_RATE = 60e6
# Exact figures expected to take longer than this are not computed unasked.
AUTO_FIGURES_SECONDS = 60.0

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
# The DP alone (`dp_seconds`), without and with the SD: seconds per step of `dp_work`, in
# its order (per keep step and box step of a stored state, and per box step and keep step of
# a row: a card's run of upper totals, the batches' work that does not run across columns,
# which a plain game of many boxes has one column each of). Fitted on 2026-11-29 (quiet, 2
# threads) to the 20 plain rule sets of `bench/bench_solve.py --rates`, from 0.02 s to 17 s,
# by relative least squares with no negative rate: fit / measured 0.61 to 1.66 for the
# values, 0.66 to 1.32 with the SD (leaving each rule set out of its own fit: 0.58 to 1.91
# and 0.64 to 1.41). DP_MARGIN lifts the lowest above 1, so the estimate errs long: in a
# second run of `--rates` that day the estimate was 1.3x to 2.1x the values measured and
# 1.2x to 2.4x with the SD, over 0.3 s (the lowest: the official rules with 8 dice, whose DP
# with the SD took 12.2 s there and 15.5 s beside other work). Beyond the fit:
# maxi-yatzy-no-saved-rolls with the SD (205 s) 310 s before the margin.
DP_RATES = {False: (5.55e-11, 1.34e-10, 3.89e-11, 7.72e-10),
            True: (1.62e-10, 3.43e-10, 5.95e-10, 1.60e-9)}
DP_MARGIN = {False: 1.75, True: 1.8}
# Games with saved rolls, beyond the fit (whose rule sets have none): the values of
# yatzy-saved-rolls (13.3 s) came out at 1.05x the fit, Maxi Yatzy's layer by layer (4,625
# CPU-seconds on 2 cores, so about 39 minutes) at 0.62x; so their values' estimate is 1.3x
# more. (With the SD the fit is over already: Maxi Yatzy's took 3,582 CPU-seconds.)
SAVED_ROLLS_DP = 1.3
# The exact mean and SD of a fixed strategy (`exact.exact_moments`: its values' sweep with the
# moments) against the DP with the SD, measured 2026-11-29: 0.9x to 1.3x in plain games (the
# official rules, Yatzy, 17 boxes, 8 dice), 1.9x for yatzy-saved-rolls (57.8 s).
MOMENTS_PER_DP = 1.3
# One thread's seconds per state and roll of the exact distribution of a game with saved
# rolls, and the part that runs on one thread whatever the count (the windows' additions:
# about a seventh). Measured on 2 threads, Yatzy with one saved roll: 9.1 us a state and roll
# (69 s) when these were first fitted; the moves' kernel then counted references (b98951d,
# 083dae5), and in one run on a faster day it went from 53.6 s to 14.0 s, so the figures are
# the old ones times 14.0 / 53.6, split as the profile splits them (Yatzy with saved rolls:
# see the README).
SECONDS_PER_BANKED_STAGE = 4.1e-6
SERIAL_SECONDS_PER_BANKED_STAGE = 0.4e-6
# The figures' pass from a layered store where saved rolls are carried and no first roll has
# a bonus (`forward._merged_moves`): for each (box set, flag, total), one decision sweep and
# one walk of the dice through the rolls of its largest bank, for all its banks. Seconds of one
# thread per such roll and per entry of the dice's work (a keep's outcomes, KEEP_OUT, and the
# rolls: 4,620 with Yatzy's 5 dice, 12,838 with Maxi Yatzy's 6), measured on 2 threads of a
# quiet machine: Maxi Yatzy's layers 7 to 9 (30.4% of the stages) in 34.1 minutes, so about
# 112 for the pass (1.2e-9 each); yatzy-saved-rolls took 96 to 105 s with another pass beside
# (this gives 54 s on 2 free cores, 108 s on one).
SECONDS_PER_MERGED_STAGE_ENTRY = 1.2e-9
# A target-play table up to N (`solver.target`) costs about the DP's values times
# TARGET_SECONDS_PER_NEED x (TARGET_ROW_NEEDS + N): every state's needs are columns of the
# same sweep, and each row (a state's run of needs) has a fixed part besides. Fitted to the
# official rules and Yatzy (N = 2, 20, 60) measured on one (faster) day, scaled by how far
# `solve_seconds` was above that day's solve and distribution (4.3x, 6.3x): the estimate is
# within 0.7x to 1.2x of each (Yatzy with saved rolls, N = 3: 58.5 s that day, estimated at
# 166 s).
TARGET_SECONDS_PER_NEED = 0.33
TARGET_ROW_NEEDS = 6.0
# Simulated games. Seconds of one core a game's turn takes to play at the least (drawing its
# dice, finding its state, the play kernel; measured: 0.6 to 1.0 us of wall time on 2 threads
# with other work running, 1.2 to 2 us of a core, in four built-ins; half the lowest): the
# floor of `simulate_floor_seconds`, which refuses a run far beyond the budget at once.
PLAY_SECONDS_PER_GAME_TURN = 0.6e-6
# A run's time is measured, not modelled (`solver.simulate.estimate_seconds`): a strategy's
# choices are computed once per distinct state of a chunk of games, and how many distinct
# states a chunk meets, and what each costs, differ by 10x between games. So the games are
# timed on throwaway samples: SAMPLE_GAMES first, then four times as many each time while the
# estimate exceeds QUIET_SECONDS, until a whole chunk is timed, or the next sample would take
# the measuring beyond SAMPLE_SECONDS and SAMPLE_SHARE of the estimate (a sample's time per
# game only falls as it grows, so every estimate is one from above).
SAMPLE_GAMES = 200
QUIET_SECONDS = 60.0
SAMPLE_SECONDS = 2.0
SAMPLE_SHARE = 0.03
SAY_SAMPLE_SECONDS = 10.0  # a sample expected to take longer is announced
# Work estimated to take longer than this stops before it starts, saying so (a budget).
LONG_WORK_SECONDS = 600.0
# Work expected to take longer than this is announced with its estimate before it starts.
ANNOUNCE_WORK_SECONDS = 120.0


def figures_seconds(t: RuleTables, layout: StateLayout) -> float:
    """A rough estimate of the seconds `exact_figures` takes for these tables."""
    return layout.size * t.n_keeps / FIGURES_RATE


def dp_work(t: RuleTables, layout: StateLayout, cols: int = MAX_BATCH_COLS
            ) -> tuple[float, float, float, float]:
    """The turn recursion's steps for these tables, which the time estimates are rates of:
    (stored states x keep steps, states x box steps, rows x box steps, rows x keep steps), a
    state's steps counted `narrow`-fold where batches of `cols` columns lose the vector units.
    Keep steps are keeps x faces x re-roll stages, box steps rolls x boxes x box-filling
    passes (`turn_stages`); a row is a card's run of upper totals."""
    keep_stages, box_stages = turn_stages(t, layout)
    keep_steps = t.n_keeps * t.n_faces * keep_stages
    box_steps = t.n_distinct_rolls * t.n_categories * box_stages
    narrow = max(1.0, VECTOR_COLS / max(1, cols))
    # The rates were fitted to reachable states; with saved rolls many reachable banks share
    # one stored entry (totals below U0), so the stored ones count (measured: Yatzy and Maxi
    # Yatzy with saved rolls, 17.3 and 790 million stored).
    states = narrow * (layout.size if layout.saves_rolls else layout.reachable)
    rows = layout.n_rows
    return states * keep_steps, states * box_steps, rows * box_steps, rows * keep_steps


def solve_seconds(t: RuleTables, layout: StateLayout, cols: int = MAX_BATCH_COLS) -> float:
    """A rough estimate of the seconds `solve` and then `distribution` take for these tables,
    with the kernels already compiled (`warmup.compile_seconds` more the first time), in
    batches of `cols` columns."""
    state_keep, state_box, row_box, row_keep = dp_work(t, layout, cols)
    return (SOLVE_OVERHEAD_SECONDS + state_keep * SECONDS_PER_KEEP_STEP
            + state_box * SECONDS_PER_BOX_STEP + (row_keep + row_box) * SECONDS_PER_ROW_STEP)


def dp_seconds(t: RuleTables, layout: StateLayout, cols: int = MAX_BATCH_COLS,
               with_sd: bool = False) -> float:
    """A rough estimate of the seconds the DP takes here (`with_sd`: the exact SD too), from
    above: the fitted DP_RATES (per `dp_work` step) times DP_MARGIN (the values of a game with
    saved rolls: and SAVED_ROLLS_DP). Not a share of `solve_seconds`, which fits the values
    and the distribution together: that was 3x to 5x the DP with the SD for the official
    rules, Yatzy and Maxi Yatzy, and 0.7x for a plain game of 20 boxes."""
    margin = DP_MARGIN[with_sd] * (SAVED_ROLLS_DP if layout.saves_rolls and not with_sd
                                   else 1.0)
    return margin * sum(steps * rate for steps, rate in zip(dp_work(t, layout, cols),
                                                            DP_RATES[with_sd], strict=True))


def _cards_in_layer(layout: StateLayout, k: int) -> float:
    """The (box set, flag, upper total)s of layer k, one bank's stored states."""
    masks = layout.layer_masks[k]
    return float(((layout.U1[masks] - layout.U0[masks] + 1).astype(np.int64)
                  * layout.flag_values(masks)).sum())


def distribution_seconds(t: RuleTables, layout: StateLayout, cols: int = MAX_BATCH_COLS,
                         threads: int | None = None) -> float:
    """A rough estimate of the seconds the exact distribution takes once the game is solved:
    the rest of `solve_seconds`; with saved rolls, a turn's moves are followed through
    every roll it may have (rolls + bank), state by state (SECONDS_PER_BANKED_STAGE)."""
    if not layout.saves_rolls:
        return (1 - VALUES_SHARE) * solve_seconds(t, layout, cols)
    stages = 0.0  # states x (rolls + bank), by box set: banks 0 .. n - 1 of each are stored
    for k in range(t.n_categories):
        n = layout.banks[k]
        stages += _cards_in_layer(layout, k) * (n * t.rolls + n * (n - 1) / 2)
    return stages * (SECONDS_PER_BANKED_STAGE / thread_count(threads)
                     + SERIAL_SECONDS_PER_BANKED_STAGE)


def store_figures_seconds(t: RuleTables, layout: StateLayout, cols: int = MAX_BATCH_COLS,
                          threads: int | None = None) -> float:
    """A rough estimate of the seconds the figures' forward pass from a layered store takes
    (`forward.streamed_figures`): with carried saved rolls and no first-roll bonus, a walk of
    the largest bank's rolls per (box set, flag, total) (SECONDS_PER_MERGED_STAGE_ENTRY);
    otherwise every state's own, as the exact distribution's pass (`distribution_seconds`)."""
    if not (layout.saves_rolls and t.bank_carry and not t.has_first_roll_bonus):
        return distribution_seconds(t, layout, cols, threads)
    stages = sum(_cards_in_layer(layout, k) * (t.rolls + layout.banks[k] - 1)
                 for k in range(t.n_categories))  # (box set, flag, total)s x their largest
    # bank's rolls
    entries = len(t.KEEP_OUT_ROLL) + t.n_distinct_rolls
    return stages * entries * SECONDS_PER_MERGED_STAGE_ENTRY / thread_count(threads)


def target_seconds(t: RuleTables, layout: StateLayout, max_target: int,
                   cols: int = MAX_BATCH_COLS) -> float:
    """A rough estimate of the seconds the target-play table up to `max_target` takes here
    (the DP's values not included; see TARGET_SECONDS_PER_NEED)."""
    values = VALUES_SHARE * (solve_seconds(t, layout, cols) - SOLVE_OVERHEAD_SECONDS)
    return values * TARGET_SECONDS_PER_NEED * (TARGET_ROW_NEEDS + max_target)


# A need sweep that carries payloads along its choices (play to win) runs the decision kernel:
# about the DP's cost with the SD against its values alone (2.6x, `bench/bench_core.py`).
DECISION_FACTOR = 2.6


def need_seconds(t: RuleTables, layout: StateLayout, n_need: int, windows: bool,
                 payloads: bool, cols: int = MAX_BATCH_COLS) -> float:
    """A rough estimate of the seconds a need sweep up to need n_need - 1 takes (the target
    table's rate, `target_seconds`), `windows` only over the needs a state's banked points
    allow (`target.need_rows`: at most the windows the forward pass sets aside), and with
    `payloads` carried by the decision kernel."""
    seconds = target_seconds(t, layout, n_need - 1, cols)
    if windows:
        cells = float(window_bytes(t, layout).sum()) / 8
        seconds *= min(1.0, cells / max(1.0, layout.size * (n_need - 1)))
    return seconds * (DECISION_FACTOR if payloads else 1.0)


def turn_stages(t: RuleTables, layout: StateLayout) -> tuple[float, float]:
    """Re-roll stages and box-filling passes the DP runs per stored state, on average: rolls - 1
    and 1 without saved rolls. With them a turn begun with bank b has rolls - 1 + b re-roll
    stages and may fill a box after each roll; carried saved rolls share the stages of all the
    banks of a layer (`solver.kernels.layer.bank_span`)."""
    sizes = np.diff(layout.LAYER_PTR)[:-1].astype(float)
    n = np.array(layout.banks[:-1], dtype=float)
    if not layout.saves_rolls:
        return float(t.rolls - 1), 1.0
    if t.bank_carry:  # one sweep of rolls - 2 + n stages for the n banks
        keep, boxes = (t.rolls - 2 + n) / n, (t.rolls - 1 + n) / n
    else:
        keep = t.rolls - 1 + (n - 1) / 2
        boxes = keep + 1
    share = sizes / max(1.0, sizes.sum())
    return float(share @ keep), float(share @ boxes)


# ---------------------------------------------------------------- two players (solver.minimax)

# Seconds of Python per sweep of a joint layer for one state of the other player (its tables
# gathered and its results scattered in NumPy, the kernels called), besides the kernels' own
# work: measured on a cut-down Crag (bench/bench_crag.py).
MINIMAX_SECONDS_PER_SWEEP = 3e-3
# What a process adds when a two-player solve starts: numba and its compiled kernels loaded,
# thread pools, the layers' small tables (measured on cut-down Crags: 0.11 GiB above the
# process before the solve, beside the tables' own estimate; on the whole Crag 0.19 GiB, its
# peak 10.086 GiB against tables of 9.90 GiB: 320 MiB leaves room for 1.6 times that).
MINIMAX_PROCESS_BYTES = 320 << 20
# Seconds per (move x need) of an expected-score turn averaged in NumPy (`minimax`'s policy
# evaluation), and the share of that NumPy work per stored difference that moves its tables.
OPTIMAL_TURN_SECONDS_PER_CELL = 4e-9
# What Dask adds to a two-player solve (`solver.joint_tasks`), measured on this 2-core machine:
# a local cluster starts in 1.5-2.3 s and each worker then loads yz and its kernels (the
# 4,026 joint states of `example:quick-duel` took 4.6 s on 2 workers, none in one process); a
# round trip of tasks per joint layer; every layer saved and hashed here, its blocks read back
# and checked by the workers (Crag's last 11 boxes, 257 million joint states of two tables:
# 74.4 s on 2 workers against 52.5 s in one process).
DASK_START_SECONDS = 3.0
DASK_SECONDS_PER_LOCAL_WORKER = 1.5
DASK_SECONDS_PER_LAYER = 0.25
DASK_BYTES_PER_SECOND = 150e6


def minimax_tables(chances: bool, seats: int) -> int:
    """Tables of one entry per stored difference a two-player solve holds for each joint
    layer: minimax's values (and its chances of a draw), and for each of `seats` seats of
    minimax, or the best response, against expected-score play a score and a chance of a
    draw."""
    return 1 + int(chances) + 2 * seats


def minimax_index_bytes(layout: StateLayout) -> int:
    """What the pairs of the two largest adjacent joint layers take to index alone (their
    places, `joint.PAIR_BYTES` each), from the layers' sizes: a floor of the solve's memory
    that costs nothing to compute (official Yahtzee is refused on it at once)."""
    from .joint import PAIR_BYTES, joint_order

    sizes = np.diff(layout.LAYER_PTR).astype(np.int64)
    order = joint_order(len(sizes) - 1)
    pairs = [int(sizes[km]) * int(sizes[ko]) for km, ko in order]
    return max(a + b for a, b in pairwise(pairs)) * PAIR_BYTES


def minimax_bytes(t: RuleTables, layout: StateLayout, sizes: list, tables: int,
                  seats: int) -> int:
    """Memory a two-player solve needs (`solver.minimax`): for the two adjacent joint layers
    that hold the most at once, their pairs' places and `tables` tables of their stored
    differences (the blocks of the layer after handed back as they are read, where the system
    allows: `joint.peak_entries`); a sweep's scratch (`minimax_scratch_bytes`); and what the
    process adds when the solve starts (MINIMAX_PROCESS_BYTES)."""
    from .joint import PAIR_BYTES

    held = max(minimax_held(now, after) * 8 * tables + (now.pairs + after.pairs) * PAIR_BYTES
               for now, after in pairwise(sizes))
    return held + minimax_scratch_bytes(t, layout, seats) + MINIMAX_PROCESS_BYTES


def minimax_scratch_bytes(t: RuleTables, layout: StateLayout, seats: int) -> int:
    """A joint layer sweep's scratch: a layer of states by the needs of both players' scores,
    a dozen such tables, and (with `seats` against expected-score play) its moves."""
    widest = int(np.diff(layout.LAYER_PTR).max())
    scratch = widest * (2 * t.highest_score + 3) * 8 * 12
    if seats:
        scratch += 4 * (1 << 22) * 8 + 2 * widest * most_outcomes(t, layout) * 3 * 8
    return scratch


def minimax_dask_bytes(t: RuleTables, layout: StateLayout, sizes: list, tables: int,
                       seats: int, local_workers: int) -> int:
    """Memory a two-player solve on Dask needs on this machine (`solver.joint_tasks`): this
    process holds the layer being solved whole (`tables` tables, the layer after is in the
    folder) and a chunk being put in place (its entries, as Dask hands them over, and their
    places: allowed three times a chunk); each of `local_workers` worker processes a chunk
    (the same allowance), a sweep's scratch and both layers' pairs. The pages of the layer
    after that the workers read are the folder's, which the system can always drop."""
    from .joint import PAIR_BYTES
    from .joint_tasks import CHUNK_BYTES

    pairs = max((now.pairs + after.pairs) * PAIR_BYTES for now, after in pairwise(sizes))
    layer = max(now.entries * 8 * tables for now in sizes)
    chunk = 3 * min(CHUNK_BYTES, layer)
    here = layer + pairs + chunk
    worker = MINIMAX_PROCESS_BYTES + pairs + chunk + minimax_scratch_bytes(t, layout, seats)
    return here + MINIMAX_PROCESS_BYTES + local_workers * worker


def minimax_dask_seconds(sizes: list, tables: int, local_workers: int) -> float:
    """Seconds a two-player solve on Dask adds to `minimax_seconds`: the cluster started (or
    reached), each joint layer's round trip, and its `tables` tables saved and hashed in the
    folder and checked where the workers read them."""
    saved = sum(s.entries for s in sizes) * 8 * tables
    return (DASK_START_SECONDS + local_workers * DASK_SECONDS_PER_LOCAL_WORKER
            + len(sizes) * DASK_SECONDS_PER_LAYER + saved / DASK_BYTES_PER_SECOND)


def minimax_held(now, after) -> int:
    """Entries of one table a two-player solve holds at most while joint layer `now` is swept
    from the one `after` it (`joint.peak_entries`, blocks handed back where the system
    allows)."""
    from .joint import Table, peak_entries

    return peak_entries(now, after, Table.releases)


def minimax_seconds(t: RuleTables, layout: StateLayout, sizes: list, chances: bool,
                    seats: int, cols: int = MAX_BATCH_COLS) -> float:
    """A rough estimate of the seconds a two-player solve takes here: every stored difference
    is a column of a need sweep (at target play's rate per state and need,
    `target_seconds`; the decision kernel's where chances are carried), every pair a row of
    one, every state of the other player in a joint layer one sweep (MINIMAX_SECONDS_PER_SWEEP);
    against expected-score play, each seat again: half its layers minimax's sweeps, half
    expected-score turns averaged in NumPy over its moves."""
    values = VALUES_SHARE * (solve_seconds(t, layout, cols) - SOLVE_OVERHEAD_SECONDS)
    per_column = values / max(1, layout.reachable) * TARGET_SECONDS_PER_NEED
    entries = sum(s.entries for s in sizes)
    pairs = sum(s.pairs for s in sizes)
    sweeps = sum(int(layout.LAYER_PTR[s.ko + 1] - layout.LAYER_PTR[s.ko]) for s in sizes)
    kernel = per_column * (entries + TARGET_ROW_NEEDS * pairs)
    seconds = kernel * (DECISION_FACTOR if chances else 1.0) + sweeps * MINIMAX_SECONDS_PER_SWEEP
    if seats:
        turns = entries * most_outcomes(t, layout) * OPTIMAL_TURN_SECONDS_PER_CELL
        seconds += seats * (0.5 * kernel * DECISION_FACTOR + 0.5 * turns
                        + sweeps * MINIMAX_SECONDS_PER_SWEEP)
    return seconds


def minimax_kept_bytes(t: RuleTables, layout: StateLayout, sizes: list, tables: int) -> int:
    """Memory a two-player solve that keeps every joint layer (`keep`: minimax play reads
    them) holds at its end: every layer's pairs' places and `tables` tables of its stored
    differences, beside the sweep's own (`minimax_bytes`)."""
    from .joint import PAIR_BYTES

    kept = sum(s.entries * 8 * tables + s.pairs * PAIR_BYTES for s in sizes)
    return kept + minimax_bytes(t, layout, sizes, tables, 0)


def check_minimax_memory(t: RuleTables, layout: StateLayout, need: int, at_least: bool,
                         max_memory: int | None, what: str) -> None:
    """InputError, with the estimate, when a two-player solve needs more than `max_memory`
    bytes (default: three quarters of this machine's memory)."""
    limit = memory_limit(max_memory)
    if need > limit:
        digits = 1  # (more where one decimal would show the need equal to the limit)
        while digits < 4 and f"{need / 2**30:.{digits}f}" == f"{limit / 2**30:.{digits}f}":
            digits += 1
        raise InputError(
            f"the two-player solve of {t.rules.name} needs {'at least' if at_least else 'about'}"
            f" {need / 2**30:,.{digits}f} GiB ({what}), more than the "
            f"{limit / 2**30:.{digits}f} GiB allowed; it is for games whose joint states (both "
            "players' turn-start states and the score difference) fit in memory, such as "
            "crag.", param="max_memory")


# ---------------------------------------------------------------- one model's budget


@dataclass
class Budget:
    """One model's limits: the memory a piece of work may take (`max_memory`, default: three
    quarters of the machine's for a solve, half for a distribution or a target table) and the
    seconds it may be estimated to take (`max_seconds`, None: no limit), with the estimates of
    its problem (`solver.problem.Problem`); long work is announced to `report` first."""

    problem: Any  # solver.problem.Problem
    max_memory: int | None = None
    max_seconds: float | None = LONG_WORK_SECONDS
    report: Any = None  # solver.report.Reporter

    @property
    def _t(self) -> RuleTables:
        return self.problem.tables

    @property
    def _layout(self) -> StateLayout:
        return self.problem.layout

    def check_time(self, what: str, seconds: float, basis: str | None = None,
                   at_least: bool = False, here_now: bool = False) -> None:
        """WorkTooLong when `seconds` (an estimate) exceeds `max_seconds`; work that goes
        ahead and is expected to take minutes is announced with its estimate. `basis` says
        what the estimate comes from (default: the game's states); `at_least`: it is a lower
        bound. An estimate is a quiet machine's (this project's rates) unless `here_now` (it
        was timed or scaled on this machine as it is): it is then stretched by the share of
        the cores other work takes (`slowdown`), so a busy machine never starts work under
        the guard that then runs past it."""
        name = self.problem.name
        basis = basis or f"from its {self._layout.reachable:,} states"
        if not here_now:
            factor = slowdown(self.problem.threads)
            if factor > 1.05:
                seconds *= factor
                basis += f", on the {free_cores(self.problem.threads):.1f} cores other work " \
                         "leaves free"
        if self.max_seconds is not None and seconds > self.max_seconds:
            raise WorkTooLong(f"{what} {name}", seconds, self.max_seconds, basis, at_least)
        if seconds > ANNOUNCE_WORK_SECONDS and self.report is not None:
            self.report.note(f"{what} {name} will take {'at least' if at_least else 'about'} "
                             f"{duration(seconds)} on this machine (estimated {basis})")

    def solve_seconds(self) -> float:
        """A rough estimate of the seconds a solve and then its distribution take here, the
        kernels compiled (`compile_seconds` adds the first time's compiling)."""
        return solve_seconds(self._t, self._layout, self.problem.batch_width())

    def values_seconds(self, with_sd: bool = False) -> float:
        """A rough estimate of the seconds the DP takes (`with_sd`: the exact SD too)."""
        return dp_seconds(self._t, self._layout, self.problem.batch_width(), with_sd)

    def moments_seconds(self) -> float:
        """A rough estimate of the seconds the exact mean and SD of a fixed strategy take."""
        return MOMENTS_PER_DP * self.values_seconds(with_sd=True)

    def distribution_seconds(self) -> float:
        """A rough estimate of the seconds the exact distribution takes once solved."""
        return distribution_seconds(self._t, self._layout, self.problem.batch_width(),
                                    self.problem.threads)

    def store_figures_seconds(self) -> float:
        """A rough estimate of the seconds the figures' pass from a layered store takes."""
        return store_figures_seconds(self._t, self._layout, self.problem.batch_width(),
                                     self.problem.threads)

    def target_seconds(self, max_target: int) -> float:
        """A rough estimate of the seconds the target table up to `max_target` takes (the
        DP's values not included)."""
        return target_seconds(self._t, self._layout, max_target, self.problem.batch_width())

    def figures_seconds(self) -> float:
        """A rough estimate of the seconds the exact figures take when not cached."""
        return figures_seconds(self._t, self._layout)

    def simulate_floor_seconds(self, games: int) -> float:
        """The least time `games` simulated games can take here now: every turn of every game
        played at PLAY_SECONDS_PER_GAME_TURN a core, on the cores free (`free_cores`), and
        none of their choices computed."""
        turns = games * self._t.n_categories
        return turns * PLAY_SECONDS_PER_GAME_TURN / free_cores(self.problem.threads)

    def compile_seconds(self, *works: str) -> float:
        """Seconds of compiling these kinds of work ("solve", "distribution", ...) still need
        on this installation: 0 once compiled."""
        from .warmup import compile_seconds, work_families

        return compile_seconds(tuple(f for w in works
                                     for f in work_families(w, self.problem.layout)))

    def check_solve_memory(self, with_sd: bool = False, layered: bool = False,
                           threads: int | None = None, processes: int = 1) -> None:
        """InputError, with the estimate, when a solve needs more than `max_memory`."""
        check_solve_memory(self._t, self._layout, with_sd, self.max_memory,
                           threads or self.problem.threads, self.problem.batch_width(),
                           layered, processes)

    def check_distribution_memory(self, max_memory: int | None = None,
                                  streamed: bool = False) -> None:
        """InputError, with the estimate, when the exact distribution needs more memory than
        `max_memory` (default: this budget's)."""
        check_distribution_memory(self._t, self._layout, max_memory or self.max_memory,
                                  streamed)

    def check_streamed_figures_memory(self) -> None:
        """InputError, with the estimate, when the figures' pass from a layered store
        (`streamed_figures_bytes`) might not fit in this budget's memory."""
        need = streamed_figures_bytes(self._t, self._layout)
        limit = memory_limit(self.max_memory)
        if need > limit:
            raise InputError(f"the per-box figures of {self._t.rules.name} from a store may "
                             f"need up to {need / 2**30:.1f} GiB, more than the "
                             f"{limit / 2**30:.1f} GiB allowed here.")

    def figures_fit(self, max_memory: int | None = None) -> bool:
        """Whether the exact distribution and per-box figures are computed along with the
        game's other results, within `max_memory` (default: this budget's; `figures_fit`)."""
        return figures_fit(self._t, self._layout, max_memory or self.max_memory)

    def prepare_seconds(self) -> float:
        """A rough estimate of the seconds a solve and then, where it is computed along with
        the game (`figures_fit`), the exact distribution take here."""
        return self.values_seconds() + (self.distribution_seconds() if self.figures_fit()
                                        else 0.0)

    def check_target_memory(self, max_target: int, param: str = "max_target") -> None:
        check_target_memory(self._t, self._layout, max_target, self.max_memory, param)

    def check_need_memory(self, n_need: int, tables: int, what: str) -> None:
        check_need_memory(self._t, self._layout, n_need, tables, self.max_memory, what)

    def minimax_estimate(self, chances: bool, against_optimal: bool = False,
                         seats: int | None = None, refuse: bool = True,
                         dask_workers: int | None = None) -> tuple[int, float, list]:
        """(bytes, seconds, joint layer sizes) of a two-player solve (`solver.minimax`) with
        minimax's chances of a draw (`chances`) and `seats` seats of minimax, or of the best
        response, against expected-score play (default: both of minimax's with
        `against_optimal`, else none), refusing at
        once (InputError, with the estimate) when it does not fit in `max_memory`: first on
        what its largest pairs take to index alone, from the layers' sizes, then (with
        `refuse`) on the whole estimate. `dask_workers`: on Dask, with this many of its
        workers on this machine (0: a cluster elsewhere; `minimax_dask_bytes`)."""
        from .joint import layer_sizes

        seats = (2 if against_optimal else 0) if seats is None else seats
        t, layout = self._t, self._layout
        floor = minimax_index_bytes(layout)
        check_minimax_memory(t, layout, floor, True, self.max_memory,
                             "the places of the pairs of turn-start states of its two "
                             "largest joint layers alone")
        sizes = layer_sizes(t, layout)
        tables = minimax_tables(chances, seats)
        need = minimax_bytes(t, layout, sizes, tables, seats) if dask_workers is None else \
            minimax_dask_bytes(t, layout, sizes, tables, seats, dask_workers)
        held = max(minimax_held(a, b) for a, b in pairwise(sizes)) if dask_workers is None \
            else max(s.entries for s in sizes)
        if refuse:
            sampled = ", estimated from a sample" if any(s.sampled for s in sizes) else ""
            check_minimax_memory(t, layout, need, False, self.max_memory,
                                 f"{tables} table{'s' if tables > 1 else ''} of stored score "
                                 f"differences, {held:,} entries each at the most while "
                                 + ("two adjacent joint layers are held" if dask_workers is None
                                    else "the largest joint layer is solved on Dask")
                                 + sampled)
        seconds = minimax_seconds(t, layout, sizes, chances, seats, self.problem.batch_width())
        if dask_workers is not None:
            seconds += minimax_dask_seconds(sizes, tables, dask_workers)
        return need, seconds, sizes

    def need_seconds(self, n_need: int, windows: bool, payloads: bool) -> float:
        """`need_seconds` for this problem's batches."""
        return need_seconds(self._t, self._layout, n_need, windows, payloads,
                            self.problem.batch_width())
