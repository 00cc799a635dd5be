"""What the move checks (moves.py) and the views (view.py) read of a Kodama Duo game, and the kind of
decision asked now (`Step`): `KodamaDuoState` has it.

They import this Protocol rather than state.py, so the package's modules import one way only:
state -> moves, view -> table -> the shared Kodama code (arena.games.kodama).
"""

from __future__ import annotations

import enum
from typing import Protocol

from arena.games.base import Seat
from arena.games.kodama.cards import CardSet
from arena.games.kodama.rules import Tree
from arena.jsonvalue import JSON

TURNS_PER_SEASON = 4


class Step(enum.Enum):
    """The kind of decision asked now; its value is the view's "decision"."""

    SPLIT = "split"
    CHOOSE = "choose"
    PLACE = "place"
    SPIRIT = "spirit"
    KODAMA = "kodama"
    OVER = "over"


class KodamaDuoTable(Protocol):
    faces: CardSet
    trunks: list[str]
    trees: list[Tree]
    shown: dict[str, tuple[str, ...]]
    spirits: dict[str, tuple[int, str, int]]
    deck: list[str]
    cutter: int
    revealed: list[str]
    piles: list[list[str]] | None
    held: list[list[str]]
    given: list[list[str]]
    discard: list[str]
    season: int
    turn: int
    scores: list[int]
    placed: list[list[int]]
    unplaced: list[list[int]]
    placing: tuple[int, ...]
    spirit_seat: int
    spirit_elements: list[str]
    step: Step

    @property
    def sower(self) -> int: ...

    def to_move(self) -> tuple[Seat, ...]: ...

    def _covered(self, card: str, index: int) -> str | None: ...

    def _placement(self, seat: int, card: str, parent: str) -> tuple[int, tuple[str, ...]]: ...

    def _tree_view(self, seat: int) -> dict[str, JSON]: ...

    def _season_view(self, season: int) -> dict[str, JSON]: ...

    def _kodama_view(self, seat: int) -> dict[str, JSON]: ...

    def _kodama_snapshot(self) -> dict[str, JSON]: ...
