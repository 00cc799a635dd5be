"""Challenges: a participant asks for games between its active bot and a chosen opponent's (or a house bot).

Unranked: a challenge's games are stored in `games` as `unranked` (no rating moves, no `game_seats` row,
so no leaderboard, bot page or game list shows them) and named in `challenge_games`. Paired deals, as
`arena match` plays them: with 2 players a deal is two games with the seats swapped; with more, the
challenger and the opponent each play the deal in the same seat against the same fillers (other active
bots, fixed when the challenge is made). The verdict is `arena match`'s own sequential test
(`arena.match.sequential.run_test` on the complete deals in order, NEW = the challenger); the challenge
ends at a verdict or at its most games. One deal of a challenge is in flight at a time; the ladder's
loop asks for it when the game-rate budget gives challenges their turn (`arena.ladder.competition.hub`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Sequence

from arena.errors import ServerError
from arena.jsonvalue import dumps, loads
from arena.ladder.db import Database, now
from arena.ladder.results import Finished
from arena.ladder.states import BotState, GameState
from arena.match.sequential import SprtSpec, Tally, Verdict, run_test

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS challenges (
    id INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES participants(id),
    bot_id INTEGER NOT NULL,           -- the challenger's bot (NEW in the test)
    opponent_id INTEGER NOT NULL,      -- the opponent's bot (OLD)
    fillers TEXT NOT NULL DEFAULT '[]', -- JSON list of bot ids: the other seats with 3+ players
    players INTEGER NOT NULL,
    max_games INTEGER NOT NULL,
    secret TEXT NOT NULL,              -- keys the deals' seeds
    status TEXT NOT NULL,              -- open | done
    verdict TEXT,
    created REAL NOT NULL,
    finished REAL)""",
    "CREATE INDEX IF NOT EXISTS challenges_participant ON challenges(participant_id, created)",
    """CREATE TABLE IF NOT EXISTS challenge_games (
    game_id INTEGER PRIMARY KEY,       -- games.id (a discarded game's row here is dropped at the next reservation)
    challenge_id INTEGER NOT NULL REFERENCES challenges(id),
    deal INTEGER NOT NULL,
    half INTEGER NOT NULL,             -- 0: NEW's game (2 players: NEW in seat 0), 1: OLD's
    UNIQUE (challenge_id, deal, half))""",
)
OPEN, DONE = "open", "done"


def create_tables(db: Database) -> None:
    for statement in SCHEMA:
        with db.write() as conn:
            conn.execute(statement)


@dataclass(frozen=True)
class ChallengeGame:
    """One stored game of a challenge as the sequential test reads it (`GameLike`): seats hold entrants,
    0 the challenger's bot, 1 the opponent's, 2... the fillers."""

    index: int
    round: int
    table: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    points: tuple[float, ...]
    game_id: int
    bots: tuple[int, ...]
    faults: tuple[Any, ...]


@dataclass(frozen=True)
class Challenge:
    id: int
    participant: int
    bot: int
    opponent: int
    fillers: tuple[int, ...]
    players: int
    max_games: int
    secret: str
    status: str
    verdict: str | None
    created: float
    finished: float | None

    @property
    def entrants(self) -> tuple[int, ...]:
        return (self.bot, self.opponent, *self.fillers)

    def seats(self, deal: int, half: int) -> tuple[int, ...]:
        """Bot ids by seat of the deal's game `half`."""
        if self.players == 2:
            return (self.bot, self.opponent) if half == 0 else (self.opponent, self.bot)
        seat = deal % self.players
        others = list(self.fillers)
        others.insert(seat, self.bot if half == 0 else self.opponent)
        return tuple(others)

    def seed(self, deal: int) -> int:
        """The deal's seed: the same for both games of a deal, from the challenge's own secret."""
        return int.from_bytes(hashlib.sha256(f"{self.secret}:{deal}".encode()).digest()[:8], "big") >> 1


def _challenge(r: Any) -> Challenge:
    return Challenge(int(r["id"]), int(r["participant_id"]), int(r["bot_id"]), int(r["opponent_id"]),
                     tuple(int(b) for b in loads(r["fillers"])), int(r["players"]), int(r["max_games"]), str(r["secret"]),
                     str(r["status"]), r["verdict"], float(r["created"]), None if r["finished"] is None else float(r["finished"]))


