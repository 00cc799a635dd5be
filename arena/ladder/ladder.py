"""The ladder: a thread that keeps the executor busy with matchmade games and stores each as it ends.

It plays on the tournament executor seam (`arena.tournament.executor.Executor`): a local worker pool,
or a Dask cluster with `--cluster`. When a new bot version joins, the running executor is told
(`Executor.grow`: a message to its workers, the new bot an entrant added after the others) and its
first game is drawn at once; no other bot process is restarted. Disabled, suspended and replaced bots
stop being drawn and their processes are closed on the workers (retired in the same message). Each finished game is signed and committed with its rating update in
one transaction; games in flight when the server stops are discarded at the next start.
"""

from __future__ import annotations

import random
from dataclasses import replace
import secrets
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any, Protocol, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.tournament.config.cluster import ClusterSpec
from arena.jsonvalue import loads
from arena.ladder import access, results
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database
from arena.ladder.matchmaker import Candidate, next_tables
from arena.audit.signing import sign_replay
from arena.ladder.supervisor import CheckGate, Part
from arena.rng import new_secret, random_seed
from arena.textsafe import clean
from arena.errors import ServerError
from arena.sandbox.policy import SandboxPolicy
from arena.tournament.config.entrants import EntrantSetup
from arena.tournament.config.setup import PlaySetup
from arena.tournament.config.tournament_config import TournamentConfig
from arena.tournament.run.executor import Executor
from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameFailed, GameTask, WorkerBug, WorkerLost
from arena.tournament.run.player import PlayerSetup
from arena.tournament.run.local_pool import LocalPool
from arena.stats.ratings import FastRater
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.ladder.states import BotState
from arena.live.board import LiveBoard


def _entrant(bot: Any, i: int) -> EntrantSetup:
    # ARENA_SEED as in a check game (`arena play` gives one): 63 random bits, so its presence or its value
    # tells no bot whether it is being checked or playing the ladder
    return EntrantSetup(f"bot{bot['id']}" + (f"-pad{i}" if i else ""), tuple(str(a) for a in loads(bot["command"])),
                        cwd=bot["folder"], env={"ARENA_SEED": str(random_seed())})


def ladder_setup(config: ServerConfig, sandbox: bool) -> PlaySetup:
    """What every ladder game shares (the server config's game, seats, clocks, limits, sandbox), no entrant yet."""
    return PlaySetup(
        file=config.data / "ladder.yaml",  # never written: names the folder relative paths would use
        name=config.name, game=config.game, options=dict(config.options), players=config.players, entrants=(),
        root=Path("/"), seed=config.ladder.seed, sandbox=SandboxPolicy(enabled=sandbox),
        time_control=config.time_control, limits=config.limits,
        store=config.data / "ladder-workers.sqlite", replays=config.replays,
        keep_logs=True,  # each bot's stderr per step: its owner reads it beside each step
    )


def with_bots(setup: PlaySetup, bots: list[Any], pads: list[Any], field: TournamentConfig | None = None) -> TournamentConfig:
    """`field` (or a new config) with one entrant per bot added in code, in order. Bots are checked k at a
    time (one table each, so the checks stay cheap), a short group filled with pads (other bots, dropped after)."""
    k = setup.players or 2
    entrants = list(field.entrants) if field is not None else []
    for start in range(0, len(bots), k):
        group = [_entrant(b, 0) for b in bots[start:start + k]]
        group += [_entrant(pads[j], 1 + j) for j in range(k - len(group))]
        built = replace(setup, entrants=tuple(group)).build()
        entrants.extend(built.entrants[: len(bots[start:start + k])])
        field = field or built
    if field is None:
        raise ServerError("the ladder has no bots to play")
    return replace(field, entrants=tuple(entrants))


def tournament_config(config: ServerConfig, bots: list[Any], sandbox: bool) -> TournamentConfig:
    """A `TournamentConfig` whose entrant i is bots[i], for the executor's workers."""
    return with_bots(ladder_setup(config, sandbox), bots, bots)


