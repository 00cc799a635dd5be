"""The ladder's reads of its store, as typed rows: what the routes and pages ask of the database.

The states are `arena.ladder.states`' enums, never literals spread over files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from arena.ladder.db import Database


@dataclass(frozen=True)
class BotRef:
    """Whose a bot is and where its files lie: what every access decision about it needs."""

    id: int
    owner: int  # its participant
    folder: str


def bot_refs(db: Database, bots: Sequence[int]) -> dict[int, BotRef]:
    """Each bot's owner and folder: the one ownership lookup every access decision uses."""
    ids = sorted({int(b) for b in bots})
    if not ids:
        return {}
    rows = db.all(f"SELECT id, participant_id, folder FROM bots WHERE id IN ({','.join('?' * len(ids))})", *ids)
    return {int(r["id"]): BotRef(int(r["id"]), int(r["participant_id"]), str(r["folder"])) for r in rows}
