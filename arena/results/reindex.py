"""Reusing a store after its config changed: keep every stored game the new config would play again.

A game's identity is its key (`TournamentConfig.game_key`: the rules, the deal seed and who sits in
each seat), not the whole config's fingerprint. So more rounds, or a new entrant, leave the games
already played valid: they are given their place (schedule index) in the new schedule and their
seats the new entrant numbers, and only the missing games are played. A change that would make a
stored game come out differently (a command, a time control, an option) is refused with what changed,
so results are never silently discarded; a store that holds no game takes any config.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from arena.errors import StoreError
from arena.jsonvalue import JSON, dumps_str, loads
from arena.results.games_table import ALL_COLUMNS


@dataclass(frozen=True)
class Plan:
    """What a run of the current config will play: its fingerprint, entrants and each game's key."""

    fingerprint: str
    identity: dict[str, JSON]
    entrants: tuple[tuple[str, tuple[str, ...]], ...]  # (name, command as written)
    keys: tuple[str, ...]  # keys[i]: the key of schedule index i


def differences(old: dict[str, JSON], new: dict[str, JSON]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def reconcile(conn: sqlite3.Connection, path: Path, meta: dict[str, str], plan: Plan) -> int:
    """Bring a store written under another config (or the same) in line with `plan`; returns how many
    stored games were kept from another config (0 for the same config). Runs in the caller's transaction."""
    rows = conn.execute("SELECT idx, key, seats FROM games").fetchall()
    if meta.get("fingerprint") == plan.fingerprint:
        missing = [(plan.keys[idx], idx) for idx, key, _ in rows if key is None and 0 <= idx < len(plan.keys)]
        conn.executemany("UPDATE games SET key = ? WHERE idx = ?", missing)  # stores from before keys
        return 0
    new_index = {key: i for i, key in enumerate(plan.keys)}
    stale = [idx for idx, key, _ in rows if key is None or key not in new_index]
    if stale:
        old = loads(meta.get("config", "{}"))
        changed = differences(old if isinstance(old, dict) else {}, plan.identity)
        raise StoreError(
            f"{path} holds {len(stale)} game(s) the changed config would not play again "
            f"(differs in: {', '.join(changed) or 'version'}); run with --fresh to discard the stored results, "
            "or set output.store to another file"
        )
    old_names = [row[0] for row in conn.execute("SELECT name FROM entrants ORDER BY idx")]
    new_names = [name for name, _ in plan.entrants]
    number = {name: i for i, name in enumerate(new_names)}
    versions = dict(conn.execute("SELECT name, version FROM entrants").fetchall())
    conn.execute("UPDATE games SET idx = -1 - idx")  # out of the way: new places may swap
    for idx, key, seats in rows:
        new_seats = [number[old_names[e]] for e in loads(seats)]
        conn.execute("UPDATE games SET idx = ?, seats = ? WHERE idx = ?", (new_index[key], dumps_str(new_seats), -1 - idx))
    conn.execute("DELETE FROM entrants")
    conn.executemany(
        "INSERT INTO entrants (idx, name, command, version) VALUES (?, ?, ?, ?)",
        [(i, name, dumps_str(list(cmd)), versions.get(name)) for i, (name, cmd) in enumerate(plan.entrants)],
    )
    conn.execute("DELETE FROM ratings_cache")  # the order of the games changed
    conn.execute("DELETE FROM analysis_cache")
    _set_meta(conn, {"fingerprint": plan.fingerprint, "config": dumps_str(plan.identity), "total_games": str(len(plan.keys))})
    return len(rows)


def _set_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())


def supersede(conn: sqlite3.Connection, programs: tuple[str, ...]) -> list[tuple[str, int]]:
    """Set aside the stored games of every entrant whose files changed since they were played (their
    content hash differs from `programs`, by entrant index): moved to `superseded_games`, so they stay
    in the store under the old version while the standings no longer count them and a run plays them
    again. Records `programs` as the entrants' current hashes. Games stored before hashes were kept are
    taken as played by the current files. Returns (entrant, games set aside) of each changed entrant."""
    names = [row[0] for row in conn.execute("SELECT name FROM entrants ORDER BY idx")]
    stale: dict[int, set[int]] = {}
    for idx, seats, stored in conn.execute("SELECT idx, seats, programs FROM games WHERE programs IS NOT NULL").fetchall():
        for e, h in zip(loads(seats), loads(stored)):
            if isinstance(e, int) and e < len(programs) and h != programs[e]:
                stale.setdefault(idx, set()).add(e)
    changed: dict[int, int] = {}
    for idx, who in stale.items():
        conn.execute(
            f"INSERT INTO superseded_games (superseded_at, changed, {ALL_COLUMNS}) SELECT ?, ?, {ALL_COLUMNS} FROM games WHERE idx = ?",
            (time.time(), dumps_str(sorted(names[e] for e in who)), idx),
        )
        conn.execute("DELETE FROM games WHERE idx = ?", (idx,))
        for e in who:
            changed[e] = changed.get(e, 0) + 1
    if stale:
        conn.execute("DELETE FROM ratings_cache")
        conn.execute("DELETE FROM analysis_cache")
        conn.execute("DELETE FROM meta WHERE key = 'stop'")  # the stop rule decides again on the new games
    conn.executemany("UPDATE entrants SET program = ? WHERE idx = ?", [(h, i) for i, h in enumerate(programs[: len(names)])])
    for e in changed:
        conn.execute("UPDATE entrants SET version = NULL WHERE idx = ?", (e,))  # its hello will say again
    return [(names[e], n) for e, n in sorted(changed.items())]