def publish(key: Ed25519PrivateKey, server: str, game_id: int, played: Played, replay: str | None,
            seats: list[int]) -> results.Finished:
    """A finished game ready to commit: its public record (`access.public_replay`, what anyone downloads)
    written beside its replay and signed with its result."""
    sha = signature = None
    if replay is not None:
        full = Path(replay)
        public = results.public_path(full)
        public.write_bytes(access.public_replay(full.read_bytes(), len(seats)))
        record = sign_replay(key, public, server, game_id, {"points": list(played.points), "ranks": list(played.ranks),
                                                             "bots": seats})
        sha, signature = str(record["replay_sha256"]), str(record["signature"])
    return results.Finished(game_id, played, replay, sha, signature)


def server_secret(db: Database) -> str:
    """The server's own secret (made on first start, kept in the store, sent to the ladder's workers,
    never to a bot): the key of every ladder game's id and deal, as a tournament's secret is of its games."""
    secret = db.setting("secret")
    if not secret:
        secret = new_secret()
        db.set_setting("secret", secret)
    return secret


class SideGames(Protocol):
    """What the competition around the ladder decides in its loop (`arena.ladder.competition.hub`)."""

    def next_games(self, field: Sequence[int]) -> list[tuple[int, tuple[int, ...], int]] | None:
        """Before a new deal: None to start nothing now (the budget), [] for a ladder deal, or games of
        its own already reserved: (game id, bot ids by seat, deal seed)."""

    def ladder_started(self, games: int) -> None:
        """A ladder deal of `games` games was reserved."""

    def commit(self, done: results.Finished) -> bool:
        """Store a finished game if it is one of its own (True); False for a ladder game."""

    def ladder_stored(self) -> None:
        """A ladder game and its ratings were stored."""


