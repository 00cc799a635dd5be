"""The coordinator: plays a tournament's schedule through an executor, committing results one by one.

It owns the schedule, the store (the only writer: one transaction per game) and resuming; an
`Executor` (`executor.py`) owns where games run and the bots' processes: in this process (-j 1) or in
worker processes (`pool.LocalPool`), or on a cluster. Everything between them is a typed message.

Why results do not depend on concurrency: a game's seats and seed come from the schedule alone, and
ratings are computed in schedule order, whichever game finished first. A bot's every failure (it does
not start, fails its handshake, crashes, passes a limit) is a fault of that bot inside the game, so it
never stops a run. A worker that is lost (killed, out of memory) is reported and its games are played
again from their seeds; a game whose worker is lost MAX_ATTEMPTS times stops the run with one line.
Only what the user must fix (an output that cannot be written) or a bug in arena stops a run, with one
line; the games already stored are kept and a rerun resumes.

Stopping early: `stop_rule` (by default the config's `stop:` rule, `stopping.SettledHook`) is asked
after each complete round (in schedule order, with exactly the games of rounds 0..r and their ratings),
and the run plays no game of a later round once it says stop. The round is recorded in the store
(`StopRecord`): the standings count only the games up to it, and a rerun plays nothing more.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence, TextIO

from arena.errors import ArenaError, OutputError, RunnerError
from arena.core.faults import Fault
from arena.textsafe import NAME_CHARS, clean
from arena.tournament.schedule import plan as sched
from arena.results.botfiles import bot_hash
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.executor import Executor, InlineExecutor
from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameFailed, GameTask, PlayerSetup, WorkerBug, WorkerLost
from arena.tournament.run.affinity import usable_cpus, worker_cpus
from arena.tournament.run.local_pool import LocalPool
from arena.live.board import LiveBoard
from arena.tournament.run.progress import Progress
from arena.tournament.run.signed import ReplaySigner
from arena.stats.ratings import RatingModel, Standing, leaderboard
from arena.tournament.run.stop.rounds import RoundEnd, RoundGate, ShouldStop
from arena.tournament.run.signals import terminate_as_interrupt
from arena.tournament.run.stop.stopping import SettledHook
from arena.results.store import StopRecord, Store
from arena.results.stored import RatedGame, StoredGame
from arena.stats.standings import save_cache, store_ratings, store_standings

MAX_ATTEMPTS = 3  # a game whose worker is lost this many times stops the run (it may be what kills it)

__all__ = ["RoundEnd", "RunSummary", "RunnerError", "ShouldStop", "open_store", "run"]


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
    bot_faults: list[tuple[str, Fault]] = field(default_factory=list)  # outside games: closing, starting
    reused: int = 0  # stored games of an earlier config given their place in this one
    changed: list[tuple[str, int]] = field(default_factory=list)  # (entrant, games set aside): its files changed
    workers_lost: int = 0
    stopped_after_round: int | None = None  # the round after which `stop_rule` stopped the run
    stop: StopRecord | None = None  # what the store records of that stop
    stop_state: str | None = None  # the config's stop rule's last decision, in words (None: no rule)

    @property
    def stored(self) -> int:
        return self.stored_before + self.played

    @property
    def games_per_second(self) -> float:
        return self.played / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.duration_s if self.duration_s > 0 else 0.0


def changed_lines(changed: Sequence[tuple[str, int]]) -> list[str]:
    """What a run says of each bot whose files changed since its stored games (`Store.changed`)."""
    return [
        f"arena: bot {clean(name, NAME_CHARS)} changed since the stored games: playing its {n} game(s) again "
        "(the old ones stay in the store under the old version, no longer counted)"
        for name, n in changed
    ]


def open_store(config: TournamentConfig, fresh: bool = False, secret: str | None = None,
               keys: Sequence[str] | None = None) -> Store:
    """`keys`: `config.game_key` of every scheduled game, in schedule order, when the caller has them."""
    if keys is None:
        rules = config.rules_key()
        keys = [config.game_key(g, rules) for g in config.games()]
    return Store.create_or_resume(
        config.store,
        name=config.name,
        game=config.game,
        fingerprint=config.fingerprint(),
        identity=config.identity(),
        entrants=[(e.name, e.raw_command) for e in config.entrants],
        total_games=sched.count(config.schedule),
        fresh=fresh,
        keys=keys,
        programs=[bot_hash(e.command, e.cwd) for e in config.entrants],
        secret=secret,
    )


def check_outputs(config: TournamentConfig) -> None:
    """Fail before any game when the replays folder cannot be written, naming it. A folder arena
    creates is the organiser's only (0700): replays hold every seat's private draws and hands.
    The report's folder is made now too, so that the sandbox can mask it from the bots (view.masks)."""
    if config.report is not None:
        try:
            config.report.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot make the report folder {config.report}: {exc.strerror or exc}") from exc
    if config.replays is None:
        return
    probe = config.replays / f".arena-write-test-{os.getpid()}"
    try:
        config.replays.parent.mkdir(parents=True, exist_ok=True)
        try:
            config.replays.mkdir(mode=0o700)
            os.chmod(config.replays, 0o700)  # exact: mkdir's mode passes through the umask
        except FileExistsError:
            pass  # an existing folder keeps its mode
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(
            f"cannot write replays to {config.replays}: {exc.strerror or exc} "
            "(set output.replays to a folder arena can write to)"
        ) from None


