"""The results store: one SQLite file per tournament (embedded, nothing to start).

Why each game is its own transaction, in WAL mode: a run can be killed at any instant (SIGKILL, power
loss) and must lose at most the games in flight. The schedule index is the primary key, so a game can
never be stored twice, and a rerun plays exactly the missing indices. Each game also keeps its key (its
rules, seed and seats), so a changed config reuses the games it would play again (`reindex`) and a
change that would alter a stored game is refused instead of mixing two tournaments' results. One run
at a time holds the store (`lock`).

Ratings are cached: the store keeps the rating book (as JSON: the store does not know the ratings,
`arena.stats.standings` does) after the longest run of consecutive schedule indices 0..P-1 that are
all stored. No game can ever be added below P, so the cache is never stale; the standings rate only
the games from P on (normally the few that finished since the last call).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from arena.errors import StoreError
from arena.jsonvalue import JSON, dumps_str, loads
from arena.core.faults import Fault
from arena.results import games_table as table
from arena.rng import new_secret
from arena.results.lock import StoreLock
from arena.results.reindex import Plan, differences, reconcile, supersede
from arena.results.stored import SCHEMA as _SCHEMA
from arena.results.stored import SCHEMA_VERSION, RatedRows, StopRecord, StoredGame, StoreInfo, outside_arena, write_error

SERVER_FINAL_STORE = Path("final") / "final.sqlite"  # a competition server's final, under its data folder

__all__ = ["SCHEMA_VERSION", "Store", "StoreInfo", "StoredGame", "StopRecord"]


def _create_private(path: Path) -> None:
    """Create the store file readable by its owner only (0600) whatever the umask; SQLite gives its
    -wal and -shm files the database's own mode. An existing store keeps the mode it has."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, 0o600)  # exact: O_CREAT's mode passes through the umask
    finally:
        os.close(fd)


