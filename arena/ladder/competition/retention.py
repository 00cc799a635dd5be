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

And how much disk a day a config will use (`disk_a_day`, printed by `arena serve` at start): games a day
(the budget's `games_per_hour` x 24 when set, else the rate the store shows over its last hour) times the
bytes a game leaves in replays/ (the mean of the last `SAMPLE` stored games' files as they lie, else the
reference size below, measured with `python -m bench.bench_budget`, BENCHMARKS.md); with retention, what
stays after `keep_days` is the sample's share.
"""

from __future__ import annotations

import gzip
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.ladder.competition.quota import DAY_S, DiskMeter
from arena.ladder.budget_config import Budget
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


def replay_files(replay: Path) -> list[Path]:
    """Every file a stored game may have in replays/: its replay and public record, plain or gzip, and signatures."""
    return [path.with_name(name) for path in (replay, public_path(replay))
            for name in (path.name, path.name + ".gz", path.name + ".sig.json")]


def remove_replay(replay: Path) -> None:
    for path in replay_files(replay):
        path.unlink(missing_ok=True)


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


# --- the forecast ---------------------------------------------------------------------------------------

SAMPLE = 200
# (plain bytes, gzip bytes) of one game's files in replays/ (replay with the bots' logs, public record,
# signature) of the shipped ladder config (configs/server/ladder.yaml, its house bots), measured by
# bench.bench_budget (BENCHMARKS.md): the estimate until this store has games of its own.
REFERENCE = (53_300, 14_800)
REFERENCE_NAME = "the shipped ladder's reference size"


@dataclass(frozen=True)
class Forecast:
    games_a_day: float | None  # None: not limited and not measured yet
    bytes_a_game: float | None
    measured: bool  # bytes_a_game from this store's own games (else the reference)
    kept_share: float  # of a day's replays, the share kept after keep_days (1: all)

    def bytes_a_day(self) -> float | None:
        if self.games_a_day is None or self.bytes_a_game is None:
            return None
        return self.games_a_day * self.bytes_a_game


def game_bytes(replay: Path) -> int:
    """The bytes one game's files take in replays/."""
    total = 0
    for path in replay_files(replay):
        try:
            total += path.stat().st_size
        except OSError:
            pass
    return total


def forecast(db: Database, budget: Budget, now: float) -> Forecast:
    rows = db.all("SELECT replay FROM games WHERE status != ? AND replay IS NOT NULL ORDER BY id DESC LIMIT ?",
                  GameState.PENDING, SAMPLE)
    sizes = [game_bytes(Path(str(r["replay"]))) for r in rows]
    sizes = [s for s in sizes if s]
    per_game: float | None = sum(sizes) / len(sizes) if sizes else None
    measured = per_game is not None
    if per_game is None:
        plain, packed = REFERENCE
        per_game = float(packed if budget.compress else plain)
    games: float | None = float(budget.games_per_hour * 24) if budget.games_per_hour else None
    if games is None:
        recent = db.one("SELECT COUNT(*) AS n FROM games WHERE status != ? AND finished > ?", GameState.PENDING, now - 3600.0)
        games = float(recent["n"]) * 24 if recent and int(recent["n"]) else None
    kept = 1.0 if not budget.keep_days else budget.keep_sample
    return Forecast(games, per_game, measured, kept)


def describe(f: Forecast, budget: Budget) -> str:
    """One line for `arena serve`'s start and the organiser's page."""
    size = "unknown size" if f.bytes_a_game is None else (
        f"{f.bytes_a_game / 1024:.1f} KB a game ({'measured here' if f.measured else REFERENCE_NAME}"
        f"{', compressed' if budget.compress else ''})")
    if f.games_a_day is None:
        rate = "games a day: as many as the workers play (no budget.games_per_hour; measured once games are stored)"
    else:
        rate = f"{f.games_a_day:.0f} games a day ({'budget.games_per_hour' if budget.games_per_hour else 'measured over the last hour'})"
    total = f.bytes_a_day()
    line = f"{rate} x {size}" + ("" if total is None else f" = {total / 1024 / 1024:.1f} MB a day")
    if budget.keep_days and total is not None:
        line += (f"; retention keeps {budget.keep_days:g} days in full ({budget.keep_days * total / 1024 / 1024:.1f} MB) "
                 f"and {100 * budget.keep_sample:g}% after ({f.kept_share * total / 1024 / 1024:.2f} MB a day)")
    if budget.settled_after:
        line += f"; fewer once settled ({budget.settled_games_per_hour} games an hour)"
    return line


def disk_a_day(db: Database, budget: Budget, now: float | None = None) -> str:
    return describe(forecast(db, budget, time.time() if now is None else now), budget)
