"""Seeded faulty games for `arena check-game` and tournaments: one small sound game ("high card": a
secret hand each, every seat plays a card at once, the highest wins the round) and one game per fault,
each a subclass that breaks one promise. `arena check-game faulty_games:LEAKS` checks one of them."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.errors import GameNotOver, IllegalAction
from arena.games.base import Event, GameSpec, GameState, Mode, Outcome, Seat
from arena.rng import Rng


class HighCard(GameState):
    HAND = 3

    def __init__(self, seats: int, options: dict[str, Any], seed: int) -> None:
        self.n = seats
        deck = list(range(1, seats * self.HAND + 4))
        self.deal(deck, seed)
        self.hands = [sorted(deck[i * self.HAND:(i + 1) * self.HAND]) for i in range(seats)]
        self.undealt = deck[seats * self.HAND:]
        self.points = [0] * seats
        self.round = 1

    def deal(self, deck: list[int], seed: int) -> None:
        Rng(seed).shuffle(deck)

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[Seat, ...]:
        return tuple(range(self.n)) if self.hands[0] else ()

    def public_view(self) -> dict[str, Any]:
        return {"round": self.round, "points": list(self.points), "hand_sizes": [len(h) for h in self.hands]}

    def own_view(self, seat: Seat) -> dict[str, Any]:
        return {"hand": list(self.hands[seat])}

    def view(self, seat: Seat) -> dict[str, Any]:
        return {**self.own_view(seat), **self.public_view()}

    def legal_actions(self, seat: Seat) -> list[Any]:
        return list(self.hands[seat]) if seat in self.to_move() else []

    def check(self, seat: Seat, action: Any) -> None:
        self.check_seat_decides(seat, action)
        if isinstance(action, bool) or not isinstance(action, int) or action not in self.hands[seat]:
            raise IllegalAction(seat, action, f"play a card of your hand {self.hands[seat]}")

    def apply(self, actions: Mapping[Seat, Any]) -> list[Event]:
        self.check_all(actions)
        cards = [actions[s] for s in range(self.n)]
        for seat, card in enumerate(cards):
            self.hands[seat].remove(card)
        winner = max(range(self.n), key=lambda s: cards[s])
        self.points[winner] += 1
        self.round += 1
        return [Event("round", {"cards": cards, "winner": winner})]

    def fallback(self, seat: Seat) -> Any:
        return self.hands[seat][0]

    def outcome(self) -> Outcome:
        if self.to_move():
            raise GameNotOver("not over")
        return Outcome.ranked(self.points, [[0]] * self.n)

    def clone(self) -> "HighCard":
        other = type(self).__new__(type(self))
        other.n, other.round = self.n, self.round
        other.hands = [list(h) for h in self.hands]
        other.undealt, other.points = list(self.undealt), list(self.points)
        return other

    def snapshot(self) -> dict[str, Any]:
        return {"hands": [list(h) for h in self.hands], "undealt": list(self.undealt), "points": list(self.points), "round": self.round}

    def resample_hidden(self, seat: Seat, seed: int) -> "HighCard":
        other = self.clone()
        pool = list(other.undealt) + [c for s in range(self.n) if s != seat for c in other.hands[s]]
        Rng(seed).shuffle(pool)
        for s in range(self.n):
            if s != seat:
                size = len(other.hands[s])
                other.hands[s], pool = sorted(pool[:size]), pool[size:]
        other.undealt = pool
        return other


class ApplyRaises(HighCard):
    """apply raises on a legal action: a seat playing its highest card when it holds three."""

    def apply(self, actions: Mapping[Seat, Any]) -> list[Event]:
        self.check_all(actions)
        if any(len(self.hands[s]) == 3 and actions[s] == self.hands[s][-1] for s in actions):
            raise KeyError("the highest card of a full hand")
        return super().apply(actions)


class LateRaises(HighCard):
    """apply raises when seat 0 plays its highest card in rounds 1 and 2: only some games break, and
    hypothesis has to find the actions that do it (the smallest: seat 0's first choice, index 2)."""

    def apply(self, actions: Mapping[Seat, Any]) -> list[Event]:
        self.check_all(actions)
        if self.round == 1:
            self.opened_high = actions[0] == self.hands[0][-1]
        elif self.round == 2 and getattr(self, "opened_high", False) and actions[0] == self.hands[0][-1]:
            raise ValueError("the highest card again in round 2 after an opening with the highest card")
        return super().apply(actions)

    def clone(self) -> "HighCard":
        other = super().clone()
        other.opened_high = getattr(self, "opened_high", False)  # type: ignore[attr-defined]
        return other


class Leaks(HighCard):
    """The view tells every seat the next seat's hand."""

    def own_view(self, seat: Seat) -> dict[str, Any]:
        return {"hand": list(self.hands[seat]), "neighbour": list(self.hands[(seat + 1) % self.n])}


class Nondeterministic(HighCard):
    """The deal draws from the process's global randomness, not from the seed."""

    def deal(self, deck: list[int], seed: int) -> None:
        random.shuffle(deck)


class Endless(HighCard):
    """Hands are dealt again when they run out: the game never ends."""

    def apply(self, actions: Mapping[Seat, Any]) -> list[Event]:
        events = super().apply(actions)
        if not self.hands[0]:
            self.hands = [[1 + s, 20 + s, 40 + s] for s in range(self.n)]
        return events


class NotJson(HighCard):
    """The view holds a set (not JSON) for the hand."""

    def own_view(self, seat: Seat) -> dict[str, Any]:
        return {"hand": set(self.hands[seat])}


def spec(name: str, factory: type[HighCard], **more: Any) -> GameSpec:
    return GameSpec(name=name, version="1.0", description=f"high card, {factory.__doc__ or 'sound'}", min_seats=2,
                    max_seats=3, mode=Mode.SIMULTANEOUS, factory=factory, max_steps=12, **more)


def _schema(*members: str) -> dict[str, Any]:
    return {"type": "object", "properties": {m: {"description": f"the {m}"} for m in members}}


GOOD = spec("high-card", HighCard)
APPLY_RAISES = spec("high-card-apply-raises", ApplyRaises)
LATE_RAISES = spec("high-card-late-raises", LateRaises)
LEAKS = spec("high-card-leaks", Leaks)
NONDETERMINISTIC = spec("high-card-nondeterministic", Nondeterministic)
ENDLESS = spec("high-card-endless", Endless)
NOT_JSON = spec("high-card-not-json", NotJson)
# its view_schema (its protocol.md section) leaves out a member the views hold
UNDOCUMENTED = spec("high-card-undocumented", HighCard, view_schema=_schema("hand", "round", "points"))
DOCUMENTED = spec("high-card-documented", HighCard, view_schema=_schema("hand", "round", "points", "hand_sizes"))
SPEC = GOOD

# each faulty game, and the one check that catches it (made blind, it lets the game pass)
FAULTS = {"APPLY_RAISES": "legal-actions", "LATE_RAISES": "legal-actions", "LEAKS": "hidden-information", "NONDETERMINISTIC": "determinism",
          "ENDLESS": "termination", "NOT_JSON": "json-views", "UNDOCUMENTED": "documented"}
