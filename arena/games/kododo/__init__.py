"""Kododo (published in English as "5211"): 2-5 players choose cards in secret, all at once."""

from pathlib import Path
from typing import Mapping

from arena.jsonvalue import JSON
from arena.games.kododo.schema import RULES, VIEW_SCHEMA, ACTION_SCHEMA
from arena.games.base import GameSpec, Mode, Option, Renderer, SampleBot
from arena.games.kododo.state import KododoState

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python"  # arena's checkout (absent from a wheel)


def round_label(view: Mapping[str, JSON]) -> str:
    return f"deal {view.get('deal')} round {view.get('round_in_deal')}"


SPEC = GameSpec(
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
    round_label=round_label,
    renderer=Renderer("arena.games.kododo", "renderer.js"),
    sample_bots=(SampleBot("kododo-heuristic", ("{python}", str(SAMPLE_BOTS / "kododo_heuristic.py"))),),
    rules=RULES,
    view_schema=VIEW_SCHEMA,
    action_schema=ACTION_SCHEMA,
)

__all__ = ["SPEC", "KododoState"]
