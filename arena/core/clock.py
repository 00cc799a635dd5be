"""Time-control arithmetic, pure: no clock is read here, so the rules can be tested exactly.

The allowances themselves are `arena.core.time_control.TimeControl`. Every allowance is a `Deadline`:
measured from the moment its request was written (or the bot was spawned), and met by a line whose
arrival time is at or before it. The referee's clock is injected (a `Clock` is any function returning
seconds), so tests drive time exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from arena.core.time_control import TimeControl
from arena.jsonvalue import JSON

Clock = Callable[[], float]  # seconds, monotonic (time.monotonic in the real referee)


class Deadline:
    """An allowance of `allowance_ms` from `start` (seconds on the referee's clock), ending `at`.

    A plain class with slots, not a dataclass: one is made for every decision, and `at` is read several
    times each (computed once here)."""

    __slots__ = ("start", "allowance_ms", "at")

    def __init__(self, start: float, allowance_ms: float) -> None:
        self.start = start
        self.allowance_ms = allowance_ms
        self.at = start + allowance_ms / 1000.0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deadline) and (self.start, self.allowance_ms) == (other.start, other.allowance_ms)

    def __hash__(self) -> int:
        return hash((self.start, self.allowance_ms))

    def __repr__(self) -> str:
        return f"Deadline(start={self.start!r}, allowance_ms={self.allowance_ms!r})"

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

    def report(self, allowance_ms: float | None = None) -> dict[str, JSON]:
        """What the bot is told in each request (whole milliseconds); `allowance_ms`: the decision's
        allowance when it is not the clock's own (the game's wall-clock limit cut it)."""
        return {
            "remaining_ms": int(self.allowance_ms() if allowance_ms is None else allowance_ms),
            "decision_ms": self.control.decision_ms,
            "bank_ms": None if self.bank_ms is None else int(self.bank_ms),
            "increment_ms": self.control.increment_ms,
        }
