"""The states a submission, a bot and a game go through, as stored (`arena.ladder.db`'s status columns).

Every SQL statement names a state through these (a bound parameter), never as a literal."""

from __future__ import annotations

import enum


class SubmissionState(enum.StrEnum):
    RECEIVED = "received"  # unpacked, waiting for the check
    CHECKING = "checking"
    PASSED = "passed"  # its bot joined the ladder
    REFUSED = "refused"


class BotState(enum.StrEnum):
    ACTIVE = "active"  # its participant's version on the ladder
    RETIRED = "retired"  # replaced by a newer version; its games and ratings stay
    DISABLED = "disabled"  # by the organiser
    SUSPENDED = "suspended"  # after too many faulty games in a row


class GameState(enum.StrEnum):
    PENDING = "pending"  # reserved or in flight
    DONE = "done"  # stored with its result and rating update
    UNRANKED = "unranked"  # a challenge's game, stored with its result; it moves no rating (arena.ladder.competition.challenges)