class Store:
    """An open results store. Not shared between processes: workers send results to the one owner."""

    def __init__(self, path: Path, conn: sqlite3.Connection, lock: StoreLock | None = None) -> None:
        self.path = path
        self.conn = conn
        self.lock = lock  # held by a run: one writer per store
        self.reused = 0  # stored games kept when this store was opened for a changed config
        self._versioned: set[int] = set()  # entrants whose bot version is already recorded
        self.programs: tuple[str, ...] = ()  # each entrant's content hash (botfiles), stored with each game
        self.changed: list[tuple[str, int]] = []  # (entrant, games set aside) whose files changed since

    # --- opening --------------------------------------------------------------------------------------

    @classmethod
    def _connect(cls, path: Path) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a committed game survives a crash of the process
            conn.execute("PRAGMA busy_timeout=30000")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the results store {path}: {exc}") from None
        return conn

    @classmethod
    def create_or_resume(
        cls,
        path: Path,
        *,
        name: str,
        game: str,
        fingerprint: str,
        identity: dict[str, JSON],
        entrants: Sequence[tuple[str, Sequence[str]]],
        total_games: int,
        fresh: bool = False,
        keys: Sequence[str] | None = None,
        programs: Sequence[str] | None = None,
        secret: str | None = None,
    ) -> "Store":
        """Open the store of this tournament for a run, creating it and taking its lock.

        With `keys` (each scheduled game's key), a store written under another config is reused when
        every game it holds is one this config plays too; without, only the same config resumes it.
        With `programs` (each entrant's `botfiles.bot_hash`), the stored games of a bot whose files
        changed since are set aside (kept in `superseded_games`, no longer counted) to be played again;
        `changed` says whose and how many.
        `secret` is the tournament's secret for a new store (default: a random one); a store keeps its own.
        """
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the results store {path}: {exc.filename}: {exc.strerror or exc} "
                "(set output.store to a file in a folder arena can write to)"
            ) from None
        lock = StoreLock(path).acquire()
        try:
            if fresh:
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(f"{path}{suffix}")
            _create_private(path)
            conn = cls._connect(path)
        except OSError as exc:
            lock.release()
            raise StoreError(f"cannot replace the results store {path}: {exc.strerror or exc}") from None
        except BaseException:
            lock.release()
            raise
        store = cls(path, conn, lock)
        try:
            conn.executescript(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            for column in ("key", "programs"):  # a store from before game keys, or before bot hashes
                if column not in columns:
                    conn.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT")
            if "program" not in {row[1] for row in conn.execute("PRAGMA table_info(entrants)")}:
                conn.execute("ALTER TABLE entrants ADD COLUMN program TEXT")
            meta = store._meta()
            if not meta:
                store._initialise(name, game, fingerprint, identity, entrants, total_games)
            elif keys is not None:
                plan = Plan(fingerprint, identity, tuple((n, tuple(c)) for n, c in entrants), tuple(keys))
                with store._transaction():
                    store.reused = reconcile(conn, path, meta, plan)
            elif meta.get("fingerprint") != fingerprint:
                old = loads(meta.get("config", "{}"))
                differs = differences(old if isinstance(old, dict) else {}, identity)
                raise StoreError(
                    f"{path} holds results of a different config (differs in: {', '.join(differs) or 'version'}); "
                    "run with --fresh to discard them and start over, or set output.store to another file"
                )
            if programs is not None:
                with store._transaction():
                    store.changed = supersede(conn, tuple(programs))
                store.programs = tuple(programs)
            store._keep_secret(secret)
        except sqlite3.Error as exc:
            store.close()
            if outside_arena(exc):
                raise write_error(path, exc) from None
            raise StoreError(
                f"cannot use {path} as the results store: {exc} (is it another program's database? "
                "set output.store to another file)"
            ) from None
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_existing(cls, path: Path) -> "Store":
        path = Path(path)
        if not path.is_file():
            raise StoreError(f"no results store at {path} (run `arena run CONFIG` first)")
        conn = cls._connect(path)
        store = cls(path, conn)
        try:
            meta = store._meta()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{path} is not an arena results store: {exc}") from None
        if meta.get("schema") != str(SCHEMA_VERSION):
            server = not meta and _is_server_database(conn)
            conn.close()
            if server:
                raise StoreError(_server_database(path))
            raise StoreError(f"{path} is not an arena results store (schema {meta.get('schema')!r})")
        return store

    def _meta(self) -> dict[str, str]:
        try:
            return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError:
            return {}

    def _keep_secret(self, given: str | None) -> None:
        """The store holds the tournament's secret from its creation on; a given one must match it once
        a game is stored (a store from before secrets gets one: its games from now on are keyed)."""
        held = self._meta().get("secret")
        (games,) = self.conn.execute("SELECT COUNT(*) FROM games").fetchone()
        if held is None or (given is not None and given != held and not games):
            with self._transaction():
                self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('secret', ?)", (given or new_secret(),))
        elif given is not None and given != held:
            raise StoreError(
                f"{self.path} was created with another secret than the one given; run with --fresh to start "
                "over with the given secret, or leave --secret out to resume with the store's"
            )

    def secret(self) -> str:
        """The tournament's secret: keys every deal seed and game id; never sent to a bot."""
        return self._meta().get("secret", "")

    def _initialise(
        self,
        name: str,
        game: str,
        fingerprint: str,
        identity: dict[str, JSON],
        entrants: Sequence[tuple[str, Sequence[str]]],
        total_games: int,
    ) -> None:
        with self._transaction():
            rows = {
                "schema": str(SCHEMA_VERSION),
                "name": name,
                "game": game,
                "fingerprint": fingerprint,
                "config": dumps_str(identity),
                "total_games": str(total_games),
                "created_at": str(time.time()),
            }
            self.conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", rows.items())
            self.conn.executemany(
                "INSERT INTO entrants (idx, name, command) VALUES (?, ?, ?)",
                [(i, n, dumps_str(list(cmd))) for i, (n, cmd) in enumerate(entrants)],
            )

    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> None:
            self.conn.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
            if exc_type is None:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.Error:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            elif self.conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                self.conn.execute("ROLLBACK")

    def _transaction(self) -> "Store._Tx":
        return Store._Tx(self.conn)

    def close(self) -> None:
        self.conn.close()
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- reading and writing games ---------------------------------------------------------------------

    def info(self) -> StoreInfo:
        meta = self._meta()
        (stored,) = self.conn.execute("SELECT COUNT(*) FROM games").fetchone()
        return StoreInfo(
            name=meta.get("name", ""),
            game=meta.get("game", ""),
            fingerprint=meta.get("fingerprint", ""),
            total_games=int(meta.get("total_games", "0")),
            stored_games=int(stored),
            entrants=tuple(self.entrant_names()),
            stop=self.stop(),
        )

    def stop(self) -> StopRecord | None:
        """Where the stop rule ended the run, if it did (the last run's rule decides)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'stop'").fetchone()
        return None if row is None else StopRecord.from_json(loads(row[0]))

    def set_stop(self, record: StopRecord | None) -> None:
        try:
            with self._transaction():
                if record is None:
                    self.conn.execute("DELETE FROM meta WHERE key = 'stop'")
                else:
                    self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('stop', ?)", (dumps_str(record.to_json()),))
        except sqlite3.Error as exc:
            raise write_error(self.path, exc) if outside_arena(exc) else StoreError(f"{self.path}: {exc}") from None

    def counted_below(self) -> int | None:
        """The standings count the schedule indices below this (None: every stored game)."""
        stop = self.stop()
        return None if stop is None else stop.games

    def entrant_versions(self) -> list[tuple[str, str | None, str | None]]:
        """(name, content hash of its files, the version its hello gave) of every entrant, by index."""
        return list(self.conn.execute("SELECT name, program, version FROM entrants ORDER BY idx"))

    def entrant_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT name FROM entrants ORDER BY idx")]

    def done_indices(self) -> set[int]:
        return {row[0] for row in self.conn.execute("SELECT idx FROM games")}

    def record_many(self, games: Sequence[StoredGame]) -> None:
        """Store many games in one transaction (imports and benchmarks; a run commits game by game)."""
        try:
            with self._transaction():
                self.conn.executemany(table.INSERT, (table.row(g, self.programs) for g in games))
        except sqlite3.IntegrityError:
            raise StoreError(f"a game among those given is already in {self.path}: a game is never stored twice") from None
        except sqlite3.Error as exc:
            raise write_error(self.path, exc) if outside_arena(exc) else StoreError(f"{self.path}: {exc}") from None

    def record(self, game: StoredGame) -> None:
        """Store one finished game and commit it at once."""
        try:
            with self._transaction():
                self.conn.execute(table.INSERT, table.row(game, self.programs))
                versions = game.played.versions
                for seat, entrant in enumerate(game.scheduled.seats):
                    if entrant not in self._versioned and seat < len(versions) and versions[seat]:
                        self.conn.execute(
                            "UPDATE entrants SET version = ? WHERE idx = ? AND version IS NULL", (versions[seat], entrant)
                        )
                        self._versioned.add(entrant)
        except sqlite3.IntegrityError:
            raise StoreError(f"game {game.scheduled.index} is already in {self.path}: a game is never stored twice") from None
        except sqlite3.Error as exc:
            raise write_error(self.path, exc) if outside_arena(exc) else StoreError(f"{self.path}: {exc}") from None

    def record_bot_faults(self, faults: Sequence[tuple[str, Fault]]) -> None:
        """Faults found when bots were closed (`no_exit`, `orphans`): they belong to no game, so they
        change no rating, but an organiser must see them."""
        if not faults:
            return
        try:
            with self._transaction():
                table.insert_bot_faults(self.conn, faults)
        except sqlite3.Error as exc:
            raise write_error(self.path, exc) if outside_arena(exc) else StoreError(f"{self.path}: {exc}") from None

    def bot_faults(self) -> list[tuple[str, Fault]]:
        """(entrant, fault) of every fault found outside games: the shape `record_bot_faults` takes."""
        return table.select_bot_faults(self.conn)

    def counted_games(self) -> list[StoredGame]:
        """The games the standings count, in schedule order (see `counted_below`)."""
        return list(self.games(below=self.counted_below()))

    def games(self, from_index: int = 0, below: int | None = None) -> Iterator[StoredGame]:
        """The stored games with schedule indices in [from_index, below), in schedule order."""
        return table.select(self.conn, from_index, below)

    def rated_rows(self, from_index: int = 0, below: int | None = None) -> Iterator[RatedRows]:
        """Only what the ratings need (the hot path of standings), as columns a bounded number of games at a time."""
        return table.select_rated_rows(self.conn, from_index, below)

    # --- the ratings cache (what it holds is arena.stats's business) ------------------------------------

    def ratings_cache(self) -> tuple[JSON, JSON] | None:
        """The cached rating book as (model, book) JSON, or None when nothing is cached."""
        row = self.conn.execute("SELECT model, book FROM ratings_cache WHERE id = 1").fetchone()
        return None if row is None else (loads(row[0]), loads(row[1]))

    def save_ratings_cache(self, prefix: int, model: JSON, book: JSON) -> None:
        """Keep a rating book that covers exactly the schedule indices 0..prefix-1 (all stored)."""
        try:
            with self._transaction():
                self.conn.execute(
                    "INSERT OR REPLACE INTO ratings_cache (id, prefix, model, book) VALUES (1, ?, ?, ?)",
                    (prefix, dumps_str(model), dumps_str(book)),
                )
        except sqlite3.Error:
            pass  # only a cache: standings are computed anyway, and a read-only store is still readable



def _is_server_database(conn: sqlite3.Connection) -> bool:
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError:
        return False
    return {"participants", "bots", "games"} <= tables


def _server_database(path: Path) -> str:
    """What `arena standings`/`arena report` say of a competition server's database: where its final is."""
    final = path.parent / SERVER_FINAL_STORE
    where = (f"its final's results store is {final}: give that" if final.is_file() else
             f"its final, once played (`arena serve CONFIG final`), is the results store {final}")
    return (f"{path} is a competition server's database (`arena serve`), not a results store: {where}; the ladder "
            "itself: `arena ladder status --json` or `arena ladder export`")
