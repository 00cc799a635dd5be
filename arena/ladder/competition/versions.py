"""Choosing the version that plays: a participant makes one of its own versions the active one (a rollback).

The chosen version plays the ladder from its next game on (its rating as it was: ratings belong to a
version); the one it replaces is retired, its games and ratings kept. A new version that passes its check
still becomes active at once (`arena.ladder.accounts.activate_bot`): choosing again rolls back. Only
versions the participant's own upload made, retired or active, can be chosen: a version the organiser
disabled, or one suspended for its faults, is the organiser's to enable. Allowed while `choice_open`.
"""

from __future__ import annotations

from typing import Any

from arena.errors import ServerError
from arena.ladder.db import Database
from arena.ladder.states import BotState


def choice_open(server: Any) -> bool:
    """May participants still choose their version? Until the freeze: while the competition is open
    (a server without a `phases:` calendar stays open until the organiser moves it)."""
    phases = getattr(server, "phases", None)
    return phases is None or bool(phases.phase.uploads)


def choose_version(db: Database, participant: int, bot: int) -> str:
    """Make `bot` (a version of `participant`'s) its active one, in one transaction; what happened, in words.
    ServerError (its message says what to do) when it is not the participant's or cannot be chosen."""
    with db.write() as conn:
        row = conn.execute("SELECT id, participant_id, version, status FROM bots WHERE id = ?", (bot,)).fetchone()
        if row is None or int(row["participant_id"]) != participant:
            raise ServerError(f"no version {bot} of yours: `arena ladder versions` (or your versions page) lists them")
        status = BotState(row["status"])
        if status is BotState.ACTIVE:
            return f"version {row['version']} (bot {bot}) is already the one that plays"
        if status is not BotState.RETIRED:
            raise ServerError(f"version {row['version']} (bot {bot}) is {status.value} ({'by the organiser' if status is BotState.DISABLED else 'after faults'}): "
                              "only the organiser can enable it; choose another version or submit a fixed one")
        conn.execute("UPDATE bots SET status = ?, reason = ? WHERE participant_id = ? AND status = ?",
                     (BotState.RETIRED, f"replaced: its participant chose version {row['version']} (bot {bot})", participant,
                      BotState.ACTIVE))
        conn.execute("UPDATE bots SET status = ?, reason = '', fault_streak = 0 WHERE id = ?", (BotState.ACTIVE, bot))
    return f"version {row['version']} (bot {bot}) now plays the ladder"
