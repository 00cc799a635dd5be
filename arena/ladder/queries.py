"""The ladder's reads of its store as typed rows: everything the routes and pages ask of the database.

The HTTP edge holds no SQL: it asks `Reads` (the server's `read`), and gets dataclasses back; states are
`arena.ladder.states`' enums, bound as parameters, never literals spread over files. JSON columns are
decoded here, at the store's edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.jsonvalue import JSON, loads
from arena.ladder.db import Database
from arena.ladder.states import BotState, GameState, SubmissionState

BOT_SQL = ("SELECT b.*, COALESCE(d.display_name, p.name) AS participant FROM bots b JOIN participants p ON p.id = b.participant_id "
           "LEFT JOIN display_names d ON d.participant_id = p.id")  # pages show a participant's display name (roster)


@dataclass(frozen=True)
class BotRef:
    """Whose a bot is and where its files lie: what every access decision about it needs."""

    id: int
    owner: int  # its participant
    folder: str


@dataclass(frozen=True)
class BotRow:
    id: int
    owner: int
    participant: str
    name: str
    version: str
    status: BotState
    reason: str
    mu: float
    sigma: float
    games: int
    wins: float
    faults: int
    fault_streak: int
    created: float
    command: tuple[str, ...]
    folder: str

    @property
    def rating(self) -> float:
        """The conservative rating the leaderboard sorts by."""
        return self.mu - 3 * self.sigma

    @classmethod
    def of(cls, r: Any) -> "BotRow":
        return cls(int(r["id"]), int(r["participant_id"]), str(r["participant"]), str(r["name"]), str(r["version"]),
                   BotState(r["status"]), str(r["reason"]), float(r["mu"]), float(r["sigma"]), int(r["games"]),
                   float(r["wins"]), int(r["faults"]), int(r["fault_streak"]), float(r["created"]),
                   tuple(loads(r["command"])), str(r["folder"]))


@dataclass(frozen=True)
class VersionRow:
    id: int
    version: str
    status: BotState
    created: float
    games: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class SeatRow:
    """One bot's seat in one finished game."""

    game: int
    seat: int
    rank: int
    points: float
    faults: int  # charged to this seat
    bots: list[int]  # the game's bots by seat
    finished: float
    game_faults: list[dict[str, JSON]]  # every fault of the game, as stored


@dataclass(frozen=True)
class GameRow:
    id: int
    seats: list[int]
    deal: int
    result: dict[str, JSON]
    faults: list[dict[str, JSON]]
    finished: float
    replay: str | None
    sha256: str | None
    signature: str | None


@dataclass(frozen=True)
class SubmissionRow:
    id: int
    participant: int
    status: SubmissionState
    reason: str
    report: str
    bot: int | None
    created: float
    finished: float | None
    folder: str


@dataclass(frozen=True)
class ParticipantRow:
    id: int
    name: str
    is_house: bool
    created: float
    latest_bot: BotRow | None  # its newest version, whatever its state
    active_bot: int | None


def _game(r: Any) -> GameRow:
    return GameRow(int(r["id"]), loads(r["seats"]), int(r["seed"]), loads(r["result"]) if r["result"] else {},
                   loads(r["faults"]) if r["faults"] else [], float(r["finished"] or 0.0), r["replay"], r["sha256"],
                   r["signature"])


def _submission(r: Any) -> SubmissionRow:
    return SubmissionRow(int(r["id"]), int(r["participant_id"]), SubmissionState(r["status"]), str(r["reason"]),
                         str(r["report"]), None if r["bot_id"] is None else int(r["bot_id"]), float(r["created"]),
                         None if r["finished"] is None else float(r["finished"]), str(r["folder"]))


