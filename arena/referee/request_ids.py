"""A bot process's request ids: one rising counter over the process's life, the one pending request, and
those that timed out (a late answer to one is ignored, once). The referee's session and check-bot's driver
both keep their ids here, so the two judge an answer's id the same way.
"""

from __future__ import annotations

import enum


class Classification(enum.Enum):
    """How an answer's id relates to what this bot was asked."""

    ANSWER = "answer"  # the id of the pending request
    LATE = "late"  # the id of a request that already timed out: ignored
    DUPLICATE = "duplicate"  # an id already answered
    UNASKED = "unasked"  # an id never asked (yet): early or made up


class RequestIds:
    """Ids rise over the process's life, so a stale answer from an earlier game can never match a later request."""

    def __init__(self) -> None:
        self.pending: int | None = None  # the one request the bot is answering, if any
        self._next = 1
        self._expired: set[int] = set()

    def new(self) -> int:
        """The next request's id, now the pending one."""
        rid = self._next
        self._next = rid + 1
        self.pending = rid
        return rid

    def classify(self, request_id: int) -> Classification:
        """What an answer carrying `request_id` is; a late answer is recognised once (a second is a duplicate)."""
        if request_id == self.pending:
            return Classification.ANSWER
        if request_id in self._expired:
            self._expired.discard(request_id)
            return Classification.LATE
        if 0 < request_id < self._next:
            return Classification.DUPLICATE
        return Classification.UNASKED

    def settle(self) -> None:
        """The pending request got its answer (or a line that stands for it)."""
        self.pending = None

    def expire(self) -> None:
        """The pending request timed out: an answer to it may still come, and is then ignored."""
        if self.pending is not None:
            self._expired.add(self.pending)
        self.pending = None
