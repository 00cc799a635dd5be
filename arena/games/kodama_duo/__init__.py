"""Kodama Duo (2 players): cut-and-choose Branch cards, grow a tree, summon spirits, score Kodama cards."""

from pathlib import Path

from arena.games.kodama.common import round_label
from arena.games.kodama.schema import DUO_RULES, DUO_VIEW_SCHEMA, ACTION_SCHEMA
from arena.games.base import GameSpec, Mode, Renderer, SampleBot
from arena.games.kodama_duo.state import KodamaDuoState

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python"  # arena's checkout (absent from a wheel)


SPEC = GameSpec(
    name="kodama-duo",
    version="1.0",
    description="Split three Branch cards and choose a pile, grow a tree along unbroken element lines, "
    "summon spirits, and score secret Kodama cards each season.",
    min_seats=2,
    max_seats=2,
    mode=Mode.MIXED,
    factory=KodamaDuoState,
    round_label=round_label,
    renderer=Renderer("arena.games.kodama", "renderer.js"),
    sample_bots=(SampleBot("kodama-duo-heuristic", ("{python}", str(SAMPLE_BOTS / "kodama_duo_heuristic.py"))),),
    rules=DUO_RULES,
    view_schema=DUO_VIEW_SCHEMA,
    action_schema=ACTION_SCHEMA,
)

__all__ = ["SPEC", "KodamaDuoState"]
