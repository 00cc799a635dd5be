"""A replay as the viewer needs it: read by the referee's strict reader, re-simulated by its verifier.

`load_game_record` is the adapter between `arena.referee` and `arena.web`: `load_replay` parses the
file into typed records (format 2), and `resimulate` re-plays it with the game engine, checking every
record as it goes (the same checks as `arena verify`). Each seat's frame at step i is
`state.view(seat)` of the re-simulated state before step i (and after the last step for the final
frame): what the game lets that seat know, built by the game's own allow-list. Nothing here parses
replay JSON; a replay that does not read or does not agree with the game is a `ReplayError`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from arena.errors import ReplayError
from arena.games.base import GameState
from arena.jsonvalue import JSON, dumps, loads
from arena.core.faults import Fault
from arena.replay import Decision, Replay, load_replay
from arena.audit.verify import SimStep, resimulate


@dataclass(frozen=True)
class Step:
    """One step: who decided, every decision (typed, as recorded and verified) and the step's events."""

    index: int
    deciding: tuple[int, ...]
    asked: tuple[int, ...]  # the seats sent a request (a seat whose bot was out is not asked)
    decisions: tuple[Decision, ...]
    events: tuple[dict[str, JSON], ...]


@dataclass(frozen=True)
class GameRecord:
    replay: Replay
    steps: tuple[Step, ...]
    views: tuple[tuple[JSON, ...], ...]  # views[seat][i]: seat's view before step i; [len(steps)]: the end
    faults: tuple[Fault, ...]

    @property
    def game(self) -> str:
        return self.replay.header.game

    @property
    def game_id(self) -> str:
        return self.replay.header.game_id

    @property
    def seed(self) -> int:
        return self.replay.header.seed

    @property
    def players(self) -> tuple[str, ...]:
        """Each seat as the entrant's name with the bot's own name and version beside it (cleaned)."""
        return tuple(seat.label for seat in self.replay.header.seats)

    @property
    def time_control(self) -> dict[str, JSON]:
        return self.replay.header.time_control

    @property
    def points(self) -> tuple[int, ...]:
        return self.replay.result.points

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.replay.result.ranks

    @property
    def game_ranks(self) -> tuple[int, ...]:
        return self.replay.result.game_ranks


def load_game_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read, verify and re-simulate the replay at `path`; ReplayError (one line, naming the file and
    line) when it cannot be read or does not agree with the game."""
    return game_record(load_replay(path))


def game_record(replay: Replay) -> GameRecord:
    n = len(replay.header.seats)
    views: list[list[JSON]] = [[] for _ in range(n)]
    steps: list[Step] = []
    last: SimStep | None = None
    for sim in resimulate(replay, detail=True):
        assert sim.state is not None  # detail=True: a copy of the state before the step
        _add_views(views, sim.state)
        steps.append(Step(sim.step, sim.deciding, sim.asked, sim.decisions, sim.events))
        last = sim
    # resimulate has now checked the result record too: the game is over and the result is the game's.
    if last is None or last.state is None:
        raise ReplayError(f"{replay.source}: the replay has no steps")
    end = last.state.clone()  # the state after the last step: its verified actions applied once more
    end.apply({d.seat: d.played for d in last.decisions})
    _add_views(views, end)
    return GameRecord(replay, tuple(steps), tuple(tuple(v) for v in views),
                      tuple(f.to_fault() for f in replay.result.faults))


def _add_views(views: list[list[JSON]], state: GameState) -> None:
    for seat, frames in enumerate(views):
        frames.append(_frozen(state.view(seat)))


def _frozen(view: dict[str, JSON]) -> JSON:
    """A deep copy: a view may share lists with its state."""
    return loads(dumps(view))
