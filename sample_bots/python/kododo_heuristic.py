#!/usr/bin/env python3
"""A Kododo bot that estimates each choice by sampling how the round could end.

For each legal choice it deals the unseen cards at random to the rest of the round (the other seats'
remaining plays, and its own later plays drawn from its hand), scores the round with the real rules,
and keeps the choice with the best average of (own points - mean of the others' points). It ignores
that opponents choose on purpose: simple, and already far better than random.

Its one argument, if given, is the number of endings it samples per choice (48 by default): fewer play
weaker, an "older version" of the same bot to try `arena match` on.

Self-contained (standard library + arenabot.py beside it), so you can copy it as a starting point.
Seeded from the game id and seat in the start message, so its play in a game is reproducible.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

import arenabot

COLOURS = "BGYOV"
COPIES_PER_VALUE = {1: 5, 2: 6, 3: 5, 4: 2, 5: 1, 6: 1}
FULL_DECK = Counter({f"{c}{v}": n for c in COLOURS for v, n in COPIES_PER_VALUE.items()})
SAMPLES = 48  # sampled endings per choice (the program's argument when run): fewer play weaker


def round_points(table: list[list[str]]) -> list[int]:
    """Points each seat scores for a finished round (exact Kododo count, else the majority cascade)."""
    players = len(table)
    kododos = sum(1 for cards in table for card in cards if card[1] == "1")
    if kododos == players + 2:
        return [sum(1 for card in cards if card[1] == "1") for cards in table]
    counts = Counter(card[0] for cards in table for card in cards)
    limit = players + 3
    levels: dict[int, list[str]] = {}
    for colour, n in counts.items():
        if n < limit:
            levels.setdefault(n, []).append(colour)
    for n in sorted(levels, reverse=True):
        if len(levels[n]) == 1:
            colour = levels[n][0]
            return [sum(int(card[1]) for card in cards if card[0] == colour) for cards in table]
    return [0] * players


def unseen_cards(view: dict) -> list[str]:
    """Cards this seat has not seen: in other hands, the draw pile, or removed."""
    seen = Counter(view["hand"])
    for cards in view["table"]:
        seen.update(cards)
    for record in view["history"]:
        if record["deal"] == view["deal"]:
            for cards in record["played"]:
                seen.update(cards)
    return list((FULL_DECK - seen).elements())


def choose(view: dict, legal: list[list[str]], rng: random.Random) -> list[str]:
    if len(legal) == 1:
        return legal[0]
    me, players = view["seat"], view["player_count"]
    per_seat_left = [4 - len(cards) for cards in view["table"]]  # cards each seat still plays this round
    pool = unseen_cards(view)
    best, best_score = legal[0], float("-inf")
    for action in legal:
        rest_of_hand = list(view["hand"])
        for card in action:
            rest_of_hand.remove(card)
        mine_left = per_seat_left[me] - len(action)
        total = 0.0
        for _ in range(SAMPLES):
            rng.shuffle(pool)
            table = [list(cards) for cards in view["table"]]
            table[me].extend(action)
            k = 0
            for seat in range(players):
                if seat != me:
                    table[seat].extend(pool[k : k + per_seat_left[seat]])
                    k += per_seat_left[seat]
            if mine_left:
                table[me].extend(rng.sample(rest_of_hand, mine_left))
            points = round_points(table)
            others = (sum(points) - points[me]) / (players - 1)
            total += points[me] - others
        if total > best_score:
            best, best_score = action, total
    return best


class Bot:
    def __init__(self) -> None:
        self.rng = random.Random(0)

    def on_start(self, message: dict) -> None:
        self.rng = random.Random(f"{message.get('game_id')}/{message.get('seat')}")

    def decide(self, request: dict) -> list[str]:
        return choose(request["view"], request["legal"], self.rng)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        SAMPLES = int(sys.argv[1])
    bot = Bot()
    arenabot.run(bot.decide, name="kododo-heuristic", version="1.0", on_start=bot.on_start)
    sys.exit(0)
