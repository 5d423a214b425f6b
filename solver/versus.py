"""Play to win: the best response to an opponent whose final score has a known distribution.

A player who wants to win maximises E[u(final score)] for the utility

    u(x) = P(the opponent ends below x) + 1/2 P(the opponent ends on x)

(a draw counts as half a win), not the mean. Against the best of a field of N independent such
opponents (their top score has CDF F^N) a tie for the top with k of them counts 1/(k + 1). The
strategy that maximises it is the target table's (`solver.target`) with u as the full card's
boundary: one sweep over (state, points still needed to reach the top B of u), where only the
needs a state's banked points allow are computed (`target.need_rows`). Beside the utility the
sweep carries, along the choices it makes (ties broken as `kernels.ties` says: the split of a
strategy's draws and wins depends on that), the chance of a draw, and against a field the
chance of winning outright too (against one opponent u is P(win) + P(draw) / 2, so the draws
give the split), so the three are exact, not sampled.

Neither player sees the other's card ("blind"): the opponent plays a fixed strategy (expected-
score play by default) and A plays this best response from the start. The **clairvoyant
ceiling** is what A could get knowing the opponent's final score T before the game:
sum over T of P(opponent = T) x max over A's strategies of P(A > T) + 1/2 P(A = T). It is one
table for every T at once: the utility P(X > n) + 1/2 P(X = n) of the points X still to come
is shift-invariant in the need n = T + 1 - banked points (a half point at the target), so the
same sweep serves all of them, as the target table serves every target.

u is constant above the opponent's top score; the sweep stops at the first score B where it is
within `tail` (1e-12 by default) of 1, and counts every final score from B on as B: every
figure is within `tail` of the uncut one (the bound is reported with them).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from yz.rules import InputError

from .dp import Solution
from .report import Step

TAIL = 1e-12  # the largest share of the opponent's chances a cut of u's range may leave out
MAX_FIELD = 1000  # a field larger than this is no game


@dataclass(frozen=True)
class Opponent:
    """The final score of what a player plays against: one opponent's exact distribution, or
    the best of `field` independent opponents who each have it."""

    name: str
    scores: np.ndarray  # int64: lowest .. highest score with nonzero probability (one player)
    probabilities: np.ndarray  # float64, same length
    field: int = 1

    @classmethod
    def of(cls, distribution, field: int = 1) -> Opponent:
        """From an exact distribution (`Distribution`), as one opponent or a field of them."""
        check_field(field)
        name = f"{distribution.variant} ({distribution.strategy} play)"
        return cls(name, np.asarray(distribution.scores, dtype=np.int64),
                   np.asarray(distribution.probabilities, dtype=np.float64), field)

    @classmethod
    def from_csv(cls, path: str | Path, field: int = 1) -> Opponent:
        """From the CSV `yz distribution --csv` writes (score,probability[,cumulative]); an
        InputError naming the file and line when it is not one."""
        from yz.rules.loader import read_input_text

        check_field(field)
        text = read_input_text(str(path), "opponent distribution", InputError)
        scores, probs = [], []
        for number, line in enumerate(text.splitlines(), 1):
            cells = [c.strip() for c in line.split(",")]
            if not line.strip() or (number == 1 and cells[0].lower() == "score"):
                continue
            try:
                score, p = int(cells[0]), float(cells[1])
            except (ValueError, IndexError):
                raise InputError(f"{path}:{number}: expected 'score,probability' (as yz "
                                 f"distribution --csv writes), got {line[:60]!r}.") from None
            if not 0 <= score <= 100_000 or not (0.0 <= p <= 1.0):
                raise InputError(f"{path}:{number}: a score from 0 to 100000 and a probability "
                                 "from 0 to 1, please.")
            scores.append(score)
            probs.append(p)
        if not scores:
            raise InputError(f"{path}: no scores in it; give the CSV yz distribution --csv "
                             "writes.")
        if len(set(scores)) != len(scores):
            raise InputError(f"{path}: a score is given twice; give each score once.")
        total = math.fsum(probs)
        if abs(total - 1.0) > 1e-6:
            raise InputError(f"{path}: the probabilities add up to {total:.9f}, not 1.")
        order = np.argsort(scores)
        lo, hi = scores[order[0]], scores[order[-1]]
        dense = np.zeros(hi - lo + 1)
        dense[np.asarray(scores)[order] - lo] = np.asarray(probs)[order]
        return cls(Path(path).name, np.arange(lo, hi + 1, dtype=np.int64), dense / total, field)

    @property
    def digest(self) -> str:
        """A hash of the final scores and their chances (and the field): equal opponents,
        equal digests, whatever their names."""
        import hashlib

        h = hashlib.sha256(np.asarray(self.scores, dtype=np.int64).tobytes())
        h.update(np.asarray(self.probabilities, dtype=np.float64).tobytes())
        h.update(str(self.field).encode())
        return h.hexdigest()

    def outcome(self, top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For a final score x = 0 .. top of the player: (u(x), the chance of winning outright,
        of tying for the top), against the field's best score."""
        x = np.arange(top + 1)
        pmf = np.zeros(top + 2)
        inside = (self.scores >= 0) & (self.scores <= top)
        pmf[self.scores[inside]] = self.probabilities[inside]
        below = np.concatenate([[0.0], np.cumsum(pmf)])[:top + 1]  # P(one opponent < x)
        below[x > self.scores[-1]] = 1.0
        f = pmf[:top + 1]
        n = self.field
        win = below ** n
        tie = np.minimum(1.0, below + f) ** n - win
        # A tie with k of the n opponents counts 1 / (k + 1): sum_k C(n, k) f^k below^(n - k)
        # / (k + 1), term by term (no cancellation where f is tiny).
        credit = np.zeros(top + 1)
        for k in range(1, n + 1):
            credit += math.comb(n, k) * f ** k * below ** (n - k) / (k + 1)
        return win + credit, win, tie

    def top_score(self, tail: float) -> int:
        """The lowest score B from which every higher score of the player's is worth at least
        1 - tail (the rest of the field's mass above it is below `tail`)."""
        u, _w, _t = self.outcome(int(self.scores[-1]) + 1)
        return int(np.flatnonzero(u >= 1.0 - tail)[0])


