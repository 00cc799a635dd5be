"""Ratings of a tournament's games, rated one by one in schedule order, and the leaderboard.

Pure: no I/O. The store feeds games in schedule order, so a rating never depends on how many games ran at
once or on the order they finished in. The TrueSkill update of one game is `arena.stats.kernel`;
this module keeps the running totals (`RatingBook`), the order (`OrderedRatings`) and the leaderboard.
Where a game's upset is beyond double precision, it still counts in the totals but leaves the ratings
as they were (`RatingBook.unrated`).

Why tau defaults to 0: bots do not learn during a tournament, so there is no skill drift to model, and
with tau = 0 a game can never make anyone's sigma grow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from arena.jsonvalue import JSON
from arena.results.stored import RatedGame, RatedRows
from arena.stats import kernel
from arena.stats.kernel import FastRater, RatingModel, RatingOverflow

__all__ = [
    "EntrantStats",
    "FastRater",
    "OrderedRatings",
    "RatedGame",
    "RatingBook",
    "RatingModel",
    "RatingOverflow",
    "Standing",
    "leaderboard",
]


# EntrantStats' fields in the order of `runs.run_{n}`'s totals; the counts among them
_FIELDS = ("mu", "sigma", "games", "seats", "wins", "points", "rank_sum", "faults")
_INTS = ("games", "seats", "faults")


def _run_arrays(rows: RatedRows, after: int, entrants: int) -> tuple[Any, ...] | None:
    """(seats, ranks, points, faults) of rows a compiled run can take, as arrays: None unless every game
    has as many seats, every index is above `after` and increasing, every seat a different entrant."""
    import numpy as np

    from arena.stats.columns import number_matrix

    seats_t, ranks_t, points_t, faults_t = rows.columns
    decoded = (number_matrix(seats_t, np.int64), number_matrix(ranks_t, np.int64), number_matrix(points_t, np.float64),
               number_matrix(faults_t, np.int64))
    shapes = {None if a is None else a.shape for a in decoded}
    if len(shapes) != 1 or None in shapes:
        return None
    arrays = tuple(decoded)
    seats = decoded[0]
    assert seats is not None
    idx = np.array(rows.indices, dtype=np.int64)
    if idx[0] <= after or not (np.diff(idx) > 0).all() or seats.min() < 0 or seats.max() >= entrants:
        return None
    ordered = np.sort(seats, axis=1)
    if (ordered[:, 1:] == ordered[:, :-1]).any():  # an entrant in two seats (`fill: cycle`): `apply` rates it
        return None
    return arrays


# --- the standings ------------------------------------------------------------------------------------


@dataclass
class EntrantStats:
    """One entrant's rating and running totals; `wins` counts a win shared by m seats as 1/m."""

    mu: float
    sigma: float
    games: int = 0
    seats: int = 0
    wins: float = 0.0
    points: float = 0.0
    rank_sum: float = 0.0
    faults: int = 0

    def to_json(self) -> list[JSON]:
        return [self.mu, self.sigma, self.games, self.seats, self.wins, self.points, self.rank_sum, self.faults]

    @classmethod
    def from_json(cls, row: Sequence[JSON]) -> "EntrantStats":
        mu, sigma, games, seats, wins, points, rank_sum, faults = row
        return cls(float(mu), float(sigma), int(games), int(seats), float(wins), float(points), float(rank_sum), int(faults))


