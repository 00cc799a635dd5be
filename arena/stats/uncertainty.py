"""How sure are the standings: bootstrap intervals over deal blocks. Pure: no I/O, seeded.

The unit of resampling is a *deal block*: every game of one (round, table), i.e. one deal played under
all its seatings. Resampling whole blocks keeps what duplicate play balances (each entrant met those
cards in every seat) inside every resample. Blocks are resampled within their table (a stratified
bootstrap), so every resample keeps the schedule's balance of who meets whom.

For every entrant: a percentile interval of its average rank (every resample, vectorised with numpy)
and of its TrueSkill mu, re-rated from scratch in schedule order on each of `rating_resamples`
resamples (exact, the same ratings as the standings; re-rating costs about as much as rating the store
once per resample, so it gets its own, smaller, number of resamples); and the probability that it is
really ahead of a given next entrant: the share of resamples in which its average rank is better.

Few deals make a percentile bootstrap too narrow (its variance is smaller by (m - 1) / m for m deals per
table, and it uses normal rather than Student quantiles), so each interval is widened about the
estimate by sqrt(m / (m - 1)) * t(m - 1) / z: 8% at 20 rounds, 1% at 200. The simulation in
tests/tournament/test_uncertainty.py checks the coverage that results.

Reproducible: the resamples depend only on the games, the seed and the options (numpy's PCG64 stream
for a given seed is fixed by NEP 19; `Generator.integers` has been stable across numpy releases).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Protocol, Sequence

import numpy as np
import numpy.typing as npt

from arena.jsonvalue import JSON
from arena.stats import tdist
from arena.stats.ratings import RatedGame, RatingBook, RatingModel

Matrix = npt.NDArray[np.float64]
RATING_BUDGET = 200_000  # rated games per estimate for the rating intervals (about 8 s on one core)


class GameLike(Protocol):
    """What the bootstrap needs of a stored game (arena.results.store.StoredGame has it)."""

    @property
    def index(self) -> int: ...

    @property
    def round(self) -> int: ...

    @property
    def table(self) -> int: ...

    @property
    def seats(self) -> tuple[int, ...]: ...

    @property
    def ranks(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class Blocks:
    """The games grouped into deal blocks, with per-block rank sums and seat counts per entrant."""

    entrants: int
    keys: tuple[tuple[int, int], ...]  # (round, table) of each block, in schedule order
    strata: tuple[int, ...]  # the table of each block: blocks are resampled within their table
    rank_sum: Matrix  # blocks x entrants
    seat_count: Matrix  # blocks x entrants
    games: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]  # per block: (seats, ranks)

    @property
    def size(self) -> int:
        return len(self.keys)


def deal_blocks(games: Sequence[GameLike], entrants: int) -> Blocks:
    """Group games by (round, table), each block's games in schedule order."""
    grouped: dict[tuple[int, int], list[GameLike]] = {}
    for g in sorted(games, key=lambda g: g.index):
        grouped.setdefault((g.round, g.table), []).append(g)
    keys = tuple(sorted(grouped))
    rank_sum = np.zeros((len(keys), entrants))
    seat_count = np.zeros((len(keys), entrants))
    block_games = []
    for b, key in enumerate(keys):
        for g in grouped[key]:
            for e, r in zip(g.seats, g.ranks):
                rank_sum[b, e] += r
                seat_count[b, e] += 1
        block_games.append(tuple((tuple(g.seats), tuple(g.ranks)) for g in grouped[key]))
    return Blocks(entrants, keys, tuple(k[1] for k in keys), rank_sum, seat_count, tuple(block_games))


def resample_counts(blocks: Blocks, resamples: int, seed: int) -> npt.NDArray[np.int64]:
    """resamples x blocks: how often each block is drawn, drawing as many blocks as each table has."""
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = np.zeros((resamples, blocks.size), dtype=np.int64)
    strata = np.asarray(blocks.strata)
    rows = np.arange(resamples)[:, None]
    for table in sorted(set(blocks.strata)):
        members = np.flatnonzero(strata == table)
        draws = members[rng.integers(0, len(members), size=(resamples, len(members)))]
        np.add.at(counts, (np.broadcast_to(rows, draws.shape), draws), 1)
    return counts


def average_ranks(blocks: Blocks, counts: npt.NDArray[np.int64]) -> Matrix:
    """resamples x entrants: average rank per seat played in each resample (nan: never seated)."""
    w = counts.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: Matrix = (w @ blocks.rank_sum) / (w @ blocks.seat_count)
    return out


def rerated_mu(blocks: Blocks, counts: npt.NDArray[np.int64], model: RatingModel) -> Matrix:
    """resamples x entrants: TrueSkill mu after rating each resample's games in schedule order."""
    out = np.zeros((counts.shape[0], blocks.entrants))
    for i, row in enumerate(counts):
        book = RatingBook.new(model, blocks.entrants)
        index = 0
        for b in np.flatnonzero(row):
            for _ in range(int(row[b])):
                for seats, ranks in blocks.games[b]:
                    book.apply(RatedGame(index, seats, ranks, (0.0,) * len(seats), (0,) * len(seats)))
                    index += 1
        out[i] = [st.mu for st in book.entrants]
    return out


