"""Per-participant quotas over a rolling day, and the data folder's disk budget.

A quota counts the participant's rows in the store (uploads: `submissions`, refused ones too; challenges:
`challenges`) created in the last 24 h, so it holds across restarts; a refusal says when the next request
is allowed (the oldest counted one's time plus a day). The disk budget compares the data folder's bytes
(walked at most every `REFRESH_S`, and grown by what is accepted in between) with `budget.disk_budget_mb`;
over it, uploads are refused (507, nothing stored) and the ladder starts no new game, long before the disk
itself is full, so nothing already stored is cut short.
"""

from __future__ import annotations

import datetime
import threading
import time
from typing import Callable

from arena.errors import DiskBudgetExceeded, QuotaExceeded
from arena.ladder.db import Database
from arena.ladder.uploads.storage import MB, tree_bytes
from pathlib import Path

DAY_S = 86400.0


def when(at: float) -> str:
    """A time as the refusals write it: UTC, to the second."""
    return datetime.datetime.fromtimestamp(at, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def within_day(db: Database, sql: str, participant: int, per_day: int, what: str, now: float) -> None:
    """QuotaExceeded when `sql` (created times of the participant's rows since a time) counts `per_day` or
    more in the last 24 h, saying when the next is allowed."""
    rows = db.all(sql, participant, now - DAY_S)
    if len(rows) < per_day:
        return
    times = sorted(float(r["created"]) for r in rows)
    allowed = times[len(times) - per_day] + DAY_S
    wait = max(1.0, allowed - now)
    raise QuotaExceeded(f"the quota is {per_day} {what} a day and you have used it; your next is allowed at "
                        f"{when(allowed)} (in {int(wait // 3600)} h {int(wait % 3600 // 60)} min)", wait)


def check_uploads(db: Database, participant: int, per_day: int, now: float) -> None:
    within_day(db, "SELECT created FROM submissions WHERE participant_id = ? AND created > ?", participant, per_day,
               "uploads", now)


class DiskMeter:
    """The data folder's bytes against the budget (0: no budget)."""

    REFRESH_S = 30.0

    def __init__(self, data: Path, budget_mb: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.data, self.budget, self.clock = data, budget_mb * MB, clock
        self.used = 0
        self.measured_at: float | None = None
        self.lock = threading.Lock()

    def refresh(self, force: bool = False) -> int:
        """The bytes used (walked again when older than REFRESH_S, or `force`)."""
        with self.lock:
            now = self.clock()
            if force or self.measured_at is None or now - self.measured_at >= self.REFRESH_S:
                self.used = tree_bytes(self.data)
                self.measured_at = now
            return self.used

    def add(self, size: int) -> None:
        with self.lock:
            self.used += size

    def over(self) -> bool:
        return bool(self.budget) and self.refresh() >= self.budget

    def check(self, incoming: int) -> None:
        """DiskBudgetExceeded when `incoming` more bytes would pass the budget."""
        if not self.budget:
            return
        used = self.refresh()
        if used + incoming > self.budget:
            raise DiskBudgetExceeded(
                f"the server's data folder uses {used / MB:.1f} MB of its {self.budget / MB:.0f} MB disk budget "
                f"(and this upload may take {incoming / MB:.1f} MB): nothing was stored; try again later, and tell the "
                "organiser (replay retention frees room; or raise `budget.disk_budget_mb`)")

    def describe(self) -> str:
        if not self.budget:
            return f"{self.refresh() / MB:.1f} MB used (no budget)"
        used = self.refresh()
        state = "OVER: uploads and new games refused" if used >= self.budget else "ok"
        return f"{used / MB:.1f} MB used of {self.budget / MB:.0f} MB ({state})"
