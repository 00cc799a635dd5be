"""A tournament's checked configuration (`TournamentConfig`): what the games are, their identity and keys.

It is built from a `PlaySetup` (config.setup), made in code or read from a YAML file (config.tournament).
"""

from __future__ import annotations

import dataclasses
import hashlib
from functools import cached_property
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps, placed
from arena.core.faults import FaultPolicy
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.core.scheduled import ScheduledGame
from arena.tournament.schedule import plan as sched
from arena.tournament.config.entrants import EntrantConfig
from arena.tournament.schedule.plan import ScheduleSpec

if TYPE_CHECKING:  # a worker unpickling a config does not read YAML, nor the stop rule unless it has one
    from arena.stats.stoprule import StopRule


# The settings a config may give; every default comes from the referee's own dataclasses, so there is
# one source of truth for them (`TimeControl`, `Limits`), and the fingerprint hashes every field.
TIME_CONTROL_KEYS = ("decision_ms", "bank_ms", "increment_ms", "startup_ms")
LIMITS_KEYS = ("cpu_seconds", "memory_mb", "max_line_bytes")


@dataclass(frozen=True)
class TournamentConfig:
    path: Path
    name: str
    game: str
    options: Mapping[str, Any]  # resolved: defaults filled in
    players: int
    entrants: tuple[EntrantConfig, ...]
    schedule: ScheduleSpec
    seed: int
    time_control: TimeControl
    limits: Limits
    fault_policy: FaultPolicy
    concurrency: int | None  # None: one game per core
    restart_bots: bool
    store: Path
    replays: Path | None
    cluster: str | None = None  # `executor: {dask: ...}`: a Dask scheduler's address, or local:N
    report: Path | None = None  # output.report: the HTML report folder `arena run` writes at the end
    keep_logs: bool = False  # output.keep_logs: the bots' stderr lines per step in each replay (needs output.replays)
    stop: StopRule | None = None  # stop: end the round-robin once its ranking is settled (config_stop.py)
    warnings: tuple[str, ...] = ()  # what `validate` and `run` say before anything runs (shared entrant folders)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def game_spec(self) -> GameSpec:
        return get_game(self.game)

    def games(self) -> list[ScheduledGame]:
        return sched.build(self.schedule)

    def rules(self) -> dict[str, JSON]:
        """The settings every game shares that can change its result (all but who sits where, and the deal)."""
        return {
            "game": self.game,
            "game_version": self.game_spec().version,
            "options": dict(self.options),
            "time_control": self.time_control.to_json(),
            "limits": dataclasses.asdict(self.limits),
            "fault_policy": self.fault_policy.value,
        }

    def identity(self) -> dict[str, JSON]:
        """What decides the games played and their results.

        Left out on purpose: concurrency, restart_bots, output paths and the stop rule (how a run goes,
        not what a game is), and the resolved interpreter path (so a store survives a new virtual environment).
        """
        return {
            **self.rules(),
            "players": self.players,
            "entrants": [e.identity() for e in self.entrants],
            "schedule": {
                "format": self.schedule.format.value,
                "rounds": self.schedule.rounds,
                "rotations": self.schedule.rotations.value,
                "deals": self.schedule.deals.value,
                "fill": self.schedule.fill.value,
                "candidates": list(self.schedule.candidates),
            },
            "seed": self.seed,
        }

    def fingerprint(self) -> str:
        return hashlib.sha256(dumps(self.identity())).hexdigest()[:16]

    def game_key(self, game: ScheduledGame, rules: str | None = None) -> str:
        """One game's identity: its rules, deal seed and who sits in each seat. A stored game with the
        same key is the same game, whatever else changed in the config (more rounds, a new entrant).
        `rules` is `rules_key()`, passed in when keying many games."""
        identities = self._encoded_identities
        seats = [placed(identities[e]) for e in game.seats]
        text = dumps({"rules": rules or self.rules_key(), "seed": game.seed, "seats": seats})
        return hashlib.sha256(text).hexdigest()[:32]

    @cached_property
    def _encoded_identities(self) -> tuple[bytes, ...]:
        """Each entrant's identity, encoded once for the keys of all its games (the same bytes)."""
        return tuple(dumps(e.identity()) for e in self.entrants)

    def rules_key(self) -> str:
        return hashlib.sha256(dumps(self.rules())).hexdigest()


# --- reading -----------------------------------------------------------------------------------------
