"""Goofspiel's state: a pure, deterministic state machine on arena's game contract (arena.games.base).

Every player holds the cards 1..N. Each round one prize card is turned from a shuffled prize deck;
every player bids one card from their hand in secret, all at once; the highest bid wins the prize's
value, and when the highest bids tie the prize is lost to everyone. Bid cards are spent. After N
rounds the player with the most prize points wins.

What is hidden: the order of the prize deck (nobody sees the next prize) and, until they are revealed,
the bids of the round. Hands are public knowledge (every bid is revealed), so they are in every view.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.errors import GameNotOver, IllegalAction
from arena.games.base import Event, GameState, Outcome, Seat
from arena.jsonvalue import JSON
from arena.rng import Rng


class GoofspielState(GameState):
    def __init__(self, seats: int, options: dict[str, Any], seed: int) -> None:
        self.n = seats
        self.cards = int(options["cards"])
        deck = list(range(1, self.cards + 1))
        Rng(seed).shuffle(deck)
        self.deck = deck  # the prizes still to come; deck[0] is face up
        self.hands: list[list[int]] = [list(range(1, self.cards + 1)) for _ in range(seats)]
        self.points = [0] * seats
        self.won: list[list[int]] = [[] for _ in range(seats)]
        self.history: list[dict[str, JSON]] = []  # every round so far: prize, bids, winner

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[Seat, ...]:
        return tuple(range(self.n)) if self.deck else ()

    def public_view(self) -> dict[str, JSON]:
        return {
            "round": len(self.history) + 1,
            "rounds": self.cards,
            "prize": self.deck[0] if self.deck else None,
            "prizes_left": len(self.deck),
            "hands": [list(h) for h in self.hands],
            "points": list(self.points),
            "history": [dict(r) for r in self.history],
        }

    def own_view(self, seat: Seat) -> dict[str, JSON]:
        return {"seat": seat}

    def view(self, seat: Seat) -> dict[str, JSON]:
        return {**self.own_view(seat), **self.public_view()}

    def legal_actions(self, seat: Seat) -> list[JSON]:
        return list(self.hands[seat]) if seat in self.to_move() else []

    def check(self, seat: Seat, action: JSON) -> None:
        self.check_seat_decides(seat, action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalAction(seat, action, "a bid is one card of your hand, a whole number")
        if action not in self.hands[seat]:
            raise IllegalAction(seat, action, f"card {action} is not in your hand {self.hands[seat]}")

    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        self.check_all(actions)
        bids = [int(actions[s]) for s in range(self.n)]  # type: ignore[arg-type]  # checked: whole numbers
        prize = self.deck.pop(0)
        for seat, bid in enumerate(bids):
            self.hands[seat].remove(bid)
        top = max(bids)
        winners = [s for s, b in enumerate(bids) if b == top]
        winner = winners[0] if len(winners) == 1 else None
        if winner is not None:
            self.points[winner] += prize
            self.won[winner].append(prize)
        self.history.append({"prize": prize, "bids": list(bids), "winner": winner})
        events = [Event("bids", {"prize": prize, "bids": list(bids), "winner": winner})]
        if self.deck:
            events.append(Event("prize", {"prize": self.deck[0]}))
        return events

    def fallback(self, seat: Seat) -> JSON:
        return min(self.hands[seat])

    def outcome(self) -> Outcome:
        if self.deck:
            raise GameNotOver("Goofspiel is not over: prizes are left")
        return Outcome.ranked(self.points, [[len(w)] for w in self.won])

    def clone(self) -> "GoofspielState":
        other = GoofspielState.__new__(GoofspielState)
        other.n, other.cards = self.n, self.cards
        other.deck = list(self.deck)
        other.hands = [list(h) for h in self.hands]
        other.points = list(self.points)
        other.won = [list(w) for w in self.won]
        other.history = [dict(r) for r in self.history]
        return other

    def snapshot(self) -> dict[str, JSON]:
        return {"deck": list(self.deck), "hands": [list(h) for h in self.hands], "points": list(self.points),
                "won": [list(w) for w in self.won], "history": [dict(r) for r in self.history]}

    def resample_hidden(self, seat: Seat, seed: int) -> "GoofspielState":
        """The prizes still face down are shuffled anew; the face-up prize and everything else stay."""
        other = self.clone()
        hidden = other.deck[1:]
        Rng(seed).shuffle(hidden)
        other.deck[1:] = hidden
        return other