class Reads:
    """Typed reads of one store."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def generation(self) -> int:
        """Bumped by every write: the key of cached answers."""
        return self.db.generation

    def setting(self, key: str, default: str = "") -> str:
        return self.db.setting(key, default)

    # --- bots -----------------------------------------------------------------------------------------

    def bot_refs(self, bots: Sequence[int]) -> dict[int, BotRef]:
        """Each bot's owner and folder: the one ownership lookup every access decision uses."""
        ids = sorted({int(b) for b in bots})
        if not ids:
            return {}
        rows = self.db.all(f"SELECT id, participant_id, folder FROM bots WHERE id IN ({','.join('?' * len(ids))})", *ids)
        return {int(r["id"]): BotRef(int(r["id"]), int(r["participant_id"]), str(r["folder"])) for r in rows}

    def bot(self, bot: int) -> BotRow | None:
        row = self.db.one(f"{BOT_SQL} WHERE b.id = ?", bot)
        return None if row is None else BotRow.of(row)

    def bots_of(self, participant: int) -> list[BotRow]:
        return [BotRow.of(r) for r in self.db.all(f"{BOT_SQL} WHERE b.participant_id = ? ORDER BY b.id", participant)]

    def ranked(self, every: bool) -> list[BotRow]:
        """Bots by conservative rating, best first: the active ones, or `every` version."""
        where, args = ("", ()) if every else (" WHERE b.status = ?", (BotState.ACTIVE,))
        return [BotRow.of(r) for r in self.db.all(f"{BOT_SQL}{where} ORDER BY b.mu - 3 * b.sigma DESC, b.id LIMIT 1000", *args)]

    def form(self, bot: int, games: int) -> list[tuple[int, int]]:
        """A bot's last `games` results, newest first: (its rank, how many seats ranked first)."""
        rows = self.db.all("SELECT s.rank, (SELECT COUNT(*) FROM game_seats t WHERE t.game_id = s.game_id AND t.rank = 1) "
                           "AS firsts FROM game_seats s WHERE s.bot_id = ? ORDER BY s.game_id DESC LIMIT ?", bot, games)
        return [(int(r["rank"]), int(r["firsts"])) for r in rows]

    def versions(self, participant: int) -> list[VersionRow]:
        rows = self.db.all("SELECT id, version, status, created, games, mu, sigma FROM bots WHERE participant_id = ? ORDER BY id",
                           participant)
        return [VersionRow(int(r["id"]), str(r["version"]), BotState(r["status"]), float(r["created"]), int(r["games"]),
                           float(r["mu"]), float(r["sigma"])) for r in rows]

    def seats_of(self, bot: int, limit: int) -> list[SeatRow]:
        """The bot's last `limit` finished games, newest first."""
        rows = self.db.all("SELECT g.id, g.seats, g.faults, g.finished, s.seat, s.rank, s.points, s.faults AS nf "
                           "FROM game_seats s JOIN games g ON g.id = s.game_id WHERE s.bot_id = ? ORDER BY s.game_id DESC LIMIT ?",
                           bot, limit)
        return [SeatRow(int(r["id"]), int(r["seat"]), int(r["rank"]), float(r["points"]), int(r["nf"]), loads(r["seats"]),
                        float(r["finished"] or 0.0), loads(r["faults"]) if r["faults"] else []) for r in rows]

    def rating_history(self, bot: int, limit: int = 500) -> list[tuple[int, float, float]]:
        """(game, mu, sigma) after each of the bot's last `limit` games, oldest first."""
        rows = self.db.all("SELECT game_id, mu, sigma FROM game_seats WHERE bot_id = ? ORDER BY game_id DESC LIMIT ?", bot, limit)
        return [(int(r["game_id"]), float(r["mu"]), float(r["sigma"])) for r in reversed(rows)]

    def head_to_head(self, bot: int) -> list[dict[str, int]]:
        """The bot against each other bot it met (its 100 most met), from the tally each game's commit keeps."""
        rows = self.db.all("SELECT other, games, ahead, level, behind FROM head_to_head WHERE bot_id = ? "
                           "ORDER BY games DESC, other LIMIT 100", bot)
        return [{k: int(r[k]) for k in ("other", "games", "ahead", "level", "behind")} for r in rows]

    def bot_labels(self) -> list[tuple[int, str, str, str]]:
        """Every bot version: (id, participant, name, version)."""
        rows = self.db.all("SELECT b.id, b.name, b.version, COALESCE(d.display_name, p.name) AS participant FROM bots b "
                           "JOIN participants p ON p.id = b.participant_id LEFT JOIN display_names d ON d.participant_id = p.id")
        return [(int(r["id"]), str(r["participant"]), str(r["name"]), str(r["version"])) for r in rows]

    # --- games ----------------------------------------------------------------------------------------

    def game_counts(self) -> dict[GameState, int]:
        """Games stored and in flight. Stored games are numbered 1, 2, ... in the order they were rated
        (`seq`, unique and indexed), so their count is the last number: no scan of a long ladder."""
        done = self.db.one("SELECT COALESCE(MAX(seq), 0) AS n FROM games")
        pending = self.db.one("SELECT COUNT(*) AS n FROM games WHERE status = ?", GameState.PENDING)
        return {GameState.DONE: int(done["n"]) if done else 0, GameState.PENDING: int(pending["n"]) if pending else 0}

    def finished_game(self, game: int) -> GameRow | None:
        row = self.db.one("SELECT * FROM games WHERE id = ? AND status = ?", game, GameState.DONE)
        return None if row is None else _game(row)

    def deal_open(self, games: Sequence[int]) -> frozenset[int]:
        """Those of `games` whose deal another game still has to play (pending: reserved, queued or in
        flight; a dropped game's row is gone): their hands are held (`access.hands_held`)."""
        ids = sorted({int(g) for g in games})
        if not ids:
            return frozenset()
        rows = self.db.all(f"SELECT DISTINCT a.id FROM games b JOIN games a ON a.seed = b.seed AND a.id != b.id "
                           f"WHERE b.status = ? AND a.id IN ({','.join('?' * len(ids))})", GameState.PENDING, *ids)
        return frozenset(int(r["id"]) for r in rows)

    def finished_games(self, bot: int | None, before: int, limit: int) -> list[GameRow]:
        """Finished games newest first, below id `before`; only `bot`'s where given (never one in flight)."""
        if bot is not None:
            rows = self.db.all("SELECT g.* FROM game_seats s JOIN games g ON g.id = s.game_id "
                               "WHERE s.bot_id = ? AND s.game_id < ? AND g.status = ? ORDER BY s.game_id DESC LIMIT ?",
                               bot, before, GameState.DONE, limit)
        else:
            rows = self.db.all("SELECT * FROM games WHERE status = ? AND id < ? ORDER BY id DESC LIMIT ?",
                               GameState.DONE, before, limit)
        return [_game(r) for r in rows]

    # --- submissions and participants ---------------------------------------------------------------

    def submission(self, sub: int) -> SubmissionRow | None:
        row = self.db.one("SELECT * FROM submissions WHERE id = ?", sub)
        return None if row is None else _submission(row)

    def submissions_of(self, participant: int, limit: int) -> list[SubmissionRow]:
        rows = self.db.all("SELECT * FROM submissions WHERE participant_id = ? ORDER BY id DESC LIMIT ?", participant, limit)
        return [_submission(r) for r in rows]

    def submissions_of_bot(self, bot: int) -> list[SubmissionRow]:
        return [_submission(r) for r in self.db.all("SELECT * FROM submissions WHERE bot_id = ? ORDER BY id", bot)]

    def checks_waiting(self) -> int:
        row = self.db.one("SELECT COUNT(*) AS n FROM submissions WHERE status IN (?, ?)",
                          SubmissionState.RECEIVED, SubmissionState.CHECKING)
        return int(row["n"]) if row else 0

    def participants(self) -> list[ParticipantRow]:
        """Every participant with its newest bot version and its active one."""
        latest: dict[int, BotRow] = {}
        active: dict[int, int] = {}
        for r in self.db.all(f"{BOT_SQL} ORDER BY b.id"):
            bot = BotRow.of(r)
            latest[bot.owner] = bot
            if bot.status is BotState.ACTIVE:
                active[bot.owner] = bot.id
        rows = self.db.all("SELECT id, name, is_house, created FROM participants ORDER BY id")
        return [ParticipantRow(int(r["id"]), str(r["name"]), bool(r["is_house"]), float(r["created"]), latest.get(int(r["id"])),
                               active.get(int(r["id"]))) for r in rows]
