"""Games a signed-in participant plays in person against chosen ladder bots (issue 41, item 2).

Unranked: a game here never touches a bot's rating, game count or the leaderboard (its own table,
`human_games`, not `games`). Each game runs on its own slot, not on the ladder's executor: the
executor's workers are separate processes (or a Dask cluster's) that know only the ladder's entrants
and take tasks first come first served, so they can neither prioritise a task nor host the person's
seat, whose loopback HTTP server must be reachable from this process. Instead each game is a thread
of the server process that lowers its own scheduling priority (`LOW_PRIORITY_NICE`, Linux's per-thread
nice value, which the bot processes it forks inherit) before starting the bots, so the ladder's ranked
games (niceness 0) win the CPU; at most `at_once` such games run, and each participant may start
`per_day` of them per UTC day (`human_games:` in the server config).

The person's seat is `arena.human.seat` (the same process as `arena play --human`), started with a
per-game secret only this process knows: the server forwards the signed-in owner's page requests to it
(`seat_url`), so the seat stays on loopback and nobody talks to it directly.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from arena.core.faults import FaultPolicy
from arena.errors import ArenaError, PlayRefused
from arena.games.registry import get_game
from arena.human.launch import start_human
from arena.jsonvalue import dumps, loads
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database, now
from arena.ladder.states import BotState
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from arena.rng import bot_seed, random_seed
from arena.sandbox.policy import SandboxPolicy
from arena.textsafe import clean

LOW_PRIORITY_NICE = 10  # the niceness of a person's game's bots: the ladder's ranked games come first
LAST_STATES_KEPT = 64  # games whose last seat state forwarded to their page is kept

SCHEMA = """
CREATE TABLE IF NOT EXISTS human_games (
    id INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    bots TEXT NOT NULL,          -- JSON: the bot id of every seat, null at the person's
    created REAL NOT NULL,
    status TEXT NOT NULL,        -- starting, playing, over, failed
    result TEXT NOT NULL DEFAULT '',  -- JSON: points and ranks by seat
    reason TEXT NOT NULL DEFAULT '',
    replay TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS human_games_by_participant ON human_games(participant_id, created);
"""


@dataclass(frozen=True)
class HumanGame:
    id: int
    participant: int
    seat: int
    bots: list[int | None]  # by seat; None at the person's
    created: float
    status: str
    result: Any
    reason: str
    replay: str


def low_priority() -> None:
    """Lower the calling thread's CPU priority (Linux: niceness is per thread and inherited by the
    processes it starts); elsewhere nothing."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY_NICE)
    except (OSError, AttributeError):
        pass


def day_start(at: float) -> float:
    """The start of the UTC day holding `at` (the quota's day)."""
    day = dt.datetime.fromtimestamp(at, dt.timezone.utc).date()
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()


