"""How much disk a day a server's config will use: games a day times the bytes a game leaves on disk.

Games a day: the budget's `games_per_hour` x 24 when set, else the rate the store shows over its last hour
of games (none yet: unknown, as fast as the workers play). Bytes a game: the mean of the files the last
`SAMPLE` stored games left in `replays/` (as they lie: compressed or not), else the reference size this
module ships per game, measured with `python -m bench bench_budget` (BENCHMARKS.md), scaled by the
compression the config asks for. With retention, what stays after `keep_days` is the sample's share.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.ladder.competition.rules import Budget
from arena.ladder.db import Database
from arena.ladder.results import public_path
from arena.ladder.states import GameState

SAMPLE = 200
# (plain bytes, gzip bytes) of one game's files in replays/ (replay with the bots' logs, public record,
# signature), 2 players, measured by bench.bench_budget with the sample bots: see BENCHMARKS.md.
REFERENCE: dict[str, tuple[int, int]] = {"kododo": (36_000, 7_000)}


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
    """The bytes one game's files take in replays/: the replay and its public record, plain or gzip, and the signature."""
    total = 0
    for path in (replay, public_path(replay)):
        for name in (path.name, path.name + ".gz", path.name + ".sig.json"):
            try:
                total += path.with_name(name).stat().st_size
            except OSError:
                pass
    return total


def forecast(db: Database, game: str, budget: Budget, now: float) -> Forecast:
    rows = db.all("SELECT replay FROM games WHERE status != ? AND replay IS NOT NULL ORDER BY id DESC LIMIT ?",
                  GameState.PENDING, SAMPLE)
    sizes = [game_bytes(Path(str(r["replay"]))) for r in rows]
    sizes = [s for s in sizes if s]
    per_game: float | None = sum(sizes) / len(sizes) if sizes else None
    measured = per_game is not None
    if per_game is None and game in REFERENCE:
        plain, packed = REFERENCE[game]
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
        f"{f.bytes_a_game / 1024:.1f} KB a game ({'measured here' if f.measured else 'reference size'}"
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


def disk_a_day(db: Database, game: str, budget: Budget, now: float | None = None) -> str:
    import time

    return describe(forecast(db, game, budget, time.time() if now is None else now), budget)
