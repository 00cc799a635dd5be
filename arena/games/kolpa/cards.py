"""Kolpa!'s deck and the card names used on the wire.

A number card is its colour letter and number: "G3" is a green 3, "B0" a blue 0. The five colours
reuse Kododo's letters (B blue, G green, Y yellow, O orange, V violet) so one bot can read both games.
The four Jokers are all "J": they are indistinguishable in play, and one name keeps the legal-action
list free of four identical-in-effect copies.
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("B", "G", "Y", "O", "V")  # blue, green, yellow, orange, violet
COLOUR_NAMES = {"B": "blue", "G": "green", "Y": "yellow", "O": "orange", "V": "violet"}
NUMBERS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
COPIES = 2  # each colour-number card exists twice
JOKER = "J"
JOKERS = 4
JOKER_PENALTY = 10  # a Joker left in hand costs 10 points
HAND_SIZE = 5
DECK_SIZE = len(COLOURS) * len(NUMBERS) * COPIES + JOKERS  # 64

NUMBER_CARDS: tuple[str, ...] = tuple(f"{c}{v}" for c in COLOURS for v in NUMBERS)
CARDS: tuple[str, ...] = NUMBER_CARDS + (JOKER,)  # every distinct card name, in canonical order

COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
# Per card name: its colour letter and number (None for the Joker, which has neither).
COLOUR_OF: dict[str, str | None] = {**{card: card[0] for card in NUMBER_CARDS}, JOKER: None}
NUMBER_OF: dict[str, int | None] = {**{card: int(card[1]) for card in NUMBER_CARDS}, JOKER: None}
# What a card costs when it is still in hand at the end of a round (and earns in a display).
HAND_VALUE: dict[str, int] = {**{card: int(card[1]) for card in NUMBER_CARDS}, JOKER: JOKER_PENALTY}
# Canonical order: colours in COLOURS order, numbers ascending, Jokers last.
ORDER: dict[str, int] = {card: i for i, card in enumerate(CARDS)}


def full_deck() -> list[str]:
    """The 64 cards in canonical order (the seeded shuffle makes the deal)."""
    return [card for card in NUMBER_CARDS for _ in range(COPIES)] + [JOKER] * JOKERS


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=ORDER.__getitem__)
