"""The one generic category scorer: pattern primitives evaluated on whole arrays of rolls.

A roll is a multiset of dice, held as face counts: ``counts[r, v - 1]`` is how many dice of roll
``r`` show face ``v``. Every pattern yields, for every roll at once, whether it matches and the
best total of the dice that form it; a scoring form turns that into points. The compiler calls
this once per category to fill the score table, which everything else reads.
"""

from __future__ import annotations

import itertools

import numpy as np

from .models import (
    AllSamePattern,
    AnyPattern,
    Category,
    FacePattern,
    FaceTotal,
    Fixed,
    GroupsPattern,
    OfAKindPattern,
    StraightPattern,
    SumAll,
    SumMatched,
    TotalPattern,
)


def pattern_match(pattern, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (matches, matched_sum) for every roll: does it fit, and the best sum of its dice."""
    n_rolls, n_faces = counts.shape
    face_values = np.arange(1, n_faces + 1)
    total = counts @ face_values
    n_dice = int(counts[0].sum()) if n_rolls else 0
    if isinstance(pattern, FacePattern):
        c = counts[:, pattern.face - 1]
        return c >= pattern.min_count, c * pattern.face
    if isinstance(pattern, AnyPattern):
        return np.ones(n_rolls, bool), total
    if isinstance(pattern, AllSamePattern):
        return counts.max(axis=1) == n_dice, total
    if isinstance(pattern, OfAKindPattern):
        ok = counts == pattern.count if pattern.exact else counts >= pattern.count
        best = np.where(ok, face_values * pattern.count, -1).max(axis=1)
        return best >= 0, np.maximum(best, 0)
    if isinstance(pattern, StraightPattern):
        # A run of `length` is any of the consecutive sets; `faces` and `any_of` list them.
        runs = ([list(range(s, s + pattern.length)) for s in range(1, n_faces - pattern.length + 2)]
                if pattern.length is not None else [list(fs) for fs in pattern.face_sets])
        best = np.full(n_rolls, -1)
        for run in runs:
            ok = (counts[:, [v - 1 for v in run]] >= 1).all(axis=1)
            best = np.where(ok, np.maximum(best, sum(run)), best)
        return best >= 0, np.maximum(best, 0)
    if isinstance(pattern, GroupsPattern):
        return _groups_match(pattern, counts)
    if isinstance(pattern, TotalPattern):
        if pattern.equals is not None:
            return total == pattern.equals, total
        ok = np.ones(n_rolls, bool)
        if pattern.min is not None:
            ok &= total >= pattern.min
        if pattern.max is not None:
            ok &= total <= pattern.max
        return ok, total
    if pattern.kind == "either":
        # The matching pattern with the highest sum forms it.
        best = np.full(n_rolls, -1)
        for inner in pattern.patterns:
            ok, matched = pattern_match(inner, counts)
            best = np.where(ok, np.maximum(best, matched), best)
        return best >= 0, np.maximum(best, 0)
    if pattern.kind == "both":
        # The first pattern forms it; the second only has to match.
        first, second = (pattern_match(inner, counts) for inner in pattern.patterns)
        return first[0] & second[0], first[1]
    raise TypeError(f"unknown pattern {pattern!r}")  # unreachable: the models admit no other


def _groups_match(pattern: GroupsPattern, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Try every way to give each group a face; keep the valid one with the highest dice sum."""
    n_rolls, n_faces = counts.shape
    best = np.full(n_rolls, -1)
    sizes = sorted(pattern.sizes, reverse=True)
    # Groups of equal size are interchangeable, so give them faces in non-decreasing order only.
    by_size = [(size, len(list(grp))) for size, grp in itertools.groupby(sizes)]
    choices = [itertools.combinations_with_replacement(range(n_faces), k) for _, k in by_size]
    for pick in itertools.product(*[list(c) for c in choices]):
        need = np.zeros(n_faces, dtype=np.int64)
        faces_used: list[int] = []
        points = 0
        for (size, _), faces in zip(by_size, pick, strict=True):
            for face in faces:
                need[face] += size
                faces_used.append(face)
                points += size * (face + 1)
        if pattern.distinct and len(set(faces_used)) != len(faces_used):
            continue
        used = need > 0
        if pattern.exact:
            ok = (counts[:, used] == need[used]).all(axis=1)
        else:
            ok = (counts[:, used] >= need[used]).all(axis=1)
        best = np.where(ok, np.maximum(best, points), best)
    return best >= 0, np.maximum(best, 0)


def category_scores(category: Category, counts: np.ndarray) -> np.ndarray:
    """Points the box gives each roll under the normal rules (0 where the pattern fails)."""
    matches, matched_sum = pattern_match(category.pattern, counts)
    return np.where(matches, full_value_scores(category, counts, matched_sum), 0).astype(np.int32)


def first_roll_scores(category: Category, counts: np.ndarray) -> np.ndarray:
    """Points the box gives each roll when the roll is the turn's first: the normal score plus
    the box's `first_roll_bonus` wherever that score is above zero."""
    scores = category_scores(category, counts)
    if not category.first_roll_bonus:
        return scores
    return np.where(scores > 0, scores + category.first_roll_bonus, 0).astype(np.int32)


def full_value_scores(category: Category, counts: np.ndarray,
                      matched_sum: np.ndarray | None = None) -> np.ndarray:
    """Points the box gives each roll when its pattern counts as matched (the Joker's 'in full').

    A forced match treats all dice as forming the pattern, so sum_matched becomes the dice total.
    """
    n_faces = counts.shape[1]
    total = counts @ np.arange(1, n_faces + 1)
    form = category.score
    if isinstance(form, Fixed):
        return np.full(counts.shape[0], form.points, dtype=np.int32)
    if isinstance(form, SumAll):
        return total.astype(np.int32)
    if isinstance(form, FaceTotal):
        face = category.pattern.face
        return (counts[:, face - 1] * face).astype(np.int32)
    if isinstance(form, SumMatched):
        return (total if matched_sum is None else matched_sum).astype(np.int32)
    raise TypeError(f"unknown scoring form {form!r}")  # unreachable
