"""Seat analysis of stored games: how each seat and each neighbour did, and how balanced the seating was.

Pure: no I/O. The seating itself (who sits next to whom, the balanced cyclic orders) is scheduled by
`arena.tournament.schedule.seating`; this module measures what was played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from arena.jsonvalue import JSON
from arena.stats.intervals import GameLike


def next_counts(seatings: Iterable[Sequence[int]], entrants: int) -> list[list[int]]:
    """counts[a][b]: games in which b sat directly after a (b is a's next; a is b's previous)."""
    out = [[0] * entrants for _ in range(entrants)]
    for seats in seatings:
        k = len(seats)
        for s in range(k):
            out[seats[s]][seats[(s + 1) % k]] += 1
    return out


@dataclass(frozen=True)
class NeighbourBalance:
    spread: int  # largest minus smallest count over ordered pairs of distinct entrants (0: exact)
    deviation: float  # share of all adjacencies that would have to move to reach balance (0: exact)
    low: int
    high: int

    @property
    def exact(self) -> bool:
        return self.spread == 0

    def to_json(self) -> dict[str, JSON]:
        return {"spread": self.spread, "deviation": self.deviation, "low": self.low, "high": self.high}


def balance(counts: Sequence[Sequence[int]]) -> NeighbourBalance:
    cells = [counts[a][b] for a in range(len(counts)) for b in range(len(counts)) if a != b]
    if not cells or not sum(cells):
        return NeighbourBalance(0, 0.0, 0, 0)
    mean = sum(cells) / len(cells)
    moves = sum(abs(c - mean) for c in cells) / 2  # each move takes one from a high cell to a low one
    return NeighbourBalance(max(cells) - min(cells), moves / sum(cells), min(cells), max(cells))


@dataclass(frozen=True)
class SeatReport:
    """Per-seat and per-neighbour results of stored games."""

    seats: int
    seat_games: tuple[int, ...]  # games in which each seat was played
    seat_avg_rank: tuple[float | None, ...]  # over every entrant: a seat advantage shows here
    entrant_seat_avg_rank: tuple[tuple[float | None, ...], ...]  # [entrant][seat]
    next_games: tuple[tuple[int, ...], ...]  # [a][b]: games with b directly after a
    after_avg_rank: tuple[tuple[float | None, ...], ...]  # [a][b]: a's average rank when b sits directly before a
    balance: NeighbourBalance

    def to_json(self) -> dict[str, JSON]:
        return {
            "seats": self.seats,
            "seat_games": list(self.seat_games),
            "seat_avg_rank": list(self.seat_avg_rank),
            "entrant_seat_avg_rank": [list(r) for r in self.entrant_seat_avg_rank],
            "next_games": [list(r) for r in self.next_games],
            "avg_rank_when_after": [list(r) for r in self.after_avg_rank],
            "neighbour_balance": self.balance.to_json(),
        }


def _avg(total: float, count: int) -> float | None:
    return total / count if count else None


def seat_report(games: Sequence[GameLike], entrants: int) -> SeatReport:
    k = max((len(g.seats) for g in games), default=0)
    seat_sum, seat_n = [0.0] * k, [0] * k
    es_sum = [[0.0] * k for _ in range(entrants)]
    es_n = [[0] * k for _ in range(entrants)]
    after_sum = [[0.0] * entrants for _ in range(entrants)]
    after_n = [[0] * entrants for _ in range(entrants)]
    for g in games:
        m = len(g.seats)
        for s, (e, r) in enumerate(zip(g.seats, g.ranks)):
            seat_sum[s] += r
            seat_n[s] += 1
            es_sum[e][s] += r
            es_n[e][s] += 1
            prev = g.seats[(s - 1) % m]
            after_sum[e][prev] += r
            after_n[e][prev] += 1
    counts = next_counts((g.seats for g in games), entrants)
    return SeatReport(
        seats=k,
        seat_games=tuple(seat_n),
        seat_avg_rank=tuple(_avg(t, n) for t, n in zip(seat_sum, seat_n)),
        entrant_seat_avg_rank=tuple(tuple(_avg(t, n) for t, n in zip(ts, ns)) for ts, ns in zip(es_sum, es_n)),
        next_games=tuple(tuple(r) for r in counts),
        after_avg_rank=tuple(
            tuple(_avg(after_sum[a][b], after_n[a][b]) if a != b else None for b in range(entrants)) for a in range(entrants)
        ),
        balance=balance(counts),
    )
