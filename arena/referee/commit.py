"""Salted SHA-256 commitments to secret actions.

The referee writes a commitment to the replay the moment a secret answer arrives, and the action with
its salt only after every seat of the step has answered. Anyone holding the replay can then check that
no recorded action was changed after the fact, and the salt keeps the small action space (a few card
pairs) from being guessed back out of the hash.
"""

from __future__ import annotations

import hashlib
import os

from arena.jsonvalue import JSON, dumps


def new_salt() -> str:
    return os.urandom(16).hex()


def commitment(salt: str, step: int, seat: int, action: JSON) -> str:
    """Hex SHA-256 of the salt and the canonical JSON of (step, seat, action)."""
    payload = salt.encode("ascii") + b"\n" + dumps([step, seat, action])
    return hashlib.sha256(payload).hexdigest()


def check_commitment(digest: str, salt: str, step: int, seat: int, action: JSON) -> bool:
    return commitment(salt, step, seat, action) == digest
