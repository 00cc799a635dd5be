"""Reading a replay for the viewer: the ONE place that knows today's replay file format.

`load_game_record` is the adapter: everything else in `arena.web` sees only the typed `GameRecord`.
When typed replay records exist in `arena.replay`, only this function needs to change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from arena.errors import ReplayError
from arena.jsonvalue import JSON
from arena.referee.faults import Fault
from arena.referee.replay import REPLAY_FORMAT, iter_replay


@dataclass(frozen=True)
class Decision:
    """One seat's decision at one step, as the referee recorded it."""

    seat: int
    played: JSON
    source: str  # "bot" or "fallback"
    elapsed_ms: float | None


@dataclass(frozen=True)
class Step:
    """Every decision of one step and the events the game produced from them."""

    index: int
    decisions: tuple[Decision, ...]
    events: tuple[dict[str, JSON], ...]


@dataclass(frozen=True)
class GameRecord:
    game: str
    game_version: str
    game_id: str
    options: dict[str, JSON]
    seed: int
    players: tuple[str, ...]
    steps: tuple[Step, ...]
    faults: tuple[Fault, ...]
    points: tuple[float, ...]
    ranks: tuple[int, ...]
    game_ranks: tuple[int, ...]
    time_control: dict[str, JSON]


def _int(value: Any, what: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReplayError(f"{where}: {what} must be a whole number, got {value!r}")
    return value


def load_game_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read a replay file (format 1: JSON lines of header, commit, decision, events, fault, result)."""
    header: dict[str, JSON] | None = None
    steps: list[Step] = []
    pending: list[Decision] = []
    faults: list[Fault] = []
    result: dict[str, JSON] | None = None
    for number, record in iter_replay(path):
        where = f"{path}:{number}"
        kind = record["type"]
        if header is None:
            if kind != "header":
                raise ReplayError(f"{where}: the first record must be the header, got {kind!r}")
            if record.get("format") != REPLAY_FORMAT:
                raise ReplayError(f"{where}: replay format {record.get('format')!r}, this arena reads format {REPLAY_FORMAT}")
            header = record
        elif kind == "decision":
            elapsed = record.get("elapsed_ms")
            pending.append(
                Decision(
                    seat=_int(record.get("seat"), "seat", where),
                    played=record.get("played"),
                    source=str(record.get("source")),
                    elapsed_ms=float(elapsed) if isinstance(elapsed, (int, float)) else None,
                )
            )
        elif kind == "events":
            events = record.get("events")
            if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
                raise ReplayError(f"{where}: an events record holds a list of objects")
            steps.append(Step(len(steps), tuple(sorted(pending, key=lambda d: d.seat)), tuple(events)))
            pending = []
        elif kind == "fault":
            try:
                faults.append(Fault.from_json(record))
            except (KeyError, TypeError, ValueError) as exc:
                raise ReplayError(f"{where}: an unreadable fault record ({exc})") from None
        elif kind == "result":
            result = record
    if header is None:
        raise ReplayError(f"{path}: the replay is empty")
    if result is None:
        raise ReplayError(f"{path}: no result record (the replay is cut short; `arena verify` says where)")
    seats = header.get("seats")
    if not isinstance(seats, list):
        raise ReplayError(f'{path}: the header\'s "seats" must be a list')
    options = header.get("options")
    clock = header.get("time_control")
    return GameRecord(
        game=str(header.get("game")),
        game_version=str(header.get("game_version")),
        game_id=str(header.get("game_id")),
        options=dict(options) if isinstance(options, dict) else {},
        seed=_int(header.get("seed"), "the seed", f"{path}:1"),
        players=tuple(str(s.get("name", "")) if isinstance(s, dict) else "" for s in seats),
        steps=tuple(steps),
        faults=tuple(faults),
        points=tuple(float(p) for p in _list(result.get("points"))),
        ranks=tuple(int(r) for r in _list(result.get("ranks"))),
        game_ranks=tuple(int(r) for r in _list(result.get("game_ranks"))),
        time_control=dict(clock) if isinstance(clock, dict) else {},
    )


def _list(value: JSON) -> list[Any]:
    return list(value) if isinstance(value, list) else []
