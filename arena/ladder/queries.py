"""The ladder's reads of its store, as typed rows: what the routes and pages ask of the database.

Every SELECT the HTTP edge needs is here (the edge holds no SQL); the states are `arena.ladder.states`'
enums, never literals spread over files.
"""

from __future__ import annotations

from typing import Sequence

from arena.ladder.db import Database


def bot_owners(db: Database, bots: Sequence[int]) -> dict[int, int]:
    """Each bot's participant (its owner): the one ownership lookup every access decision uses."""
    ids = sorted({int(b) for b in bots})
    if not ids:
        return {}
    rows = db.all(f"SELECT id, participant_id FROM bots WHERE id IN ({','.join('?' * len(ids))})", *ids)
    return {int(r["id"]): int(r["participant_id"]) for r in rows}
