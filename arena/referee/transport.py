"""How the referee hears from the bots of a game: typed arrivals, each stamped when it was read.

`SelectorTransport` is the real one: one epoll (`pipe.Poller`) over every bot's pipes. Each `wait` first
reads every ready pipe, stamping each read with the injected clock the moment `os.read` returns, and
only then hands the arrivals back to be judged. So the time a line is credited with includes none of
the referee's work on the lines of the same wait, and at most the judging of the previous wait's
reads (one read of at most 64 KiB per ready pipe, lines bounded by their byte budget), never a
backlog. Judging one line is bounded too, whatever the line: one parse in C of at most the byte
budget, then work sized by the protocol's bounds (an action's walk stops at MAX_ACTION_BYTES, a fault's
`preview` of a bad value looks at its first items only), so a neighbour's 1 MB line cannot make an
innocent bot's answer late (tests/referee/test_line_work.py, with real bots). The referee compares
these stamps with each seat's `Deadline`.

Why one selector loop and not per-bot reader threads, by measurement (tests/referee/bench_stamp.py, one run:
a line every 10 ms while the referee judges a flooding neighbour's 1 MB lines, 5.9 ms each): stamped
by this loop, median 0.4 ms late, p90 5.2 ms (one judging pass); stamped by a reader thread, median
5.5 ms, p90 9.2 ms, as the thread waits for the GIL (the 5 ms switch interval, and orjson holds the
GIL for a whole parse). A thread blocked on a pipe that an orphan holds open also cannot be stopped.
On whole games (tests/referee/test_clock.py, the drift test) a bot sleeping 100 ms per decision next
to one writing stderr as fast as it can is recorded within a median 0.5 ms of its own measure.

A test transport (tests/referee/fake.py) implements the same `Transport` protocol with scripted
arrivals on a fake clock, so deadline arithmetic is tested exactly, without sleeping.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol, Sequence

from arena.core.clock import Clock
from arena.core.limits import Limits
from arena.referee.pipe import ERR, IN, OUT, Pipes, Poller
from arena.referee.request_ids import Classification
from arena.referee.session import BotSpec


class BotHandle(Protocol):
    """What a game needs of a bot (`arena.referee.session.BotProcess` is the real one)."""

    spec: BotSpec
    name: str
    version: str
    limits: Limits
    exit_detail: str
    limit_detail: str | None  # a sandbox limit that ended the bot, if one did
    backlog: list[bytes | None]
    game_unasked_lines: int

    @property
    def alive(self) -> bool: ...

    @property
    def game_stderr_bytes(self) -> int: ...

    def exited(self) -> bool: ...
    def begin_game(self) -> None: ...
    def new_request_id(self) -> int: ...
    def classify(self, request_id: int) -> Classification: ...
    def settle(self) -> None: ...
    def expire_pending(self) -> None: ...
    def send(self, data: bytes) -> bool: ...
    def flush_blocking(self, timeout: float) -> None: ...
    def write_failure(self) -> str: ...
    def stderr_tail(self) -> tuple[str, ...]: ...
    def kill(self) -> bool: ...


class ArrivalKind(enum.Enum):
    LINE = "line"  # one stdout line (None: a line over the byte budget, discarded)
    EOF = "eof"  # the bot closed its stdout
    STDERR = "stderr"  # stderr bytes went to the bot's tail; `line` holds them (for the game's log)
    BROKEN = "broken"  # the bot's stdin is closed: nothing more can be sent


@dataclass(slots=True)
class Arrival:  # not frozen: one is made for every line read, and a frozen dataclass is slower to make
    bot: BotHandle
    kind: ArrivalKind
    at: float  # the referee's clock when it was read
    line: bytes | None = None  # a LINE's bytes (None: over the budget), or the bytes a STDERR read got


class Batch:
    """What one wait found. Every watched pipe without an arrival was empty at `checked_at`.
    (A compiled class: several are made every step, and this is the cheapest record to make.)"""

    def __init__(self, arrivals: Sequence[Arrival], checked_at: float) -> None:
        self.arrivals = arrivals
        self.checked_at = checked_at


class Transport(Protocol):
    def watch(self, bot: BotHandle) -> None: ...
    def unwatch(self, bot: BotHandle) -> None: ...
    def wait(self, timeout: float) -> Batch: ...
    def close(self) -> None: ...


class SelectorTransport:
    """One selector over the pipes of every `BotProcess` of a game."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.sel = Poller()

    def watch(self, bot: BotHandle) -> None:
        pipes = getattr(bot, "pipes", None)  # None: a bot that could not be started has no pipes
        if isinstance(pipes, Pipes):
            pipes.attach(self.sel)

    def unwatch(self, bot: BotHandle) -> None:
        pipes = getattr(bot, "pipes", None)
        if isinstance(pipes, Pipes):
            pipes.detach()

    def wait(self, timeout: float) -> Batch:
        """Everything ready within `timeout` seconds, read before any of it is judged."""
        arrivals: list[Arrival] = []
        clock = self.clock
        ready = self.sel.ready(timeout)
        checked = clock()
        for bot, which in ready:
            pipes: Pipes = bot.pipes
            if which == OUT:
                lines = pipes.read_stdout()
                at = clock()
                for line in lines:
                    arrivals.append(Arrival(bot, ArrivalKind.LINE, at, line))
                if pipes.out_eof:
                    arrivals.append(Arrival(bot, ArrivalKind.EOF, at))
            elif which == ERR:
                data = pipes.read_stderr()
                if data:
                    arrivals.append(Arrival(bot, ArrivalKind.STDERR, clock(), data))
            elif which == IN:
                pipes.flush_output()
                if pipes.broken_pipe:
                    arrivals.append(Arrival(bot, ArrivalKind.BROKEN, clock()))
        return Batch(arrivals, checked)

    def close(self) -> None:
        self.sel.close()


__all__ = ["Arrival", "ArrivalKind", "Batch", "BotHandle", "SelectorTransport", "Transport"]
