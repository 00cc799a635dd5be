"""Kolpa! (the French "Passt nicht!"): 2-6 players take turns, each playing one card to the discard or
to their own scoring display; hidden hands, public displays, Joker announcements, rounds to 50 points."""

from arena.games.base import GameSpec, Mode, Option
from arena.games.kolpa.state import KolpaState
from arena.games.registry import register

SPEC = register(
    GameSpec(
        name="kolpa",
        version="1.1",
        description="Match the discard or build your display; Jokers announce; rounds until someone has `target` points.",
        min_seats=2,
        max_seats=6,
        mode=Mode.SEQUENTIAL,
        factory=KolpaState,
        options=(
            Option("target", int, 50, "The game ends after the round in which someone's total reaches this.", minimum=1),
            Option(
                "max_turns_per_round",
                int,
                1000,
                "Safety rule: a round not ended after this many turns ends there and is scored as it stands.",
                minimum=1,
            ),
            Option(
                "max_rounds",
                int,
                1000,
                "Safety rule: if nobody reached the target after this many rounds, the game ends as a draw "
                "(every seat shares rank 1; no fault). Far beyond any real game.",
                minimum=1,
            ),
        ),
    )
)

__all__ = ["SPEC", "KolpaState"]
