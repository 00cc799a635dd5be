"""What the results store holds, as records: its schema, one stored game, a summary; and how a write
the file system refused is reported (one line naming the file, not a traceback)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.errors import OutputError
from arena.jsonvalue import JSON
from arena.tournament.ratings import RatedGame

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    idx INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    version TEXT
);
CREATE TABLE IF NOT EXISTS games (
    idx INTEGER PRIMARY KEY,          -- the game's place in the schedule: unique, so never stored twice
    game_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    tbl INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,              -- JSON: entrant index per seat
    points TEXT NOT NULL,             -- JSON, per seat
    tiebreaks TEXT NOT NULL,
    ranks TEXT NOT NULL,              -- after the fault policy: what the ratings use
    game_ranks TEXT NOT NULL,         -- as the rules scored the game
    faults TEXT NOT NULL,             -- JSON list of fault records
    fault_counts TEXT NOT NULL,       -- JSON, per seat
    versions TEXT NOT NULL,           -- JSON: each seat's bot version from its handshake
    decisions INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    replay_path TEXT,
    finished_at REAL NOT NULL,
    key TEXT                          -- the game's identity (rules, seed, seats): reused across configs
);
CREATE TABLE IF NOT EXISTS bot_faults (  -- found when a bot process was closed, outside any game
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    entrant TEXT NOT NULL,
    kind TEXT NOT NULL,               -- no_exit or orphans
    detail TEXT NOT NULL,
    stderr_tail TEXT NOT NULL         -- JSON list of lines
);
CREATE TABLE IF NOT EXISTS ratings_cache (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    prefix INTEGER NOT NULL,          -- every index below this is stored and rated in `book`
    model TEXT NOT NULL,
    book TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoredGame:
    """One finished game as the store keeps it."""

    index: int
    game_id: str
    round: int
    table: int
    rotation: int
    seed: int
    seats: tuple[int, ...]
    points: tuple[float, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]
    game_ranks: tuple[int, ...]
    faults: tuple[dict[str, JSON], ...]
    fault_counts: tuple[int, ...]
    versions: tuple[str, ...]
    decisions: int
    duration_s: float
    replay_path: str | None
    key: str | None = None

    def rated(self) -> RatedGame:
        return RatedGame(self.index, self.seats, self.ranks, self.points, self.fault_counts)


@dataclass(frozen=True)
class StoreInfo:
    name: str
    game: str
    fingerprint: str
    total_games: int
    stored_games: int
    entrants: tuple[str, ...]


# SQLite's result codes for a file system that refuses: permission, read-only, I/O error, full, cannot open.
_OUTSIDE = {3, 8, 10, 13, 14}


def outside_arena(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _OUTSIDE


def write_error(path: Path, exc: sqlite3.Error) -> OutputError:
    """A write that failed for a reason outside arena (full disk, read-only file): one line, the path."""
    text = str(exc)
    hint = "set output.store to a file in a folder arena can write to"
    if "full" in text:
        hint = "free some disk space, then rerun to resume: the games already stored are kept"
    elif "readonly" in text or "read-only" in text:
        hint = "make the file and its folder writable, or set output.store to another file"
    return OutputError(f"cannot write the results store {path}: {text} ({hint})")
