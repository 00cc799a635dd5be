"""Participants, their tokens, and their bots' versions.

A token is 32 random bytes (URL-safe base64), shown once when the participant is made; the store keeps
only its SHA-256 (a random token needs no slow hash), and lookups compare hashes. A new version that
passed its check becomes its participant's active bot; the previous one is retired, keeping its games
and its ratings history.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from dataclasses import dataclass

from arena.errors import ServerError
from arena.jsonvalue import dumps
from arena.ladder.db import Database, now
from arena.ladder.results import MODEL
from arena.ladder.states import BotState


@dataclass(frozen=True)
class Participant:
    id: int
    name: str
    is_house: bool


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def valid_name(name: str) -> bool:
    return 1 <= len(name) <= 40 and all(c.isalnum() or c in "-_." for c in name) and name.isascii()


def create_participant(db: Database, name: str, house: bool = False) -> tuple[Participant, str]:
    """A new participant and its token (the only time the token is seen)."""
    if not valid_name(name):
        raise ServerError(f"participant name {name[:60]!r}: use 1-40 ASCII letters, digits, '-', '_' or '.'")
    token = secrets.token_urlsafe(32)
    try:
        with db.write() as conn:
            cur = conn.execute("INSERT INTO participants(name, token_hash, is_house, created) VALUES(?, ?, ?, ?)",
                               (name, token_hash(token), int(house), now()))
            pid = int(cur.lastrowid or 0)
    except sqlite3.IntegrityError:
        raise ServerError(f"a participant named {name!r} already exists") from None
    return Participant(pid, name, house), token


def participant_by_token(db: Database, token: str) -> Participant | None:
    digest = token_hash(token)
    row = db.one("SELECT id, name, is_house, token_hash FROM participants WHERE token_hash = ?", digest)
    if row is None:  # a person's own token to their participant (arena.ladder.competition.roster: teams, a class)
        row = db.one("SELECT p.id, p.name, p.is_house, x.token_hash FROM people x JOIN participants p "
                     "ON p.id = x.participant_id WHERE x.token_hash = ?", digest)
    if row is None or not hmac.compare_digest(str(row["token_hash"]), digest):
        return None
    return Participant(int(row["id"]), str(row["name"]), bool(row["is_house"]))


def participant_by_name(db: Database, name: str) -> Participant | None:
    row = db.one("SELECT id, name, is_house FROM participants WHERE name = ?", name)
    return None if row is None else Participant(int(row["id"]), str(row["name"]), bool(row["is_house"]))


def activate_bot(db: Database, participant: int, submission: int | None, name: str, version: str,
                 command: tuple[str, ...], folder: str) -> int:
    """The participant's new active bot; its previous active version is retired."""
    with db.write() as conn:
        conn.execute("UPDATE bots SET status = ?, reason = 'replaced by a newer version' "
                     "WHERE participant_id = ? AND status = ?", (BotState.RETIRED, participant, BotState.ACTIVE))
        cur = conn.execute(
            "INSERT INTO bots(participant_id, submission_id, name, version, command, folder, status, created, mu, sigma) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (participant, submission, name, version, dumps(list(command)).decode(), folder, BotState.ACTIVE, now(), MODEL.mu,
             MODEL.sigma))
        return int(cur.lastrowid or 0)


def set_bot_status(db: Database, bot: int, status: BotState, reason: str) -> bool:
    """Admin: disable a bot (or make a disabled or suspended one active again)."""
    with db.write() as conn:
        row = conn.execute("SELECT participant_id, status FROM bots WHERE id = ?", (bot,)).fetchone()
        if row is None:
            return False
        if status is BotState.ACTIVE:
            conn.execute("UPDATE bots SET status = ?, reason = 'replaced by a re-enabled version' "
                         "WHERE participant_id = ? AND status = ? AND id != ?",
                         (BotState.RETIRED, row["participant_id"], BotState.ACTIVE, bot))
            conn.execute("UPDATE bots SET status = ?, reason = '', fault_streak = 0 WHERE id = ?", (BotState.ACTIVE, bot))
        else:
            conn.execute("UPDATE bots SET status = ?, reason = ? WHERE id = ?", (status, reason, bot))
    return True