def as_opponent(opponent) -> Opponent:
    """An `Opponent` from an Opponent or the `Distribution` of its final score; InputError
    for anything else."""
    from .distribution import Distribution

    if isinstance(opponent, Distribution):
        return Opponent.of(opponent)
    if not isinstance(opponent, Opponent):
        raise InputError(f"opponent: {type(opponent).__name__} is not an opponent; give an "
                         "Opponent or a Distribution.", param="opponent")
    return opponent


def check_field(field: int) -> None:
    if isinstance(field, bool) or not isinstance(field, int) or not 1 <= field <= MAX_FIELD:
        raise InputError(f"field: {field!r} is not a number of opponents from 1 to "
                         f"{MAX_FIELD}.", param="field")


@dataclass(frozen=True)
class Chances:
    """A player's exact chances against an opponent (or a field)."""

    win: float
    draw: float
    loss: float

    @classmethod
    def of_score(cls, score: float, draw: float) -> Chances:
        """From a score (win + draw / 2) and the chance of a draw: what a sweep that carries
        only the draws against one opponent gives."""
        win = min(1.0, max(0.0, score - draw / 2))
        return cls(win, draw, max(0.0, 1.0 - win - draw))

    @property
    def score(self) -> float:
        """P(win) + P(draw) / 2: the utility a draw counts half in."""
        return self.win + self.draw / 2

    @property
    def win_without_draws(self) -> float:
        """P(win) / (P(win) + P(loss)): the share of the decided games won (draws excluded)."""
        decided = self.win + self.loss
        return self.win / decided if decided > 0 else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "score": self.score,
                "win_without_draws": self.win_without_draws}


