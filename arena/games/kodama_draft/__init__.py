"""Kodama, drafting variant (2 to 6 players): draft Branch cards from passed hands, grow a tree on
Kodama Duo's tree rules and card data, and score secret Kodama cards each season."""

from pathlib import Path

from arena.games.kodama.common import round_label
from arena.games.kodama.schema import DRAFT_RULES, DRAFT_VIEW_SCHEMA, ACTION_SCHEMA
from arena.games.base import GameSpec, Mode, Renderer, SampleBot
from arena.games.kodama_draft.state import KodamaDraftState

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python"  # arena's checkout (absent from a wheel)


SPEC = GameSpec(
    name="kodama-draft",
    version="2.0",
    description="Kodama's drafting variant: everyone picks a Branch card from a hand of four in secret, the "
    "picks are revealed, then everyone places theirs; the rest is passed left and refilled; Kodama Duo's "
    "trees, cards and Kodama scoring.",
    min_seats=2,
    max_seats=6,
    mode=Mode.SIMULTANEOUS,
    factory=KodamaDraftState,
    round_label=round_label,
    renderer=Renderer("arena.games.kodama", "renderer.js"),
    sample_bots=(SampleBot("kodama-draft-heuristic", ("{python}", str(SAMPLE_BOTS / "kodama_draft_heuristic.py"))),),
    rules=DRAFT_RULES,
    view_schema=DRAFT_VIEW_SCHEMA,
    action_schema=ACTION_SCHEMA,
)

__all__ = ["SPEC", "KodamaDraftState"]
