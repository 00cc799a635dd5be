"""What the move rules (moves.py) and the views (view.py) read of a Kolpa! game: `KolpaState` has it.

They import this Protocol rather than state.py, so the package's modules import one way only:
state -> moves, view -> table, rules, cards.
"""

from __future__ import annotations

from typing import Protocol

from arena.games.base import Seat
from arena.games.kolpa.rules import Announcement, Target
from arena.jsonvalue import JSON
from arena.rng import Rng


class KolpaTable(Protocol):
    n: int
    target: int
    max_turns: int
    max_rounds: int
    rng: Rng
    round: int
    first: int
    current: int
    turn: int
    hands: list[list[str]]
    displays: list[list[list[str]]]
    discard: list[str]
    announce: Announcement | None
    draw: list[str]
    scores: list[int]
    history: list[dict[str, JSON]]
    over: bool
    drawn: bool

    def match_target(self) -> Target: ...

    def matching_tops(self, seat: Seat, target: Target) -> list[str]: ...
