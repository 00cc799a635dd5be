"""How sure are the standings: bootstrap intervals over deal blocks. Pure: no I/O, seeded.

The unit of resampling is a *deal block*: every game of one deal (its seed): the games of different
entrants at different tables that held its cards (`deals: spread`, the default), or one table under all
its seatings (`deals: shared`). A deal is identified by what it is, not by where the schedule put it
(its seed derives from the names of who plays it), so a store grown by a new entrant keeps its old deals
apart from the new ones. Resampling whole blocks keeps what duplicate play balances (the entrants that
held the same cards, compared with each other) inside every resample. Blocks are resampled within their
tables, i.e. the sets of entrants they were played at, which every round of the schedule plays again
(a stratified bootstrap), so every resample keeps the schedule's balance of who meets whom.

For every entrant: a percentile interval of its average rank (every resample, vectorised with numpy)
and of its TrueSkill mu, re-rated from scratch in schedule order on each of `rating_resamples`
resamples (exact, the same ratings as the standings; re-rating costs about as much as rating the store
once per resample, so it gets its own, smaller, number of resamples).

Few deals make a percentile bootstrap too narrow: its variance is smaller by df / n for an entrant in
n deal blocks at T tables (df = n - T), and it uses normal rather than Student quantiles. So each
entrant's interval is widened about its estimate by sqrt(n / df) * t(df) / z, from its own deals (a
late joiner's few deals widen its interval, not everyone's), then clipped to the ranks a seat can
have (1..seats). An entrant with df < MIN_DF gets no interval, and says so: with so few deals the
widened interval would span every rank.

P(ahead of next): "next" is the next entrant by average rank, the quantity the intervals are about;
the probability that its true average rank is better is Student's t distribution function at
d / se, where d is the pair's difference in average rank and se the bootstrap standard deviation of
that difference widened by sqrt(n / df) as above (n, df: the deal blocks either entrant played), shrunk
towards 0 by the field's spread (empirical Bayes: d / se times sqrt(2 tau^2 / (2 tau^2 + se^2)), tau^2
the variance of the true average ranks across entrants, `field_spread`). Without the shrinkage a field
of near-ties is overconfident: its neighbours are neighbours by chance (BENCHMARKS.md, "Numbers users
can trust": stated 0.664 on average where 0.575 were truly ahead; shrunk, 0.573 against 0.575). In a
spread-out field it stays conservative (every other model there states less than the share truly ahead).

Reproducible: the resamples depend only on the games, the seed and the options (numpy's PCG64 stream
for a given seed is fixed by NEP 19; `Generator.integers` has been stable across numpy releases).
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist
from typing import Sequence

import numpy as np
import numpy.typing as npt

from arena.jsonvalue import JSON
from arena.stats import tdist
from arena.stats.kernel import plain_cost
from arena.stats.ratings import RatedGame, RatingBook, RatingModel
from arena.stats.intervals import RATING_BUDGET, DealGame, EntrantUncertainty, GameLike, Interval, Uncertainty, deal_of
from arena.stats.resample import Blocks, bootstrap, deal_blocks, resample_counts

__all__ = ["RATING_BUDGET", "Blocks", "DealGame", "EntrantUncertainty", "GameLike", "Interval", "Uncertainty", "deal_blocks", "deal_of",
           "estimate", "estimate_blocks", "resample_counts"]

Matrix = npt.NDArray[np.float64]


def rerated_mu(blocks: Blocks, counts: npt.NDArray[np.int64], model: RatingModel) -> Matrix:
    """resamples x entrants: TrueSkill mu after rating each resample's games in schedule order."""
    out = np.zeros((counts.shape[0], blocks.entrants))
    rater = RatingBook.new(model, 0).rater()  # one for every resample: it compiles the chain once if worth it
    block_work = np.asarray([sum(plain_cost(len(seats)) for seats, _ in block) for block in blocks.games])
    rater.expect(float((counts @ block_work).sum()) if len(block_work) else 0.0)
    for i, row in enumerate(counts):
        book = RatingBook.new(model, blocks.entrants, rater)
        index = 0
        for b in range(len(row)):  # in schedule order: the order of the blocks
            for _ in range(int(row[b])):
                for seats, ranks in blocks.games[b]:
                    book.apply(RatedGame(index, seats, ranks, (0.0,) * len(seats), (0,) * len(seats)))
                    index += 1
        out[i] = [st.mu for st in book.entrants]
    return out