@dataclass(frozen=True)
class BestResponse:
    """Play to win against an opponent: the blind best response, expected-score play and the
    clairvoyant ceiling (None where not computed), with the bound of the range's cut."""

    variant: str
    opponent: str
    field: int
    best_response: Chances
    utility: float  # the best response's E[u]: win + draw / 2 against one opponent
    expected_score_play: Chances
    ceiling: Chances | None
    top: int  # the top score B of the sweep (see the module docstring)
    tail: float  # every figure is within this of the uncut one
    seconds: float

    def to_dict(self) -> dict:
        return {"variant": self.variant, "opponent": self.opponent, "field": self.field,
                "best_response": self.best_response.to_dict(), "utility": self.utility,
                "expected_score_play": self.expected_score_play.to_dict(),
                "ceiling": None if self.ceiling is None else self.ceiling.to_dict(),
                "top": self.top, "tail": self.tail, "seconds": self.seconds}


def chances_of(distribution, opponent: Opponent) -> Chances:
    """The exact chances of a player whose final score has `distribution`, against the
    opponent (neither sees the other's card)."""
    scores = np.asarray(distribution.scores)
    top = int(max(scores[-1], opponent.scores[-1])) + 1
    _u, win, tie = opponent.outcome(top)
    p = np.asarray(distribution.probabilities)
    w, d = float(p @ win[scores]), float(p @ tie[scores])
    return Chances(w, d, max(0.0, 1.0 - w - d))


def blind_best_response(solution: Solution, opponent: Opponent, tail: float = TAIL,
                        step: Step | None = None) -> tuple[Chances, float, int]:
    """The strategy that maximises E[u(final score)] against the opponent, from the empty
    card: its exact chances, E[u] itself, and the top B of the sweep (see the module
    docstring)."""
    from .target import need_sweep

    top = opponent.top_score(tail)
    u, win, tie = opponent.outcome(top)
    # Column j of the sweep is the need top - j: the full card's row is u at top - j.
    row = u[::-1].copy()
    start = solution.layout.start
    found: dict = {}

    one = opponent.field == 1  # u = win + draw / 2: the draws alone give the split

    def keep(k: int, here: slice, table: np.ndarray, payloads, first: int) -> None:
        if k == 0:
            i, j = start - here.start, top - first
            value, draw = float(table[i, j]), float(payloads[0 if one else 1][i, j])
            found["value"] = value
            if one:
                found["chances"] = Chances.of_score(value, draw)
            else:
                won = float(payloads[0][i, j])
                found["chances"] = Chances(won, draw, max(0.0, 1.0 - won - draw))

    lowest = int(opponent.scores[0])  # u is 0 below the lowest score the opponent can have
    carried = (tie[::-1].copy(), float(tie[top]), None, 0.0) if one else (
        win[::-1].copy(), float(win[top]), tie[::-1].copy(), float(tie[top]))
    need_sweep(solution, top + 1, row, float(u[top]), keep, step, windows=True,
               payloads=carried, what="chances of winning", reach=max(0, top - lowest))
    return found["chances"], found["value"], top