def _default_executor(config: TournamentConfig, workers: int, pin: bool, live: LiveBoard | None = None) -> Executor:
    """In-process play for one game at a time, else a local pool, pinned where that takes no CPU from a bot."""
    if workers <= 1:
        return InlineExecutor(live)
    return LocalPool(workers, worker_cpus(workers, config.entrants, usable_cpus()) if pin else None, live)


def run(
    config: TournamentConfig,
    *,
    concurrency: int | None = None,
    fresh: bool = False,
    restart_bots: bool | None = None,
    progress_stream: TextIO | None = None,
    quiet: bool = False,
    model: RatingModel = RatingModel(),
    executor: Executor | None = None,
    stop_rule: ShouldStop | None = None,
    notices: TextIO | None = None,
    lookahead: int = 0,
    status: Callable[[], str] | None = None,
    secret: str | None = None,
    pin: bool = True,
    key_file: Path | None = None,
    live: LiveBoard | None = None,
) -> RunSummary:
    """Play every game of the schedule that the store does not hold yet, then rate them all.

    `executor` defaults to in-process play for one game at a time, else a `LocalPool`; `notices`
    (default stderr) gets one line per event the user should know of, such as a lost worker;
    `lookahead` rounds may start before `stop_rule` has answered about the round before them (games past
    the stop are stored, uncounted); `status` is shown on the progress line (default: the config's rule).
    `secret` keys a new store's deals (default: random; `arena run --secret`); a store keeps its own.
    `pin`: a local pool puts each worker and its bots on a CPU of their own where `affinity.worker_cpus`
    allows it (`arena run --no-pin`: never). Every replay is signed with the organiser's key
    (`signed.ReplaySigner`): `key_file` (`arena run --key`), by default `STORE.key.pem` beside the store.
    `live` (`arena run --watch`): the board of the games in progress, fed by the default executor's workers.
    """
    n_workers = concurrency or config.concurrency or os.cpu_count() or 1
    restart = config.restart_bots if restart_bots is None else restart_bots
    schedule = config.games()
    rules = config.rules_key()
    keys = [config.game_key(g, rules) for g in schedule]  # keyed once: the store checks them, the tasks carry them
    check_outputs(config)
    signer = ReplaySigner.for_run(config, key_file)
    store = open_store(config, fresh, secret, keys)
    try:
        for line in changed_lines(store.changed):
            print(line, file=notices if notices is not None else sys.stderr, flush=True)
        done = store.done_indices()
        todo = deque(GameTask(g, key) for g, key in zip(schedule, keys) if g.index not in done)
        ratings = store_ratings(store, model)
        names = config.names
        settled = SettledHook(config.stop, names, config.schedule.rounds) if stop_rule is None and config.stop else None
        hook = stop_rule or settled
        if status is None and settled is not None:
            status = settled.progress
        progress = None if quiet else Progress(len(schedule), len(done), progress_stream, status=status)

        unrated: list[RatedGame] = []  # finished since the ratings were last needed: rated in one go, in order

        def rate_finished() -> None:
            ratings.add_all(unrated)
            unrated.clear()

        def leader() -> str:
            rate_finished()
            top = leaderboard(ratings.current(), names)[0]
            return f"{clean(top.name, NAME_CHARS)} ({top.score:.2f})"

        state = _Coordinator(store, unrated.append, progress, leader, notices if notices is not None else sys.stderr,
                             signer, live=live, names=list(names))
        ends = {g.round: g.index + 1 for g in schedule}  # one past each round's last index

        def record_stop(after: int) -> None:
            if settled is not None:
                record = settled.record(after, ends[after])
            else:
                record = StopRecord(after, config.schedule.rounds, ends[after], {}, "the run's stop hook said stop")
            if store.stop() != record:
                store.set_stop(record)

        gate = RoundGate(schedule, done, hook, store, model, len(names), on_stop=record_stop, lookahead=lookahead)
        if not gate.stopped and store.stop() is not None:
            store.set_stop(None)  # stopped by another rule, or none: this run plays on, and counts all it plays
        started = time.monotonic()
        interrupted = False
        try:
            if todo and not gate.stopped:
                if executor is None:
                    executor = _default_executor(config, min(n_workers, len(todo)), pin, live)
                with terminate_as_interrupt():
                    state.play(executor, PlayerSetup(config, restart, store.secret()), todo, gate)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if progress is not None:
                progress.finish()
        duration = time.monotonic() - started
        rate_finished()
        store.record_bot_faults(state.bot_faults)
        if ratings.prefix.rated > 0 and ratings.prefix.rated == ratings.prefix.last_index + 1:
            # The run rated every game it stored, in schedule order: kept as the store's cache, the
            # standings below rate only what lies beyond it (not every game a second time).
            save_cache(store, ratings.prefix)
        standings = store_standings(store, model)  # from the store itself: what it holds is what counts
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
            reused=store.reused,
            changed=list(store.changed),
            workers_lost=state.workers_lost,
            stopped_after_round=gate.stopped_after,
            stop=store.stop(),
            stop_state=settled.state() if settled is not None else None,
        )
    finally:
        store.close()


