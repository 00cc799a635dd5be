"""Kolpa!'s pure rules: what a card must match, whether it does, and how a round scores.

Kept apart from the state so the rulebook's worked example and the matching rule can be tested alone,
and so that a bot author can read the whole rule in one screen.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from arena.games.kolpa.cards import COLOUR_OF, COLOURS, HAND_VALUE, JOKER, NUMBER_CARDS, NUMBER_OF, NUMBERS

Announcement = str | int  # a colour letter or a number 0-5


class Target(NamedTuple):
    """What a card must share with the discard to go there: a colour, a number, or (after a Joker) one
    of the two. None means "this attribute does not count"."""

    colour: str | None
    number: int | None

    def describe(self, top: str) -> str:
        if top != JOKER:
            return f"the discard {top}"
        said = self.colour if self.colour is not None else self.number
        return f"the announcement {said} of the Joker on the discard"


def target_of(top: str, announce: Announcement | None) -> Target:
    """The discard's top card sets the target; a Joker on top passes its announcement on instead."""
    if top == JOKER:
        if isinstance(announce, str):
            return Target(announce, None)
        return Target(None, announce)
    return _CARD_TARGET[top]


_CARD_TARGET: dict[str, Target] = {card: Target(COLOUR_OF[card], NUMBER_OF[card]) for card in NUMBER_CARDS}


def matches(card: str, target: Target) -> bool:
    """Same colour and/or same number. A Joker matches anything (it may always go to the discard)."""
    if card == JOKER:
        return True
    return COLOUR_OF[card] == target.colour or NUMBER_OF[card] == target.number


def is_announcement(value: object) -> bool:
    """A colour letter or a number 0-5; JSON true/false are not numbers here even though Python says so."""
    if isinstance(value, str):
        return value in COLOURS
    return type(value) is int and value in NUMBERS


ANNOUNCEMENTS: tuple[Announcement, ...] = (*COLOURS, *NUMBERS)


def round_points(display: Iterable[str], hand: Iterable[str]) -> int:
    """The rulebook's score: + every display card (covered ones too), - every hand card (Joker 10)."""
    return sum(HAND_VALUE[card] for card in display) - sum(HAND_VALUE[card] for card in hand)
