"""Kododo (published in English as "5211"): 2-5 players choose cards in secret, all at once."""

from arena.games.base import GameSpec, Mode, Option
from arena.games.kododo.state import KododoState
from arena.games.registry import register

SPEC = register(
    GameSpec(
        name="kododo",
        version="1.1",
        description="Secret simultaneous card choices; score the exact Kododo count or the colour majority under the limit.",
        min_seats=2,
        max_seats=5,
        mode=Mode.SIMULTANEOUS,
        factory=KododoState,
        options=(
            Option("long", bool, False, "Long variant: deal again until someone has `target` points."),
            Option("target", int, 50, "Points that end a long game.", minimum=1),
            Option("max_deals", int, 20, "Safety rule of the long variant: the game ends after this many deals.", minimum=1),
        ),
    )
)

__all__ = ["SPEC", "KododoState"]
