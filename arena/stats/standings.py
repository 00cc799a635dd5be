"""The ratings, the leaderboard and the intervals of what a results store holds, from its caches when they fit.

The store keeps the rating book after the longest run of consecutive schedule indices 0..P-1 that are
all stored (no game can ever be added below P, so the cache is never stale): `store_ratings` rates only the
games from P on, normally the few that finished since the last call.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict
from typing import Sequence

from arena.errors import StoreError
from arena.jsonvalue import JSON, dumps_str
from arena.results.derived import cached, content_key, deal_rows, keep
from arena.results.store import Store
from arena.stats.kernel import plain_cost
from arena.stats.ratings import OrderedRatings, RatingBook, RatingModel, Standing, leaderboard
from arena.stats.intervals import RATING_BUDGET, EntrantUncertainty, Interval, Uncertainty


def _cached_book(store: Store, model: RatingModel) -> RatingBook | None:
    cached = store.ratings_cache()
    if cached is None:
        return None
    model_json, book_json = cached
    if model_json != model.to_json() or not isinstance(book_json, dict):
        return None
    return RatingBook.from_json(book_json)


def save_cache(store: Store, book: RatingBook) -> None:
    """Keep a rating book that covers exactly the indices 0..last_index (all stored)."""
    if book.rated != book.last_index + 1:
        raise StoreError("internal error: only a gap-free prefix of the schedule may be cached")
    store.save_ratings_cache(book.last_index + 1, book.model.to_json(), book.to_json())


def store_ratings(store: Store, model: RatingModel = RatingModel(), use_cache: bool = True, below: int | None = None) -> OrderedRatings:
    """Ratings of every stored game (below index `below`) in schedule order, from the cache when it fits."""
    n = len(store.entrant_names())
    book = _cached_book(store, model) if use_cache else None
    if book is not None and below is not None and book.last_index >= below:
        book = None  # the cache holds games the standings do not count
    start = book.last_index + 1 if book is not None else 0
    ordered = OrderedRatings(book if book is not None else RatingBook.new(model, n))
    chunks = store.rated_rows(start, below)
    first = next(chunks, None)
    if first is not None:  # all the games after the cache, rated now: a cold store compiles the chain at once
        ordered.prefix.rater().expect((store.info().stored_games - start) * plain_cost(len(first.game(0).seats)))
        for rows in itertools.chain([first], chunks):
            ordered.add_rows(rows)
    if use_cache and ordered.prefix.last_index + 1 > start:
        save_cache(store, ordered.prefix)
    return ordered


def store_standings(store: Store, model: RatingModel = RatingModel(), use_cache: bool = True) -> list[Standing]:
    """The leaderboard of the games the standings count (`Store.counted_below`)."""
    return leaderboard(store_ratings(store, model, use_cache, store.counted_below()).current(), store.entrant_names())


# --- the intervals, cached in the store ---------------------------------------------------------------

UNCERTAINTY_VERSION = 2  # part of the cache key: bump when the intervals' method changes


def uncertainty_to_json(unc: Uncertainty) -> dict[str, JSON]:
    return asdict(unc)


def uncertainty_from_json(data: dict[str, JSON]) -> Uncertainty:
    def interval(v: JSON) -> Interval | None:
        return None if v is None else Interval(float(v["estimate"]), float(v["low"]), float(v["high"]))

    entrants = tuple(
        EntrantUncertainty(int(e["entrant"]), interval(e["avg_rank"]), interval(e["rating"]),
                           None if e["p_ahead"] is None else float(e["p_ahead"]), e["next"], str(e["why"]))
        for e in data["entrants"]
    )
    return Uncertainty(float(data["confidence"]), int(data["resamples"]), int(data["rating_resamples"]), int(data["seed"]),
                       int(data["blocks"]), entrants, str(data["note"]), tuple(int(e) for e in data["order"]))


def _finite(value: JSON) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def store_uncertainty(
    store: Store,
    standings: Sequence[Standing],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    rating_resamples: int = 100,
    seed: int = 0,
    model: RatingModel = RatingModel(),
) -> Uncertainty:
    """`uncertainty.estimate` of the games the standings count, kept in the store under a key of its
    content and these settings: a second call with nothing new reads it back (the same numbers, to the
    bit: floats round-trip through JSON exactly); any game added, removed or renumbered recomputes."""
    names = store.entrant_names()
    index = {n: i for i, n in enumerate(names)}
    order = [index[s.name] for s in standings]
    below = store.counted_below()
    key = dumps_str([UNCERTAINTY_VERSION, content_key(store), below, len(names), order, confidence, resamples,
                     rating_resamples, RATING_BUDGET, seed, model.to_json()])
    hit = cached(store, "uncertainty", key)
    if isinstance(hit, dict):
        try:
            return uncertainty_from_json(hit)
        except (KeyError, TypeError, ValueError):
            pass  # a cache of another shape: recompute
    from arena.stats.resample import blocks_from_rows  # numpy: only when the intervals are computed
    from arena.stats.uncertainty import estimate_blocks

    blocks = blocks_from_rows(deal_rows(store, below), len(names))
    unc = estimate_blocks(blocks, order, confidence=confidence, resamples=resamples, rating_resamples=rating_resamples,
                          seed=seed, model=model)
    data = uncertainty_to_json(unc)
    if _finite(data):
        keep(store, "uncertainty", key, data)
    return unc
