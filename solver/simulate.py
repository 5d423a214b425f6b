"""Play many games with a strategy and summarise them: the Monte Carlo side of `yz simulate`.

Strategies are value tables shaped like the solver's V (see `yz.solver.policy_kernels`):

- `optimal`: the solved table itself, so play maximises the expected final score;
- `greedy`: all zeros, so every turn maximises the points scored in that turn (bonuses won
  that turn included) with no thought for later turns;
- `heuristic`: a per-turn player in the spirit of seed 001: each turn is played optimally
  against a simple additive estimate of the future: every open box is worth what it scores on
  average when played alone for a whole turn, plus a share of the upper bonus in proportion
  to the part of the threshold the open upper boxes are expected to make up (nothing once the
  bonus is out of reach).

Every strategy table must, like V, never fall as the upper total rises (counting the upper
bonus once made) or as the bonus flag is raised, and be flat over the upper totals from which
the bonus is out of reach: the kernels rely on both.

Games are played in lockstep, a turn at a time: games in the same state share one set of keep
tables, computed side by side in parallel, then every game plays its turn in parallel.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from yz.rules import InputError, RuleSet, RuleTables, compile_rules

from . import config
from .dp import (
    Solution,
    batch_width,
    column_batches,
    positive_scores,
    solve_tables,
    state_block,
    upper_max_scores,
)

STRATEGIES = ("optimal", "greedy", "heuristic")


@dataclass(frozen=True)
class Games:
    """The outcome of every simulated game."""

    tables: RuleTables
    strategy: str
    seed: int
    score: np.ndarray  # (N,) final scores
    box_score: np.ndarray  # (N, C) score in each box
    upper_bonus: np.ndarray  # (N,) bool: upper bonus made
    yahtzee_bonuses: np.ndarray  # (N,) extra Yahtzee bonuses won
    joker_uses: np.ndarray  # (N,) turns where the Joker gave a box its full value
    seconds: float

    @property
    def n(self) -> int:
        return int(self.score.shape[0])


_BOX_ALONE: dict[str, np.ndarray] = {}


def box_alone_values(t: RuleTables) -> np.ndarray:
    """Expected score of each box played alone for one turn (the heuristic's box weights)."""
    if t.digest not in _BOX_ALONE:
        out = np.zeros(t.n_categories)
        rules = t.rules
        for c, cat in enumerate(rules.categories):
            single = RuleSet(name="single-box", dice=rules.dice, faces=rules.faces,
                             rolls=rules.rolls, categories=(cat,))
            out[c] = solve_tables(compile_rules(single)).expected_score
        _BOX_ALONE.clear()
        _BOX_ALONE[t.digest] = out
    return _BOX_ALONE[t.digest]


def strategy_table(name: str, solution: Solution) -> np.ndarray:
    """The value table that plays like strategy `name`."""
    if name == "optimal":
        return solution.values
    if name == "greedy":
        return np.zeros_like(solution.values)
    if name == "heuristic":
        return _heuristic_table(solution.tables, solution.values.shape)
    raise InputError(f"--strategy: '{name}' is not a strategy; choose one of "
                     f"{', '.join(STRATEGIES)}.")


def _heuristic_table(t: RuleTables, shape: tuple[int, int, int]) -> np.ndarray:
    w = box_alone_values(t)
    n_masks, _, n_upper = shape
    masks = np.arange(n_masks)
    open_ = ((masks[:, None] >> np.arange(t.n_categories)) & 1) == 0
    future = open_ @ w
    table = np.repeat(future[:, None, None], shape[1], axis=1).repeat(n_upper, axis=2)
    if t.upper_threshold:
        T = t.upper_threshold
        expected_upper = open_ @ np.where(t.COUNTS_UPPER == 1, w, 0.0)
        u = np.arange(n_upper)
        share = np.clip((u[None, :] + expected_upper[:, None]) / T, 0.0, 1.0) ** 2
        share[:, T:] = 0.0  # made already: the bonus was counted when the total reached T
        # Out of reach: nothing (this also keeps the table flat there, as the kernels need).
        still_possible = open_ @ upper_max_scores(t)  # most the open boxes can add
        share[u[None, :] + still_possible[:, None] < T] = 0.0
        table += (t.upper_bonus * share)[:, None, :]
    return table


def keep_choices(t: RuleTables, V: np.ndarray, s_mask: np.ndarray, s_flag: np.ndarray,
                 s_upper: np.ndarray) -> np.ndarray:
    """CHOICE[i, L - 1, r]: the strategy's keep for roll r with L re-rolls left in state i.

    States must be sorted by (mask, flag, upper total); runs of consecutive totals of one box
    set are solved as one widget, side by side, like the DP does.
    """
    import numba

    from . import policy_kernels

    n = len(s_mask)
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (s_mask[1:] != s_mask[:-1]) | (s_flag[1:] != s_flag[:-1]) | \
        (s_upper[1:] != s_upper[:-1] + 1)
    w_col = np.flatnonzero(new_run).astype(np.int64)
    w_nu = np.diff(np.append(w_col, n)).astype(np.int64)
    batch_cols = batch_width(t, int(w_nu.max(initial=1)))
    pos_indptr, pos_roll = positive_scores(t)
    choice = np.empty((n, max(1, t.n_rolls_per_turn - 1), t.n_rolls), dtype=np.int32)
    policy_kernels.keep_choices(
        s_mask[w_col], s_flag[w_col], s_upper[w_col], w_nu, w_col, column_batches(w_nu, batch_cols),
        V, choice, t.SCORE, t.JOKER_SCORE, t.YAHTZEE_FACE, t.UPPER_BOX_OF_FACE, t.COUNTS_UPPER,
        t.IS_LOWER, pos_indptr, pos_roll, t.KEEP_CHILD, t.SUB_INDPTR, t.SUB_INDICES, t.n_faces,
        t.n_rolls_per_turn, t.upper_threshold, t.upper_bonus, t.yahtzee_bonus, t.yahtzee_cat,
        t.joker_mode, batch_cols, numba.get_num_threads())
    return choice


def _keep_keys(t: RuleTables) -> tuple[np.ndarray, np.ndarray]:
    radix = (t.n_dice + 1) ** np.arange(t.n_faces - 1, -1, -1, dtype=np.int64)
    keys = t.KEEP_COUNTS.astype(np.int64) @ radix
    order = np.argsort(keys)
    return keys[order], order.astype(np.int64)


def check_simulation(games: int, seed: int, strategy: str) -> None:
    """InputError unless these simulation settings make sense."""
    if strategy not in STRATEGIES:
        raise InputError(f"--strategy: '{strategy}' is not a strategy; choose one of "
                         f"{', '.join(STRATEGIES)}.")
    if games < 1:
        raise InputError("--games: give a positive number of games to play.")
    if seed < 0:
        raise InputError(f"--seed: {seed} is negative; give a whole number from 0 up.")


def simulate(solution: Solution, games: int, seed: int = 0, strategy: str = "optimal",
             progress: Callable[[int, int], None] | None = None) -> Games:
    """Play `games` games; the same seed gives the same games at any thread count."""
    from . import policy_kernels

    check_simulation(games, seed, strategy)
    t = solution.tables
    V = strategy_table(strategy, solution)
    start = time.perf_counter()
    C = t.n_categories
    score = np.zeros(games, dtype=np.int64)
    box_score = np.zeros((games, C), dtype=np.int32)
    bonus_count = np.zeros(games, dtype=np.int32)
    joker_count = np.zeros(games, dtype=np.int32)
    upper_hit = np.zeros(games, dtype=np.bool_)
    key_sorted, key_index = _keep_keys(t)
    n_flag, n_upper = V.shape[1], V.shape[2]
    chunk = config.SIM_CHUNK_GAMES
    for c0 in range(0, games, chunk):
        g = min(games, c0 + chunk) - c0
        rng = np.random.default_rng([seed, c0 // chunk])
        mask = np.zeros(g, dtype=np.int64)
        flag = np.zeros(g, dtype=np.int64)
        upper = np.zeros(g, dtype=np.int64)
        sc = np.zeros(g, dtype=np.int64)
        for _turn in range(C):
            draws = rng.integers(0, t.n_faces, size=(g, t.n_rolls_per_turn, t.n_dice),
                                 dtype=np.int8)
            capped = np.minimum(upper, t.upper_threshold)
            key = (mask * n_flag + flag) * n_upper + capped
            uniq, state_of_game = np.unique(key, return_inverse=True)
            s_upper = uniq % n_upper
            s_flag = (uniq // n_upper) % n_flag
            s_mask = uniq // (n_upper * n_flag)
            # Keep choices for a block of states at a time bound the memory they take.
            block = state_block(t)
            for b0 in range(0, len(uniq), block):
                b1 = min(len(uniq), b0 + block)
                choice = keep_choices(t, V, s_mask[b0:b1], s_flag[b0:b1], s_upper[b0:b1])
                in_block = np.flatnonzero((state_of_game >= b0) & (state_of_game < b1))
                policy_kernels.play_turn(
                    in_block, state_of_game - b0, s_mask[b0:b1], s_flag[b0:b1], s_upper[b0:b1],
                    choice, draws, V, mask, flag, upper, sc, box_score[c0:c0 + g],
                    bonus_count[c0:c0 + g], joker_count[c0:c0 + g], upper_hit[c0:c0 + g],
                    t.SCORE, t.JOKER_SCORE, t.YAHTZEE_FACE, t.UPPER_BOX_OF_FACE,
                    t.COUNTS_UPPER, t.IS_LOWER, t.KEEP_COUNTS, t.n_dice, t.n_rolls_per_turn,
                    t.upper_threshold, t.upper_bonus, t.yahtzee_bonus, t.yahtzee_cat,
                    t.joker_mode, key_sorted, key_index)
        score[c0:c0 + g] = sc
        if progress is not None:
            progress(c0 + g, games)
    return Games(t, strategy, seed, score, box_score, upper_hit, bonus_count, joker_count,
                 time.perf_counter() - start)


PERCENTILES = (1, 5, 25, 50, 75, 95, 99)


def summarise(games: Games) -> dict:
    """The figures `yz simulate` prints: mean and its standard error, spread, per-box stats."""
    s = games.score.astype(np.float64)
    n = games.n
    sd = float(s.std(ddof=1)) if n > 1 else 0.0
    rules = games.tables.rules
    per_box = {
        cat.key: {"mean": float(games.box_score[:, c].mean()),
                  "zero_rate": float((games.box_score[:, c] == 0).mean())}
        for c, cat in enumerate(rules.categories)
    }
    counts = np.bincount(games.yahtzee_bonuses)
    return {
        "variant": rules.name, "strategy": games.strategy, "games": n, "seed": games.seed,
        "mean": float(s.mean()), "sem": sd / np.sqrt(n) if n > 1 else 0.0, "sd": sd,
        "min": int(s.min()), "max": int(s.max()),
        "percentiles": {str(p): float(np.percentile(s, p, method="inverted_cdf"))
                        for p in PERCENTILES},
        "categories": per_box,
        "upper_bonus_rate": float(games.upper_bonus.mean()),
        "yahtzee_bonus_mean": float(games.yahtzee_bonuses.mean()),
        "yahtzee_bonus_counts": {str(k): int(v) for k, v in enumerate(counts) if v},
        "joker_games_rate": float((games.joker_uses > 0).mean()),
        "joker_uses_mean": float(games.joker_uses.mean()),
        "seconds": games.seconds, "games_per_second": n / games.seconds if games.seconds else 0,
    }
