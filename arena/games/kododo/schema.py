"""Kododo's documented view and action (protocol.md's generated reference; the 'documented' check holds views to it)."""

from arena.games.docs import member, object_schema

CARDS = {"type": "array", "items": {"type": "string"}}
PER_SEAT_INT = {"type": "integer"}

RULES = """\
Each deal, every seat holds 5 cards; a round is three turns (play 2 cards, then 1, then 1), every seat
at once and in secret, revealed together (`reveal`). After the third turn the round scores: with exactly
`kododo_target` Kododo cards (the 1s) on the table, each scores 1 point; otherwise the single colour
alone at the highest count under `limit` scores its face values for its owners, and nothing else scores.
Most points wins; the tie-break is the cards in one's score pile. The readings follow below."""

VIEW_SCHEMA = object_schema(
    "What a seat knows: its hand, the table, the scores. Other hands, the draw pile's order and the removed cards are never shown.",
    {
        "seat": member("integer", "Your seat."),
        "player_count": member("integer", "The number of seats (`start.players` lists their names)."),
        "hand": member("array", "Your cards, sorted.", {"type": "string"}),
        "play": member("integer", "How many cards to play now: 2 on turn 1, else 1."),
        "deal": member("integer", "The deal, from 1."),
        "round": member("integer", "The round, counted over the whole game."),
        "round_in_deal": member("integer", "The round within this deal, from 1."),
        "turn": member("integer", "The turn of the round, 1 to 3."),
        "last_round": member("boolean", "True when this round is the deal's last (no draws)."),
        "table": member("array", "Per seat, the cards played so far this round.", CARDS),
        "points": member("array", "Per seat, points.", PER_SEAT_INT),
        "pile_cards": member("array", "Per seat, cards in the score pile (the tie-break).", PER_SEAT_INT),
        "hand_sizes": member("array", "Per seat, cards in hand.", PER_SEAT_INT),
        "draw_pile": member("integer", "Cards left to draw."),
        "kododo_target": member("integer", "`player_count + 2`: the Kododo cards that make a Kododo round."),
        "limit": member("integer", "`player_count + 3`: a colour with this many cards or more is out."),
        "history": member("array", "Every scored round: `deal`, `round`, `played` (per seat), `mode`, `colour`, "
                          "`scored` (per seat), `points` (per seat), `excluded` (colours out, in order).", {"type": "object"}),
    },
)

ACTION_SCHEMA = {"type": "array", "items": {"type": "string"},
                 "description": "Card names from your hand: two on turn 1, one on turns 2 and 3 (`legal` lists every choice once, sorted)."}