class HumanGames:
    """Start, run and list the games people play against the ladder's bots."""

    def __init__(self, db: Database, config: ServerConfig, sandbox: bool, open_now: Callable[[], bool],
                 clock: Callable[[], float] = time.time) -> None:
        self.db, self.config, self.sandbox, self.open_now, self.clock = db, config, sandbox, open_now, clock
        self.rules = config.human_games
        self.lock = threading.Lock()
        self.seats: dict[int, str] = {}  # game id -> its seat's URL (secret included), while it is played
        self.threads: dict[int, threading.Thread] = {}
        self.processes: dict[int, list[BotProcess]] = {}  # each game's seat and bots, for `stop`
        self.stopping = threading.Event()
        self.last_states: dict[int, bytes] = {}  # each game's seat state as last forwarded to its player (the pages')
        with db.write() as conn:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            # games cut short by a server stop: over, with no result
            conn.execute("UPDATE human_games SET status = 'failed', reason = 'the server stopped during the game' "
                         "WHERE status IN ('starting', 'playing')")

    # --- reads --------------------------------------------------------------------------------------

    def game(self, game_id: int) -> HumanGame | None:
        row = self.db.one("SELECT * FROM human_games WHERE id = ?", game_id)
        return None if row is None else _game(row)

    def games_of(self, participant: int, limit: int = 50) -> list[HumanGame]:
        return [_game(r) for r in self.db.all("SELECT * FROM human_games WHERE participant_id = ? ORDER BY id DESC LIMIT ?",
                                              participant, limit)]

    def used_today(self, participant: int) -> int:
        row = self.db.one("SELECT COUNT(*) AS n FROM human_games WHERE participant_id = ? AND created >= ?",
                          participant, day_start(self.clock()))
        return int(row["n"]) if row is not None else 0

    def seat_url(self, game_id: int) -> str | None:
        """The seat's loopback URL while game `game_id` is played (the caller checks who asks)."""
        with self.lock:
            return self.seats.get(game_id)

    def keep_state(self, game_id: int, body: bytes) -> None:
        """The seat state last forwarded to game `game_id`'s page: what its page is shown once the seat is
        gone (the newest LAST_STATES_KEPT games' are kept, more than are ever played at once)."""
        with self.lock:
            self.last_states.pop(game_id, None)
            self.last_states[game_id] = body
            while len(self.last_states) > LAST_STATES_KEPT:
                self.last_states.pop(next(iter(self.last_states)))

    def kept_state(self, game_id: int) -> bytes | None:
        with self.lock:
            return self.last_states.get(game_id)

    # --- starting one ---------------------------------------------------------------------------------

    def start(self, participant: int, seat: int, opponents: list[int]) -> int:
        """Start a game: the participant at `seat`, `opponents` (ladder bot ids) in the other seats in
        order. PlayRefused (nothing started) for a closed competition, a wrong seat or bot, the quota used."""
        players = self.config.players
        if self.stopping.is_set():
            raise PlayRefused("the server is stopping: try again once it is back", 503)
        if not self.open_now():
            raise PlayRefused("the competition is closed: no new games are played", 409)
        if not 0 <= seat < players:
            raise PlayRefused(f"your seat must be from 0 to {players - 1} ({self.config.game} is played by {players})")
        if len(opponents) != players - 1:
            raise PlayRefused(f"choose {players - 1} ladder bot(s) for the other seats, got {len(opponents)}")
        rows = {}
        for bot in set(opponents):
            row = self.db.one("SELECT id, command, folder FROM bots WHERE id = ? AND status = ?", bot, BotState.ACTIVE)
            if row is None:
                raise PlayRefused(f"bot {bot} is not on the ladder now (only active bots can be played)", 404)
            rows[bot] = row
        with self.lock:
            running = sum(1 for t in self.threads.values() if t.is_alive())
            used = self.used_today(participant)
            if used >= self.rules.per_day:
                raise PlayRefused(f"you have played your {self.rules.per_day} game(s) against the ladder's bots today "
                                  "(the quota is per UTC day): try again tomorrow", 429)
            if running >= self.rules.at_once:
                raise PlayRefused(f"{running} game(s) against the ladder's bots are being played now, the most at once: "
                                  "try again in a few minutes", 429)
            bots: list[int | None] = list(opponents)
            bots.insert(seat, None)
            with self.db.write() as conn:
                cur = conn.execute("INSERT INTO human_games(participant_id, seat, bots, created, status) VALUES(?, ?, ?, ?, ?)",
                                   (participant, seat, dumps(bots).decode(), self.clock(), "starting"))
                game_id = int(cur.lastrowid or 0)
            thread = threading.Thread(target=self._play, args=(game_id, seat, [rows.get(b) if b is not None else None for b in bots]),
                                      name=f"human-game-{game_id}", daemon=True)
            self.threads[game_id] = thread
            thread.start()
        return game_id

    def _play(self, game_id: int, seat: int, bots: list[Any]) -> None:
        low_priority()
        config = self.config
        spec = get_game(config.game)
        seed = random_seed()
        # a person's pace: one clock rule for the table (as `arena play --human`)
        control = dataclasses.replace(config.time_control, decision_ms=self.rules.decision_ms, bank_ms=None, game_ms=None)
        replay = config.replays / f"human-{game_id:06d}.jsonl"
        boxed = SandboxPolicy(enabled=self.sandbox, hide=(str(replay),), private=(str(replay),))
        started: list[BotProcess] = []
        with self.lock:
            self.processes[game_id] = started
        status, result, reason = "failed", "", ""
        try:
            for i, row in enumerate(bots):
                if self.stopping.is_set():
                    break
                env = {"ARENA_SEED": str(bot_seed(seed, i))}
                if row is None:
                    human = start_human(spec.name, control, config.limits, env)
                    started.append(human.bot)
                    with self.lock:
                        self.seats[game_id] = human.url
                    continue
                command = tuple(str(a) for a in loads(row["command"]))
                started.append(BotProcess.start(BotSpec(f"bot{row['id']}", command, cwd=row["folder"], env=env, sandbox=boxed),
                                                control, config.limits))
            self._set(game_id, "playing")
            played = play_game(spec, started, seed=seed, options=dict(config.options), time_control=control,
                               policy=FaultPolicy.FORFEIT, replay_path=replay)
            status = "over"
            result = dumps({"points": list(played.points), "ranks": list(played.played.ranks),
                            # each fault's seat, kind and step: public, as any ladder game's (`access`); its detail is not
                            "faults": [{"seat": f.seat, "kind": f.kind.value, "step": f.step} for f in played.played.faults]}).decode()
        except ArenaError as exc:
            reason = clean(exc, 500)
        except Exception as exc:  # noqa: BLE001 - a broken game is recorded, never a dead server thread
            reason = f"{type(exc).__name__}: {clean(exc, 300)}"
        finally:
            for bot in started:
                try:
                    bot.close()
                except Exception:  # noqa: BLE001
                    pass
            with self.lock:
                self.seats.pop(game_id, None)
                self.processes.pop(game_id, None)
            if self.stopping.is_set():
                status, result, reason = "failed", "", "the server stopped during the game"
            with self.db.write() as conn:
                conn.execute("UPDATE human_games SET status = ?, result = ?, reason = ?, replay = ? WHERE id = ?",
                             (status, result, reason, str(replay) if replay.exists() else "", game_id))

    def _set(self, game_id: int, status: str) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE human_games SET status = ? WHERE id = ?", (status, game_id))

    def stop(self, timeout: float = 10.0) -> None:
        """The server stops: every game in progress ends now (its seat and bots killed, each bot in its own
        session would outlive the server), recorded as failed with no result."""
        self.stopping.set()
        with self.lock:
            processes = [p for group in self.processes.values() for p in list(group)]
            threads = list(self.threads.values())
        for process in processes:
            try:
                process.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass
        for thread in threads:
            thread.join(timeout / max(1, len(threads)))

    def wait(self, game_id: int, timeout: float) -> None:
        """Join a game's thread (tests, and a stopping server)."""
        thread = self.threads.get(game_id)
        if thread is not None:
            thread.join(timeout)


def _game(row: Any) -> HumanGame:
    return HumanGame(int(row["id"]), int(row["participant_id"]), int(row["seat"]), list(loads(row["bots"])),
                     float(row["created"]), str(row["status"]), loads(row["result"]) if row["result"] else None,
                     str(row["reason"]), str(row["replay"]))

