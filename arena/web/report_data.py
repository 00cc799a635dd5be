"""The numbers of the tournament report, computed from stored games: pure, no I/O.

Head-to-head: for every pair of entrants, in every game where both played, who finished ahead (a lower
rank, after the fault policy; an entrant on several seats counts with its best seat). By seat: how each
seat position did (games, wins shared 1/k, average rank and points), overall and per entrant: the
question is whether the first seat has an advantage. Rating history: each entrant's mu and mu - 3 sigma
after each game, in schedule order (the ratings the standings use).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from arena.jsonvalue import JSON
from arena.stats.ratings import RatedGame, RatingBook, RatingModel
from arena.results.store import StoredGame

HISTORY_POINTS = 500  # samples per entrant in the rating plot: enough for the eye, small for 100,000 games


@dataclass
class HeadToHead:
    """`ahead[i][j]`: games in which i finished ahead of j; `met[i][j]`: games in which both played."""

    ahead: list[list[int]]
    met: list[list[int]]

    def to_json(self) -> dict[str, JSON]:
        return {"ahead": self.ahead, "met": self.met}


def head_to_head(games: Iterable[StoredGame], entrants: int) -> HeadToHead:
    ahead = [[0] * entrants for _ in range(entrants)]
    met = [[0] * entrants for _ in range(entrants)]
    for g in games:
        best: dict[int, int] = {}
        for seat, e in enumerate(g.seats):
            best[e] = min(best.get(e, g.ranks[seat]), g.ranks[seat])
        for i, ri in best.items():
            for j, rj in best.items():
                if i == j:
                    continue
                met[i][j] += 1
                if ri < rj:
                    ahead[i][j] += 1
    return HeadToHead(ahead, met)


@dataclass
class SeatLine:
    """How one seat position did, overall or for one entrant."""

    games: int = 0
    wins: float = 0.0  # a win shared by k seats counts 1/k
    rank_sum: float = 0.0
    points_sum: float = 0.0

    def add(self, rank: int, winners: int, points: float) -> None:
        self.games += 1
        self.rank_sum += rank
        self.points_sum += points
        if rank == 1:
            self.wins += 1.0 / winners

    def to_json(self) -> dict[str, JSON]:
        g = self.games
        return {
            "games": g,
            "wins": self.wins,
            "win_rate": self.wins / g if g else None,
            "avg_rank": self.rank_sum / g if g else None,
            "avg_points": self.points_sum / g if g else None,
        }


@dataclass
class BySeat:
    overall: list[SeatLine] = field(default_factory=list)  # per seat position
    per_entrant: list[list[SeatLine]] = field(default_factory=list)  # [entrant][seat]
    players: set[int] = field(default_factory=set)  # table sizes seen

    def to_json(self) -> dict[str, JSON]:
        return {
            "overall": [s.to_json() for s in self.overall],
            "per_entrant": [[s.to_json() for s in row] for row in self.per_entrant],
            "players": sorted(self.players),
        }


def by_seat(games: Iterable[StoredGame], entrants: int) -> BySeat:
    out = BySeat(per_entrant=[[] for _ in range(entrants)])
    for g in games:
        n = len(g.seats)
        out.players.add(n)
        while len(out.overall) < n:
            out.overall.append(SeatLine())
        for row in out.per_entrant:
            while len(row) < n:
                row.append(SeatLine())
        winners = sum(1 for r in g.ranks if r == 1)
        for seat, e in enumerate(g.seats):
            out.overall[seat].add(g.ranks[seat], winners, g.played.points[seat])
            out.per_entrant[e][seat].add(g.ranks[seat], winners, g.played.points[seat])
    return out


@dataclass(frozen=True)
class RatingHistory:
    """`games[k]` is the schedule index after which `mu[e][k]` and `sigma[e][k]` hold."""

    games: list[int]
    mu: list[list[float]]
    sigma: list[list[float]]


def rating_history(
    games: Sequence[RatedGame], entrants: int, model: RatingModel = RatingModel(), points: int = HISTORY_POINTS
) -> RatingHistory:
    """Ratings after every game, sampled at no more than `points` places (the last game always)."""
    book = RatingBook.new(model, entrants)
    every = max(1, -(-len(games) // points))
    xs: list[int] = []
    mu: list[list[float]] = [[model.mu] for _ in range(entrants)]
    sigma: list[list[float]] = [[model.sigma] for _ in range(entrants)]
    xs.append(-1)
    for k, g in enumerate(games):
        book.apply(g)
        if (k + 1) % every == 0 or k == len(games) - 1:
            xs.append(g.index)
            for e, st in enumerate(book.entrants):
                mu[e].append(round(st.mu, 4))
                sigma[e].append(round(st.sigma, 4))
    return RatingHistory(xs, mu, sigma)


def game_faults(games: Iterable[StoredGame], names: Sequence[str]) -> list[dict[str, JSON]]:
    """Every fault of every game, with the game and the entrant it is charged to (raw: sanitised later)."""
    out: list[dict[str, JSON]] = []
    for g in games:
        for f in g.played.faults:
            entrant = g.seats[f.seat] if 0 <= f.seat < len(g.seats) else None
            out.append(
                {
                    "game": g.index,
                    "game_id": g.game_id,
                    "entrant": names[entrant] if entrant is not None else "",
                    "seat": f.seat,
                    "kind": f.kind.value,
                    "step": f.step,
                    "detail": f.detail,
                    "stderr_tail": list(f.stderr_tail),
                }
            )
    return out
