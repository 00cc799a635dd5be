"""The seam between the coordinator and whatever plays the games.

The coordinator (`runner`) owns the schedule, the store and resuming: it submits `GameTask`s and reads
back events (`messages.Event`). An `Executor` owns where games are played and the bots' processes:
`InlineExecutor` plays them in this process (-j 1), `pool.LocalPool` in worker processes on this
machine, and a cluster executor (Dask) can do the same on many. An executor reports a worker it lost
with the tasks it held (`WorkerLost`), and the coordinator decides to play them again.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Protocol

from arena.tournament.run.messages import ClosingFaults, Event, GameTask, PlayerSetup
from arena.tournament.run.signals import uninterrupted
from arena.live.tap import LiveSink, LiveTap

if TYPE_CHECKING:  # imported when games are played here: a coordinator of workers never loads the referee
    from arena.tournament.run.player import GamePlayer


class Executor(Protocol):
    """Plays game tasks somewhere; used as: start, (submit | next_event)*, close."""

    @property
    def capacity(self) -> int:
        """How many tasks it takes in flight at once (for a pool: workers x prefetch)."""

    def start(self, setup: PlayerSetup) -> None:
        """Get ready to play games of this tournament (start workers, connect to a cluster)."""

    def submit(self, task: GameTask) -> None:
        """Queue one task; called only while fewer than `capacity` tasks are in flight."""

    def next_event(self) -> Event:
        """Block until something happens to a task or a worker; called only with tasks in flight."""

    def grow(self, setup: PlayerSetup, retired: tuple[int, ...] = ()) -> None:
        """The field changed while running: `setup` keeps every entrant at its index, new ones after;
        `retired`: every entrant out of the field now, whose bots are closed (idempotent). No other bot
        process is restarted."""

    def close(self, interrupted: bool) -> list[Event]:
        """Stop every worker and close every bot; `interrupted` abandons the games in progress.
        Returns what was still reported: games finished in the meantime, faults found closing bots."""


class InlineExecutor:
    """Plays each task in this process when its event is asked for: no workers, nothing to lose."""

    capacity = 1

    def __init__(self, live: LiveSink | None = None) -> None:
        self.player: GamePlayer | None = None
        self.queue: deque[GameTask] = deque()
        self.tap = LiveTap(live) if live is not None else None  # its own thread: the game never waits on the sink

    def start(self, setup: PlayerSetup) -> None:
        from arena.tournament.run.player import GamePlayer

        self.player = GamePlayer(setup)
        self.player.live = self.tap

    def grow(self, setup: PlayerSetup, retired: tuple[int, ...] = ()) -> None:
        if self.player is not None:
            self.player.grow(setup.config)
            for entrant in retired:
                self.player.retire(entrant)

    def submit(self, task: GameTask) -> None:
        self.queue.append(task)

    def next_event(self) -> Event:
        from arena.tournament.run.player import play_event

        if self.player is None:
            raise RuntimeError("InlineExecutor.start was not called")
        return play_event(self.player, self.queue.popleft())

    def close(self, interrupted: bool) -> list[Event]:
        self.queue.clear()
        if self.tap is not None:
            self.tap.close()
        if self.player is None:
            return []
        with uninterrupted():
            self.player.close()
        faults = tuple(self.player.bot_faults)
        self.player.bot_faults.clear()
        return [ClosingFaults(faults)] if faults else []
