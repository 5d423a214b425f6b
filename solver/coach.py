"""A game played along with the optimal strategy: every decision judged as it is made.

`Game` is one solitaire game of a rule set: the dice (drawn from a seed, or typed in from a
physical game), the holding, the scoring, the undo of a decision, and a log of every decision
beside the best one and what it cost in expected final score. It is plain Python over the
advisor's NumPy turn recursion (`solver.advice`), so it never loads numba.

A game is its moves: `{"keep": [dice]}`, `{"score": box}` and, with own dice, `{"dice": [dice]}`.
`Game.state()` is that list with the seed, and `Game.from_state` replays it, so a front end can
hold the whole game (the web page keeps it in the browser; the server keeps nothing).

Seeded dice are a pure function of (seed, turn, roll of the turn): roll j of turn t draws all
dice from `default_rng([seed, t, j])` and the re-rolled dice take the first draws. The same seed
gives the same first roll of every turn whatever was kept, and a replay gives the same game.

Values are expected points still to come from the start of the decision; the loss of a choice
is the best option's value minus the choice's; `expected_final` adds the points banked.

With saved rolls (`saved_rolls` rules) a turn begun with b saved rolls has `rolls` - 1 + b
re-rolls, any roll may be scored (stopping), and the next turn starts with the saved rolls the
rules leave (`Position.after`); the options are then the advisor's (`solver.advice`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np
from yz.rules import InputError
from yz.rules.position import (
    Position,
    box_choices,
    check_open_box,
    most_rolls_left,
    parse_dice,
)

from .advice import Action, advise, box_values, memo_turn_tables, moves_to_show
from .budget import MAX_MOVES
from .dp import Solution

TIE = 1e-9  # values this close are the same move in worth (float sums of the same terms)


@dataclass(frozen=True)
class Option(Action):
    """One move open to the player, with its worth (an advisor's `Action`, named for people)."""

    def label(self, box_name: bool = True) -> str:
        return super().label(box_name)

    def same_move(self, other: Option) -> bool:
        if self.kind != other.kind:
            return False
        if self.kind == "score":
            return self.box.key == other.box.key
        return self.keep == other.keep

    def as_json(self, best_value: float, banked: int) -> dict:
        return self.to_dict(best_value, banked)


@dataclass(frozen=True)
class Decision:
    """One decision of the game beside the best one."""

    turn: int  # 1-based
    dice: tuple[int, ...]
    rolls_left: int
    chosen: Option
    best: Option
    banked: int  # points on the card before the decision

    @property
    def loss(self) -> float:
        return max(0.0, self.best.value - self.chosen.value)

    @property
    def was_best(self) -> bool:
        return self.loss <= TIE

    def as_json(self) -> dict:
        return {"turn": self.turn, "dice": list(self.dice), "rolls_left": self.rolls_left,
                "chosen": self.chosen.as_json(self.best.value, self.banked),
                "best": self.best.as_json(self.best.value, self.banked),
                "loss": self.loss, "was_best": self.was_best}


@dataclass
class Game:
    """A game in progress. Create with `Game(solution, seed)`; play with `keep`, `score` and
    (own dice) `enter_dice`; `undo` takes back the last decision."""

    solution: Solution
    seed: int = 0
    own_dice: bool = False
    position: Position = field(default_factory=Position)
    bonus_points: int = 0  # extra Yahtzee bonuses won
    dice: tuple[int, ...] | None = None  # showing now; None before a roll
    kept: tuple[int, ...] = ()  # held while waiting for own dice after a keep
    rolls_left: int = 0  # re-rolls left this turn once the dice show
    turn: int = 1
    moves: list[dict] = field(default_factory=list)
    log: list[Decision] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_seed(self.seed)
        if not self.moves and self.dice is None:
            if not self.position.filled:  # the game's first turn: the saved rolls it starts with
                self.position = replace(self.position, saved_rolls=self.tables.bank_start)
            self._start_turn()

    # ------------------------------------------------------------ state

    @property
    def tables(self):
        return self.solution.tables

    @property
    def over(self) -> bool:
        return len(self.position.filled) == self.tables.n_categories

    @property
    def phase(self) -> str:
        """"dice" (own dice to type in), "keep" (re-rolls left), "score" or "over"."""
        if self.over:
            return "over"
        if self.dice is None:
            return "dice"
        return "keep" if self.rolls_left > 0 else "score"

    @property
    def banked(self) -> int:
        return self.position.banked(self.tables, self.bonus_points)

    def state(self) -> dict:
        """What replays this game (`Game.from_state`)."""
        return {"seed": self.seed, "own_dice": self.own_dice, "moves": list(self.moves)}

    @classmethod
    def from_state(cls, solution: Solution, state: dict) -> Game:
        """Replay a game's moves; InputError naming the first move that does not fit."""
        if not isinstance(state, dict):
            raise InputError("state: give an object with seed, own_dice and moves.",
                             param="state")
        seed = state.get("seed", 0)
        own = state.get("own_dice", False)
        moves = state.get("moves", [])
        if not isinstance(own, bool):
            raise InputError("state: own_dice must be true or false.", param="state")
        if not isinstance(moves, list) or len(moves) > MAX_MOVES:
            raise InputError(f"state: moves must be a list of at most {MAX_MOVES} moves.",
                             param="state")
        game = cls(solution, seed, own)
        for i, move in enumerate(moves):
            try:
                game.play(move)
            except InputError as exc:
                raise InputError(f"state: move {i + 1} ({move!r}) does not fit the game: {exc}",
                                 param="state") from None
        return game

    def play(self, move: dict) -> Decision | None:
        """Apply one move given as data: {"keep": [...]}, {"score": box} or {"dice": [...]}."""
        if not isinstance(move, dict) or len(move) != 1:
            raise InputError('a move is one of {"keep": [dice]}, {"score": "box"}, '
                             '{"dice": [dice]}.', param="move")
        (kind, arg), = move.items()
        if kind == "keep":
            return self.keep(_dice_list(arg, "keep"))
        if kind == "score":
            if not isinstance(arg, str):
                raise InputError("score: give a box key as a string.", param="move")
            return self.score(arg)
        if kind == "dice":
            self.enter_dice(_dice_list(arg, "dice"))
            return None
        raise InputError(f"'{kind}' is not a move; moves are keep, score and dice.",
                         param="move")

    # ------------------------------------------------------------ options

    @property
    def first_roll(self) -> bool:
        """The dice showing are the turn's first roll (scoring them now earns a first-roll
        bonus; in a one-roll game without saved rolls every score holds it already)."""
        return self.rolls_left == most_rolls_left(self.tables, self.position)

    @property
    def saved_rolls(self) -> int:
        """The saved rolls this turn started with (0 in games without)."""
        return self.position.saved_rolls

    def saved_rolls_text(self) -> str:
        """", 2 saved rolls" after a turn's heading in a game that saves rolls, else ""."""
        n = self.solution.layout.shown_bank(self.saved_rolls)
        return "" if n is None else f", {n} saved roll{'s' if n != 1 else ''}"

    def options(self) -> list[Option]:
        """Every move open now, best first (keeps, then scoring now; ties in the advisor's
        order: more dice kept, then card order)."""
        if self.phase in ("over", "dice"):
            return []
        advice = moves_to_show(self.solution, self.dice, self.rolls_left,
                               lambda n: advise(self.solution, self.position, self.dice, n))
        return [Option(**{f: getattr(a, f) for f in Action.__dataclass_fields__})
                for a in advice.actions]

    def judge(self, move: dict) -> tuple[Option, Option]:
        """(the option a move takes, the best option), without playing it."""
        opts = self.options()
        if not opts:
            raise InputError(f"no decision to make now (the game is {self.phase_text()}).",
                             param="move")
        if not isinstance(move, dict) or len(move) != 1:
            raise InputError('a decision is {"keep": [dice]} or {"score": "box"}.',
                             param="move")
        (kind, arg), = move.items()
        if kind == "keep":
            if self.rolls_left == 0:
                raise InputError("keep: no re-rolls are left this turn; score a box.",
                                 param="move")
            kept = self._check_keep(_dice_list(arg, "keep"))
            chosen = next((o for o in opts if o.kind == "keep" and o.keep == kept), None)
            if chosen is None:  # saved rolls: keeping every die would only spend a roll
                raise InputError("keep: keeping every die only spends a roll; score a box to "
                                 "stop here (the rolls left are saved as the rules say).",
                                 param="move")
        elif kind == "score":
            if not isinstance(arg, str):
                raise InputError("score: give a box key as a string.", param="move")
            check_open_box(self.tables, self.position, arg)
            chosen = next((o for o in opts if o.kind == "score" and o.box.key == arg), None)
            if chosen is None:
                raise InputError(f"score: the forced Joker rule does not allow '{arg}' for "
                                 "this roll.", param="move")
        else:
            raise InputError(f"'{kind}' is not a decision; decisions are keep and score.",
                             param="move")
        return chosen, opts[0]

    def stop_value(self) -> float:
        """What keeping every die is worth: the rolling stops there, so the best box for the
        dice showing, as after the last roll (a first-roll bonus is claimed by scoring at
        once, not by keeping)."""
        roll = self.tables.roll_index(self.dice)
        return max(v for _, v in box_values(self.solution, self.position, roll))

    def phase_text(self) -> str:
        return {"over": "over", "dice": "waiting for the dice rolled"}.get(self.phase,
                                                                           "in progress")

    # ------------------------------------------------------------ moves

    def keep(self, kept) -> Decision:
        """Keep these dice (any order) and re-roll the others. Keeping every die stops
        rolling: the dice showing are scored as after the last roll, and the decision is
        judged once, at what that is worth (`stop_value`), never again for each roll it
        would spend."""
        kept_sorted = tuple(sorted(kept)) if isinstance(kept, list | tuple) else kept
        chosen, best = self.judge({"keep": list(kept_sorted)})
        decision = Decision(self.turn, self.dice, self.rolls_left, chosen, best, self.banked)
        self.log.append(decision)
        self.moves.append({"keep": list(chosen.keep)})
        if not chosen.reroll:  # every die kept: on to scoring
            self.rolls_left = 0
        elif self.own_dice:
            self.rolls_left -= 1
            self.kept, self.dice = chosen.keep, None
        else:
            self.rolls_left -= 1
            self._roll(chosen.keep)
        return decision

    def score(self, key: str) -> Decision:
        """Score the dice showing in box `key` (also before the last roll: stop rolling)."""
        chosen, best = self.judge({"score": key})
        decision = Decision(self.turn, self.dice, self.rolls_left, chosen, best, self.banked)
        t = self.tables
        self.position, choice = self.position.after(t, t.roll_index(self.dice), key,
                                                    self.first_roll, self.rolls_left)
        self.bonus_points += choice.yahtzee_bonus
        self.log.append(decision)
        self.moves.append({"score": key})
        if self.over:
            self.dice, self.kept = None, ()
        else:
            self.turn += 1
            self._start_turn()
        return decision

    def enter_dice(self, dice) -> tuple[int, ...]:
        """Own dice: the dice showing after a roll, all of them or only the re-rolled ones."""
        if not self.own_dice:
            raise InputError("dice: this game rolls its own dice (it was started with a seed).",
                             param="dice")
        if self.phase != "dice":
            raise InputError("dice: the dice are showing already; keep some or score a box.",
                             param="dice")
        t = self.tables
        dice = tuple(int(d) for d in dice)
        free = t.n_dice - len(self.kept)
        if self.kept and len(dice) == free:
            dice = self.kept + dice
        shown = parse_dice(" ".join(map(str, dice)), t) if dice else parse_dice("", t)
        if not _contains(shown, self.kept):
            raise InputError(f"dice: {' '.join(map(str, shown))} does not contain the dice "
                             f"kept ({' '.join(map(str, self.kept))}); give all {t.n_dice} dice "
                             f"or only the {free} rolled.", param="dice")
        self.dice, self.kept = shown, ()
        self.moves.append({"dice": list(shown)})
        return shown

    def undo(self) -> None:
        """Take back the last decision (and the dice typed in after it)."""
        decisions = [i for i, m in enumerate(self.moves) if "dice" not in m]
        if not decisions:
            raise InputError("undo: no decision to take back yet.", param="move")
        keep_moves = self.moves[: decisions[-1]]
        replay = Game.from_state(self.solution, {"seed": self.seed, "own_dice": self.own_dice,
                                                 "moves": keep_moves})
        self.__dict__.update(replay.__dict__)

    def _start_turn(self) -> None:
        self.rolls_left = most_rolls_left(self.tables, self.position)
        self.dice, self.kept = None, ()
        if not self.own_dice:
            self._roll(())

    def _roll(self, kept: tuple[int, ...]) -> None:
        t = self.tables
        j = most_rolls_left(t, self.position) - self.rolls_left  # 0: the turn's first roll
        draws = np.random.default_rng([self.seed, self.turn, j]).integers(
            1, t.n_faces + 1, size=t.n_dice)
        free = t.n_dice - len(kept)
        self.dice = tuple(sorted(kept + tuple(int(d) for d in draws[:free])))

    def _check_keep(self, kept: tuple[int, ...]) -> tuple[int, ...]:
        kept = tuple(sorted(kept))
        if not _contains(self.dice, kept):
            raise InputError(f"keep: {' '.join(map(str, kept))} is not among the dice showing "
                             f"({' '.join(map(str, self.dice))}).", param="move")
        return kept

    # ------------------------------------------------------------ review

    def lost(self) -> float:
        return sum(d.loss for d in self.log)

    def worst(self, n: int = 3) -> list[Decision]:
        costly = [d for d in self.log if not d.was_best]
        return sorted(costly, key=lambda d: -d.loss)[:n]

    def expected_final(self) -> float:
        """Points banked plus the value of the current spot under optimal play from here."""
        if self.over:
            return float(self.banked)
        opts = self.options()
        if opts:
            return self.banked + opts[0].value
        tables = memo_turn_tables(self.solution, self.position)
        return self.banked + tables.start_value

    def card(self) -> list[dict]:
        """The score card: every box (score or None), then the bonuses and the total."""
        t = self.tables
        rows = [{"box": c.key, "name": c.name, "section": c.section,
                 "score": self.position.filled.get(c.key)} for c in t.rules.categories]
        return rows

    def bonuses(self) -> dict:
        t = self.tables
        upper = 0
        if t.upper_threshold and self.position.upper_total >= t.upper_threshold:
            upper = t.upper_bonus
        return {"upper_total": self.position.upper_total,
                "upper_threshold": t.upper_threshold or None,
                "upper_bonus": upper, "yahtzee_bonus": self.bonus_points}

    def view(self, with_options: bool = False) -> dict:
        """The game as JSON: dice, phase, card, bonuses, totals, log (and the options)."""
        opts = self.options()
        best = opts[0].value if opts else 0.0
        out = {"variant": self.tables.rules.name, "turn": self.turn,
               "turns": self.tables.n_categories, "phase": self.phase,
               "dice": list(self.dice) if self.dice is not None else None,
               "kept": list(self.kept), "rolls_left": self.rolls_left,
               "saved_rolls": self.solution.layout.shown_bank(self.saved_rolls),
               "card": self.card(), **self.bonuses(), "banked": self.banked,
               "expected_final": self.expected_final(),
               "expected_at_start": self.solution.expected_score,
               "lost": self.lost(), "log": [d.as_json() for d in self.log],
               "state": self.state()}
        if self.dice is not None and not self.over:
            t = self.tables
            out["box_scores"] = {c.key: {"points": c.total, "legal": c.legal}
                                 for c in box_choices(t, t.roll_index(self.dice), self.position,
                                                      self.first_roll)}
        if with_options:
            out["options"] = [dict(o.as_json(best, self.banked),
                                   tie=abs(o.value - best) <= TIE and i > 0)
                              for i, o in enumerate(opts)]
            if len(opts) > 1 and abs(opts[1].value - best) <= TIE:
                out["options"][0]["tie"] = True
        if self.over:
            out["review"] = self.review()
        return out

    def review(self, distribution=None) -> dict:
        """The end-of-game (or so-far) review: total, what the decisions cost and what the
        dice did, the worst decisions, and with an exact `distribution`, where the total ranks.

        The expected final score moves only two ways: a decision lowers it by its loss (the
        best move keeps it), a roll moves it up or down by luck (zero on average). So
        `expected_final` (the total, once the game is over) = `expected_at_start` - `lost`
        (the decisions' losses added up) + `luck` (what the dice gave, negative: took)."""
        decisions = len(self.log)
        final = self.expected_final()
        out = {"total": self.banked, "expected_at_start": self.solution.expected_score,
               "expected_final": final,
               "lost": self.lost(), "luck": final - self.solution.expected_score + self.lost(),
               "decisions": decisions,
               "best_decisions": sum(d.was_best for d in self.log),
               "mean_loss": self.lost() / decisions if decisions else 0.0,
               "worst": [d.as_json() for d in self.worst(3)]}
        if distribution is not None:
            out.update(score_rank(distribution, self.banked))
        return out


def score_rank(dist, score: float) -> dict:
    """Where a score falls in an exact distribution: P(final <= score), P(final >= score)."""
    below = float(dist.probabilities[dist.scores <= score].sum())
    return {"p_at_most": min(1.0, below), "p_at_least": dist.p_at_least(int(np.ceil(score))),
            "median": dist.median, "percentiles": dist.percentiles()}


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InputError(f"seed: {seed!r} is not a whole number from 0 to 2^63 - 1.",
                         param="seed")
    return seed


def _dice_list(arg, what: str) -> tuple[int, ...]:
    if not isinstance(arg, list | tuple) or len(arg) > 16 or \
            not all(isinstance(d, int) and not isinstance(d, bool) for d in arg):
        raise InputError(f"{what}: give the dice as a list of whole numbers, e.g. [6, 6].",
                         param="move")
    return tuple(arg)


def _contains(dice: tuple[int, ...], part: tuple[int, ...]) -> bool:
    rest = list(dice)
    for d in part:
        if d not in rest:
            return False
        rest.remove(d)
    return True


# ---------------------------------------------------------------- typed input


def parse_keep(text: str, dice: tuple[int, ...], n_faces: int) -> tuple[int, ...] | None:
    """The dice to keep from what a person types: '66', '6 6', '6,6', 'all', 'none' (or '-').
    None when the text is not a keep (e.g. a box name); InputError when it names dice that are
    not showing."""
    s = text.strip().lower()
    if s in ("all", "a", "stop"):
        return tuple(dice)
    if s in ("none", "no", "-", "0", "reroll", "re-roll"):
        return ()
    if not re.fullmatch(r"[\d,\s]+", s):
        return None
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    if len(parts) == 1 and n_faces <= 9:
        kept = tuple(int(c) for c in parts[0])
    else:
        kept = tuple(int(p) for p in parts)
    if not _contains(tuple(dice), kept):
        raise InputError(f"keep: {' '.join(map(str, sorted(kept)))} is not among the dice "
                         f"showing ({' '.join(map(str, dice))}).", param="move")
    return tuple(sorted(kept))


def find_box(text: str, game: Game) -> str | None:
    """The open box a person means: its key, its name, or a unique start of either."""
    s = text.strip().lower().replace(" ", "_")
    if not s:
        return None
    cats = game.tables.rules.categories
    for c in cats:
        if s in (c.key, c.name.lower().replace(" ", "_")):
            return c.key
    starts = [c.key for c in cats if not game.position.is_filled(c.key)
              and (c.key.startswith(s) or c.name.lower().replace(" ", "_").startswith(s))]
    return starts[0] if len(starts) == 1 else None
