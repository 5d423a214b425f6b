"""Play many games with a strategy and summarise them: the Monte Carlo side of `yz simulate`.

Games are played in chunks of `SIM_CHUNK_GAMES`, in lockstep a turn at a time: games in
the same state share one set of choices (recorded by the decision kernel, with the tie rule
of `solver.kernels.ties`), computed side by side, then every game plays its turn (both on
every core). Only running totals (a histogram of final scores, per-box sums
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
from yz.rules.errors import duration

from .distribution import PERCENTILES
from .dp import Solution
from .kernels.bundle import Next, States, Tally
from .report import Step
from .strategies import check_strategy, strategy_values

MAX_GAMES = 10**12  # far beyond any useful run; keeps every count inside int64
# Games simulated together: their dice are drawn per chunk, so the games depend on it (keep it).
SIM_CHUNK_GAMES = 100_000


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
             step: Step | None = None, keep_scores: bool = False) -> Simulation:
    """Play `games` games; the same seed gives the same games at any thread count."""
    from .kernels.layer import run_threads, shares
    from .kernels.outcomes import EVENT_JOKER, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, N_EVENTS
    from .kernels.play import play_turn

    check_simulation(games, seed, strategy)
    t = solution.tables
    problem = solution.problem
    start = time.perf_counter()
    totals = _Totals(t.n_categories)
    scores = np.zeros(games, dtype=np.int64) if keep_scores else None
    for c0 in range(0, games, SIM_CHUNK_GAMES):
        g = min(games, c0 + SIM_CHUNK_GAMES) - c0
        rng = np.random.default_rng([seed, c0 // SIM_CHUNK_GAMES])
        tally = Tally.of(MASK=np.zeros(g, dtype=np.int64), FLAG=np.zeros(g, dtype=np.int64),
                      UPPER=np.zeros(g, dtype=np.int64), SCORE=np.zeros(g, dtype=np.int64),
                      BOX_SCORE=np.zeros((g, t.n_categories), dtype=np.int64),
                      EVENTS=np.zeros((g, N_EVENTS), dtype=np.int64),
                      BANK=np.full(g, solution.layout.start_bank, dtype=np.int64))
        throws = problem.most_stages  # the most a turn can throw
        for _turn in range(t.n_categories):
            draws = rng.integers(0, t.n_faces, size=(g, throws, t.n_dice), dtype=np.int8)
            for states, in_block, state_of_game in _state_blocks(solution, tally):
                choice = strategy_choices(solution, strategy, states)
                run_threads(play_turn, [(problem.K, tally, (in_block, first, stride),
                                         state_of_game, choice, draws)
                                        for first, stride in shares(problem.threads, g)])
        totals.add(tally, EVENT_UPPER_BONUS, EVENT_YAHTZEE_BONUS, EVENT_JOKER)
        if scores is not None:
            scores[c0:c0 + g] = tally.SCORE
        if step is not None:
            step(c0 + g, games)
    return Simulation(t, strategy, seed, games, totals.score_counts, totals.box_sum,
                      totals.box_zeros, totals.upper_games, totals.bonus_counts,
                      totals.joker_games, totals.joker_uses, time.perf_counter() - start,
                      scores)


def estimate_seconds(solution: Solution, games: int, strategy: str = "optimal",
                     say: Callable[[str], None] | None = None) -> tuple[float, int]:
    """The seconds `games` games take here now, and the games timed to say so: throwaway
    samples (their own seed, never part of a run), each four times the last, as long as the
    estimate is long enough to matter and measuring costs a small share of it (see
    `budget.SAMPLE_GAMES`). A sample of n games pays for each distinct state it meets, and
    the states met grow slower than n, so its time per game only falls as n grows towards a
    chunk: each estimate is one from above, and a whole chunk's is the run's. The time is
    the machine's as it is (other work running included). `say` hears of a sample that
    takes more than a few seconds before it starts."""
    from . import budget

    most = min(SIM_CHUNK_GAMES, games // 4)  # (a run a few samples long is just played)
    if most < budget.SAMPLE_GAMES:
        return 0.0, 0
    simulate(solution, 2, 0, strategy)  # the kernels loaded: the samples time only the games
    n, spent = budget.SAMPLE_GAMES, 0.0
    while True:
        begin = time.perf_counter()
        simulate(solution, n, 0, strategy)
        took = time.perf_counter() - begin
        spent += took
        estimate = took * games / n
        grown = min(most, 4 * n)
        expected = took * grown / n  # (from above, as every sample's)
        if n == most or estimate <= budget.QUIET_SECONDS or spent + expected > max(
                budget.SAMPLE_SECONDS, budget.SAMPLE_SHARE * estimate):
            return estimate, n
        if say is not None and expected > budget.SAY_SAMPLE_SECONDS:
            say(f"timing {grown:,} games to estimate how long the {games:,} take: at most "
                f"{duration(expected)}")
        n = grown


def _state_blocks(solution: Solution, tally: Tally):
    """The distinct turn-start states of the games, a block at a time (their choices must fit
    in memory): (states, the games in the block, each game's row in the block)."""
    layout = solution.layout
    key = layout.pack(tally.MASK, tally.FLAG, tally.UPPER, tally.BANK)
    uniq, state_of_game = np.unique(key, return_inverse=True)
    block = solution.problem.state_block
    for b0 in range(0, len(uniq), block):
        b1 = min(len(uniq), b0 + block)
        states = layout.unpack(uniq[b0:b1])
        in_block = np.flatnonzero((state_of_game >= b0) & (state_of_game < b1))
        yield states, in_block, (state_of_game - b0).astype(np.int64)


def strategy_choices(solution: Solution, strategy: str, states: States) -> np.ndarray:
    """CHOICE[i, L, r]: the strategy's choice for roll r with L re-rolls left in state i (L = 0:
    the box; see `solver.kernels.layer`). States sorted by (bank, mask, flag, upper total)."""
    from .forward import rows_of_states
    from .kernels import layer
    from .kernels.bundle import Outcomes

    t, problem = solution.tables, solution.problem
    rows = rows_of_states(states)
    cols = problem.batch_width(int(rows.NU.max(initial=1)))
    stages = t.rolls + int(states.BANK.max(initial=0))  # re-rolls left 0 .. rolls - 1 + bank
    choice = np.empty((len(states.MASK), stages, t.n_distinct_rolls), dtype=np.int64)
    none = np.zeros((0, 0), dtype=np.int64)
    no_outcomes = Outcomes(none, none, none, none, none, np.zeros((0, 0)),
                           np.zeros(0, dtype=np.int64))
    layer.decide(problem.K, problem.L, rows, layer.batches(rows.NU, cols, rows.BANK), cols,
                 problem.threads,
                 Next(strategy_values(solution, strategy), None, None), choice=choice,
                 out=no_outcomes)
    return choice


class _Totals:
    """What outlives a chunk of games: histograms and sums."""

    def __init__(self, n_boxes: int):
        self.score_counts = np.zeros(1, dtype=np.int64)
        self.box_sum = np.zeros(n_boxes, dtype=np.int64)
        self.box_zeros = np.zeros(n_boxes, dtype=np.int64)
        self.bonus_counts = np.zeros(1, dtype=np.int64)
        self.upper_games = self.joker_games = self.joker_uses = 0

    def add(self, tally: Tally, upper: int, yahtzee: int, joker: int) -> None:
        self.score_counts = _add_counts(self.score_counts, np.bincount(tally.SCORE))
        self.box_sum += tally.BOX_SCORE.sum(axis=0, dtype=np.int64)
        self.box_zeros += (tally.BOX_SCORE == 0).sum(axis=0)
        self.bonus_counts = _add_counts(self.bonus_counts, np.bincount(tally.EVENTS[:, yahtzee]))
        self.upper_games += int((tally.EVENTS[:, upper] > 0).sum())
        self.joker_games += int((tally.EVENTS[:, joker] > 0).sum())
        self.joker_uses += int(tally.EVENTS[:, joker].sum())


def _add_counts(total: np.ndarray, more: np.ndarray) -> np.ndarray:
    if len(more) > len(total):
        total, more = more.astype(np.int64), total
    total[: len(more)] += more
    return total



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
