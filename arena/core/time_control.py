"""The time control of a game: how long a bot may take for each decision, its start-up and the whole game.

A decision may take at most `decision_ms`; with a bank (chess clock) it may also take no more than
what is left in the bank, the time used is taken from the bank and `increment_ms` is added after each
decision (Fischer increment). The handshake has its own allowance (`startup_ms`) so slow runtimes (JVM,
node) are not punished for starting. A whole game may last at most `game_ms` of wall-clock time.

These are the only time-control defaults: the tournament config and `arena play` take theirs from here.
The arithmetic that applies them during a game is `arena.core.clock`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

from arena.jsonvalue import JSON

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
        """The one JSON form, every field: the `start` message, the replay header, the tournament's fingerprint."""
        return {f: getattr(self, f) for f in FIELDS}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON], keys: tuple[str, ...] | None = None) -> "TimeControl":
        """The time control `data` holds in exactly the form `to_json` writes (every key of `keys`,
        default all of them, no other; whole numbers, null only where a field may be unset).
        Keys left out of `keys` keep their default (`REPLAY_V2_KEYS`: a format-2 replay header).
        Raises ArenaError saying what is wrong."""
        from arena.errors import ArenaError

        want = FIELDS if keys is None else keys
        missing = [k for k in want if k not in data]
        extra = sorted(k for k in data if k not in want)
        if missing or extra:
            raise ArenaError("a time control has exactly the keys " + ", ".join(want)
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(extra)}" if extra else ""))
        for key in want:
            value = data[key]
            if value is None and key in _NULLABLE:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArenaError(f"time control {key} must be a whole number of milliseconds"
                                 + (" or null" if key in _NULLABLE else "") + f", got {value!r}")
        return cls(**{k: data[k] for k in want})  # checked just above


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TimeControl))
REPLAY_V2_KEYS = ("decision_ms", "bank_ms", "increment_ms", "startup_ms")  # what a format-2 replay header holds
_NULLABLE = frozenset({"bank_ms", "game_ms"})
