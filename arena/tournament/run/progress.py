"""A one-line progress bar on stderr: games done, rate, ETA, the current leader (and the stop test's state)."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


class Progress:
    """A one-line progress bar on stderr: games done, rate, ETA, the current leader."""

    def __init__(
        self,
        total: int,
        done: int,
        stream: TextIO | None = None,
        min_interval: float = 0.2,
        status: Callable[[], str] | None = None,
    ) -> None:
        self.status = status  # e.g. the stop rule's state, shown after the leader
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

    def update(self, done: int, leader: Callable[[], str], force: bool = False) -> None:
        self.done = done
        if not (force or self.due()):
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
        if self.status is not None:
            line += f"  stop: {self.status()}"
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
