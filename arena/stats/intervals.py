"""What the standings' intervals are, without how they are found: the shapes of an estimate and of the
games it reads (`arena.stats.uncertainty` computes them with numpy; reading a cached estimate, as a warm
`arena standings` does, needs only this module, and so no numpy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from arena.jsonvalue import JSON

RATING_BUDGET = 200_000  # rated games per estimate for the rating intervals (about 8 s on one core)


class RankedGame(Protocol):
    """Who sat where and how they finished: what every analysis reads of a game."""

    @property
    def index(self) -> int: ...

    @property
    def seats(self) -> tuple[int, ...]: ...

    @property
    def ranks(self) -> tuple[int, ...]: ...


class DealGame(RankedGame, Protocol):
    """What the bootstrap needs of a game (arena.results.store.StoredGame has it): its deal's seed too."""

    @property
    def seed(self) -> int: ...


class GameLike(RankedGame, Protocol):
    """What the stop rule and the seating report need: the game's place in the schedule too."""

    @property
    def round(self) -> int: ...

    @property
    def table(self) -> int: ...


def deal_of(game: DealGame) -> int:
    """A deal's identity: its seed, not its place in the schedule (a schedule's deal seeds derive from the
    names of who plays them, so a store grown by a new entrant keeps its old deals apart from the new).
    Its games are every game on it: one table's seatings (`deals: shared`) or entrant-disjoint games
    at several tables (`deals: spread`)."""
    return game.seed


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def to_json(self) -> list[JSON]:
        return [self.estimate, self.low, self.high]


@dataclass(frozen=True)
class EntrantUncertainty:
    entrant: int
    avg_rank: Interval | None  # None: never played, or too few deals (`why`)
    rating: Interval | None  # TrueSkill mu; None when rating resamples are off or too few deals
    p_ahead: float | None = None  # P(its true average rank is better than `next`'s); None for the last
    next: int | None = None  # the next entrant by average rank
    why: str = ""  # why there is no interval


@dataclass(frozen=True)
class Uncertainty:
    confidence: float
    resamples: int
    rating_resamples: int
    seed: int
    blocks: int
    entrants: tuple[EntrantUncertainty, ...]  # by entrant index
    note: str = ""  # why there are no intervals, if there are none
    order: tuple[int, ...] = ()  # entrants by average rank, best first (the order `next` follows)
