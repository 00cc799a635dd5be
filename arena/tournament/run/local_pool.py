"""The local executor: worker processes on this machine, each playing the games it is sent.

Why processes and not threads: the referee is CPU-bound Python (views, JSON, game rules), so threads
would share one core through the GIL. Each worker owns its own bot processes and keeps them across
games. Each worker has PREFETCH tasks at most (one playing, one ready), so none waits for work.

A worker that ends without a word (SIGKILL, out of memory) is reported as `WorkerLost` with the tasks
it held, and a new worker takes its place, so the run goes on at the same concurrency.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess

from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameTask, Stop, WorkerLost
from arena.tournament.run.player import PlayerSetup
from arena.tournament.run.signals import sigint_ignored, uninterrupted
from arena.tournament.run.local_worker import worker_main

PREFETCH = 2  # tasks queued per worker: one playing, one ready


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    conn: multiprocessing.connection.Connection
    tasks: deque[GameTask] = field(default_factory=deque)
    open: bool = True

    @property
    def label(self) -> str:
        return f"worker {self.number} (pid {self.process.pid})"


def _exit_detail(process: BaseProcess) -> str:
    process.join(1.0)
    code = process.exitcode
    if code is None:
        return "its pipe closed while it was still running"
    if code < 0:
        try:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class LocalPool:
    """`Executor` over N local worker processes (spawned, so nothing of the coordinator leaks in)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = workers
        self.capacity = workers * PREFETCH
        self.ctx = multiprocessing.get_context("spawn")
        self.setup: PlayerSetup | None = None
        self.workers: list[_Worker] = []
        self.started = 0
        self.pending: deque[Event] = deque()

    def start(self, setup: PlayerSetup) -> None:
        self.setup = setup
        for _ in range(self.size):
            self.workers.append(self._spawn())

    def _spawn(self) -> _Worker:
        mine, theirs = self.ctx.Pipe(duplex=True)
        self.started += 1
        proc = self.ctx.Process(target=worker_main, args=(theirs, self.setup), daemon=False, name=f"arena-worker-{self.started}")
        with sigint_ignored():
            proc.start()
        theirs.close()  # only the worker holds its end: its death (or ours) closes the pipe
        return _Worker(self.started, proc, mine)

    def submit(self, task: GameTask) -> None:
        worker = min((w for w in self.workers if w.open), key=lambda w: len(w.tasks))
        if len(worker.tasks) >= PREFETCH:
            raise RuntimeError("LocalPool.submit beyond capacity")
        worker.tasks.append(task)
        try:
            worker.conn.send(task)
        except OSError:
            pass  # it died: its EOF is read next, and the task comes back in WorkerLost

    def next_event(self) -> Event:
        while not self.pending:
            busy = [w for w in self.workers if w.open and w.tasks]
            if not busy:
                raise RuntimeError("LocalPool.next_event with no task in flight")
            for conn in multiprocessing.connection.wait([w.conn for w in busy]):
                worker = next(w for w in busy if w.conn is conn)
                self._read(worker, replace=True)
        return self.pending.popleft()

    def _read(self, worker: _Worker, replace: bool) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._lost(worker, replace)
            return
        if isinstance(message, GameDone):
            for i, task in enumerate(worker.tasks):
                if task.index == message.task.index:
                    del worker.tasks[i]
                    break
        self.pending.append(message)

    def _lost(self, worker: _Worker, replace: bool) -> None:
        worker.open = False
        worker.conn.close()
        tasks, worker.tasks = tuple(worker.tasks), deque()
        self.pending.append(WorkerLost(worker.label, _exit_detail(worker.process), tasks))
        self.workers.remove(worker)
        if replace:
            self.workers.append(self._spawn())

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
            w.open = False
            w.conn.close()
