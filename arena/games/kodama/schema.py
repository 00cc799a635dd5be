"""The documented view members Kodama Duo and Kodama draft share (their protocol.md generated references)."""

from typing import Any

from arena.games.docs import member, object_schema

FACES = {"type": "object"}
PER_SEAT_INT = {"type": "integer"}

SHARED: dict[str, dict[str, Any]] = {
    "seat": member("integer", "Your seat."),
    "step": member("string", "The step's kind of decision (`over` once the game is over)."),
    "decision": member(["string", "null"], "Your kind of decision now, or null when you are not asked."),
    "to_move": member("array", "The seats asked now.", PER_SEAT_INT),
    "turn": member("integer", "The growth turn of the season, 1 to 4."),
    "season": member("integer", "The season, 1 to 3."),
    "season_name": member("string", "`spring`, `summer` or `autumn`."),
    "season_card": member("object", "The current Season card: `{\"id\", \"season\", \"name\", \"bonus\": {\"points\", \"per\"}}`."),
    "past_season_cards": member("array", "The Season cards of past seasons (face-down ones are never shown).", FACES),
    "scores": member("array", "By seat, points.", PER_SEAT_INT),
    "trees": member("array", "By seat: `{\"seat\", \"trunk\", \"trunk_element\", \"free\", \"cards\"}` (below).", FACES),
    "discard": member("array", "The discarded tree cards' faces.", FACES),
    "deck": member("integer", "Branch cards left in the deck."),
    "kodama": member("array", "Your unscored Kodama cards, each with `value`: its worth on your tree now.", FACES),
    "kodama_left": member("array", "By seat, unscored Kodama cards.", PER_SEAT_INT),
    "kodama_scored": member("array", "By seat, the scored Kodama cards: `{\"card\", \"season\", \"points\"}`.", {"type": "array"}),
    "placed_this_season": member("array", "By seat, cards placed this season.", PER_SEAT_INT),
    "max_placement_points": member("integer", "The placement ban: a placement scoring more is never legal (10)."),
}


def kodama_view(description: str, own: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A Kodama game's view schema: the shared members and its own."""
    return object_schema(description, {**SHARED, **own})


ACTION_SCHEMA = {"type": "object", "description": "One object whose members depend on `view.decision` (the table below)."}


DUO_RULES = """\
Each growth turn the Cutter splits three revealed Branch cards into two piles, the Sower chooses one,
and both place their new cards on their own trees at once; a seat that received one card may then
summon a spirit. Placing scores the unbroken element lines toward the Trunk (never more than 10). At
each season's end both seats score one secret Kodama card at once. Three seasons; most points wins.
The readings follow below."""

DUO_VIEW_SCHEMA = kodama_view(
    "What a seat knows: the public table, its own Kodama cards, the revealed Season cards. Never the deck's order, "
    "the opponent's unscored Kodama cards or face-down Season cards.",
    {
        "cutter": member("integer", "The seat that splits this turn."),
        "sower": member("integer", "The seat that chooses a pile this turn."),
        "spirits": member("object", "Per element: null (in the supply) or `{\"seat\", \"on\": [cardId, instance]}`."),
        "revealed": member("array", "The three Branch cards' faces on the table before the split.", FACES),
        "piles": member(["array", "null"], "The two piles' faces after the split (null before).", {"type": "array"}),
        "held": member("array", "By seat, new cards not yet placed (faces).", {"type": "array"}),
        "spirit_elements": member("array", "The elements a spirit may be summoned of (during `spirit`).", {"type": "string"}),
    },
)

DRAFT_RULES = """\
Each growth turn every seat picks one card of its hand in secret; the picks are revealed together,
then every seat places its pick on its own tree at once, and the hands are passed left and refilled.
Placing scores as in Kodama Duo (no spirits). At each season's end every seat scores one secret Kodama
card at once. Three seasons; most points wins. The readings follow below."""

DRAFT_VIEW_SCHEMA = kodama_view(
    "What a seat knows: the public table, its own hand and Kodama cards, the revealed picks and Season cards. "
    "Never another seat's hand or unscored Kodama cards, nor a pick before every seat has picked.",
    {
        "player_count": member("integer", "The number of seats."),
        "pass_to": member("integer", "The seat your hand is passed to: `seat + 1 mod player_count`."),
        "hand": member("array", "Your hand's faces (never another seat's).", FACES),
        "picks": member("array", "By seat, the revealed pick's face while it waits to be placed, else null.", {"type": ["object", "null"]}),
        "hand_sizes": member("array", "By seat, cards in hand.", PER_SEAT_INT),
    },
)
