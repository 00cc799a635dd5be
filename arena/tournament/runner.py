"""Plays a tournament's schedule: N games at once, bots kept alive, results committed one by one.

Why worker processes and not threads: the referee is CPU-bound Python (views, JSON, game rules), so
threads would share one core through the GIL. Each worker owns its own bot processes, keeps them
across games (starting a Python bot costs ~30 ms, node ~115 ms) and restarts one only when it died.
The main process hands out schedule indices in order (two per worker, so none waits for work), and
is the only one that touches the store: one writer, each game its own transaction.

Why results do not depend on concurrency: a game's seats and seed come from its schedule index alone,
and ratings are computed in schedule order, whichever game finished first.

Stopping: Ctrl-C reaches the workers, which abandon the game in progress and close their bots (each
bot's whole process group is killed) in a `finally`; the main process stores every result that was
already finished, then waits for the workers. Each worker talks to the main process over its own pipe
and holds no copy of the main's end, so a worker whose parent was killed (even by SIGKILL) sees the
pipe close and exits after at most the game it was playing, closing its bots.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import contextlib
import signal
import sys
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Iterator, TextIO

from arena.errors import ArenaError, BotStartError
from arena.referee.bot import BotProcess, BotSpec, Limits
from arena.referee.clock import TimeControl
from arena.referee.faults import Fault, FaultPolicy
from arena.referee.referee import GameResult, play_game
from arena.tournament import schedule as sched
from arena.tournament.config import TournamentConfig
from arena.tournament.ratings import OrderedRatings, RatingModel, Standing, leaderboard
from arena.tournament.schedule import ScheduledGame
from arena.tournament.store import Store, StoredGame

PREFETCH = 2  # games queued per worker: one playing, one ready, so a worker never waits for the main


class RunnerError(ArenaError):
    """The run could not go on (a bot that never starts, a worker that died); finished games are kept."""


@dataclass
class RunSummary:
    store: Path
    total: int  # games in the schedule
    stored_before: int  # already in the store when the run began (resumed)
    played: int  # finished and stored by this run
    interrupted: bool
    duration_s: float
    decisions: int
    standings: list[Standing] = field(default_factory=list)
    bot_faults: list[tuple[str, Fault]] = field(default_factory=list)  # found closing bots, outside games

    @property
    def stored(self) -> int:
        return self.stored_before + self.played

    @property
    def games_per_second(self) -> float:
        return self.played / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.duration_s if self.duration_s > 0 else 0.0


# --- playing games with long-lived bots -------------------------------------------------------------


class GamePlayer:
    """Plays scheduled games, keeping one bot process per (entrant, seat copy) alive between games."""

    def __init__(self, config: TournamentConfig, restart_bots: bool = False) -> None:
        self.config = config
        self.restart_bots = restart_bots
        self.spec = config.game_spec()
        tc = config.time_control
        self.time_control = TimeControl(
            decision_ms=tc.decision_ms, bank_ms=tc.bank_ms, increment_ms=tc.increment_ms, startup_ms=tc.startup_ms
        )
        lim = config.limits
        extra = {"max_line_bytes": lim.max_line_bytes} if lim.max_line_bytes is not None else {}
        self.limits = Limits(cpu_seconds=lim.cpu_seconds, memory_mb=lim.memory_mb, **extra)
        self.policy = FaultPolicy(config.fault_policy.value)
        self.bots: dict[tuple[int, int], BotProcess] = {}
        self.started_once: set[tuple[int, int]] = set()
        self.bot_faults: list[tuple[str, Fault]] = []  # (entrant, fault): no_exit / orphans seen at close

    def _close(self, key: tuple[int, int], bot: BotProcess) -> None:
        bot.close()
        name = self.config.entrants[key[0]].name
        self.bot_faults.extend((name, fault) for fault in bot.close_faults)
        bot.close_faults.clear()

    def _bot(self, entrant: int, copy: int) -> BotProcess:
        key = (entrant, copy)
        bot = self.bots.get(key)
        if bot is not None and bot.alive:
            return bot
        if bot is not None:
            self._close(key, bot)
        e = self.config.entrants[entrant]
        name = e.name if copy == 0 else f"{e.name}#{copy + 1}"
        try:
            bot = BotProcess.start(BotSpec(name, e.command, e.cwd, dict(e.env), e.sandbox), self.time_control, self.limits)
        except BotStartError as exc:
            if key not in self.started_once or bot is None:
                raise RunnerError(f"entrant {e.name!r} could not start: {exc}") from None
            # It started before, then died and will not come back: the referee gives its seats a
            # start_failed fault, so the tournament goes on and the fault policy decides the ranks.
            return bot
        self.bots[key] = bot
        self.started_once.add(key)
        return bot

    def play(self, game: ScheduledGame) -> StoredGame:
        copies: dict[int, int] = {}
        bots = []
        for entrant in game.seats:
            copy = copies.get(entrant, 0)
            copies[entrant] = copy + 1
            bots.append(self._bot(entrant, copy))
        replay = None
        if self.config.replays is not None:
            replay = str(self.config.replays / f"{game.index:06d}-{game.game_id}.jsonl")
        try:
            result = play_game(
                self.spec,
                bots,
                seed=game.seed,
                options=self.config.options,
                time_control=self.time_control,
                policy=self.policy,
                replay_path=replay,
                game_id=f"{self.config.name}-{game.game_id}",
            )
        finally:
            if self.restart_bots:
                self.close()
        return _stored(game, result)

    def close(self) -> None:
        bots, self.bots = self.bots, {}
        for key, bot in bots.items():
            self._close(key, bot)


def _stored(game: ScheduledGame, result: GameResult) -> StoredGame:
    counts = [0] * len(game.seats)
    for fault in result.faults:
        if 0 <= fault.seat < len(counts):
            counts[fault.seat] += 1
    return StoredGame(
        index=game.index,
        game_id=game.game_id,
        round=game.round,
        table=game.table,
        rotation=game.rotation,
        seed=game.seed,
        seats=game.seats,
        points=tuple(result.points),
        tiebreaks=tuple(tuple(t) for t in result.tiebreaks),
        ranks=tuple(result.ranks),
        game_ranks=tuple(result.game_ranks),
        faults=tuple(f.to_json() for f in result.faults),
        fault_counts=tuple(counts),
        versions=tuple(result.versions),
        decisions=result.decisions,
        duration_s=result.duration_s,
        replay_path=result.replay_path,
    )


# --- worker processes ---------------------------------------------------------------------------------


def _interrupt_once(signum: int, frame: FrameType | None) -> None:
    """First Ctrl-C stops the game; later ones are ignored so the cleanup that follows runs to its end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _worker_main(conn: multiprocessing.connection.Connection, config: TournamentConfig, restart_bots: bool) -> None:
    signal.signal(signal.SIGINT, _interrupt_once)
    signal.signal(signal.SIGTERM, _interrupt_once)
    player = GamePlayer(config, restart_bots)
    try:
        while True:
            game = conn.recv()  # EOFError once the main process is gone
            if game is None:
                break
            try:
                stored = player.play(game)
            except ArenaError as exc:
                conn.send(("error", game.index, str(exc)))
                break
            conn.send(("result", stored))
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass
    except Exception:  # noqa: BLE001 - a bug: report it across the process boundary, then fail
        try:
            conn.send(("crash", -1, traceback.format_exc()))
        except OSError:
            pass
        raise
    finally:
        player.close()
        try:
            conn.send(("bot_faults", player.bot_faults))
        except OSError:
            pass  # the main process is gone: nobody to tell
        conn.close()


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    queued: deque[int] = field(default_factory=deque)
    open: bool = True