class Challenges:
    def __init__(self, db: Database, players: int, max_games: int) -> None:
        self.db, self.players, self.max_games = db, players, max_games
        create_tables(db)

    # --- asking ------------------------------------------------------------------------------------------

    def create(self, participant: int, opponent: int) -> Challenge:
        """A new open challenge of the participant's active bot against bot `opponent` (ServerError saying
        what to change when it cannot be played). The daily quota is checked by the caller first."""
        mine = self.db.one("SELECT id FROM bots WHERE participant_id = ? AND status = ?", participant, BotState.ACTIVE)
        if mine is None:
            raise ServerError("you have no active bot: submit one (or choose a version) before challenging")
        other = self.db.one("SELECT id, participant_id, status FROM bots WHERE id = ?", opponent)
        if other is None:
            raise ServerError(f"no bot {opponent}: challenge a bot on the leaderboard (its id or its participant's name)")
        if int(other["participant_id"]) == participant:
            raise ServerError("that bot is your own: challenge another participant's bot or a house bot")
        if other["status"] != BotState.ACTIVE:
            raise ServerError(f"bot {opponent} is {other['status']}, not on the ladder: challenge an active bot")
        fillers: list[int] = []
        if self.players > 2:
            rows = self.db.all("SELECT b.id FROM bots b JOIN participants p ON p.id = b.participant_id WHERE b.status = ? "
                               "AND b.id NOT IN (?, ?) ORDER BY p.is_house DESC, b.mu - 3 * b.sigma DESC, b.id",
                               BotState.ACTIVE, int(mine["id"]), opponent)
            fillers = [int(r["id"]) for r in rows[: self.players - 1]]
            if len(fillers) < self.players - 1:
                raise ServerError(f"a challenge at {self.players} players needs {self.players - 1} other active bots for "
                                  "the other seats; there are not enough yet")
        with self.db.write() as conn:
            cur = conn.execute("INSERT INTO challenges(participant_id, bot_id, opponent_id, fillers, players, max_games, secret, "
                               "status, created) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (participant, int(mine["id"]), opponent, dumps(fillers).decode(), self.players, self.max_games,
                                secrets.token_hex(16), OPEN, now()))
            cid = int(cur.lastrowid or 0)
        found = self.get(cid)
        assert found is not None
        return found

    def get(self, cid: int) -> Challenge | None:
        row = self.db.one("SELECT * FROM challenges WHERE id = ?", cid)
        return None if row is None else _challenge(row)

    def of(self, participant: int, limit: int = 50) -> list[Challenge]:
        return [_challenge(r) for r in self.db.all("SELECT * FROM challenges WHERE participant_id = ? ORDER BY id DESC LIMIT ?",
                                                   participant, limit)]

    def waiting(self) -> bool:
        return self.db.one("SELECT 1 FROM challenges WHERE status = ? LIMIT 1", OPEN) is not None

    # --- playing -----------------------------------------------------------------------------------------

    def reserve_next(self, field: Sequence[int]) -> list[tuple[int, tuple[int, ...], int]]:
        """The next games to play: the missing games of the lowest unfinished deal of the oldest open challenge
        whose bots the ladder's workers know (`field`), reserved as pending games; [] when none."""
        known = set(field)
        for row in self.db.all("SELECT * FROM challenges WHERE status = ? ORDER BY id", OPEN):
            ch = _challenge(row)
            if not set(ch.entrants) <= known:
                continue
            out: list[tuple[int, tuple[int, ...], int]] = []
            with self.db.write() as conn:
                conn.execute("DELETE FROM challenge_games WHERE challenge_id = ? AND game_id NOT IN (SELECT id FROM games)",
                             (ch.id,))  # games discarded by a restart: played again
                have = {(int(r["deal"]), int(r["half"])): str(r["status"]) for r in conn.execute(
                    "SELECT c.deal, c.half, g.status FROM challenge_games c JOIN games g ON g.id = c.game_id "
                    "WHERE c.challenge_id = ?", (ch.id,))}
                if GameState.PENDING in have.values():
                    continue  # one deal in flight per challenge
                deal = next((d for d in range(ch.max_games // 2) if (d, 0) not in have or (d, 1) not in have), None)
                if deal is None:
                    continue
                for half in (0, 1):
                    if (deal, half) in have:
                        continue
                    seats = ch.seats(deal, half)
                    cur = conn.execute("INSERT INTO games(status, seats, seed, created) VALUES(?, ?, ?, ?)",
                                       (GameState.PENDING, dumps(list(seats)).decode(), ch.seed(deal), now()))
                    game_id = int(cur.lastrowid or 0)
                    conn.execute("INSERT INTO challenge_games(game_id, challenge_id, deal, half) VALUES(?, ?, ?, ?)",
                                 (game_id, ch.id, deal, half))
                    out.append((game_id, seats, ch.seed(deal)))
            if out:
                return out
        return []

    def commit(self, done: Finished) -> bool:
        """Store a finished game if it is a challenge's (True), unranked, and decide its challenge's verdict."""
        link = self.db.one("SELECT challenge_id FROM challenge_games WHERE game_id = ?", done.game_id)
        if link is None:
            return False
        played = done.played
        result = {"points": list(played.points), "ranks": list(played.ranks), "game_ranks": list(played.game_ranks),
                  "fault_counts": list(played.fault_counts), "decisions": played.decisions, "duration_s": played.duration_s}
        with self.db.write() as conn:
            conn.execute("UPDATE games SET status = ?, finished = ?, result = ?, faults = ?, replay = ?, sha256 = ?, "
                         "signature = ? WHERE id = ? AND status = ?",
                         (GameState.UNRANKED, now(), dumps(result).decode(), dumps([f.to_json() for f in played.faults]).decode(),
                          done.replay, done.sha256, done.signature, done.game_id, GameState.PENDING))
        ch = self.get(int(link["challenge_id"]))
        if ch is not None and ch.status == OPEN:
            _tally, verdict, _rounds = self.test(ch)
            if verdict is not None:
                with self.db.write() as conn:
                    conn.execute("UPDATE challenges SET status = ?, verdict = ?, finished = ? WHERE id = ? AND status = ?",
                                 (DONE, verdict.value, now(), ch.id, OPEN))
        return True

    # --- reading -----------------------------------------------------------------------------------------

    def games(self, ch: Challenge) -> list[ChallengeGame]:
        """The challenge's stored games, in deal order."""
        entrant = {b: i for i, b in enumerate(ch.entrants)}
        rows = self.db.all("SELECT c.deal, c.half, g.id, g.seats, g.result, g.faults FROM challenge_games c JOIN games g "
                           "ON g.id = c.game_id WHERE c.challenge_id = ? AND g.status = ? ORDER BY c.deal, c.half",
                           ch.id, GameState.UNRANKED)
        out = []
        for r in rows:
            bots = tuple(int(b) for b in loads(r["seats"]))
            result: Any = loads(r["result"])
            out.append(ChallengeGame(2 * int(r["deal"]) + int(r["half"]), int(r["deal"]), 0, tuple(entrant[b] for b in bots),
                                     tuple(int(x) for x in result["ranks"]), tuple(float(x) for x in result["points"]),
                                     int(r["id"]), bots, tuple(loads(r["faults"]) if r["faults"] else ())))
        return out

    def test(self, ch: Challenge) -> tuple[Tally, Verdict | None, int]:
        """`arena match`'s sequential test over the challenge's complete deals: (tally, verdict or None, deals used)."""
        return run_test(self.games(ch), ch.players, SprtSpec.parse(None, ch.players), ch.max_games // 2, lambda g: g.points)

    def replay_of(self, game: int) -> str | None:
        """A stored challenge game's replay path (None: no such game, or its replay was not kept)."""
        row = self.db.one("SELECT replay FROM games WHERE id = ? AND status = ?", game, GameState.UNRANKED)
        return None if row is None or row["replay"] is None else str(row["replay"])

    def game_ids(self, ch: Challenge) -> set[int]:
        return {g.game_id for g in self.games(ch)}
