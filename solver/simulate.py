"""Play many games with a strategy and summarise them: the Monte Carlo side of `yz simulate`.

Games are played in chunks of `config.SIM_CHUNK_GAMES`, in lockstep a turn at a time: games in
the same state share one set of keep tables, computed side by side in parallel, then every
game plays its turn in parallel. Only running totals (a histogram of final scores, per-box sums
and zero counts, bonus counts) outlive a chunk, so memory stays flat however many games are
asked for; `keep_scores` also keeps every final score (for tests and small runs).

Dice are drawn from `numpy.random.default_rng([seed, chunk])`, so the same seed gives the same
games at any thread count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from yz.rules import InputError, RuleTables

from . import config
from .dp import Solution, kernel_threads
from .exact import keep_choices
from .kernels.bundle import States, Tally
from .layout import state_block
from .strategies import check_strategy, strategy_values

MAX_GAMES = 10**12  # far beyond any useful run; keeps every count inside int64


@dataclass(frozen=True)
class Simulation:
    """What `games` simulated games added up to (and every final score with `keep_scores`)."""

    tables: RuleTables
    strategy: str
    seed: int
    games: int
    score_counts: np.ndarray  # int64 [score]: games ending on each final score
    box_sum: np.ndarray  # int64 [box]: points scored in each box, all games together
    box_zeros: np.ndarray  # int64 [box]: games ending with 0 in the box
    upper_bonus_games: int
    yahtzee_bonus_counts: np.ndarray  # int64 [n]: games with n extra Yahtzee bonuses
    joker_games: int  # games in which the Joker gave a box its full value at least once
    joker_uses: int
    seconds: float
    scores: np.ndarray | None = None  # int64 [game], with keep_scores

    @property
    def mean(self) -> float:
        return float(np.dot(np.arange(len(self.score_counts)), self.score_counts) / self.games)


def check_simulation(games: int, seed: int, strategy: str) -> None:
    """InputError unless these simulation settings make sense."""
    check_strategy(strategy)
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise InputError(f"games: {games!r} is not a number of games from 1 to {MAX_GAMES:,}.",
                         param="games")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {seed!r} is not a whole number from 0 up.", param="seed")


def simulate(solution: Solution, games: int, seed: int = 0, strategy: str = "optimal",
             progress: Callable[[int, int], None] | None = None, keep_scores: bool = False,
             threads: int | None = None) -> Simulation:
    """Play `games` games; the same seed gives the same games at any thread count."""
    check_simulation(games, seed, strategy)
    with kernel_threads(threads):
        return _play(solution, games, seed, strategy, progress, keep_scores)


def _play(solution: Solution, games: int, seed: int, strategy: str,
          progress: Callable[[int, int], None] | None, keep_scores: bool) -> Simulation:
    from .kernels.play import EVENT_JOKER, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, play_turn

    t = solution.tables
    game = solution.kernel_tables()
    L = solution.layout.kernel_layout()
    V = strategy_values(solution, strategy)
    start = time.perf_counter()
    C = t.n_categories
    score_counts = np.zeros(1, dtype=np.int64)
    box_sum = np.zeros(C, dtype=np.int64)
    box_zeros = np.zeros(C, dtype=np.int64)
    bonus_counts = np.zeros(1, dtype=np.int64)
    upper_games = joker_games = joker_uses = 0
    scores = np.zeros(games, dtype=np.int64) if keep_scores else None
    n_flag = solution.layout.n_flags
    n_upper = t.upper_threshold + 1
    chunk = config.SIM_CHUNK_GAMES
    block = state_block(t)
    for c0 in range(0, games, chunk):
        g = min(games, c0 + chunk) - c0
        rng = np.random.default_rng([seed, c0 // chunk])
        tally = Tally(np.zeros(g, dtype=np.int64), np.zeros(g, dtype=np.int64),
                      np.zeros(g, dtype=np.int64), np.zeros(g, dtype=np.int64),
                      np.zeros((g, C), dtype=np.int32), np.zeros((g, 3), dtype=np.int32))
        for _turn in range(C):
            draws = rng.integers(0, t.n_faces, size=(g, t.n_rolls_per_turn, t.n_dice),
                                 dtype=np.int8)
            capped = np.minimum(tally.UPPER, t.upper_threshold)
            key = (tally.MASK * n_flag + tally.FLAG) * n_upper + capped
            uniq, state_of_game = np.unique(key, return_inverse=True)
            s_upper = uniq % n_upper
            s_flag = (uniq // n_upper) % n_flag
            s_mask = uniq // (n_upper * n_flag)
            # Keep choices for a block of states at a time bound the memory they take.
            for b0 in range(0, len(uniq), block):
                b1 = min(len(uniq), b0 + block)
                states = States(s_mask[b0:b1], s_flag[b0:b1], s_upper[b0:b1])
                choice = keep_choices(solution, V, states)
                in_block = np.flatnonzero((state_of_game >= b0) & (state_of_game < b1))
                play_turn(game, L, V, tally, in_block, state_of_game - b0, states, choice, draws)
        score_counts = _add_counts(score_counts, np.bincount(tally.SCORE))
        box_sum += tally.BOX_SCORE.sum(axis=0, dtype=np.int64)
        box_zeros += (tally.BOX_SCORE == 0).sum(axis=0)
        bonus_counts = _add_counts(bonus_counts, np.bincount(tally.EVENTS[:, EVENT_YAHTZEE_BONUS]))
        upper_games += int((tally.EVENTS[:, EVENT_UPPER_BONUS] > 0).sum())
        joker_games += int((tally.EVENTS[:, EVENT_JOKER] > 0).sum())
        joker_uses += int(tally.EVENTS[:, EVENT_JOKER].sum())
        if scores is not None:
            scores[c0:c0 + g] = tally.SCORE
        if progress is not None:
            progress(c0 + g, games)
    return Simulation(t, strategy, seed, games, score_counts, box_sum, box_zeros, upper_games,
                      bonus_counts, joker_games, joker_uses, time.perf_counter() - start, scores)


def _add_counts(total: np.ndarray, more: np.ndarray) -> np.ndarray:
    if len(more) > len(total):
        total, more = more.astype(np.int64), total
    total[: len(more)] += more
    return total


PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


def percentiles_of_counts(counts: np.ndarray, qs=PERCENTILES) -> dict[str, int]:
    """The q-th percentile of a histogram of scores, for each q: the smallest score s with
    P(score <= s) >= q/100 (numpy's "inverted_cdf")."""
    cdf = np.cumsum(counts)
    total = cdf[-1]
    return {str(q): int(np.searchsorted(cdf * 100, q * total, side="left")) for q in qs}


def summarise(sim: Simulation) -> dict:
    """The figures `yz simulate` prints: mean and its standard error, spread, per-box stats."""
    n = sim.games
    values = np.arange(len(sim.score_counts), dtype=np.float64)
    mean = float(values @ sim.score_counts / n)
    var = float(((values - mean) ** 2) @ sim.score_counts / (n - 1)) if n > 1 else 0.0
    sd = float(np.sqrt(var))
    seen = np.flatnonzero(sim.score_counts)
    rules = sim.tables.rules
    per_box = {cat.key: {"mean": float(sim.box_sum[c] / n),
                         "zero_rate": float(sim.box_zeros[c] / n)}
               for c, cat in enumerate(rules.categories)}
    return {
        "variant": rules.name, "strategy": sim.strategy, "games": n, "seed": sim.seed,
        "mean": mean, "sem": sd / np.sqrt(n) if n > 1 else 0.0, "sd": sd,
        "min": int(seen[0]), "max": int(seen[-1]),
        "median": percentiles_of_counts(sim.score_counts, (50,))["50"],
        "percentiles": percentiles_of_counts(sim.score_counts),
        "categories": list(rules.keys), "boxes": per_box,
        "p_upper_bonus": sim.upper_bonus_games / n if sim.tables.upper_threshold else None,
        "yahtzee_bonus_mean": float(np.arange(len(sim.yahtzee_bonus_counts))
                                    @ sim.yahtzee_bonus_counts / n),
        "yahtzee_bonus_counts": {str(k): int(v) for k, v in enumerate(sim.yahtzee_bonus_counts)
                                 if v},
        "joker_games_rate": sim.joker_games / n,
        "joker_uses_mean": sim.joker_uses / n,
        "seconds": sim.seconds, "games_per_second": n / sim.seconds if sim.seconds else 0.0,
    }
