"""Rounds as a unit of a run: the hook that may stop a tournament after a complete round.

A stop rule (e.g. "the top entrant is clear of the rest") sees exactly the games of rounds 0..r and
their ratings, in schedule order, so its answer never depends on concurrency or on what else finished.
When a rule is given, no game of round r+1+lookahead starts before round r is complete (lookahead 0
by default; a match's rounds are two games, so it lets -j N keep N games busy: games played past the
stop are stored but count nowhere); a resumed run asks it again about every complete round, in
order, so it stops where an uninterrupted run stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from arena.stats.ratings import RatingBook, RatingModel
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store


@dataclass(frozen=True)
class RoundGame:
    """What a stop rule needs of a played game (`intervals.GameLike`), without the rest of its record."""

    index: int
    round: int
    table: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class RoundEnd:
    """Round `round` (0-based) and every round before it are complete."""

    round: int
    rounds: int  # in the schedule
    games: int  # rated so far (rounds 0..round)
    book: RatingBook  # ratings after exactly those games; do not modify
    results: Sequence[RoundGame] = ()  # exactly those games, in schedule order (the gate's list: copy to keep)


ShouldStop = Callable[[RoundEnd], bool]  # True: play no further round


class RoundGate:
    """Tracks complete rounds; with a stop rule, holds back later rounds until the rule has spoken."""

    def __init__(
        self,
        schedule: Sequence[ScheduledGame],
        done: set[int],
        rule: ShouldStop | None,
        store: Store,
        model: RatingModel,
        entrants: int,
        on_stop: Callable[[int], None] | None = None,
        lookahead: int = 0,
    ) -> None:
        self.rule = rule
        self.lookahead = lookahead  # rounds after the open one that may start before the rule has spoken
        self.on_stop = on_stop  # called with the round after which the rule stopped, once
        self.store = store
        self.missing: dict[int, int] = {}
        self.ranges: dict[int, tuple[int, int]] = {}
        self.round_of: dict[int, int] = {}
        for g in schedule:
            lo, hi = self.ranges.get(g.round, (g.index, g.index))
            self.ranges[g.round] = (min(lo, g.index), max(hi, g.index))
            self.round_of[g.index] = g.round
            if g.index not in done:
                self.missing[g.round] = self.missing.get(g.round, 0) + 1
        self.rounds = len(self.ranges)
        self.open = 0  # the first round not yet complete
        self.book = RatingBook.new(model, entrants)
        self.results: list[RoundGame] = []
        self.stopped_after: int | None = None
        self._advance()

    @property
    def stopped(self) -> bool:
        return self.stopped_after is not None

    def allows(self, game: ScheduledGame) -> bool:
        if self.rule is None:
            return True
        return not self.stopped and game.round <= self.open + self.lookahead

    def finished(self, index: int) -> None:
        rnd = self.round_of[index]
        self.missing[rnd] -= 1
        self._advance()

    def _advance(self) -> None:
        while self.open < self.rounds and not self.missing.get(self.open) and not self.stopped:
            if self.rule is not None:
                lo, hi = self.ranges[self.open]
                for g in self.store.games(lo, hi + 1):
                    self.book.apply(g.rated())
                    self.results.append(RoundGame(g.index, g.round, g.table, g.seats, g.ranks))
                if self.rule(RoundEnd(self.open, self.rounds, self.book.rated, self.book, self.results)):
                    self.stopped_after = self.open
                    if self.on_stop is not None:
                        self.on_stop(self.open)
            self.open += 1
