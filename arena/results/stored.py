"""What the results store holds, as records: its schema, one stored game, a summary; and how a write
the file system refused is reported (one line naming the file, not a traceback)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.errors import OutputError
from arena.jsonvalue import JSON, loads

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    idx INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    version TEXT,
    program TEXT                      -- content hash of the bot's files (botfiles.bot_hash) for the games stored now
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
    key TEXT,                         -- the game's identity (rules, seed, seats): reused across configs
    programs TEXT                     -- JSON: each seat's bot content hash when the game was played
);
CREATE TABLE IF NOT EXISTS superseded_games (  -- games of an earlier version of a bot, kept but not counted
    superseded_at REAL NOT NULL,
    changed TEXT NOT NULL,            -- JSON: the entrants whose files changed since
    idx INTEGER, game_id TEXT, round INTEGER, tbl INTEGER, rotation INTEGER, seed INTEGER, seats TEXT,
    points TEXT, tiebreaks TEXT, ranks TEXT, game_ranks TEXT, faults TEXT, fault_counts TEXT, versions TEXT,
    decisions INTEGER, duration_s REAL, replay_path TEXT, finished_at REAL, key TEXT, programs TEXT
);
CREATE TABLE IF NOT EXISTS bot_faults (  -- found when a bot process was closed, outside any game
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    entrant TEXT NOT NULL,
    kind TEXT NOT NULL,               -- no_exit or orphans
    detail TEXT NOT NULL,
    stderr_tail TEXT NOT NULL         -- JSON list of lines
);
CREATE TABLE IF NOT EXISTS analysis_cache (  -- analyses of the games (arena.results.derived), keyed by their content
    name TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS content_version (  -- bumped by every change to the games table: the analyses' key
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n INTEGER NOT NULL
);
INSERT OR IGNORE INTO content_version (id, n) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS games_added AFTER INSERT ON games BEGIN UPDATE content_version SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS games_removed AFTER DELETE ON games BEGIN UPDATE content_version SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS games_changed AFTER UPDATE ON games BEGIN UPDATE content_version SET n = n + 1 WHERE id = 1; END;
CREATE TABLE IF NOT EXISTS ratings_cache (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    prefix INTEGER NOT NULL,          -- every index below this is stored and rated in `book`
    model TEXT NOT NULL,
    book TEXT NOT NULL
);
"""


@dataclass(slots=True)
class RatedGame:  # not frozen: a cold store makes one per game, and a frozen dataclass is slower to make
    """What the ratings need of one stored game. `seats[s]` is the entrant index playing seat s."""

    index: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]  # after the fault policy; 1 is best, ties share
    points: tuple[float, ...]
    faults: tuple[int, ...]  # faults charged to each seat


@dataclass(frozen=True)
class RatedRows:
    """What the ratings need of a run of stored games in schedule order (`Store.rated_rows`): row i is
    the game `game(i)`. Kept as the store's JSON texts of the columns (seats, ranks, points, faults) and
    decoded on demand: game by game here, or a column at once into an array (`arena.stats.columns`),
    which is how a cold store is rated in one compiled loop (`RatingBook.apply_rows`)."""

    indices: list[int]
    columns: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]

    def __len__(self) -> int:
        return len(self.indices)

    def game(self, i: int) -> RatedGame:
        seats, ranks, points, faults = (loads(column[i]) for column in self.columns)
        return RatedGame(self.indices[i], tuple(seats), tuple(ranks), tuple(points), tuple(faults))

    def games(self) -> list[RatedGame]:
        return [self.game(i) for i in range(len(self.indices))]

    def head(self, count: int) -> "RatedRows":
        """The first `count` rows."""
        seats, ranks, points, faults = (column[:count] for column in self.columns)
        return RatedRows(self.indices[:count], (seats, ranks, points, faults))

    def run_from(self, first: int) -> int:
        """How many leading rows have the indices first, first + 1, ... with no gap."""
        idx = self.indices
        if idx and idx[0] == first and idx[-1] - first == len(idx) - 1:
            return len(idx)  # indices strictly increase (one row per index), so no gap in between
        count = 0
        while count < len(idx) and idx[count] == first + count:
            count += 1
        return count


@dataclass(frozen=True)
class StoredGame:
    """One finished game as the store keeps it: the scheduled game (its seed the one it was played
    with, the schedule's keyed with the tournament's secret, as in its replay), how it went, the
    game id it is stored under, its replay and its key (rules, seed, seats: see `reindex`)."""

    scheduled: ScheduledGame
    played: Played
    game_id: str
    replay_path: str | None
    key: str | None = None

    # What every analysis reads of a game, the shape of `arena.stats.intervals.GameLike` and `DealGame`
    # (who sat where, the deal, the place in the schedule, the ranks); the rest is read through
    # `scheduled` and `played`.
    @property
    def index(self) -> int:
        return self.scheduled.index

    @property
    def round(self) -> int:
        return self.scheduled.round

    @property
    def table(self) -> int:
        return self.scheduled.table

    @property
    def seed(self) -> int:
        return self.scheduled.seed

    @property
    def seats(self) -> tuple[int, ...]:
        return self.scheduled.seats

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.played.ranks

    def rated(self) -> RatedGame:
        return RatedGame(self.index, self.seats, self.ranks, self.played.points, self.played.fault_counts)


@dataclass(frozen=True)
class StopRecord:
    """The stop rule ended the run after round `after_round` (0-based) of `rounds`: the standings count
    the games of rounds 0..after_round, i.e. the schedule indices below `games`, and no others (a game
    of a later round stored by an earlier run without the rule belongs to no standings)."""

    after_round: int
    rounds: int
    games: int
    rule: dict[str, JSON]
    state: str  # the decision as the progress line showed it

    def to_json(self) -> dict[str, JSON]:
        return {"after_round": self.after_round, "rounds": self.rounds, "games": self.games, "rule": self.rule, "state": self.state}

    @classmethod
    def from_json(cls, data: JSON) -> "StopRecord | None":
        if not isinstance(data, dict):
            return None
        a, r, g, rule, state = (data.get(k) for k in ("after_round", "rounds", "games", "rule", "state"))
        if not (isinstance(a, int) and isinstance(r, int) and isinstance(g, int) and isinstance(rule, dict)):
            return None
        return cls(a, r, g, rule, state if isinstance(state, str) else "")

    def line(self) -> str:
        """`stopped after round 12 of 50 by the stop rule: settled 3/3 ...` (rounds counted from 1)."""
        return f"stopped after round {self.after_round + 1} of {self.rounds} by the stop rule: {self.state}"


@dataclass(frozen=True)
class StoreInfo:
    name: str
    game: str
    fingerprint: str
    total_games: int
    stored_games: int
    entrants: tuple[str, ...]
    stop: StopRecord | None = None  # the run was stopped early: the standings count only `stop.games`

    @property
    def counted_games(self) -> int:
        """The games the standings count (all stored ones, unless the stop rule ended the run)."""
        return self.stored_games if self.stop is None else min(self.stored_games, self.stop.games)


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