class Ladder:
    def __init__(self, db: Database, config: ServerConfig, sandbox: bool, key: Ed25519PrivateKey,
                 cluster: ClusterSpec | None = None, gate: CheckGate | None = None) -> None:
        self.db, self.config, self.sandbox, self.key, self.cluster = db, config, sandbox, key, cluster
        self.gate = gate if gate is not None else CheckGate()  # shared with the checker: no new game while a check runs
        self.rng = random.Random(config.ladder.seed or None)  # who meets whom; never the deal (see _fill)
        self.secret = server_secret(db)  # keys every game's id and deal, as a tournament's secret does
        self.rater = FastRater(results.MODEL)
        self.stopping = threading.Event()
        self.wake = threading.Event()
        self.executor: Executor | None = None
        self.setup = ladder_setup(config, sandbox)
        self.field: tuple[int, ...] = ()  # bot ids the executor's workers know, in entrant order
        self.tournament: TournamentConfig | None = None  # their entrants: grown in code as bots join
        self.retired: tuple[int, ...] = ()  # entrants of the field no longer active (their bots closed on the workers)
        self.inflight: dict[int, GameTask] = {}
        self.queued: deque[GameTask] = deque()  # reserved, waiting for room in the executor
        self.played = 0
        self.error: str | None = None
        self.halted: Any = lambda: False  # the competition's phase stops the ladder (the final, closed): set by the Server
        self.live = LiveBoard(config.game, config.ladder.full_view_delay_s)  # the games in progress, for the live pages
        self.side: SideGames | None = None  # the competition's budget and challenges, when the server sets them

    # --- control -------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask the loop to end (the supervisor's part thread is joined by `Server.stop`)."""
        self.stopping.set()
        self.wake.set()

    def poke(self) -> None:
        """Something changed (a bot joined, the ladder resumed): look again now."""
        self.wake.set()

    @property
    def paused(self) -> bool:
        return self.db.setting("paused", "0") == "1" or bool(self.halted())

    # --- the loop ------------------------------------------------------------------------------------

    STALE_S = 300.0  # the loop beats between events; one event comes at least every game's length

    def run(self, part: Part) -> None:
        """The supervisor's part "ladder": the loop, from a clean state each time it is (re)started."""
        self.error = None
        try:
            results.discard_pending(self.db, self.config.replays)  # games cut short by a crash or this part's restart
            self._loop(part)
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {clean(exc, 500)}"
            raise
        finally:
            try:
                self._close(interrupted=True)
            except Exception as exc:  # noqa: BLE001 - e.g. the disk is still full: the next start discards them
                print(f"arena serve: closing the ladder's games: {type(exc).__name__}: {clean(exc, 300)}", file=sys.stderr, flush=True)
                self.executor = None
                self.gate.ended(len(self.inflight))
                self.inflight.clear()
                self.queued.clear()

    def _active(self) -> list[Any]:
        return self.db.all("SELECT id, mu, sigma, games, command, folder FROM bots WHERE status = ? ORDER BY id", BotState.ACTIVE)

    def _loop(self, part: Part) -> None:
        while not self.stopping.is_set():
            part.beat()
            active = self._active()
            ids = {int(b["id"]) for b in active}
            if self.executor is not None and not hasattr(self.executor, "grow") and not ids <= set(self.field):
                self._drain()  # an executor that cannot grow its field: let the games in flight end, restart with it
                self._close(interrupted=False)
            elif self.executor is not None and (not ids <= set(self.field) or self._retired(ids) != self.retired):
                self._grow(active)  # a bot joined or left: the workers hear it, no bot process restarts
            paused = self.paused
            if paused and self.queued:  # tables reserved but not started: a paused ladder holds none (in_flight: 0)
                for task in self.queued:
                    self._discard(task.index)
                self.queued.clear()
            if paused and self.executor is not None and not self.inflight and self.halted():
                self._close(interrupted=False)  # the final's phase: the ladder's workers give the machine back
            if self.executor is None and not paused and len(active) >= self.config.players:
                self._open(active)
            if self.executor is not None and not paused:
                self._fill([b for b in active if int(b["id"]) in set(self.field)])
            if self.inflight and self.executor is not None:
                self._handle(self.executor.next_event())
            else:
                self.wake.wait(0.5)
                self.wake.clear()

    def _open(self, bots: list[Any]) -> None:
        known = set(self.field)
        joined = [b for b in bots if int(b["id"]) not in known]
        if joined or self.tournament is None:  # the field grows: each new bot an entrant added to the config
            self.tournament = with_bots(self.setup, joined, bots, self.tournament)
        setup = PlayerSetup(self.tournament, secret=self.secret)
        executor: Executor
        if self.cluster is not None:
            from arena.tournament.run.dask_pool import DaskExecutor

            executor = DaskExecutor(self.cluster, live=self.live)
        else:
            executor = LocalPool(self.config.ladder.workers, live=self.live)
        executor.start(setup)
        self.executor, self.field = executor, (*self.field, *(int(b["id"]) for b in joined))

    def workers_status(self) -> list[dict[str, Any]]:
        """The executor's workers (games per minute, bot cache), for the admin page and `arena ladder status`."""
        status = getattr(self.executor, "workers_status", None)
        try:
            return list(status()) if status is not None else []
        except Exception:  # noqa: BLE001 - the cluster is out of reach: the ladder's own error says so
            return []

    def _retired(self, ids: set[int]) -> tuple[int, ...]:
        return tuple(i for i, bot in enumerate(self.field) if bot not in ids)

    def _grow(self, bots: list[Any]) -> None:
        """New bots added to the running executor's field as entrants, bots no longer active retired:
        a message to the workers (`Executor.grow`); every other bot process stays alive."""
        assert self.executor is not None and self.tournament is not None
        known = set(self.field)
        joined = [b for b in bots if int(b["id"]) not in known]
        if joined:
            self.tournament = with_bots(self.setup, joined, bots, self.tournament)
            self.field = (*self.field, *(int(b["id"]) for b in joined))
        self.retired = self._retired({int(b["id"]) for b in bots})
        self.executor.grow(PlayerSetup(self.tournament, secret=self.secret), self.retired)

    def _close(self, interrupted: bool) -> None:
        executor, self.executor = self.executor, None
        if executor is not None:
            for event in executor.close(interrupted):
                self._handle(event)
        for game in [*self.inflight, *(t.index for t in self.queued)]:
            self._discard(game)
        self.queued.clear()

    def _drain(self) -> None:
        while self.inflight and self.executor is not None and not self.stopping.is_set():
            self._handle(self.executor.next_event())

    def _fill(self, bots: list[Any]) -> None:
        assert self.executor is not None
        if self.gate.checks:
            return  # a check is on: no table reserved or started until it ends (`CheckGate`)
        busy: dict[int, int] = {}
        for task in [*self.inflight.values(), *self.queued]:
            for seat in task.game.seats:
                busy[self.field[seat]] = busy.get(self.field[seat], 0) + 1
        index = {bot: i for i, bot in enumerate(self.field)}
        rules = self.config.ladder
        while len(self.inflight) < self.executor.capacity:
            if not self.queued:
                reserved = self.side.next_games(self.field) if self.side is not None else []
                if reserved is None:
                    return  # the competition's budget: no game now (`SideGames`)
                if not reserved:
                    candidates = [Candidate(int(b["id"]), float(b["mu"]), float(b["sigma"]),
                                            int(b["games"]) + busy.get(int(b["id"]), 0)) for b in bots]
                    tables = next_tables(candidates, self.config.players, rules.min_games, rules.closeness, rules.duplicate,
                                         self.rng)
                    if not tables:
                        return
                    deals: dict[int, int] = {}  # the matchmaker's deal -> a fresh one from `secrets`, shared by its rotations
                    for table in tables:
                        deal = deals.setdefault(table.seed, secrets.randbits(63))
                        reserved.append((results.reserve(self.db, table.seats, deal), table.seats, deal))
                    if self.side is not None:
                        self.side.ladder_started(len(reserved))
                for r, (game_id, seats, deal) in enumerate(reserved):
                    # round = the game's own id (never reused): its id, keyed with the secret, is one per game
                    game = ScheduledGame(index=game_id, round=game_id, table=0, rotation=r,
                                         seats=tuple(index[b] for b in seats), seed=deal)
                    self.queued.append(GameTask(game, key=str(game_id)))
                    for b in seats:
                        busy[b] = busy.get(b, 0) + 1
            if not self.gate.admit():
                return  # a submission is being checked: its timing is not shared with new games (they wait, reserved)
            task = self.queued.popleft()
            self.inflight[task.index] = task
            at_table = [self.field[e] for e in task.game.seats]
            self.live.begin(task.index, [f"bot {b}" for b in at_table], at_table, deal=task.game.seed)
            self.executor.submit(task)

    def _ended(self, game_id: int) -> None:
        if self.inflight.pop(game_id, None) is not None:
            self.gate.ended()

    def _discard(self, game_id: int) -> None:
        self.live.drop(game_id)  # never revealed: it has no result
        self._ended(game_id)
        results.discard(self.db, game_id)
        for path in self.config.replays.glob(f"{game_id:06d}-*"):
            path.unlink(missing_ok=True)

    def _handle(self, event: Event) -> None:
        if isinstance(event, GameDone):
            self._store(event)
        elif isinstance(event, (GameFailed, WorkerBug)):
            detail = event.message if isinstance(event, GameFailed) else event.traceback
            print(f"arena serve: a ladder game was dropped: {clean(detail, 2000, keep_newlines=True)}", file=sys.stderr, flush=True)
            if event.task is not None:
                self._discard(event.task.index)
        elif isinstance(event, WorkerLost):
            print(f"arena serve: {event.worker} was lost ({event.detail}); its games are dropped", file=sys.stderr, flush=True)
            for task in event.tasks:
                self._discard(task.index)
        elif isinstance(event, ClosingFaults):
            for name, fault in event.faults:
                print(f"arena serve: {name}: {fault.kind.value}: {clean(fault.detail, 300)}", file=sys.stderr, flush=True)

    def _store(self, event: GameDone) -> None:
        stored = event.stored
        game_id = event.task.index
        self._ended(game_id)
        seats = [self.field[e] for e in stored.seats]
        done = publish(self.key, self.config.name, game_id, stored.played, stored.replay_path, seats)
        if self.side is not None and self.side.commit(done):
            return  # a challenge's game: stored unranked
        results.commit(self.db, done, self.config.ladder.fault_limit, self.rater)
        self.live.end(game_id)  # stored: public, as every finished game
        self.played += 1
        if self.side is not None:
            self.side.ladder_stored()