# --- progress --------------------------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on stderr: games done, rate, ETA, the current leader."""

    def __init__(self, total: int, done: int, stream: TextIO | None = None, min_interval: float = 0.2) -> None:
        self.total = total
        self.start_done = done
        self.done = done
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.min_interval = min_interval if self.tty else 10.0
        self.started = time.monotonic()
        self.last_draw = 0.0

    def due(self) -> bool:
        return time.monotonic() - self.last_draw >= self.min_interval or self.done >= self.total

    def update(self, done: int, leader: Callable[[], str]) -> None:
        self.done = done
        if not self.due():
            return
        self.last_draw = time.monotonic()
        elapsed = self.last_draw - self.started
        ran = self.done - self.start_done
        rate = ran / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else None
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        line = (
            f"[{bar}] {self.done}/{self.total} games  {rate:.1f}/s  ETA {_clock(eta)}  leader: {leader()}"
        )
        if self.tty:
            self.stream.write("\r\x1b[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty and self.last_draw:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


# --- the run --------------------------------------------------------------------------------------------


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does (finished games kept, bots closed), not halfway through a write."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Cleanup that a second Ctrl-C must not cut short (it would leave bots running)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    previous_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)



def open_store(config: TournamentConfig, fresh: bool = False) -> Store:
    return Store.create_or_resume(
        config.store,
        name=config.name,
        game=config.game,
        fingerprint=config.fingerprint(),
        identity=config.identity(),
        entrants=[(e.name, e.raw_command) for e in config.entrants],
        total_games=sched.count(config.schedule),
        fresh=fresh,
    )


def run(
    config: TournamentConfig,
    *,
    concurrency: int | None = None,
    fresh: bool = False,
    restart_bots: bool | None = None,
    progress_stream: TextIO | None = None,
    quiet: bool = False,
    model: RatingModel = RatingModel(),
) -> RunSummary:
    """Play every game of the schedule that the store does not hold yet, then rate them all."""
    n_workers = concurrency or config.concurrency or os.cpu_count() or 1
    restart = config.restart_bots if restart_bots is None else restart_bots
    schedule = config.games()
    store = open_store(config, fresh)
    try:
        done = store.done_indices()
        todo = deque(g for g in schedule if g.index not in done)
        ratings = store.ratings(model)
        names = config.names
        progress = None if quiet else Progress(len(schedule), len(done), progress_stream)

        def leader() -> str:
            top = leaderboard(ratings.current(), names)[0]
            return f"{top.name} ({top.score:.2f})"

        state = _RunState(store, ratings, progress, leader)
        started = time.monotonic()
        interrupted = False
        try:
            if todo:
                with _terminate_as_interrupt():
                    if n_workers <= 1 or len(todo) == 1:
                        _run_inline(config, restart, todo, state)
                    else:
                        _run_workers(config, restart, todo, state, min(n_workers, len(todo)))
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if progress is not None:
                progress.finish()
        duration = time.monotonic() - started
        store.record_bot_faults(state.bot_faults)
        standings = store.standings(model)  # from the store itself: what it holds is what counts
        return RunSummary(
            store=config.store,
            total=len(schedule),
            stored_before=len(done),
            played=state.played,
            interrupted=interrupted,
            duration_s=duration,
            decisions=state.decisions,
            standings=standings,
            bot_faults=list(state.bot_faults),
        )
    finally:
        store.close()


@dataclass
class _RunState:
    store: Store
    ratings: OrderedRatings
    progress: Progress | None
    leader: Callable[[], str]
    played: int = 0
    decisions: int = 0
    bot_faults: list[tuple[str, Fault]] = field(default_factory=list)

    def finished(self, game: StoredGame) -> None:
        self.store.record(game)
        self.ratings.add(game.rated())
        self.played += 1
        self.decisions += game.decisions
        if self.progress is not None:
            self.progress.update(self.progress.start_done + self.played, self.leader)


def _run_inline(config: TournamentConfig, restart: bool, todo: deque[ScheduledGame], state: _RunState) -> None:
    player = GamePlayer(config, restart)
    try:
        while todo:
            state.finished(player.play(todo.popleft()))
    finally:
        with _uninterrupted():
            player.close()
        state.bot_faults.extend(player.bot_faults)


def _run_workers(
    config: TournamentConfig, restart: bool, todo: deque[ScheduledGame], state: _RunState, n: int
) -> None:
    ctx = multiprocessing.get_context("spawn")
    workers: list[_Worker] = []
    try:
        for _ in range(n):
            mine, theirs = ctx.Pipe(duplex=True)
            proc = ctx.Process(target=_worker_main, args=(theirs, config, restart), daemon=False)
            proc.start()
            theirs.close()  # only the worker holds its end: its death (or ours) closes the pipe
            workers.append(_Worker(proc, mine))
        for w in workers:
            _feed(w, todo)
        try:
            _collect(workers, todo, state)
        except BaseException:
            # Ctrl-C or a failure: stop the other games, but keep those that already finished.
            _interrupt(workers)
            _drain(workers, state)
            raise
    finally:
        with _uninterrupted():
            _shutdown(workers, state)


def _feed(worker: _Worker, todo: deque[ScheduledGame]) -> None:
    while todo and len(worker.queued) < PREFETCH:
        game = todo.popleft()
        worker.conn.send(game)
        worker.queued.append(game.index)


def _handle(worker: _Worker, message: tuple[Any, ...], state: _RunState) -> None:
    kind = message[0]
    if kind == "result":
        stored: StoredGame = message[1]
        if worker.queued and worker.queued[0] == stored.index:
            worker.queued.popleft()
        state.finished(stored)
    elif kind == "error":
        raise RunnerError(f"game {message[1]}: {message[2]}")
    else:
        raise RunnerError(f"a worker process failed (a bug in arena):\n{message[2]}")


def _collect(workers: list[_Worker], todo: deque[ScheduledGame], state: _RunState) -> None:
    by_conn = {w.conn: w for w in workers}
    while any(w.queued for w in workers):
        for conn in multiprocessing.connection.wait([w.conn for w in workers if w.queued]):
            worker = by_conn[conn]  # type: ignore[index]
            try:
                message = worker.conn.recv()
            except EOFError:
                worker.open = False
                code = worker.process.exitcode
                raise RunnerError(
                    f"a worker process ended unexpectedly (exit code {code}) with games {list(worker.queued)} unfinished"
                ) from None
            _handle(worker, message, state)
            _feed(worker, todo)


def _interrupt(workers: list[_Worker]) -> None:
    """Pass the interrupt on (a terminal's Ctrl-C already did; a `kill -INT` of the main did not)."""
    for w in workers:
        if w.process.is_alive() and w.process.pid is not None:
            try:
                os.kill(w.process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass


def _drain(workers: list[_Worker], state: _RunState, timeout: float = 30.0) -> None:
    """Keep the games that finished before the interrupt reached their worker."""
    deadline = time.monotonic() + timeout
    live = [w for w in workers if w.open]
    while live and time.monotonic() < deadline:
        for conn in multiprocessing.connection.wait([w.conn for w in live], timeout=max(0.0, deadline - time.monotonic())):
            worker = next(w for w in live if w.conn is conn)
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                worker.open = False
                live.remove(worker)
                continue
            if message[0] == "result":
                state.finished(message[1])
            elif message[0] == "bot_faults":
                state.bot_faults.extend(message[1])


def _last_words(worker: _Worker, state: _RunState, deadline: float) -> None:
    """Read what a stopping worker still sends (its bots' close faults) until it closes its pipe."""
    while worker.open:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not worker.conn.poll(remaining):
            return
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            worker.open = False
            return
        if message[0] == "bot_faults":
            state.bot_faults.extend(message[1])
        elif message[0] == "result":
            state.finished(message[1])


def _shutdown(workers: list[_Worker], state: _RunState) -> None:
    """Stop every worker, politely first; each one closes its bots in its own `finally`, then reports
    the faults it found closing them."""
    for w in workers:
        if w.open:
            try:
                w.conn.send(None)
            except OSError:
                pass
    deadline = time.monotonic() + 15.0
    for w in workers:
        _last_words(w, state, deadline)
        w.process.join(max(0.1, deadline - time.monotonic()))
        if w.process.is_alive():
            w.process.terminate()  # SIGTERM: the worker's handler still closes its bots
            w.process.join(10.0)
        if w.process.is_alive():
            w.process.kill()
            w.process.join(5.0)
        w.conn.close()
