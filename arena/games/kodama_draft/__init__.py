"""Kodama, drafting variant (2 to 6 players): draft Branch cards from passed hands, grow a tree on
Kodama Duo's tree rules and card data, and score secret Kodama cards each season."""

from arena.games.base import GameSpec, Mode
from arena.games.kodama_draft.state import KodamaDraftState
from arena.games.registry import register

SPEC = register(
    GameSpec(
        name="kodama-draft",
        version="2.0",
        description="Kodama's drafting variant: everyone picks a Branch card from a hand of four in secret, the "
        "picks are revealed, then everyone places theirs; the rest is passed left and refilled; Kodama Duo's "
        "trees, cards and Kodama scoring.",
        min_seats=2,
        max_seats=6,
        mode=Mode.SIMULTANEOUS,
        factory=KodamaDraftState,
    )
)

__all__ = ["SPEC", "KodamaDraftState"]
