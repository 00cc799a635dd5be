"""The one place where a bot's resource limits and their defaults are defined.

`arena play`, the tournament config and the referee all build their `Limits` from this dataclass, so a
default exists once. The time-control defaults live next to the clock arithmetic, in
`arena.core.time_control.TimeControl`, and are likewise the only ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import BotError

DEFAULT_MEMORY_MB = 4096


@dataclass(frozen=True)
class Limits:
    """Bounds on one bot: resources set in the child, and what the referee accepts from its pipes."""

    cpu_seconds: int | None = None  # RLIMIT_CPU, over the process's whole life (a whole match): off by default
    memory_mb: int | None = DEFAULT_MEMORY_MB  # RLIMIT_AS (address space, not resident memory: a JVM may need more)
    max_line_bytes: int = 1_000_000  # the byte budget of one stdout line (a stream without newlines included)
    stderr_tail_lines: int = 20
    max_stderr_bytes_per_game: int = 4_000_000  # more is a flood
    max_unasked_lines_per_game: int = 20  # stdout lines that answer nothing; more is a flood
    # Bytes written to the bot's stdin that it has not read yet. A bot reads each request before it
    # answers, so only one that stopped reading gets near this; without a bound, every later request
    # of the match would pile up in the referee's memory.
    max_unread_bytes: int = 16_000_000

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_mb"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value <= 0):
                raise BotError(f"limit {name} must be a positive number or unset, got {value!r}")
        if self.max_line_bytes < 1024:
            raise BotError(f"limit max_line_bytes must be at least 1024, got {self.max_line_bytes}")
        if self.max_unread_bytes < 65536:
            raise BotError(f"limit max_unread_bytes must be at least 65536, got {self.max_unread_bytes}")
