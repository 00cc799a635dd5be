"""What is computed from the stored games: their columns as compact arrays, and a cache of analyses
(the store keeps it; what it holds is arena.stats's business) keyed by the store's content.

The key is the store's content version: a counter that triggers in the store bump on every insert,
delete or update of the games table, whoever writes it (a run adding games, `supersede` setting games
aside when a bot changes, `reindex` renumbering them, any program with SQLite). Reading it is one row,
whatever the store's size. A store written before the counter existed and not opened for a run since
(which adds it) has none: its key is then a digest of the games table (the count, the last index, sums
of the indices, finish times and seeds weighted by the index, so a renumbering shows), one pass over
three columns (about 30 ms at 100,000 games). `reindex` also clears the cache when it renumbers.
"""

from __future__ import annotations

import sqlite3
from typing import Iterator

from arena.jsonvalue import JSON, dumps_str, loads
from arena.results.store import Store

_END = 2**62
_ROWS = 65_536  # rows decoded per step: bounded memory whatever the store's size

CACHE_TABLE = "CREATE TABLE IF NOT EXISTS analysis_cache (name TEXT PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)"


def content_key(store: Store) -> str:
    """Changes whenever a game is added, removed, replaced or renumbered."""
    try:
        version = store.conn.execute("SELECT n FROM content_version WHERE id = 1").fetchone()
    except sqlite3.OperationalError:  # a store from before the counter
        version = None
    if version is not None:
        return dumps_str(["version", version[0]])
    row = store.conn.execute(
        "SELECT COUNT(*), MAX(idx), TOTAL(idx), TOTAL(finished_at), TOTAL(finished_at * (idx + 1)),"
        " TOTAL((seed % 1000003) * (idx + 1)) FROM games"
    ).fetchone()
    return dumps_str([row[0], row[1], *(repr(v) for v in row[2:])])


def cached(store: Store, name: str, key: str) -> JSON | None:
    """The analysis `name` kept under `key`, or None (none kept, or kept for other games or settings)."""
    try:
        row = store.conn.execute("SELECT key, value FROM analysis_cache WHERE name = ?", (name,)).fetchone()
    except sqlite3.OperationalError:  # a store from before the cache
        return None
    return loads(row[1]) if row is not None and row[0] == key else None


def keep(store: Store, name: str, key: str, value: JSON) -> None:
    """Keep an analysis under `key`; a store that cannot be written is still read (only a cache)."""
    try:
        store.conn.execute(CACHE_TABLE)
        store.conn.execute("INSERT OR REPLACE INTO analysis_cache (name, key, value) VALUES (?, ?, ?)", (name, key, dumps_str(value)))
    except sqlite3.Error:
        pass


# (indices, seeds, seats, ranks): seats and ranks as the store's JSON texts, one list per game
DealRows = tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...], tuple[str, ...]]


def deal_rows(store: Store, below: int | None = None) -> Iterator[DealRows]:
    """(indices, seeds, seats, ranks) of the games below index `below`, in schedule order, a bounded
    number of games at a time (`arena.stats.resample.blocks_from_rows` decodes them into arrays)."""
    cur = store.conn.execute(
        "SELECT idx, seed, seats, ranks FROM games WHERE idx < ? ORDER BY idx", (_END if below is None else below,)
    )
    while rows := cur.fetchmany(_ROWS):
        idx, seed, seats, ranks = zip(*rows)
        yield idx, seed, seats, ranks
