"""The referee's side of live games: frames taken between steps, handed on without ever blocking the game.

`LiveTap.hook(game)` is `play_game`'s `on_step`. Between two steps it takes a frame (`frame.snapshot`)
only when the frame before it has been handed on and at least `gap_s` ago (the deal's and the last
frame always): a frame waits in a mailbox of one frame per game, a newer frame of the game replaces one
not sent yet (both counted in `dropped`), and the tap's own thread hands it to the sink: a pipe to the coordinator in a worker
(`PipeSink`), the board itself when games are played in the coordinator's process. A sink that is
slow or gone costs the referee nothing but skipped frames; the events of skipped steps travel with the
next frame (the latest `frame.EVENTS_KEPT`).

Nothing here is a channel a bot can read: the frame goes to the coordinator over a pipe the bots'
processes do not inherit (every pipe here is close-on-exec, and bots are started with `close_fds`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from multiprocessing.connection import Connection
from typing import Callable, Protocol, Sequence

from arena.games.base import GameState
from arena.jsonvalue import JSON
from arena.live.frame import EVENTS_KEPT, LiveFrame, snapshot

StepHook = Callable[[int, GameState, Sequence[JSON], bool], None]
GAP_S = 0.05  # at most about 20 frames a second per game


class LiveSink(Protocol):
    def frame(self, frame: LiveFrame) -> None:
        """Take one frame (may block: it is called by the tap's thread, never by the referee)."""


class PipeSink:
    """A worker's end of its live pipe to the coordinator (`feed.LiveFeed` reads the other)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def frame(self, frame: LiveFrame) -> None:
        self.conn.send(frame)


class LiveTap:
    def __init__(self, sink: LiveSink, gap_s: float = GAP_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.sink, self.gap_s, self.clock = sink, gap_s, clock
        self.slots: dict[int, LiveFrame] = {}  # one frame waiting per game (a game's last is never replaced by the next game's first)
        self.cond = threading.Condition()
        self.closed = False
        self.broken = False  # the sink failed (the coordinator is gone): no more frames
        self.sending = False
        self.dropped = 0  # frames not taken while the last was still on its way, or replaced in the mailbox
        self.sent = 0
        self.thread = threading.Thread(target=self._send_loop, name="arena-live-tap", daemon=True)
        self.thread.start()

    def hook(self, game: int) -> StepHook:
        """`play_game`'s `on_step` for game `game`: called after the deal (step -1), each step and the end."""
        events: deque[JSON] = deque(maxlen=EVENTS_KEPT)
        last = [float("-inf")]

        def on_step(step: int, state: GameState, new: Sequence[JSON], over: bool) -> None:
            if self.broken or self.closed:
                return
            events.extend(new)
            now = self.clock()
            with self.cond:
                busy = bool(self.slots) or self.sending
            if not over and step >= 0 and (busy or now - last[0] < self.gap_s):
                if busy:
                    self.dropped += 1
                return  # skipped: its events go with the next frame
            try:
                taken = snapshot(game, step, state, list(events), over)
            except Exception:  # noqa: BLE001 - a view that does not encode: no live frame, the game goes on
                return
            events.clear()
            last[0] = now
            with self.cond:
                if game in self.slots:
                    self.dropped += 1
                    del self.slots[game]
                self.slots[game] = taken
                self.cond.notify()

        return on_step

    def _send_loop(self) -> None:
        while True:
            with self.cond:
                while not self.slots and not self.closed:
                    self.cond.wait()
                if not self.slots:
                    return
                taken = self.slots.pop(next(iter(self.slots)))  # the oldest game's first
                self.sending = True
            try:
                self.sink.frame(taken)
                self.sent += 1
            except Exception:  # noqa: BLE001 - the pipe closed, the board refused: stop sending, never the game
                self.broken = True
                return
            finally:
                with self.cond:
                    self.sending = False
                    self.cond.notify_all()

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until the mailbox is empty and nothing is being sent (tests, and a worker's last frame)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while (self.slots or self.sending) and not self.broken:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def close(self, timeout: float = 1.0) -> None:
        """Send what waits (for at most `timeout`), then stop the thread."""
        self.drain(timeout)
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        self.thread.join(timeout)
