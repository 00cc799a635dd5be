"""Points and tie-breaks to shared ranks, in one place for every game and the referee."""

from __future__ import annotations

from typing import Sequence


def competition_ranks(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Rank 1 for the highest key; equal keys share a rank and the next rank skips ("1224").

    Keys compare as tuples: points first, then each tie-break in order.
    """
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


def outcome_keys(points: Sequence[int], tiebreaks: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    return [(p, *t) for p, t in zip(points, tiebreaks)]
