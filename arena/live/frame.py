"""One live frame: a game's state between two steps, every seat's view, as the referee saw it.

A frame goes from the process that plays the game to the coordinator (the ladder's server, or
`arena run`), never to a bot: it holds every seat's hand. Its views are JSON bytes taken at once (the
game's state changes at the next step, and the frame is sent later, by another thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from arena.games.base import GameState
from arena.jsonvalue import JSON, dumps

EVENTS_KEPT = 64  # a frame carries at most this many of the events since the frame before it (the latest)


@dataclass(frozen=True)
class LiveFrame:
    """Game `game` (the task's index: a ladder game's id, a tournament's game index) after `step`
    (-1: the deal); `over` for its last frame. `data`: JSON of {"public": the public view, "own": each
    seat's own keys, "events": the events since the last frame sent (private ones with their seat as
    "to"), "deciding": the seats to decide next}."""

    game: int
    step: int
    over: bool
    data: bytes


def snapshot(game: int, step: int, state: GameState, events: Sequence[JSON], over: bool) -> LiveFrame:
    """The frame of `state` now (its views encoded at once, so later steps cannot change it)."""
    own = [state.own_view(s) for s in range(state.num_seats)]
    body: dict[str, JSON] = {"public": state.public_view(), "own": list(own), "events": list(events)[-EVENTS_KEPT:],
                             "deciding": [] if over else list(state.to_move())}
    return LiveFrame(game, step, over, dumps(body))