def point_mu(blocks: Blocks, model: RatingModel) -> list[float]:
    """mu of every entrant from the games as played (each block once, in schedule order)."""
    return [float(v) for v in rerated_mu(blocks, np.ones((1, blocks.size), dtype=np.int64), model)[0]]


MIN_DF = 3  # deal blocks minus tables an entrant needs for an interval (e.g. 4 deals at one table)


def _percentiles(samples: Matrix, confidence: float) -> tuple[Matrix, Matrix]:
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    with warnings.catch_warnings():  # an entrant absent from every resample: nan, reported as no interval
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(samples, lo_q, axis=0), np.nanquantile(samples, hi_q, axis=0)


def small_sample_factor(units: int, confidence: float, df: int | None = None) -> float:
    """How much to widen a percentile interval drawn from `units` deal blocks with `df` degrees of
    freedom (units minus tables; default units - 1, one table): sqrt(units / df) * t(df) / z."""
    df = units - 1 if df is None else df
    if df < 1:
        return math.inf
    q = (1 + confidence) / 2
    return math.sqrt(units / df) * tdist.quantile(q, df) / NormalDist().inv_cdf(q)


def _interval(point: float, low: float, high: float, factor: float, bounds: tuple[float, float] | None = None) -> Interval:
    lo, hi = point - factor * (point - low), point + factor * (high - point)
    if bounds is not None:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return Interval(point, lo, hi)


def _units(blocks: Blocks, members: npt.NDArray[np.bool_]) -> tuple[int, int]:
    """(deal blocks, degrees of freedom = blocks - tables) among the blocks flagged in `members`."""
    n = int(members.sum())
    tables = len(np.unique(blocks.strata[members]))
    return n, n - tables


def field_spread(ranks: Matrix, point: Matrix, factors: Matrix) -> float:
    """tau^2: how far apart the entrants' true average ranks lie (their variance across entrants), from
    the spread of the average ranks as played less the part chance explains (the bootstrap's spread,
    widened as the intervals are). 0 when chance explains all of it: a field of near-ties."""
    ok = ~np.isnan(point)
    k = int(ok.sum())
    if k < 2:
        return 0.0
    x = point[ok]
    observed = float(np.sum((x - x.mean()) ** 2))
    dev = (ranks[:, ok] - x) * factors[ok]
    good = ~np.isnan(dev).any(axis=1)
    if not good.any():
        return 0.0
    dev = dev[good]
    chance = float(np.mean(np.sum((dev - dev.mean(axis=1, keepdims=True)) ** 2, axis=1)))
    return max(0.0, observed - chance) / (k - 1)


def p_ahead(ranks: Matrix, a: int, b: int, point: tuple[float, float] | None = None, units: tuple[int, int] | None = None,
            spread: float | None = None) -> float:
    """P(a's true average rank is better than b's). With `point` (a's and b's average ranks as played)
    and `units` (deal blocks and degrees of freedom of the pair): Student's t at d / se, se the
    bootstrap spread of the difference widened by sqrt(n / df). Without: the share of resamples in
    which a is better (ties count half), which is overconfident with few deals."""
    x, y = ranks[:, a], ranks[:, b]
    ok = ~(np.isnan(x) | np.isnan(y))
    if not ok.any():
        return 0.5
    if point is None or units is None:
        return float(np.mean((x[ok] < y[ok]) + 0.5 * (x[ok] == y[ok])))
    n, df = units
    d = point[1] - point[0]
    se = float(np.std(y[ok] - x[ok], ddof=1)) * math.sqrt(n / df) if ok.sum() > 1 else 0.0
    if se <= 1e-12:
        # no spread in any resample: as sure as df sign flips allow (see the stop rule), no surer
        return 0.5 if d == 0 else (1 - 0.5**df if d > 0 else 0.5**df)
    t = d / se
    if spread is not None:  # shrunk towards "no difference" as far as the field's spread says (see above)
        t *= math.sqrt(2 * spread / (2 * spread + se * se))
    tail = tdist.two_sided_p(t, df) / 2
    return 1 - tail if t >= 0 else tail


