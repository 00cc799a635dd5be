"""Games in the server's store: reserving one, committing its result with the ratings it moves, and
recomputing every rating from the stored games (the check that incremental rating never drifted).

Ratings are TrueSkill through `arena.stats.ratings` (ties symmetric, as `arena standings`), one
game at a time in the order games finished (`games.seq`); nothing re-rates the store per game. A
seat with faults extends its bot's run of faulty games; `fault_limit` in a row suspends the bot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.core.result import Played
from arena.jsonvalue import JSON, dumps, loads
from arena.ladder.db import TALLY_ADD_SQL, Database, now
from arena.stats.ratings import FastRater, RatingModel, RatingOverflow
from arena.ladder.states import BotState, GameState

MODEL = RatingModel()


@dataclass(frozen=True)
class Finished:
    """What the ladder learnt of one game (from the executor's `GameDone`)."""

    game_id: int
    played: Played
    replay: str | None
    sha256: str | None = None
    signature: str | None = None


PUBLIC_SUFFIX = ".public.jsonl"


def public_path(replay: Path) -> Path:
    """Where a game's public record (`arena.ladder.access.public_replay`) lies beside its replay."""
    name = replay.name[: -len(".jsonl")] if replay.name.endswith(".jsonl") else replay.name
    return replay.with_name(name + PUBLIC_SUFFIX)


def reserve(db: Database, seats: tuple[int, ...], seed: int) -> int:
    """A pending game row; its id names the game (and its replay) from now on."""
    with db.write() as conn:
        cur = conn.execute("INSERT INTO games(status, seats, seed, created) VALUES(?, ?, ?, ?)",
                           (GameState.PENDING, dumps(list(seats)).decode(), seed, now()))
        return int(cur.lastrowid or 0)


def discard(db: Database, game_id: int) -> None:
    with db.write() as conn:
        conn.execute("DELETE FROM games WHERE id = ? AND status = ?", (game_id, GameState.PENDING))


def discard_pending(db: Database, replays: Path) -> int:
    """At start: games in flight when the server stopped are dropped with any partial replay."""
    rows = db.all("SELECT id FROM games WHERE status = ?", GameState.PENDING)
    for row in rows:
        for path in replays.glob(f"{int(row['id']):06d}-*"):
            path.unlink(missing_ok=True)
    with db.write() as conn:
        conn.execute("DELETE FROM games WHERE status = ?", (GameState.PENDING,))
    return len(rows)


def commit(db: Database, done: Finished, fault_limit: int, rater: FastRater) -> list[int]:
    """Store a finished game and move its bots' ratings, in one transaction; returns bots suspended."""
    suspended: list[int] = []
    played = done.played
    with db.write() as conn:
        row = conn.execute("SELECT seats, status FROM games WHERE id = ?", (done.game_id,)).fetchone()
        if row is None or row["status"] != GameState.PENDING:
            return []  # discarded, or already stored: never twice
        seats: list[int] = loads(row["seats"])
        bots = {r["id"]: r for r in conn.execute(
            f"SELECT id, mu, sigma, fault_streak, status FROM bots WHERE id IN ({','.join('?' * len(seats))})", seats)}
        priors = [(float(bots[b]["mu"]), float(bots[b]["sigma"])) for b in seats]
        try:
            post = rater.rate(priors, played.ranks)
        except RatingOverflow:
            post = priors
        seq = int(conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM games").fetchone()[0])
        result = {"points": list(played.points), "ranks": list(played.ranks), "game_ranks": list(played.game_ranks),
                  "fault_counts": list(played.fault_counts), "decisions": played.decisions, "duration_s": played.duration_s}
        conn.execute("UPDATE games SET status = ?, seq = ?, finished = ?, result = ?, faults = ?, replay = ?, "
                     "sha256 = ?, signature = ? WHERE id = ?",
                     (GameState.DONE, seq, now(), dumps(result).decode(), dumps([f.to_json() for f in played.faults]).decode(), done.replay, done.sha256,
                      done.signature, done.game_id))
        winners = sum(1 for r in played.ranks if r == 1)
        for s, bot in enumerate(seats):
            mu, sigma = post[s]
            faulty = played.fault_counts[s] > 0
            streak = int(bots[bot]["fault_streak"]) + 1 if faulty else 0
            conn.execute("INSERT INTO game_seats(game_id, seat, bot_id, rank, points, faults, mu, sigma) VALUES(?,?,?,?,?,?,?,?)",
                         (done.game_id, s, bot, played.ranks[s], played.points[s], played.fault_counts[s], mu, sigma))
            conn.execute("UPDATE bots SET mu = ?, sigma = ?, games = games + 1, wins = wins + ?, points = points + ?, "
                         "rank_sum = rank_sum + ?, faults = faults + ?, fault_streak = ? WHERE id = ?",
                         (mu, sigma, (1.0 / winners) if played.ranks[s] == 1 else 0.0, played.points[s], played.ranks[s],
                          played.fault_counts[s], streak, bot))
            if faulty and streak >= fault_limit and bots[bot]["status"] == BotState.ACTIVE:
                kinds = ", ".join(sorted({f.kind.value for f in played.faults if f.seat == s}))
                reason = (f"suspended after {streak} games in a row with faults; the last, game {done.game_id}: {kinds} "
                          "(its faults and stderr are on your bot's page; submit a fixed version)")
                conn.execute("UPDATE bots SET status = ?, reason = ? WHERE id = ?", (BotState.SUSPENDED, reason, bot))
                suspended.append(bot)
        conn.executemany(TALLY_ADD_SQL, [(a, b, int(ra < rb), int(ra == rb), int(ra > rb))
                                         for a, ra in zip(seats, played.ranks) for b, rb in zip(seats, played.ranks) if a != b])
    return suspended


def recompute(db: Database) -> dict[int, tuple[float, float, int]]:
    """Every bot's (mu, sigma, games) rated afresh from the stored games in their order."""
    rater = FastRater(MODEL)
    ratings: dict[int, tuple[float, float, int]] = {int(r["id"]): (MODEL.mu, MODEL.sigma, 0) for r in db.all("SELECT id FROM bots")}
    for row in db.all("SELECT seats, result FROM games WHERE status = ? ORDER BY seq", GameState.DONE):
        seats: list[int] = loads(row["seats"])
        result: Any = loads(row["result"])
        priors = [ratings[b][:2] for b in seats]
        try:
            post = rater.rate(priors, result["ranks"])
        except RatingOverflow:
            post = list(priors)
        for s, bot in enumerate(seats):
            ratings[bot] = (post[s][0], post[s][1], ratings[bot][2] + 1)
    return ratings
