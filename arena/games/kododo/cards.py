"""Kododo's deck and the per-player-count charts.

A card on the wire is its colour letter and value: "G3" is a green 3, "B1" a blue Kododo card (every
value-1 card is a Kododo card, and counts both as a Kododo and toward its colour).
"""

from __future__ import annotations

COLOURS = ("B", "G", "Y", "O", "V")  # blue, green, yellow, orange, violet
COLOUR_NAMES = {"B": "blue", "G": "green", "Y": "yellow", "O": "orange", "V": "violet"}

# Per colour: how many cards of each value (five Kododo 1s, six 2s, five 3s, two 4s, one 5, one 6).
COPIES_PER_VALUE = {1: 5, 2: 6, 3: 5, 4: 2, 5: 1, 6: 1}

KODODO_VALUE = 1

# Cards removed face down before the deal, so that the draw pile runs out after a round's last draw.
REMOVED = {2: 10, 3: 13, 4: 0, 5: 15}

HAND_SIZE = 5
CARDS_PER_TURN = (2, 1, 1)  # turn 1 plays two cards, turns 2 and 3 one each

VALUE: dict[str, int] = {f"{c}{v}": v for c in COLOURS for v in COPIES_PER_VALUE}


DECK = tuple(f"{c}{v}" for c in COLOURS for v, n in COPIES_PER_VALUE.items() for _ in range(n))


def full_deck() -> list[str]:
    """The 100 cards in a fixed order (the seeded shuffle makes the deal)."""
    return list(DECK)


def kododo_target(players: int) -> int:
    """The exact number of Kododo cards that makes only Kododo cards score (players + 2)."""
    return players + 2


def colour_limit(players: int) -> int:
    """A colour with this many cards or more on the table scores nothing (players + 3)."""
    return players + 3