def clairvoyant_ceiling(solution: Solution, opponent: Opponent, tail: float = TAIL,
                        step: Step | None = None) -> Chances:
    """What A could get knowing the opponent's final score T before the game (see the module
    docstring): one half-point target table serves every T. One opponent only."""
    from .target import need_sweep

    if opponent.field != 1:
        raise InputError("field: the clairvoyant ceiling is defined against one opponent.",
                         param="field")
    mass = np.cumsum(opponent.probabilities[::-1])[::-1]  # P(opponent >= score)
    kept = opponent.scores[mass > tail]
    top_t = int(kept[-1])  # higher scores carry less than `tail` of the opponent's chances
    n_need = top_t + 2  # need T + 1 (to pass T) at the start, for every T kept
    # The full card, by need n = T + 1 - banked points: passed (n <= 0) 1, level (n = 1) 1/2.
    row = np.zeros(n_need)
    row[1] = 0.5
    draw_row = np.zeros(n_need)
    draw_row[1] = 1.0
    start = solution.layout.start
    found: dict = {}

    def keep(k: int, here: slice, table: np.ndarray, payloads, first: int) -> None:
        if k == 0:
            assert first == 0  # (no windows: every need is stored)
            i = start - here.start
            found["row"] = (table[i].copy(), payloads[0][i].copy())  # (score, draw) by need

    need_sweep(solution, n_need, row, 1.0, keep, step,
               payloads=(draw_row, 0.0, None, 0.0), what="chances of winning", reach=1)
    score_by_need, draw_by_need = found["row"]
    inside = (opponent.scores >= 0) & (opponent.scores <= top_t)
    t, p = opponent.scores[inside], opponent.probabilities[inside]
    return Chances.of_score(float(p @ score_by_need[t + 1]), float(p @ draw_by_need[t + 1]))


@dataclass(frozen=True)
class UtilityTable:
    """A utility's table over (state, need) for one layer, as `advice.advise_target` reads a
    target table: the need to reach the top `top` of the utility; a need met is worth
    `met`."""

    solution: Solution
    layer: int
    table: np.ndarray  # float64 [the layer's stored states, top + 1 - first]
    top: int
    met: float
    first: int = 0  # the first need stored (`target.need_sweep`): those below it are worth 0

    def chance(self, mask: int, upper_total: int, yahtzee_full: bool, need: int,
               saved_rolls: int = 0) -> float:
        if need <= 0:
            return self.met
        if need < self.first:
            return 0.0
        layout = self.solution.layout
        index = layout.index(mask, int(yahtzee_full), upper_total, saved_rolls)
        return float(self.table[index - int(layout.LAYER_PTR[self.layer]), need - self.first])


def table_to_win(solution: Solution, position, banked: int, opponent: Opponent,
                 tail: float = TAIL, step: Step | None = None) -> UtilityTable:
    """The best response's chances of player A (A's points banked: `banked`) over the states
    one turn on from `position` (the layer after A's turn), against the opponent's final
    score: solved over the states A can still reach (only that layer is kept)."""
    from .target import need_sweep

    top = max(opponent.top_score(tail), banked + 1)
    u, _win, _tie = opponent.outcome(top)
    row = u[::-1].copy()
    layout = solution.layout
    after = len(position.filled) + 1
    if after == solution.tables.n_categories:  # A's last turn: the full card's own row
        table, first = np.tile(row, (int(np.diff(layout.LAYER_PTR)[after]), 1)), 0
        table[:, 0] = u[top]
    else:
        kept: dict = {}

        def keep(k: int, _here: slice, layer_table: np.ndarray, _payloads, first: int) -> None:
            if k == after:
                kept["table"], kept["first"] = layer_table, first

        lowest = int(opponent.scores[0])
        need_sweep(solution, top + 1, row, float(u[top]), keep, step, windows=True,
                   what="chances of winning", reach=max(0, top - lowest),
                   after=(position.mask, banked, after))
        table, first = kept["table"], kept["first"]
    return UtilityTable(solution, after, table, top, float(u[top]), first)


def advise_to_win(solution: Solution, position, dice, rolls_left: int | None, banked: int,
                  opponent: Opponent, tail: float = TAIL, step: Step | None = None):
    """Every move of player A at `position` (A's points banked: `banked`) ranked by the chance
    of beating the opponent (P(win) + P(draw) / 2, `advice.Advice` with objective "win"): the
    best response to the opponent's final score from here, solved over the states A can
    still reach (only the layer after A's turn is kept). Exact against the opponent's fixed
    strategy; re-solve when the opponent's card changes."""
    from .advice import advise_target

    table = table_to_win(solution, position, banked, opponent, tail, step)
    return advise_target(table, position, dice, rolls_left, banked, table.top, objective="win")


