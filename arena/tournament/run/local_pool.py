"""The local executor: worker processes on this machine, each playing the games it is sent.

Why processes and not threads: the referee is CPU-bound Python (views, JSON, game rules), so threads
would share one core through the GIL. Each worker owns its own bot processes and keeps them across
games. Each worker has PREFETCH tasks at most (one playing, one ready), so none waits for work.

A worker that ends without a word (SIGKILL, out of memory) is reported as `WorkerLost` with the tasks
it held, and a new worker takes its place, so the run goes on at the same concurrency.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import os
import selectors
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Iterator, Sequence

from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameTask, Grow, PlayerSetup, Stop, WorkerLost
from arena.tournament.run.affinity import pin
from arena.tournament.run.signals import sigint_ignored, uninterrupted
from arena.exits import describe_exit
from arena.games.registry import game_module
from arena.live.feed import LiveFeed
from arena.live.tap import LiveSink

PREFETCH = 2  # tasks queued per worker: one playing, one ready
# What the fork server imports once, before it forks any worker: the worker loop (the referee), then the game.
WORKER_MODULES = ("arena.tournament.run.local_worker",)


def _worker_entry(conn: multiprocessing.connection.Connection, setup: PlayerSetup, cpu: int | None = None,
                  env: dict[str, str] | None = None, live: multiprocessing.connection.Connection | None = None) -> None:
    """A worker process's first call: the referee is imported there, never in the coordinator. With a
    `cpu` (`affinity.worker_cpus`), the worker and every bot it starts run on that CPU only. `env`: the
    coordinator's environment as the worker starts (the fork server's is the one it was started with)."""
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if cpu is not None:
        pin(cpu)
    from arena.tournament.run.local_worker import worker_main

    worker_main(conn, setup, live)


def worker_context(game: str | None = None) -> multiprocessing.context.ForkServerContext:
    """How workers start: forked from multiprocessing's fork server, a fresh interpreter (started by the
    first worker, kept while this process lives) that imports `WORKER_MODULES` and `game`'s package once
    (a later pool with another game imports it in each worker).

    So, as with spawn, a worker holds nothing of the coordinator (not its memory, files or the
    tournament's store), but it does not pay an interpreter's start-up and the referee's imports again
    (BENCHMARKS.md, "What `arena run -j 2` costs outside the referee": a 1-round run's workers). Its
    environment and working folder are the coordinator's as it starts (`_worker_entry`, multiprocessing's
    preparation data), as a spawned worker's are."""
    ctx = multiprocessing.get_context("forkserver")
    module = game_module(game) if game is not None else None
    ctx.set_forkserver_preload([*WORKER_MODULES, *([module] if module else [])])
    return ctx


@contextlib.contextmanager
def arena_script_not_rerun() -> Iterator[None]:
    """While a worker is started: when this process is the `arena` console script, the worker does not
    run that script again (as `__mp_main__`, to find what the main module defines: multiprocessing's
    preparation data, for a fork server's worker as for a spawned one): it only imports the CLI, which
    a worker never uses (about 20 ms of imports per worker)."""
    main = sys.modules.get("__main__")
    cli = sys.modules.get("arena.cli")
    path = getattr(main, "__file__", None)
    if (main is None or cli is None or path is None or getattr(main, "__spec__", None) is not None
            or getattr(main, "main", None) is not getattr(cli, "main", None)):
        yield
        return
    del main.__file__  # spawn.get_preparation_data reads it in start(): no file, no main to run
    try:
        yield
    finally:
        main.__file__ = path


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    conn: multiprocessing.connection.Connection
    cpu: int | None = None  # the CPU it and its bots run on; a worker taking its place gets the same
    tasks: deque[GameTask] = field(default_factory=deque)
    open: bool = True
    watched: bool = False  # its pipe is in the pool's selector (only while it holds tasks, as it was)
    finished: deque[float] = field(default_factory=lambda: deque(maxlen=10_000))  # when each of its games ended

    @property
    def label(self) -> str:
        return f"worker {self.number} (pid {self.process.pid})"


def _exit_detail(process: BaseProcess) -> str:
    process.join(1.0)
    code = process.exitcode
    if code is None:
        return "its pipe closed while it was still running"
    return describe_exit(code)


class LocalPool:
    """`Executor` over N local worker processes (forked by a fork server, so nothing of the coordinator
    leaks in: see `worker_context`)."""

    ctx: multiprocessing.context.ForkServerContext  # set by `start`, which knows the game the workers preload

    def __init__(self, workers: int, cpus: Sequence[int] | None = None, live: LiveSink | None = None) -> None:
        """`cpus`: the CPU of each worker (`affinity.worker_cpus`), or None: workers run on any CPU.
        `live`: where each game's live frames go (`arena.live`), read from each worker's own live pipe."""
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        if cpus is not None and len(cpus) != workers:
            raise ValueError("a pool pins each of its workers to one CPU, or none")
        self.size = workers
        self.cpus: tuple[int | None, ...] = tuple(cpus) if cpus is not None else (None,) * workers
        self.capacity = workers * PREFETCH
        self.setup: PlayerSetup | None = None
        self.workers: list[_Worker] = []
        self.started = 0
        self.pending: deque[Event] = deque()
        self.selector = selectors.DefaultSelector()  # kept: one epoll for the run, not a poll set per event
        self.feed = LiveFeed(live) if live is not None else None

    def start(self, setup: PlayerSetup) -> None:
        self.setup = setup
        self.ctx = worker_context(setup.config.game)
        for cpu in self.cpus:
            self.workers.append(self._spawn(cpu))

    def _spawn(self, cpu: int | None) -> _Worker:
        mine, theirs = self.ctx.Pipe(duplex=True)
        frames, sends = self.ctx.Pipe(duplex=False) if self.feed is not None else (None, None)
        self.started += 1
        proc = self.ctx.Process(target=_worker_entry, args=(theirs, self.setup, cpu, dict(os.environ)), daemon=False,
                                kwargs={"live": sends} if sends is not None else {}, name=f"arena-worker-{self.started}")
        with sigint_ignored(), arena_script_not_rerun():
            proc.start()
        theirs.close()  # only the worker holds its end: its death (or ours) closes the pipe
        if self.feed is not None and frames is not None and sends is not None:
            sends.close()
            self.feed.add(frames)
        return _Worker(self.started, proc, mine, cpu)

    def workers_status(self) -> list[dict[str, object]]:
        """Each worker: its name, games it finished in the last minute (no cache: it reads the bots' own folders)."""
        since = time.monotonic() - 60.0
        return [{"worker": w.label, "games_per_minute": sum(1 for t in w.finished if t >= since), "cache": {}, "plays": w.open}
                for w in self.workers]

    def grow(self, setup: PlayerSetup, retired: tuple[int, ...] = ()) -> None:
        """The field changed: every worker hears it before its next task; no bot process is restarted.
        A worker started later (in place of a lost one) starts with the new setup."""
        self.setup = setup
        for worker in self.workers:
            try:
                worker.conn.send(Grow(setup, retired))
            except OSError:
                pass  # it died: its EOF is read next

    def submit(self, task: GameTask) -> None:
        worker = min((w for w in self.workers if w.open), key=lambda w: len(w.tasks))
        if len(worker.tasks) >= PREFETCH:
            raise RuntimeError("LocalPool.submit beyond capacity")
        worker.tasks.append(task)
        if not worker.watched:
            self.selector.register(worker.conn, selectors.EVENT_READ, worker)
            worker.watched = True
        try:
            worker.conn.send(task)
        except OSError:
            pass  # it died: its EOF is read next, and the task comes back in WorkerLost

    def next_event(self) -> Event:
        while not self.pending:
            if not any(w.open and w.tasks for w in self.workers):
                raise RuntimeError("LocalPool.next_event with no task in flight")
            for key, _ in self.selector.select():
                worker: _Worker = key.data
                if not worker.open:
                    continue
                if worker.tasks:
                    self._read(worker, replace=True)
                else:  # an idle worker is read once it is given a task (its death is found then, as it was)
                    self._unwatch(worker)
        return self.pending.popleft()

    def _unwatch(self, worker: _Worker) -> None:
        if worker.watched:
            self.selector.unregister(worker.conn)
            worker.watched = False

    def _read(self, worker: _Worker, replace: bool) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._lost(worker, replace)
            return
        if isinstance(message, GameDone):
            worker.finished.append(time.monotonic())
            for i, task in enumerate(worker.tasks):
                if task.index == message.task.index:
                    del worker.tasks[i]
                    break
        self.pending.append(message)

    def _lost(self, worker: _Worker, replace: bool) -> None:
        self._unwatch(worker)
        worker.open = False
        worker.conn.close()
        tasks, worker.tasks = tuple(worker.tasks), deque()
        self.pending.append(WorkerLost(worker.label, _exit_detail(worker.process), tasks))
        self.workers.remove(worker)
        if replace:
            self.workers.append(self._spawn(worker.cpu))

    def close(self, interrupted: bool) -> list[Event]:
        with uninterrupted():
            return self._close(interrupted)

    def _close(self, interrupted: bool) -> list[Event]:
        for w in self.workers:
            if interrupted and w.process.is_alive() and w.process.pid is not None:
                try:
                    os.kill(w.process.pid, signal.SIGTERM)  # abandon the game in progress
                except ProcessLookupError:
                    pass
            try:
                w.conn.send(Stop())
            except OSError:
                pass
        deadline = time.monotonic() + 30.0
        for w in list(self.workers):
            while w.open:  # its last words: games it finished, faults found closing its bots
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not w.conn.poll(remaining):
                    break
                self._read(w, replace=False)
                if self.pending and isinstance(self.pending[-1], ClosingFaults):
                    break
            self._reap(w, deadline)
        self.selector.close()
        if self.feed is not None:
            self.feed.close()
        events: list[Event] = [e for e in self.pending if not isinstance(e, WorkerLost)]
        self.pending.clear()
        return events

    def _reap(self, w: _Worker, deadline: float) -> None:
        w.process.join(max(0.1, deadline - time.monotonic()))
        if w.process.is_alive():
            w.process.terminate()  # SIGTERM: the worker's handler still closes its bots
            w.process.join(10.0)
        if w.process.is_alive():
            w.process.kill()
            w.process.join(5.0)
        if w.open:
            self._unwatch(w)
            w.open = False
            w.conn.close()
