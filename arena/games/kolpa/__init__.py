"""Kolpa! (the French "Passt nicht!"): 2-6 players take turns, each playing one card to the discard or
to their own scoring display; hidden hands, public displays, Joker announcements, rounds to 50 points."""

from pathlib import Path
from typing import Mapping

from arena.jsonvalue import JSON
from arena.games.kolpa.schema import RULES, VIEW_SCHEMA, ACTION_SCHEMA
from arena.games.base import GameSpec, Mode, Option, Renderer, SampleBot
from arena.games.kolpa.state import KolpaState

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python"  # arena's checkout (absent from a wheel)


def round_label(view: Mapping[str, JSON]) -> str:
    return f"round {view.get('round')}"


SPEC = GameSpec(
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
    round_label=round_label,
    # a step is a turn: the safety rules' defaults end every game within max_rounds x max_turns_per_round steps
    max_steps=1000 * 1000,
    renderer=Renderer("arena.games.kolpa", "renderer.js"),
    sample_bots=(SampleBot("kolpa-heuristic", ("{python}", str(SAMPLE_BOTS / "kolpa_heuristic.py"))),),
    rules=RULES,
    view_schema=VIEW_SCHEMA,
    action_schema=ACTION_SCHEMA,
)

__all__ = ["SPEC", "KolpaState"]
