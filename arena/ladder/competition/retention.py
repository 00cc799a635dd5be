"""Keeping the data folder within bounds: replays compressed at rest, old replays thinned, old reports of
refused submissions emptied, and the disk budget's measure refreshed. A background part of the server
(`upkeep`), one sweep a minute; each sweep is also a plain function call for the tests and the benchmark.

- Compressed at rest: once a game is stored, its replay and its public record are rewritten as gzip
  (`NAME.gz`, written beside and renamed over, then the plain file removed); every reader of a replay
  (`arena.replay.reader.read_replay_bytes`) reads either, so the viewer and `arena verify` see the same
  bytes the server signed. The signature records stay as they are.
- Retention (`budget.keep_days` > 0): a game's replay is kept while the game is younger than keep_days,
  and after that only for a sample (every game whose id is a multiple of round(1 / keep_sample)) and for
  each bot's last `keep_per_bot` ladder games. A removed replay's game keeps its row, result, ratings and
  hash; its replay answers 404 "no replay".
- A refused submission's files are removed at its verdict (the checker); its report (the bot's stderr)
  is emptied `refused_keep_days` after the verdict.
"""

from __future__ import annotations

import gzip
import os
import threading
import time
from pathlib import Path
from typing import Callable

from arena.ladder.competition.quota import DAY_S, DiskMeter
from arena.ladder.competition.rules import Budget
from arena.ladder.db import Database
from arena.ladder.results import public_path
from arena.ladder.states import GameState, SubmissionState
from arena.ladder.supervisor import Part

BATCH = 500
REPORT_REMOVED = "(the report was removed {days:g} days after the verdict: budget.refused_keep_days)"


def compress_file(path: Path) -> bool:
    """`path` rewritten as `path.gz` (gzip); False when there was no plain file to compress."""
    if not path.is_file():
        return False
    data = path.read_bytes()
    target = path.with_name(path.name + ".gz")
    tmp = path.with_name(f"{path.name}.gz.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
    os.replace(tmp, target)
    path.unlink(missing_ok=True)
    return True


def remove_replay(replay: Path) -> None:
    """A game's replay and public record, plain or compressed, and the public record's signature."""
    public = public_path(replay)
    for path in (replay, public):
        for name in (path.name, path.name + ".gz", path.name + ".sig.json"):
            path.with_name(name).unlink(missing_ok=True)


class Upkeep:
    def __init__(self, db: Database, budget: Budget, meter: DiskMeter, clock: Callable[[], float] = time.time) -> None:
        self.db, self.budget, self.meter, self.clock = db, budget, meter, clock
        self.last: dict[str, int] = {}
        self.lock = threading.Lock()  # one sweep at a time (the part's and the organiser's `POST /api/v1/admin/upkeep`)

    def sweep(self) -> dict[str, int]:
        """One pass: compress, thin, empty old reports, measure the disk. Counts of what it did."""
        with self.lock:
            return self._sweep()

    def _sweep(self) -> dict[str, int]:
        done = {"compressed": self.compress() if self.budget.compress else 0, "removed": self.thin(),
                "reports_emptied": self.empty_reports()}
        self.meter.refresh(force=True)
        self.last = done
        return done

    def compress(self) -> int:
        """Stored games' replays not yet compressed, oldest first, a batch at a time."""
        mark = int(self.db.setting("compressed_upto", "0") or 0)
        count = 0
        while True:
            rows = self.db.all("SELECT id, status, replay FROM games WHERE id > ? ORDER BY id LIMIT ?", mark, BATCH)
            stored = [r for r in rows if r["status"] != GameState.PENDING]
            if len(stored) < len(rows):
                rows = rows[: next(i for i, r in enumerate(rows) if r["status"] == GameState.PENDING)]  # stop at one in flight
            for r in rows:
                if r["replay"]:
                    full = Path(str(r["replay"]))
                    count += int(compress_file(full))
                    compress_file(public_path(full))
                mark = int(r["id"])
            if rows:
                self.db.set_setting("compressed_upto", str(mark))
            if len(rows) < BATCH:
                return count

    def thin(self) -> int:
        """Replays of games past `keep_days`, neither in the sample nor a bot's last `keep_per_bot`, removed."""
        if not self.budget.keep_days:
            return 0
        before = self.clock() - self.budget.keep_days * DAY_S
        every = round(1 / self.budget.keep_sample) if self.budget.keep_sample else 0
        kept: set[int] = set()
        if self.budget.keep_per_bot:
            kept = {int(r["game_id"]) for r in self.db.all(
                "SELECT game_id FROM (SELECT game_id, ROW_NUMBER() OVER (PARTITION BY bot_id ORDER BY game_id DESC) AS n "
                "FROM game_seats) WHERE n <= ?", self.budget.keep_per_bot)}
        rows = self.db.all("SELECT id, replay FROM games WHERE status != ? AND replay IS NOT NULL AND finished < ?",
                           GameState.PENDING, before)
        gone = [r for r in rows if int(r["id"]) not in kept and not (every and int(r["id"]) % every == 0)]
        for r in gone:
            remove_replay(Path(str(r["replay"])))
        for start in range(0, len(gone), BATCH):
            ids = [int(r["id"]) for r in gone[start:start + BATCH]]
            with self.db.write() as conn:
                conn.execute(f"UPDATE games SET replay = NULL WHERE id IN ({','.join('?' * len(ids))})", ids)
        return len(gone)

    def empty_reports(self) -> int:
        days = self.budget.refused_keep_days
        with self.db.write() as conn:
            cur = conn.execute("UPDATE submissions SET report = ? WHERE status = ? AND finished < ? AND report != ? AND report != ''",
                               (REPORT_REMOVED.format(days=days), SubmissionState.REFUSED, self.clock() - days * DAY_S,
                                REPORT_REMOVED.format(days=days)))
            return int(cur.rowcount or 0)

    SWEEP_S = 60.0
    STALE_S = 900.0

    def run(self, part: Part) -> None:
        """The supervisor's part "upkeep": a sweep, then one a minute until stopped."""
        while not part.stopping.is_set():
            part.beat()
            self.sweep()
            part.beat()
            part.stopping.wait(self.SWEEP_S)
