"""Kodama Duo (2 players): cut-and-choose Branch cards, grow a tree, summon spirits, score Kodama cards."""

from arena.games.base import GameSpec, Mode
from arena.games.kodama_duo.state import KodamaDuoState
from arena.games.registry import register

SPEC = register(
    GameSpec(
        name="kodama-duo",
        version="1.0",
        description="Split three Branch cards and choose a pile, grow a tree along unbroken element lines, "
        "summon spirits, and score secret Kodama cards each season.",
        min_seats=2,
        max_seats=2,
        mode=Mode.MIXED,
        factory=KodamaDuoState,
    )
)

__all__ = ["SPEC", "KodamaDuoState"]
