#!/usr/bin/env python3
"""A Kolpa! bot with a few plain rules of thumb, scored action by action.

The idea: display cards are the only positive points, so build the display with high cards while the
round is young; once an opponent is close to going out (two cards or fewer), every card still in hand
will cost its value (a Joker 10), so get rid of Jokers and high cards through the discard instead.
Never give display cards back unless forced; go out whenever the last card can go to the discard.
A Joker announces what the next player shows on top of their display (forcing them to give a card
back or spend a hand card) and, failing that, something none of our own hand cards match (so that
they stay free to go to the display next turn).

`choose(view, legal)` is a pure function of the request, so it can be tested in-process against the
engine; `arenabot.run` serves it over the protocol. No randomness: the same request gets the same
answer.
"""

from __future__ import annotations

import os
import sys
from typing import Any

JOKER = "J"
COLOURS = "BGYOV"


def hand_value(card: str) -> int:
    return 10 if card == JOKER else int(card[1])


def fits(card: str, colour: Any, number: Any) -> bool:
    """Whether a number card matches what the discard asks for (view["match"])."""
    return card[0] == colour or int(card[1]) == number


def action_score(action: dict, view: dict) -> float:
    me = view["seat"]
    hand = view["hand"]
    sizes = view["hand_sizes"]
    others = [s for s in range(view["player_count"]) if s != me]
    danger = min(sizes[s] for s in others) <= 2  # someone may go out on their next turn
    card = action["play"]
    if action["to"] == "display":
        # Banks the card's value for good, but the draw adds an unknown card to the hand.
        return hand_value(card) + 0.5 - (3.0 if danger else 0.5)
    if action["from"] == "display":
        return -hand_value(card) - 1.0  # gives banked points back: only when nothing else is legal
    if len(hand) == 1:
        return 100.0  # going out ends the round with every hand card of the others counted against them
    if card == JOKER:
        base = 10.0 if danger or len(hand) <= 2 else -2.0  # keep a Joker as an escape unless it may cost 10
        return base + announce_score(action["announce"], view)
    return hand_value(card) * (1.0 if danger else 0.2)


def announce_score(announce: Any, view: dict) -> float:
    """Prefer forcing the next player to give back a high display top; else keep our own cards free."""
    me = view["seat"]
    nxt = (me + 1) % view["player_count"]
    colour = announce if isinstance(announce, str) else None
    number = announce if isinstance(announce, int) else None
    score = 0.0
    for top in view["displays"][nxt].values():  # each pile's top card, or null for an empty pile
        if top and fits(top, colour, number):
            score = max(score, 2.0 + hand_value(top) / 2)
    score -= 0.5 * sum(1 for card in view["hand"] if card != JOKER and fits(card, colour, number))
    return score


def choose(view: dict, legal: list) -> Any:
    """The legal action with the best score; ties go to the earliest in the engine's order."""
    if len(legal) == 1:
        return legal[0]
    best, best_score = legal[0], float("-inf")
    for action in legal:
        if "pass" in action:
            score = -50.0
        else:
            score = action_score(action, view)
        if score > best_score:
            best, best_score = action, score
    return best


def decide(request: dict) -> Any:
    return choose(request["view"], request["legal"])


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import arenabot

    arenabot.run(decide, name="kolpa-heuristic", version="1")
