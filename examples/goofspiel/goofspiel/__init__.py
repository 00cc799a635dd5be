"""Goofspiel, the bidding game, as an arena game plugin (entry point `goofspiel` in group `arena.games`)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from arena.games.base import GameSpec, Mode, Option, Renderer, SampleBot
from arena.jsonvalue import JSON

from goofspiel.state import GoofspielState

HERE = Path(__file__).resolve().parent

RULES = """\
Every player holds the cards 1 to N (option `cards`, 13 by default). A prize deck of the same N cards
is shuffled and its top card turned face up. Each round every player bids one card of their hand in
secret, all at once; the bids are revealed together. The highest bid wins the face-up prize's value
in points; if the highest bids tie, nobody wins it. Bid cards are spent, and the next prize is turned.
After N rounds the most points wins; tied points are ranked by the number of prizes won.
"""


def round_label(view: Mapping[str, JSON]) -> str:
    return f"prize {view.get('round')} of {view.get('rounds')}"


VIEW_SCHEMA = {
    "type": "object",
    "description": "What a seat knows: everything is public except the order of the prize deck.",
    "properties": {
        "seat": {"type": "integer", "description": "Your seat."},
        "round": {"type": "integer", "description": "The round being bid for, from 1."},
        "rounds": {"type": "integer", "description": "How many rounds the game has (the option `cards`)."},
        "prize": {"type": ["integer", "null"], "description": "The face-up prize card's value; null once the game is over."},
        "prizes_left": {"type": "integer", "description": "Prize cards not yet won or lost, the face-up one included."},
        "hands": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}},
                  "description": "Every seat's cards still in hand, by seat (public: every bid is revealed)."},
        "points": {"type": "array", "items": {"type": "integer"}, "description": "Prize points won so far, by seat."},
        "history": {"type": "array", "description": "Every round played: its prize, every seat's bid, and the winning seat (null on a tie).",
                    "items": {"type": "object", "properties": {"prize": {"type": "integer"},
                                                               "bids": {"type": "array", "items": {"type": "integer"}},
                                                               "winner": {"type": ["integer", "null"]}}}},
    },
    "required": ["seat", "round", "rounds", "prize", "prizes_left", "hands", "points", "history"],
}

ACTION_SCHEMA = {"type": "integer", "minimum": 1, "description": "The card you bid: one of your hand (`legal` lists them)."}

SPEC = GameSpec(
    name="goofspiel",
    version="1.0",
    description="Bid a card of your hand in secret for each prize card; the highest bid wins it, a tie loses it.",
    min_seats=2,
    max_seats=4,
    mode=Mode.SIMULTANEOUS,
    factory=GoofspielState,
    options=(Option("cards", int, 13, "Cards in each hand and in the prize deck (the number of rounds).", minimum=2, maximum=20),),
    rules=RULES,
    max_steps=20,
    round_label=round_label,
    renderer=Renderer("goofspiel", "renderer.js"),
    sample_bots=(SampleBot("goofspiel-heuristic", ("{python}", str(HERE / "heuristic_bot.py"))),),
    view_schema=VIEW_SCHEMA,
    action_schema=ACTION_SCHEMA,
)

__all__ = ["SPEC", "GoofspielState"]
