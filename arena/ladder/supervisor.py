"""The server's background parts (the checker, the ladder) under a supervisor.

Each part is a loop in its own thread that calls `beat()` as it goes. A part whose thread ends while
the server is not stopping (an exception escaped its loop, or the thread was killed) is logged with its
error and started again, after a pause that doubles with each restart in a row (1 s up to 30 s; a part
that then runs a minute without dying starts over at 1 s). `health()` reports each part: alive, its
last heartbeat's age, restarts and last error; a part whose heartbeat is older than its `stale_s` is
stale, and `/api/v1/admin/health` answers 503 while any part is stale or dead.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from arena.textsafe import clean

WATCH_S = 0.5
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
HEALTHY_RUN_S = 60.0


@dataclass
class Part:
    name: str
    run: Callable[["Part"], None]  # the part's loop; returns only once `stopping` is set
    stale_s: float
    clock: Callable[[], float] = time.monotonic
    stopping: threading.Event = field(default_factory=threading.Event)
    heartbeat: float = 0.0
    started: float = 0.0
    restarts: int = 0
    last_error: str | None = None
    died: float | None = None  # when its thread was found dead, until restarted
    backoff: float = FIRST_BACKOFF_S
    thread: threading.Thread | None = None

    def beat(self) -> None:
        self.heartbeat = self.clock()

    @property
    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def report(self) -> dict[str, Any]:
        age = round(self.clock() - self.heartbeat, 1)
        started = self.thread is not None  # a server built but never started (a test's) runs no part: none is stale
        return {"name": self.name, "alive": self.alive, "heartbeat_age_s": age,
                "stale": started and (age > self.stale_s or not self.alive),
                "stale_after_s": self.stale_s, "restarts": self.restarts, "last_error": self.last_error}


def _log(message: str) -> None:
    print(f"arena serve: {message}", file=sys.stderr, flush=True)


class Supervisor:
    def __init__(self, clock: Callable[[], float] = time.monotonic, log: Callable[[str], None] = _log) -> None:
        self.clock, self.log = clock, log
        self.parts: dict[str, Part] = {}
        self.stopping = threading.Event()
        self.watchdog = threading.Thread(target=self._watch, name="arena-supervisor", daemon=True)

    def add(self, name: str, run: Callable[[Part], None], stale_s: float) -> Part:
        part = Part(name, run, stale_s, self.clock, self.stopping)
        self.parts[name] = part
        return part

    def start(self) -> None:
        for part in self.parts.values():
            self._launch(part)
        self.watchdog.start()

    def stop(self) -> None:
        """Ask every part to stop (each part's own stop wakes it); the caller joins what it must."""
        self.stopping.set()

    def _launch(self, part: Part) -> None:
        part.beat()
        part.started = self.clock()
        part.died = None
        part.thread = threading.Thread(target=self._body, args=(part,), name=f"arena-{part.name}", daemon=True)
        part.thread.start()

    def _body(self, part: Part) -> None:
        try:
            part.run(part)
            if not self.stopping.is_set():
                part.last_error = "its loop returned while the server runs"
        except BaseException as exc:  # noqa: BLE001 - a part's death is reported and the part restarted
            part.last_error = f"{type(exc).__name__}: {clean(str(exc), 500)}"
            if not self.stopping.is_set():
                self.log(f"the {part.name} stopped: {part.last_error}\n"
                         + clean("".join(traceback.format_exception(exc)), 4000, keep_newlines=True))

    def check(self) -> None:
        """One look at every part: restart the dead ones whose pause is over."""
        now = self.clock()
        for part in self.parts.values():
            if part.alive or self.stopping.is_set():
                continue
            if part.died is None:
                part.died = now
                if now - part.started >= HEALTHY_RUN_S:
                    part.backoff = FIRST_BACKOFF_S
                self.log(f"the {part.name} is restarted in {part.backoff:g} s (restart {part.restarts + 1}; "
                         f"last error: {part.last_error})")
            if now - part.died >= part.backoff:
                part.restarts += 1
                part.backoff = min(part.backoff * 2, MAX_BACKOFF_S)
                self._launch(part)

    def _watch(self) -> None:
        while not self.stopping.wait(WATCH_S):
            try:
                self.check()
            except Exception as exc:  # noqa: BLE001 - the watchdog itself never stops
                self.log(f"the supervisor: {type(exc).__name__}: {clean(str(exc), 300)}")

    def health(self) -> list[dict[str, Any]]:
        return [part.report() for part in self.parts.values()]

    def healthy(self) -> bool:
        return all(not r["stale"] for r in self.health())


class CheckGate:
    """The check's CPU, protected from the ladder (issue 36): while a submission is checked the ladder
    starts no new game. The checker `begin`s a check, waits (beating) until the ladder's games in flight
    have ended, at most `drain_s`, then checks on a machine the ladder leaves alone; `end` lets the
    ladder start games again (and wakes it), and the next check waits for it to start one (at most
    `turn_s`), so a queue of submissions slows the ladder but never stops it. The ladder asks `admit()`
    before it starts each game and says `ended()` when one ends or is dropped."""

    TURN_S = 2.0  # after a check, the ladder's turn: the next check waits this long at most for a game to start

    def __init__(self, on_end: Callable[[], None] = lambda: None, turn_s: float = TURN_S) -> None:
        self.cond = threading.Condition()
        self.checks = 0  # checks begun and not ended (waiting for the ladder, or running)
        self.games = 0  # ladder games started and not yet ended
        self.on_end = on_end
        self.turn_s = turn_s
        self.ended_at: float | None = None  # when the last check ended
        self.started = 0  # games the ladder started since then

    def admit(self) -> bool:
        """The ladder may start one more game now (and it is counted), unless a check is on."""
        with self.cond:
            if self.checks:
                return False
            self.games += 1
            self.started += 1
            self.cond.notify_all()
            return True

    def ended(self, n: int = 1) -> None:
        with self.cond:
            self.games = max(0, self.games - n)
            self.cond.notify_all()

    def begin(self, drain_s: float, beat: Callable[[], None] = lambda: None, slice_s: float = 2.0) -> bool:
        """Hold new ladder games and wait for those in flight (at most `drain_s`): True once none runs."""
        with self.cond:
            # A backlog of checks must not stop the ladder for good: after each check it gets its turn
            # (starts a game, if it has one to play) before the next check holds it again.
            if self.ended_at is not None:
                turn_ends = self.ended_at + self.turn_s
                while not self.started and time.monotonic() < turn_ends:
                    self.cond.wait(max(0.0, turn_ends - time.monotonic()))
            deadline = time.monotonic() + drain_s
            self.checks += 1
            while self.games and time.monotonic() < deadline:
                self.cond.wait(min(slice_s, max(0.0, deadline - time.monotonic())))
                beat()
            return self.games == 0

    def end(self) -> None:
        with self.cond:
            self.checks = max(0, self.checks - 1)
            self.ended_at, self.started = time.monotonic(), 0
        self.on_end()