@dataclass(frozen=True)
class WinTurn:
    """Player A's turn at `position` played to win against a fixed opponent, kept small: the
    chances of the states one turn on that A's moves this turn can reach (read from the
    sweep's layer, `table_to_win`, which is then let go), and A's chance before the roll.
    Every roll and re-roll count of the turn is ranked from it (`advise`), exactly as
    `advise_to_win` ranks them, without solving again."""

    solution: Solution = field(repr=False)
    position: object  # yz.rules.position.Position
    banked: int
    top: int
    met: float
    chances: dict = field(repr=False)  # (mask, upper total, flag, need, saved rolls) -> chance
    position_value: float  # A's chance of winning before the turn's first roll
    seconds: float = 0.0  # what solving it took (0: from memory or the cache)
    tables: object = field(default=None, repr=False)  # the turn's recursion (advice.TurnTables)

    def __post_init__(self) -> None:
        if self.tables is None:  # (read from the cache: the recursion over its chances)
            from .advice import target_final_value, turn_tables

            object.__setattr__(self, "tables", turn_tables(
                self.solution, self.position, target_final_value(self, self.banked, self.top)))

    @classmethod
    def of(cls, table: UtilityTable, position, banked: int, seconds: float = 0.0) -> WinTurn:
        """From a solved `table_to_win`: every chance A's turn can read, read once."""
        from .advice import target_final_value, turn_tables

        seen: dict = {}

        class Reading:
            solution = table.solution

            @staticmethod
            def chance(mask, upper_total, yahtzee_full, need, saved_rolls=0):
                value = table.chance(mask, upper_total, yahtzee_full, need, saved_rolls)
                if need > 0:
                    seen[(int(mask), int(upper_total), bool(yahtzee_full), int(need),
                          int(saved_rolls))] = value
                return value

        # The turn's recursion reads every roll's boxes (and every stop, with saved rolls).
        tables = turn_tables(table.solution, position,
                             target_final_value(Reading, banked, table.top))
        return cls(table.solution, position, banked, table.top, table.met, seen,
                   tables.start_value, seconds, tables)

    def chance(self, mask: int, upper_total: int, yahtzee_full: bool, need: int,
               saved_rolls: int = 0) -> float:
        if need <= 0:
            return self.met
        return self.chances[(int(mask), int(upper_total), bool(yahtzee_full), int(need),
                             int(saved_rolls))]

    def advise(self, dice=None, rolls_left: int | None = None):
        """Every move with these dice (`rolls_left` re-rolls left) ranked by the chance of
        winning (`advice.Advice`, objective "win"); without dice, the chance before the
        roll."""
        from .advice import advise_target

        return advise_target(self, self.position, dice, rolls_left, self.banked, self.top,
                             objective="win", tables=self.tables)

    @property
    def nbytes(self) -> int:
        # (a dict entry: a 5-tuple key and a float; the recursion's arrays)
        return 200 * len(self.chances) + self.tables.nbytes + 1000

    def to_json(self) -> dict:
        """What the cache keeps of it (the position is the caller's key)."""
        return {"top": self.top, "met": self.met, "position_value": self.position_value,
                "keys": [[k[0], k[1], int(k[2]), k[3], k[4]] for k in self.chances],
                "values": list(self.chances.values())}

    @classmethod
    def from_json(cls, solution: Solution, position, banked: int, data: dict) -> WinTurn:
        chances = {(int(k[0]), int(k[1]), bool(k[2]), int(k[3]), int(k[4])): float(v)
                   for k, v in zip(data["keys"], data["values"], strict=True)}
        return cls(solution, position, banked, int(data["top"]), float(data["met"]), chances,
                   float(data["position_value"]))
