"""Shared set-up for the Kolpa! tests: a state arranged card by card, as a rulebook example is."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from arena.games import get_game
from arena.games.kolpa.cards import COLOUR_INDEX, COLOURS, sort_cards
from arena.games.kolpa.state import KolpaState

SPEC = get_game("kolpa")


def arrange(
    players: int = 2,
    *,
    hands: Iterable[Iterable[str]],
    discard: Iterable[str],
    displays: Mapping[int, Iterable[str]] | None = None,
    announce: Any = None,
    draw: Iterable[str] = (),
    current: int = 0,
    scores: Iterable[int] | None = None,
    options: Mapping[str, Any] | None = None,
) -> KolpaState:
    """A round-1 state with exactly these cards in play (display cards listed bottom first; the draw
    pile's top is its last card). Cards not named are out of the game, which these tests do not mind."""
    state = SPEC.new_game(players, options, 0)
    assert isinstance(state, KolpaState)
    state.hands = [sort_cards(list(h)) for h in hands]
    assert len(state.hands) == players
    state.displays = [[[] for _ in COLOURS] for _ in range(players)]
    for seat, cards in (displays or {}).items():
        for card in cards:
            state.displays[seat][COLOUR_INDEX[card[0]]].append(card)
    state.discard = list(discard)
    state.announce = announce
    state.draw = list(draw)
    state.current = current
    if scores is not None:
        state.scores = list(scores)
    return state


def play(state: KolpaState, card: str, source: str = "hand", dest: str = "discard", announce: Any = None):
    action: dict[str, Any] = {"play": card, "from": source, "to": dest}
    if announce is not None:
        action["announce"] = announce
    return state.apply({state.current: action})


def kinds(events) -> list[str]:
    return [e.kind for e in events]
