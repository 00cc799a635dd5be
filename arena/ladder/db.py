"""The server's own SQLite tables: participants, bots (one row per version), submissions, games.

One writer: every write goes through `Database.write()`, one connection under a lock, one transaction
per call. Readers get their own connection per thread (WAL lets them read while the ladder writes).
A finished game, its seats and the ratings it moved are one transaction, so after any crash the stored
ratings are exactly a recomputation of the stored games in their order (`games.seq`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator

SCHEMA = """
CREATE TABLE IF NOT EXISTS participants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    is_house INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    created REAL NOT NULL,
    status TEXT NOT NULL,              -- received | checking | passed | refused
    reason TEXT NOT NULL DEFAULT '',
    report TEXT NOT NULL DEFAULT '',   -- the check's report and the bot's stderr: its owner's only
    bot_id INTEGER,
    folder TEXT NOT NULL DEFAULT '',
    manifest TEXT NOT NULL DEFAULT '{}', -- JSON: name, version, command (made absolute)
    finished REAL
);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    submission_id INTEGER,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    command TEXT NOT NULL,             -- JSON list
    folder TEXT NOT NULL,
    status TEXT NOT NULL,              -- active | retired | disabled | suspended
    reason TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins REAL NOT NULL DEFAULT 0,
    points REAL NOT NULL DEFAULT 0,
    rank_sum REAL NOT NULL DEFAULT 0,
    faults INTEGER NOT NULL DEFAULT 0,
    fault_streak INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS bots_participant ON bots(participant_id);
CREATE INDEX IF NOT EXISTS bots_status ON bots(status);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a discarded game's late replay cannot clash
    status TEXT NOT NULL,              -- pending | done
    seq INTEGER UNIQUE,                -- the order games were rated in
    seats TEXT NOT NULL,               -- JSON list of bot ids
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    result TEXT,                       -- JSON: points, ranks, game_ranks, fault_counts, decisions, duration_s
    faults TEXT,                       -- JSON list of faults (stderr tails are their owners' only)
    replay TEXT,
    sha256 TEXT,
    signature TEXT
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE TABLE IF NOT EXISTS game_seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    points REAL NOT NULL,
    faults INTEGER NOT NULL,
    mu REAL NOT NULL,                  -- after this game
    sigma REAL NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_seats_bot ON game_seats(bot_id, game_id);
CREATE TABLE IF NOT EXISTS head_to_head (  -- a bot against each other bot over their stored games (the bot page's table):
    bot_id INTEGER NOT NULL,               -- kept in each game's own commit, so it never counts the seats again
    other INTEGER NOT NULL,
    games INTEGER NOT NULL,
    ahead INTEGER NOT NULL,                -- games where bot_id ranked above other
    level INTEGER NOT NULL,
    behind INTEGER NOT NULL,
    PRIMARY KEY (bot_id, other)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS phase_changes (  -- arena.ladder.competition.phases: the last row is the phase now
    id INTEGER PRIMARY KEY,
    from_phase TEXT NOT NULL,
    to_phase TEXT NOT NULL,
    who TEXT NOT NULL,                 -- the organiser (admin page, API, CLI) or "schedule" (the config's times)
    at REAL NOT NULL                   -- seconds since the epoch (UTC)
);
CREATE TABLE IF NOT EXISTS people (    -- arena.ladder.competition.roster: each person's own token to a participant
    id INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    login TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    token_hash TEXT NOT NULL UNIQUE,   -- "revoked:..." once revoked (no token hashes to it)
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS people_participant ON people(participant_id);
CREATE TABLE IF NOT EXISTS display_names (  -- a participant's name on the pages (its login name when none)
    participant_id INTEGER PRIMARY KEY REFERENCES participants(id),
    display_name TEXT NOT NULL
);
"""

# Every ordered pair of different bots at a stored game, counted from the seats (the tally's first fill).
TALLY_SQL = """INSERT INTO head_to_head(bot_id, other, games, ahead, level, behind)
SELECT m.bot_id, o.bot_id, COUNT(*), SUM(m.rank < o.rank), SUM(m.rank = o.rank), SUM(m.rank > o.rank)
FROM game_seats m JOIN game_seats o ON o.game_id = m.game_id AND o.seat != m.seat
WHERE o.bot_id != m.bot_id GROUP BY m.bot_id, o.bot_id"""

# One game's pair (bot, other, ahead, level, behind) added to the tally, in the game's commit.
TALLY_ADD_SQL = """INSERT INTO head_to_head(bot_id, other, games, ahead, level, behind) VALUES(?, ?, 1, ?, ?, ?)
ON CONFLICT(bot_id, other) DO UPDATE SET games = games + 1, ahead = ahead + excluded.ahead,
level = level + excluded.level, behind = behind + excluded.behind"""


class Database:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._local = threading.local()
        self._writer = self._connect()
        self._writer.executescript(SCHEMA)
        self.generation = 0  # bumped by every write: the key of the API's cached answers
        self._tally_head_to_head()

    def _tally_head_to_head(self) -> None:
        """A store from before the `head_to_head` table (or restored from such a backup): its tally
        counted once from the stored seats, in one transaction; a store that has it is left alone."""
        conn = self._writer
        if conn.execute("SELECT 1 FROM head_to_head LIMIT 1").fetchone() or not conn.execute("SELECT 1 FROM game_seats LIMIT 1").fetchone():
            return
        with self.write() as w:  # checked again under the write lock: another process may have filled it meanwhile
            if not w.execute("SELECT 1 FROM head_to_head LIMIT 1").fetchone():
                w.execute(TALLY_SQL)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction on the single writer connection."""
        with self._lock:
            self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                self._writer.execute("ROLLBACK")
                raise
            self._writer.execute("COMMIT")
            self.generation += 1

    def reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.reader().execute(sql, args).fetchone()
        return row

    def all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        return list(self.reader().execute(sql, args).fetchall())

    def setting(self, key: str, default: str = "") -> str:
        row = self.one("SELECT value FROM settings WHERE key = ?", key)
        return default if row is None else str(row["value"])

    def set_setting(self, key: str, value: str) -> None:
        with self.write() as conn:
            conn.execute("INSERT INTO settings(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                         (key, value))

    def close(self) -> None:
        with self._lock:
            self._writer.close()


def now() -> float:
    return time.time()


@contextlib.contextmanager
def borrowed(path: Path, db: Database | None) -> Iterator[Database]:
    """`db` when the caller has one open (a running server's), else the store at `path` opened for the block
    and closed after it (a command of its own)."""
    if db is not None:
        yield db
        return
    opened = Database(path)
    try:
        yield opened
    finally:
        opened.close()
