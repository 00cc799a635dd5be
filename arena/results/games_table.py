"""The games table: a stored game to its SQL row and back, in one place, and the queries on games and
on the faults found outside them.

JSON exists only here, at the SQL edge: a row's JSON columns (seats, points, faults, ...) become the
typed `StoredGame` (a `ScheduledGame`, a `Played` with typed `Fault`s) when read, and are made from it
when written. `COLUMNS` is the one list of the stored game's columns, in the order `row` writes and
`stored_game` reads them; the store adds `finished_at` and `programs`, which no reader needs. Adding a
stored field: the field (on `Played` or `StoredGame`), its column here and in `stored.SCHEMA` (both
tables, with an ALTER for older stores if it may be missing).
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Iterator, Sequence

from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.jsonvalue import JSON, dumps_str, loads
from arena.results.stored import RatedRows, StoredGame

_GAME = ("idx", "game_id", "round", "tbl", "rotation", "seed", "seats", "points", "tiebreaks", "ranks", "game_ranks",
         "faults", "fault_counts", "versions", "decisions", "duration_s", "replay_path", "key")
COLUMNS = ", ".join(_GAME)
ALL_COLUMNS = COLUMNS + ", finished_at, programs"  # every column of `games` (and of `superseded_games` after its two)
INSERT = f"INSERT INTO games ({ALL_COLUMNS}) VALUES ({', '.join('?' * (len(_GAME) + 2))})"
_END = 2**62  # above every schedule index


def row(game: StoredGame, programs: Sequence[str] = ()) -> tuple[Any, ...]:
    """The row of `INSERT`: the game's columns, the time now, and each seat's bot hash (if known)."""
    s, p = game.scheduled, game.played
    return (
        s.index, game.game_id, s.round, s.table, s.rotation, s.seed, dumps_str(list(s.seats)),
        dumps_str(list(p.points)), dumps_str([list(t) for t in p.tiebreaks]), dumps_str(list(p.ranks)),
        dumps_str(list(p.game_ranks)), dumps_str([f.to_json() for f in p.faults]), dumps_str(list(p.fault_counts)),
        dumps_str(list(p.versions)), p.decisions, p.duration_s, game.replay_path, game.key,
        time.time(), dumps_str([programs[e] for e in s.seats]) if programs else None,
    )


def stored_game(r: Sequence[Any]) -> StoredGame:
    """From the columns of `COLUMNS`, in that order (`fault_counts` is derived from the faults)."""
    scheduled = ScheduledGame(index=r[0], round=r[2], table=r[3], rotation=r[4], seats=tuple(loads(r[6])), seed=r[5])
    played = Played(
        points=tuple(loads(r[7])),
        tiebreaks=tuple(tuple(t) for t in loads(r[8])),
        ranks=tuple(loads(r[9])),
        game_ranks=tuple(loads(r[10])),
        faults=tuple(Fault.from_json(f) for f in loads(r[11])),
        versions=tuple(loads(r[13])),
        decisions=r[14],
        duration_s=r[15],
    )
    return StoredGame(scheduled, played, game_id=r[1], replay_path=r[16], key=r[17])


def select(conn: sqlite3.Connection, from_index: int = 0, below: int | None = None) -> Iterator[StoredGame]:
    """The stored games with schedule indices in [from_index, below), in schedule order."""
    cur = conn.execute(f"SELECT {COLUMNS} FROM games WHERE idx >= ? AND idx < ? ORDER BY idx",
                       (from_index, _END if below is None else below))
    for r in cur:
        yield stored_game(r)


_ROWS = 65_536  # games decoded per step of `select_rated_rows`: bounded memory whatever the store's size


def select_rated_rows(conn: sqlite3.Connection, from_index: int = 0, below: int | None = None) -> Iterator[RatedRows]:
    """What the ratings need of the games with schedule indices in [from_index, below), in schedule order,
    a bounded number of games at a time, undecoded (`RatedRows` decodes them as its reader needs)."""
    cur = conn.execute(
        "SELECT idx, seats, ranks, points, fault_counts FROM games WHERE idx >= ? AND idx < ? ORDER BY idx",
        (from_index, _END if below is None else below),
    )
    while rows := cur.fetchmany(_ROWS):
        indices, seats, ranks, points, faults = zip(*rows)
        yield RatedRows(list(indices), (seats, ranks, points, faults))


def insert_bot_faults(conn: sqlite3.Connection, faults: Sequence[tuple[str, Fault]]) -> None:
    conn.executemany(
        "INSERT INTO bot_faults (entrant, kind, detail, stderr_tail) VALUES (?, ?, ?, ?)",
        [(name, f.kind.value, f.detail, dumps_str(list(f.stderr_tail))) for name, f in faults],
    )


def select_bot_faults(conn: sqlite3.Connection) -> list[tuple[str, Fault]]:
    """(entrant, fault) of every fault found outside games, oldest first, stderr tail included."""
    try:
        rows = list(conn.execute("SELECT entrant, kind, detail, stderr_tail FROM bot_faults ORDER BY id"))
    except sqlite3.OperationalError:  # a store written before the table existed
        return []
    return [(entrant, Fault.bounded(-1, FaultKind(kind), -1, None, detail, tuple(str(x) for x in _list(tail))))
            for entrant, kind, detail, tail in rows]


def _list(text: str) -> list[JSON]:
    value = loads(text)
    return value if isinstance(value, list) else []