def point_mu(blocks: Blocks, model: RatingModel) -> list[float]:
    """mu of every entrant from the games as played (each block once, in schedule order)."""
    return [float(v) for v in rerated_mu(blocks, np.ones((1, blocks.size), dtype=np.int64), model)[0]]


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
    avg_rank: Interval | None  # None: the entrant never played
    rating: Interval | None  # TrueSkill mu; None when rating resamples are off
    p_ahead: float | None = None  # P(its average rank is better than the next entrant's); None for the last


@dataclass(frozen=True)
class Uncertainty:
    confidence: float
    resamples: int
    rating_resamples: int
    seed: int
    blocks: int
    entrants: tuple[EntrantUncertainty, ...]  # by entrant index
    note: str = ""  # why there are no intervals, if there are none


def _percentiles(samples: Matrix, confidence: float) -> tuple[Matrix, Matrix]:
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    with np.errstate(invalid="ignore"):
        return np.nanquantile(samples, lo_q, axis=0), np.nanquantile(samples, hi_q, axis=0)


def small_sample_factor(units: int, confidence: float) -> float:
    """How much to widen a percentile interval drawn from `units` blocks per table (see the module doc)."""
    if units < 2:
        return 1.0
    q = (1 + confidence) / 2
    return math.sqrt(units / (units - 1)) * tdist.quantile(q, units - 1) / NormalDist().inv_cdf(q)


def _interval(point: float, low: float, high: float, factor: float) -> Interval:
    return Interval(point, point - factor * (point - low), point + factor * (high - point))


def p_ahead(ranks: Matrix, a: int, b: int) -> float:
    """Share of resamples in which `a` has the better (lower) average rank than `b`; ties count half."""
    x, y = ranks[:, a], ranks[:, b]
    ok = ~(np.isnan(x) | np.isnan(y))
    if not ok.any():
        return 0.5
    return float(np.mean((x[ok] < y[ok]) + 0.5 * (x[ok] == y[ok])))


def estimate(
    games: Sequence[GameLike],
    entrants: int,
    order: Sequence[int] | None = None,
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    rating_resamples: int = 100,
    rating_budget: int = RATING_BUDGET,
    seed: int = 0,
    model: RatingModel = RatingModel(),
) -> Uncertainty:
    """Intervals for every entrant; `order` (best first, e.g. the standings) says who is "next".

    Re-rating is capped at `rating_budget` rated games in all (about 40 us each): a big store gets fewer
    rating resamples, none if fewer than 20 would fit (the note says so); the result says how many.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    if resamples < 1 or rating_resamples < 0:
        raise ValueError("resamples must be at least 1 and rating resamples at least 0")
    blocks = deal_blocks(games, entrants)
    played = blocks.seat_count.sum(axis=0)
    per_table: dict[int, int] = {}
    for t in blocks.strata:
        per_table[t] = per_table.get(t, 0) + 1
    if min(per_table.values(), default=0) < 2:
        empty = tuple(EntrantUncertainty(e, None, None) for e in range(entrants))
        note = "no intervals yet: they need every table played with at least 2 deals (2 rounds)"
        return Uncertainty(confidence, resamples, rating_resamples, seed, blocks.size, empty, note)
    rating_note = ""
    if rating_resamples:
        rating_resamples = min(rating_resamples, rating_budget // max(1, len(games)))
        if rating_resamples < 20:
            rating_resamples = 0
            rating_note = f"no mu intervals: re-rating {len(games)} games 20 times would take over {rating_budget} ratings"
    counts = resample_counts(blocks, max(resamples, rating_resamples), seed)
    ranks = average_ranks(blocks, counts[:resamples])
    r_lo, r_hi = _percentiles(ranks, confidence)
    r_point = blocks.rank_sum.sum(axis=0) / np.where(played > 0, played, 1)
    mu_lo = mu_hi = None
    mu_point: list[float] = []
    if rating_resamples:
        mus = rerated_mu(blocks, counts[:rating_resamples], model)
        mu_lo, mu_hi = _percentiles(mus, confidence)
        mu_point = point_mu(blocks, model)
    factor = small_sample_factor(min(per_table.values()), confidence)
    nxt: dict[int, int] = {}
    if order is not None:
        nxt = {a: b for a, b in zip(order, list(order)[1:])}
    out = []
    for e in range(entrants):
        if not played[e]:
            out.append(EntrantUncertainty(e, None, None))
            continue
        rank_iv = _interval(float(r_point[e]), float(r_lo[e]), float(r_hi[e]), factor)
        mu_iv = _interval(mu_point[e], float(mu_lo[e]), float(mu_hi[e]), factor) if mu_lo is not None and mu_hi is not None else None
        pa = p_ahead(ranks, e, nxt[e]) if e in nxt else None
        out.append(EntrantUncertainty(e, rank_iv, mu_iv, pa))
    return Uncertainty(confidence, resamples, rating_resamples, seed, blocks.size, tuple(out), rating_note)