@dataclass
class RatingBook:
    """Ratings and totals after some games; `apply` must be called in schedule order."""

    model: RatingModel
    entrants: list[EntrantStats]
    rated: int = 0  # games applied
    unrated: int = 0  # games whose upset was beyond double precision: counted in totals, ratings kept
    last_index: int = -1
    _rater: FastRater | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, model: RatingModel, num_entrants: int, rater: FastRater | None = None) -> "RatingBook":
        """A book before any game; books rated in one go (resamples) share one `rater` and its compiling."""
        return cls(model, [EntrantStats(model.mu, model.sigma) for _ in range(num_entrants)], _rater=rater)

    def rater(self) -> FastRater:
        """The book's rater: it compiles the chain past `kernel.COMPILE_FROM` of plain work (the same bits)."""
        if self._rater is None:
            self._rater = FastRater(self.model, compile_from=kernel.COMPILE_FROM)
        return self._rater

    def apply(self, game: RatedGame) -> None:
        if game.index <= self.last_index:
            raise ValueError(f"game {game.index} rated after game {self.last_index}: ratings must follow schedule order")
        self.last_index = game.index
        self.rated += 1
        entrants = self.entrants
        seats, ranks, points, faults = game.seats, game.ranks, game.points, game.faults
        mine = [entrants[e] for e in seats]
        distinct = len(set(seats)) == len(seats)
        winners = ranks.count(1)
        for s, st in enumerate(mine):
            st.seats += 1
            st.points += points[s]
            st.rank_sum += ranks[s]
            st.faults += faults[s]
            if ranks[s] == 1:
                st.wins += 1.0 / winners
            if distinct:
                st.games += 1
        if not distinct:
            for e in set(seats):
                entrants[e].games += 1
        try:
            post = self.rater().rate([(st.mu, st.sigma) for st in mine], ranks)
        except RatingOverflow:
            self.unrated += 1
            return
        if distinct:
            for st, (mu, sigma) in zip(mine, post):
                st.mu, st.sigma = mu, sigma
            return
        # An entrant filling several seats (`fill: cycle`): each seat was rated as a copy of it with
        # the same prior; the entrant takes the mean of its copies' posteriors.
        for e in set(seats):
            copies = [post[s] for s, x in enumerate(seats) if x == e]
            entrants[e].mu = sum(p[0] for p in copies) / len(copies)
            entrants[e].sigma = sum(p[1] for p in copies) / len(copies)

    def apply_all(self, games: Iterable[RatedGame]) -> None:
        for g in games:
            self.apply(g)

    def apply_rows(self, rows: RatedRows) -> None:
        """`apply` of every row in order. Once the rater has compiled its chain (a cold store), the rows run
        through one compiled loop (`kernel.compiled_run`) that leaves only the ratings of ties and of
        upsets beyond double precision to `FastRater.rate` here: the same bits as `apply`."""
        rater = self.rater()
        arrays = _run_arrays(rows, self.last_index, len(self.entrants)) if rater.compiles() and len(rows) else None
        run = rater.compiled_run(arrays[0].shape[1]) if arrays is not None else None
        if run is None or arrays is None:
            self.apply_all(rows.games())
            return
        import numpy as np  # a cold store's rater has loaded numba, and numpy with it

        totals = np.array([[getattr(e, f) for e in self.entrants] for f in _FIELDS], dtype=np.float64)
        mus, sigmas = totals[0], totals[1]
        place = np.zeros(arrays[0].shape[1], dtype=np.int64)
        row, total = 0, len(rows)
        while (row := run(*arrays, row, place, totals)) < total:
            mine = arrays[0][row].tolist()  # a tie or an overflow: counted, its rating left to the rater
            try:
                post = rater.rate([(float(mus[e]), float(sigmas[e])) for e in mine], arrays[1][row].tolist())
            except RatingOverflow:
                self.unrated += 1
            else:
                for e, (mu, sigma) in zip(mine, post):
                    mus[e], sigmas[e] = mu, sigma
            row += 1
        for f, column in zip(_FIELDS, totals.tolist()):
            for st, value in zip(self.entrants, column):
                setattr(st, f, int(value) if f in _INTS else value)
        self.rated += total
        self.last_index = rows.indices[-1]

    def copy(self) -> "RatingBook":
        return RatingBook(
            self.model,
            [EntrantStats(**vars(e)) for e in self.entrants],
            self.rated,
            self.unrated,
            self.last_index,
            self._rater,
        )

    def to_json(self) -> dict[str, JSON]:
        return {
            "model": self.model.to_json(),
            "entrants": [e.to_json() for e in self.entrants],
            "rated": self.rated,
            "unrated": self.unrated,
            "last_index": self.last_index,
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> "RatingBook":
        model = RatingModel(**data["model"])
        return cls(
            model,
            [EntrantStats.from_json(row) for row in data["entrants"]],
            int(data["rated"]),
            int(data["unrated"]),
            int(data["last_index"]),
        )


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard."""

    place: int
    name: str
    score: float  # mu - 3 sigma: the rating we are fairly sure the entrant has at least
    mu: float
    sigma: float
    games: int
    wins: float
    avg_points: float | None
    avg_rank: float | None
    faults: int

    def to_json(self) -> dict[str, JSON]:
        return {
            "place": self.place,
            "name": self.name,
            "score": self.score,
            "mu": self.mu,
            "sigma": self.sigma,
            "games": self.games,
            "wins": self.wins,
            "avg_points": self.avg_points,
            "avg_rank": self.avg_rank,
            "faults": self.faults,
        }


def leaderboard(book: RatingBook, names: Sequence[str]) -> list[Standing]:
    """Entrants by mu - 3 sigma, best first; equal scores share a place, listed by name."""
    rows = []
    for name, st in zip(names, book.entrants):
        rows.append(
            (
                st.mu - 3 * st.sigma,
                name,
                st,
            )
        )
    rows.sort(key=lambda r: (-round(r[0], 9), r[1]))
    out: list[Standing] = []
    for i, (score, name, st) in enumerate(rows):
        place = out[-1].place if out and round(out[-1].score, 9) == round(score, 9) else i + 1
        out.append(
            Standing(
                place=place,
                name=name,
                score=score,
                mu=st.mu,
                sigma=st.sigma,
                games=st.games,
                wins=st.wins,
                avg_points=st.points / st.seats if st.seats else None,
                avg_rank=st.rank_sum / st.seats if st.seats else None,
                faults=st.faults,
            )
        )
    return out


class OrderedRatings:
    """Rates games that arrive in any order as if they came in schedule order.

    `prefix` holds the ratings after every game 0..P-1 with no gap: final, since no game below P can
    still arrive. Games above a gap wait in `pending`; `current()` rates them on a copy, so a
    leaderboard shown mid-run is exactly what the store would give for the same games.
    """

    def __init__(self, prefix: RatingBook) -> None:
        self.prefix = prefix
        self.pending: dict[int, RatedGame] = {}

    def add(self, game: RatedGame) -> None:
        nxt = self.prefix.last_index + 1
        if game.index < nxt or game.index in self.pending:
            raise ValueError(f"game {game.index} was already rated")
        if game.index != nxt:
            self.pending[game.index] = game
            return
        self.prefix.apply(game)
        nxt += 1
        while nxt in self.pending:
            self.prefix.apply(self.pending.pop(nxt))
            nxt += 1

    def add_all(self, games: Iterable[RatedGame]) -> None:
        for g in games:
            self.add(g)

    def add_rows(self, rows: RatedRows) -> None:
        """`add` of every row; the rows that continue the prefix with no gap are applied in one go."""
        head = 0 if self.pending else rows.run_from(self.prefix.last_index + 1)
        if head:
            self.prefix.apply_rows(rows.head(head) if head < len(rows) else rows)
        for i in range(head, len(rows)):
            self.add(rows.game(i))

    def current(self) -> RatingBook:
        if not self.pending:
            return self.prefix
        book = self.prefix.copy()
        book.apply_all(self.pending[i] for i in sorted(self.pending))
        return book
