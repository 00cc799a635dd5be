"""The ratings and the leaderboard of what a results store holds, from its ratings cache when it fits.

The store keeps the rating book after the longest run of consecutive schedule indices 0..P-1 that are
all stored (no game can ever be added below P, so the cache is never stale): `store_ratings` rates only the
games from P on, normally the few that finished since the last call.
"""

from __future__ import annotations

from arena.errors import StoreError
from arena.results.store import Store
from arena.stats.ratings import OrderedRatings, RatingBook, RatingModel, Standing, leaderboard


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
    ordered.add_all(store.rated_games(start, below))
    if use_cache and ordered.prefix.last_index + 1 > start:
        save_cache(store, ordered.prefix)
    return ordered


def store_standings(store: Store, model: RatingModel = RatingModel(), use_cache: bool = True) -> list[Standing]:
    """The leaderboard of the games the standings count (`Store.counted_below`)."""
    return leaderboard(store_ratings(store, model, use_cache, store.counted_below()).current(), store.entrant_names())