def estimate(
    games: Sequence[DealGame],
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
    """Intervals for every entrant; `order` (best first, e.g. the standings) breaks ties of average rank
    when finding who is "next".

    Re-rating is capped at `rating_budget` rated games in all (about 40 us each): a big store gets fewer
    rating resamples, none if fewer than 20 would fit (the note says so); the result says how many.
    """
    return estimate_blocks(deal_blocks(games, entrants), order, confidence=confidence, resamples=resamples,
                           rating_resamples=rating_resamples, rating_budget=rating_budget, seed=seed, model=model)


def estimate_blocks(
    blocks: Blocks,
    order: Sequence[int] | None = None,
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    rating_resamples: int = 100,
    rating_budget: int = RATING_BUDGET,
    seed: int = 0,
    model: RatingModel = RatingModel(),
) -> Uncertainty:
    """`estimate` of games already grouped into deal blocks (`resample.blocks_from_arrays`)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    if resamples < 1 or rating_resamples < 0:
        raise ValueError("resamples must be at least 1 and rating resamples at least 0")
    entrants = blocks.entrants
    games = blocks.games_count
    played = blocks.seat_count.sum(axis=0)
    present = blocks.seat_count > 0  # blocks x entrants
    units = [_units(blocks, present[:, e]) for e in range(entrants)]
    if all(df < MIN_DF for _, df in units):
        empty = tuple(EntrantUncertainty(e, None, None) for e in range(entrants))
        note = f"no intervals yet: an entrant needs {MIN_DF + 1} deals at a table (or {MIN_DF} more deals than tables) for one"
        return Uncertainty(confidence, resamples, rating_resamples, seed, blocks.size, empty, note)
    rating_note = ""
    if rating_resamples:
        rating_resamples = min(rating_resamples, rating_budget // max(1, games))
        if rating_resamples < 20:
            rating_resamples = 0
            rating_note = f"no mu intervals: re-rating {games} games 20 times would take over {rating_budget} ratings"
    rank_sums, seat_sums, counts = bootstrap(blocks, max(resamples, rating_resamples), seed, keep=rating_resamples)
    with np.errstate(invalid="ignore", divide="ignore"):  # nan: never seated in a resample
        ranks: Matrix = rank_sums[:resamples] / seat_sums[:resamples]
    r_lo, r_hi = _percentiles(ranks, confidence)
    r_point = blocks.rank_sum.sum(axis=0) / np.where(played > 0, played, 1)
    mu_lo = mu_hi = None
    mu_point: list[float] = []
    if rating_resamples:
        mus = rerated_mu(blocks, counts[:rating_resamples], model)
        mu_lo, mu_hi = _percentiles(mus, confidence)
        mu_point = point_mu(blocks, model)
    seats = blocks.max_seats
    tiebreak = {e: i for i, e in enumerate(order)} if order is not None else {}
    by_rank = sorted((e for e in range(entrants) if played[e]), key=lambda e: (float(r_point[e]), tiebreak.get(e, e), e))
    nxt = dict(zip(by_rank, by_rank[1:]))
    factors = np.array([small_sample_factor(n, confidence, df) if df >= MIN_DF else np.nan for n, df in units])
    spread = field_spread(ranks, np.where((played > 0) & ~np.isnan(factors), r_point, np.nan), factors)
    out = []
    for e in range(entrants):
        n, df = units[e]
        if not played[e]:
            out.append(EntrantUncertainty(e, None, None, why="never played"))
            continue
        if df < MIN_DF:
            why = f"too few deals for an interval ({n} deal(s) at {n - df} table(s); needs {MIN_DF} more deals than tables)"
            out.append(EntrantUncertainty(e, None, None, why=why))
            continue
        factor = float(factors[e])
        rank_iv = _interval(float(r_point[e]), float(r_lo[e]), float(r_hi[e]), factor, (1.0, float(seats)))
        mu_iv = _interval(mu_point[e], float(mu_lo[e]), float(mu_hi[e]), factor) if mu_lo is not None and mu_hi is not None else None
        pa: float | None = None
        b = nxt.get(e)
        if b is not None:
            pair_units = _units(blocks, present[:, e] | present[:, b])
            if units[b][1] >= MIN_DF:
                pa = p_ahead(ranks, e, b, (float(r_point[e]), float(r_point[b])), pair_units, spread)
        out.append(EntrantUncertainty(e, rank_iv, mu_iv, pa, b))
    return Uncertainty(confidence, resamples, rating_resamples, seed, blocks.size, tuple(out), rating_note, tuple(by_rank))
