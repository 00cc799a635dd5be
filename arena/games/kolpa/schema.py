"""Kolpa!'s documented view and action (protocol.md's generated reference; the 'documented' check holds views to it)."""

from arena.games.docs import member, object_schema

PER_SEAT_INT = {"type": "integer"}

RULES = """\
One seat plays at each step, one card: from its hand or a display top to the discard when it matches
the top card (colour or number, or a Joker's announcement), a hand card to its own display when nothing
matches (then it draws), or a Joker with an announcement. A round ends when a hand is emptied onto the
discard; display cards score plus, cards left in hand minus. Rounds go on until someone's total
reaches `target`. The readings follow below."""

VIEW_SCHEMA = object_schema(
    "What a seat knows: its hand, the discard's top, every display's top cards, sizes and scores. Never another hand or the draw pile's order.",
    {
        "seat": member("integer", "Your seat."),
        "player_count": member("integer", "The number of seats."),
        "round": member("integer", "The round, from 1."),
        "first": member("integer", "The seat that began this round."),
        "to_move": member(["integer", "null"], "The seat to play; null once the game is over."),
        "turn": member("integer", "Turns played in this round."),
        "max_turns_per_round": member("integer", "The option of that name (a safety rule)."),
        "target": member("integer", "The option: the total that ends the game."),
        "hand": member("array", "Your cards, sorted (colour order, then number, Jokers last).", {"type": "string"}),
        "discard": member("string", "The discard's top card."),
        "announce": member(["string", "integer", "null"], "The active announcement: null unless a Joker is on top."),
        "match": member("object", "What a card must match now: `{\"colour\": \"O\"|null, \"number\": 5|null}`."),
        "discard_size": member("integer", "Cards in the discard (those under the top are not shown)."),
        "draw_pile": member("integer", "Cards left to draw (never their order)."),
        "displays": member("array", "By seat, each display pile's top card only: `{\"B\": top, …}`, null for an empty pile.", {"type": "object"}),
        "hand_sizes": member("array", "By seat, cards in hand.", PER_SEAT_INT),
        "scores": member("array", "By seat, totals.", PER_SEAT_INT),
        "history": member("array", "One `{\"round\", \"reason\": \"out\"|\"turn_limit\", \"ended_by\": seat|null, \"points\": [...]}` "
                          "per finished round.", {"type": "object"}),
        "over": member("boolean", "True once the game is over."),
    },
)

ACTION_SCHEMA = {"type": "object", "description": "One card: `{\"play\", \"from\", \"to\"}` (and `announce` for a Joker), "
                 "or `{\"pass\": true}` (the table below)."}
