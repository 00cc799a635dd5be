"""Time-control arithmetic, pure: no clock is read here, so the rules can be tested exactly.

A decision may take at most `decision_ms`; with a bank (chess clock) it may also take no more than
what is left in the bank, the time used is taken from the bank and `increment_ms` is added after each
decision (Fischer increment). The handshake has its own allowance (`startup_ms`) so slow runtimes (JVM,
node) are not punished for starting. A whole game may last at most `game_ms` of wall-clock time.

Every allowance is a `Deadline`: measured from the moment its request was written (or the bot was
spawned), and met by a line whose arrival time is at or before it. The referee's clock is injected (a
`Clock` is any function returning seconds), so tests drive time exactly.

These are the only time-control defaults: the tournament config and `arena play` take theirs from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from arena.jsonvalue import JSON

Clock = Callable[[], float]  # seconds, monotonic (time.monotonic in the real referee)

DEFAULT_GAME_MS = 3_600_000  # one hour of wall-clock time per game


@dataclass(frozen=True)
class TimeControl:
    decision_ms: int = 1000
    bank_ms: int | None = None
    increment_ms: int = 0
    startup_ms: int = 10_000
    shutdown_ms: int = 1000  # grace between the shutdown message and SIGTERM, and SIGTERM and SIGKILL
    game_ms: int | None = DEFAULT_GAME_MS  # wall-clock limit of a whole game; None: no limit

    def __post_init__(self) -> None:
        from arena.errors import ArenaError

        if self.decision_ms <= 0:
            raise ArenaError(f"decision_ms must be a positive number of milliseconds, got {self.decision_ms}")
        if self.bank_ms is not None and self.bank_ms < 0:
            raise ArenaError(f"bank_ms must be at least 0 (or unset for no bank), got {self.bank_ms}")
        if self.increment_ms < 0:
            raise ArenaError(f"increment_ms must be at least 0, got {self.increment_ms}")
        if self.startup_ms <= 0 or self.shutdown_ms < 0:
            raise ArenaError(f"startup_ms must be positive and shutdown_ms at least 0, got {self.startup_ms}, {self.shutdown_ms}")
        if self.game_ms is not None and self.game_ms <= 0:
            raise ArenaError(f"game_ms must be a positive number of milliseconds (or unset for no limit), got {self.game_ms}")

    def to_json(self) -> dict[str, JSON]:
        return {
            "decision_ms": self.decision_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "startup_ms": self.startup_ms,
        }


@dataclass(frozen=True)
class Deadline:
    """An allowance of `allowance_ms` from `start` (seconds on the referee's clock)."""

    start: float
    allowance_ms: float

    @property
    def at(self) -> float:
        return self.start + self.allowance_ms / 1000.0

    def remaining_s(self, now: float) -> float:
        return self.at - now

    def met_by(self, arrival: float) -> bool:
        """Whether a line that arrived at `arrival` is in time (the deadline itself is in time)."""
        return arrival <= self.at

    def elapsed_ms(self, when: float) -> float:
        return (when - self.start) * 1000.0


@dataclass
class SeatClock:
    """One seat's clock in one game. Mutable: the referee charges it after each decision."""

    control: TimeControl
    bank_ms: float | None

    @classmethod
    def new(cls, control: TimeControl) -> "SeatClock":
        return cls(control, None if control.bank_ms is None else float(control.bank_ms))

    def allowance_ms(self) -> float:
        """How long the next decision may take."""
        if self.bank_ms is None:
            return float(self.control.decision_ms)
        return min(float(self.control.decision_ms), self.bank_ms)

    def charge(self, elapsed_ms: float) -> None:
        """Take a finished (answered or timed-out) decision off the bank, then add the increment."""
        if self.bank_ms is None:
            return
        used = min(elapsed_ms, self.allowance_ms())
        # `used` is at most the allowance, which is at most the bank: the bank never goes negative.
        self.bank_ms = self.bank_ms - used + self.control.increment_ms

    def report(self) -> dict[str, JSON]:
        """What the bot is told in each request (whole milliseconds)."""
        return {
            "remaining_ms": int(self.allowance_ms()),
            "decision_ms": self.control.decision_ms,
            "bank_ms": None if self.bank_ms is None else int(self.bank_ms),
            "increment_ms": self.control.increment_ms,
        }