@dataclass
class _Coordinator:
    store: Store
    rate: Callable[..., None]  # given each finished game (`RatedGame`); the run rates them when next needed
    progress: Progress | None
    leader: Callable[[], str]
    notices: TextIO
    signer: ReplaySigner | None = None  # signs each game's replay before it is stored
    live: LiveBoard | None = None  # the games in progress, for `arena run --watch`
    names: list[str] = field(default_factory=list)  # the entrants', for the live board's seats
    played: int = 0
    decisions: int = 0
    workers_lost: int = 0
    bot_faults: list[tuple[str, Fault]] = field(default_factory=list)

    def play(self, executor: Executor, setup: PlayerSetup, todo: deque[GameTask], gate: RoundGate) -> None:
        in_flight: dict[int, GameTask] = {}
        interrupted = True
        try:
            executor.start(setup)
            while True:
                while todo and len(in_flight) < executor.capacity and gate.allows(todo[0].game):
                    task = todo.popleft()
                    if self.live is not None:
                        self.live.begin(task.index, [self.names[e] for e in task.game.seats], task.game.seats)
                    executor.submit(task)
                    in_flight[task.index] = task
                if not in_flight:
                    break
                self.handle(executor.next_event(), in_flight, todo, gate)
            interrupted = False
        finally:
            for event in executor.close(interrupted):
                try:
                    self.handle(event, in_flight, todo, gate)
                except ArenaError:
                    pass  # the run is already stopping for an earlier reason, the one reported

    def handle(self, event: Event, in_flight: dict[int, GameTask], todo: deque[GameTask], gate: RoundGate) -> None:
        if self.live is not None:  # a game lost or failed may be played again on its deal: never revealed
            for task in event.tasks if isinstance(event, WorkerLost) else ():
                self.live.drop(task.index)
            if isinstance(event, (GameFailed, WorkerBug)) and event.task is not None:
                self.live.drop(event.task.index)
        if isinstance(event, GameDone):
            in_flight.pop(event.task.index, None)
            self.finished(event.stored, gate)
            if self.live is not None:
                self.live.end(event.task.index)
        elif isinstance(event, ClosingFaults):
            self.bot_faults.extend(f for f in event.faults if f not in self.bot_faults)
        elif isinstance(event, WorkerLost):
            self.lost(event, in_flight, todo)
        elif isinstance(event, GameFailed):
            raise RunnerError(f"game {event.task.index}: {event.message}")
        elif isinstance(event, WorkerBug):
            raise RunnerError(self.bug_report(event))

    def finished(self, game: StoredGame, gate: RoundGate) -> None:
        if self.signer is not None:
            self.signer.sign(game)  # before the commit: a stored game's replay is always signed
        self.store.record(game)
        self.rate(game.rated())
        self.played += 1
        self.decisions += game.played.decisions
        gate.finished(game.index)  # may ask the stop rule, which reads the game just stored
        if self.progress is not None:
            self.progress.update(self.progress.start_done + self.played, self.leader, force=gate.stopped)

    def lost(self, event: WorkerLost, in_flight: dict[int, GameTask], todo: deque[GameTask]) -> None:
        self.workers_lost += 1
        indices = [t.index for t in event.tasks]
        for task in reversed(event.tasks):
            in_flight.pop(task.index, None)
            if task.attempt >= MAX_ATTEMPTS:
                raise RunnerError(
                    f"game {task.index} was lost with its worker {task.attempt} times (last: {event.worker}, "
                    f"{event.detail}); stopping: the games already played are stored, rerun to resume"
                )
            todo.appendleft(dataclasses.replace(task, attempt=task.attempt + 1))
        again = f"; playing game(s) {', '.join(map(str, indices))} again" if indices else ""
        bar = self.progress is not None and self.progress.tty and self.progress.stream is self.notices
        clear = "\r\x1b[K" if bar else ""  # over the progress bar's line, which is drawn again after
        self.notices.write(f"{clear}arena: {event.worker} ended unexpectedly ({event.detail}){again}\n")
        self.notices.flush()

    def bug_report(self, event: WorkerBug) -> str:
        log = self.store.path.with_name(self.store.path.name + ".error.log")
        where = f"game {event.task.index}" if event.task is not None else "a worker"
        last = event.traceback.strip().splitlines()[-1] if event.traceback.strip() else "no traceback"
        try:
            log.write_text(event.traceback, encoding="utf-8")
            saved = f"; the traceback is in {log}"
        except OSError:
            saved = ""
        return f"a bug in arena stopped the run at {where}: {last}{saved} (please report it)"
