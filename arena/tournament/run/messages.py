"""The typed records the coordinator and the executors exchange (across process pipes, or a cluster).

Every message is a frozen dataclass, so a receiver dispatches on its type, never on a tuple's first
item, and a dead worker shows up as `WorkerLost` instead of a malformed message. What a worker sends:
`GameDone` (a finished game), `GameFailed` (a game that could not be played for a reason outside the
bots: an output that cannot be written), `WorkerBug` (an exception in arena itself, with its
traceback) and `ClosingFaults` (faults found closing its bots). What the coordinator sends: `PlayerSetup`
(once, as a worker starts), `GameTask` and `Stop`. What an executor reports to the coordinator: `GameDone`, `GameFailed`, `WorkerBug`,
`ClosingFaults` and `WorkerLost`.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.faults import Fault
from arena.core.scheduled import ScheduledGame
from arena.results.stored import StoredGame
from arena.tournament.config.tournament import TournamentConfig


@dataclass(frozen=True)
class PlayerSetup:
    """What a worker needs to play any game of the tournament (sent once to each worker)."""

    config: TournamentConfig
    restart_bots: bool = False
    secret: str = ""  # the tournament's secret (the store's): keys every game's seed and id


@dataclass(frozen=True)
class GameTask:
    """Play this scheduled game. `attempt` counts from 1; a game is re-run when its worker was lost."""

    game: ScheduledGame
    key: str
    attempt: int = 1

    @property
    def index(self) -> int:
        return self.game.index


@dataclass(frozen=True)
class Grow:
    """The field changed while the run goes on: `setup` keeps every entrant at its index (new ones come
    after), `retired` entrants' bots are closed; every other bot process stays alive."""

    setup: PlayerSetup
    retired: tuple[int, ...] = ()


@dataclass(frozen=True)
class Stop:
    """No more games: close the bots, report `ClosingFaults`, exit."""


@dataclass(frozen=True)
class GameDone:
    task: GameTask
    stored: StoredGame


@dataclass(frozen=True)
class GameFailed:
    """The game could not be played for a reason the user must fix (e.g. its replay cannot be written)."""

    task: GameTask
    message: str


@dataclass(frozen=True)
class WorkerBug:
    """An exception in arena's own code inside a worker; the run stops (a bug to report)."""

    task: GameTask | None
    traceback: str


@dataclass(frozen=True)
class ClosingFaults:
    """Faults found when a worker closed its bots (no_exit, orphans), or when a bot could not start."""

    faults: tuple[tuple[str, Fault], ...]


@dataclass(frozen=True)
class WorkerLost:
    """A worker ended without saying why (killed, out of memory): its unfinished tasks come back."""

    worker: str  # e.g. "worker 2 (pid 4242)"
    detail: str  # e.g. "killed by signal 9"
    tasks: tuple[GameTask, ...]


WorkerMessage = GameDone | GameFailed | WorkerBug | ClosingFaults
Event = GameDone | GameFailed | WorkerBug | ClosingFaults | WorkerLost
