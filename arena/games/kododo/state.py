"""Kododo as a state machine: every step is one secret simultaneous choice by all seats.

Readings implemented (from the rulebooks and ../shared/rules-notes.md, which settles the open points):
- 100 cards, 5 colours x (five 1s = Kododo cards, six 2s, five 3s, two 4s, one 5, one 6). A Kododo card
  counts as a card of its colour (majority) and as a Kododo (exact count).
- Cards removed face down before the deal: 2p 10, 3p 13, 4p 0, 5p 15. The deal is 5 cards each, seat 0
  first, from the top of the shuffled deck; the draw pile is the rest.
- A round is three turns: 2, 1, 1 cards, chosen by every seat at once and revealed together; after each
  turn each seat draws as many as it played (seat order), back to 5. So a standard game has
  2p 11, 3p 7, 4p 6, 5p 4 rounds.
- A round that starts with an empty draw pile is the deal's last: played from the 5 cards in hand
  (2, 1, 1, no draws); the fifth card is then discarded face down, unscored.
- Evaluation: exactly players + 2 Kododo cards on the table -> only the Kododo cards score (1 each).
  Otherwise colour majority: colours with players + 3 or more cards are out; from the highest count
  down, a colour alone at its count scores, colours tied at a count are all out and the next count is
  tried; no colour left -> nothing scores. Scored cards go to their player's score pile; the other
  played cards go to the discard.
- Winner: most points, then most cards in the score pile, then a shared win (shared rank).
- Long variant (option `long`): when a deal ends and nobody has `target` (50) points, all 100 cards
  are reshuffled, the chart's number removed again, 5 dealt each; scores and score-pile card counts
  are kept. From the second deal on, the game ends after the first round at whose end someone has
  `target` or more. Safety rule (ours, so that every game ends): after `max_deals` deals the game ends
  as it stands.
- Fallback for a failed bot: the first legal action in canonical order (the lowest cards by name).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from mypy_extensions import mypyc_attr

from arena.errors import GameNotOver, GameOver, IllegalAction
from arena.games.base import Event, GameState, Outcome, Seat
from arena.games.kododo.cards import (
    CARDS_PER_TURN,
    HAND_SIZE,
    REMOVED,
    VALUE,
    colour_limit,
    full_deck,
    kododo_target,
)
from arena.games.kododo.rules import evaluate_round
from arena.core.ranking import competition_ranks
from arena.jsonvalue import JSON
from arena.rng import Rng


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py); a test may subclass it to break it
class KododoState(GameState):
    __slots__ = (
        "n", "long", "target", "max_deals", "rng", "deal", "round", "round_in_deal", "turn", "last_round",
        "hands", "draw", "removed", "table", "piles", "banked_points", "banked_cards", "totals",
        "total_cards", "discard", "history", "over", "seats", "kododo_target", "limit",
    )

    def __init__(self, players: int, options: Mapping[str, Any], seed: int) -> None:
        self.n = players
        self.long = bool(options["long"])
        self.target = int(options["target"])
        self.max_deals = int(options["max_deals"])
        self.rng = Rng(seed)
        self.deal = 0
        self.round = 0  # rounds played in the whole game, the current one included
        self.round_in_deal = 0
        self.turn = 1
        self.last_round = False
        self.hands: list[list[str]] = []
        self.draw: list[str] = []  # the top of the pile is the end of the list
        self.removed: list[str] = []
        self.table: list[list[str]] = [[] for _ in range(players)]
        self.piles: list[list[str]] = [[] for _ in range(players)]  # this deal's score piles
        self.banked_points = [0] * players  # points and pile cards of earlier deals (long variant)
        self.banked_cards = [0] * players
        self.totals = [0] * players  # running points and score-pile cards, so views need not re-add
        self.total_cards = [0] * players
        self.discard: list[str] = []
        self.history: list[dict[str, JSON]] = []
        self.over = False
        self.seats = tuple(range(players))  # constants of the game, so that hot calls need not rebuild them
        self.kododo_target = kododo_target(players)
        self.limit = colour_limit(players)
        self._new_deal()

    # --- the flow of the game -------------------------------------------------------------------

    def _new_deal(self) -> list[Event]:
        n = self.n
        for seat in range(n):
            self.banked_points[seat] += sum(VALUE[c] for c in self.piles[seat])
            self.banked_cards[seat] += len(self.piles[seat])
        deck = full_deck()
        self.rng.shuffle(deck)
        cut = REMOVED[n]
        self.removed = deck[:cut]
        self.hands = [sorted(deck[cut + HAND_SIZE * s : cut + HAND_SIZE * (s + 1)]) for s in range(n)]
        self.draw = deck[cut + HAND_SIZE * n :][::-1]
        self.piles = [[] for _ in range(n)]
        self.discard = []
        self.deal += 1
        self.round_in_deal = 0
        self._new_round()
        if self.deal == 1:
            return []
        events = [Event("new_deal", {"deal": self.deal})]
        events.extend(Event("hand", {"cards": list(self.hands[s])}, to=s) for s in range(n))
        return events

    def _new_round(self) -> None:
        self.round += 1
        self.round_in_deal += 1
        self.turn = 1
        self.last_round = not self.draw

    def _end_round(self) -> list[Event]:
        table = self.table
        result = evaluate_round(table)
        for seat, (scored, points) in enumerate(zip(result.scored, result.points)):
            if scored:
                self.piles[seat] += scored
                self.totals[seat] += points
                self.total_cards[seat] += len(scored)
                self.discard += [card for card in table[seat] if card not in scored]
            else:
                self.discard += table[seat]
        # The table's lists go to the record as they are: the table starts afresh and never touches them again.
        record = {"deal": self.deal, "round": self.round, "played": table, **result.to_json()}
        self.history.append(record)
        events = [Event("round_scored", {**record, "totals": self.points()})]
        self.table = [[] for _ in table]
        best = max(self.totals)
        if self.last_round:
            for hand in self.hands:
                self.discard.extend(hand)  # the fifth card, face down, unscored
                hand.clear()
            if self.long and best < self.target and self.deal < self.max_deals:
                events.extend(self._new_deal())
            else:
                self.over = True
        elif self.long and self.deal > 1 and best >= self.target:
            self.over = True
        else:
            self._new_round()
        return events

    # --- the contract ---------------------------------------------------------------------------

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[Seat, ...]:
        return () if self.over else self.seats

    def cards_to_play(self) -> int:
        return CARDS_PER_TURN[self.turn - 1]

    def points(self) -> list[int]:
        return list(self.totals)

    def pile_cards(self) -> list[int]:
        return list(self.total_cards)

    def legal_actions(self, seat: Seat) -> list[JSON]:
        if self.over:
            return []
        hand = self.hands[seat]  # kept sorted, so combinations come out in canonical order
        if CARDS_PER_TURN[self.turn - 1] == 1:
            return [[card] for card in dict.fromkeys(hand)]
        return [[first, second] for first, second in dict.fromkeys(combinations(hand, 2))]

    def _surely_legal(self, seat: Seat, action: JSON) -> bool:
        """The common case, cheaply: a valid seat plays cards it holds. False means `check` must look closer."""
        if type(seat) is not int or not 0 <= seat < self.n or type(action) is not list or self.over:
            return False
        hand = self.hands[seat]  # holds only card names, so `in hand` also proves a card is a known name
        if len(action) != CARDS_PER_TURN[self.turn - 1]:
            return False
        if len(action) == 1:
            return action[0] in hand
        first, second = action
        if first == second:
            return hand.count(first) >= 2
        return first in hand and second in hand

    def check(self, seat: Seat, action: JSON) -> None:
        if self._surely_legal(seat, action):
            return
        if self.over:
            raise IllegalAction(seat, action, "the game is over")
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalAction(seat, action, f"there is no seat {seat} in a {self.n}-player game")
        count = self.cards_to_play()
        if not isinstance(action, list) or not all(isinstance(card, str) for card in action):
            raise IllegalAction(seat, action, f'an action is a list of {count} card name(s) such as ["G3"]')
        if len(action) != count:
            raise IllegalAction(seat, action, f"turn {self.turn} plays exactly {count} card(s), got {len(action)}")
        unknown = [card for card in action if card not in VALUE]
        if unknown:
            raise IllegalAction(seat, action, f"{unknown[0]!r} is not a Kododo card (colour B/G/Y/O/V + value 1-6)")
        hand = list(self.hands[seat])
        for card in action:
            if card not in hand:
                raise IllegalAction(seat, action, f"{card} is not in your hand {self.hands[seat]} (often enough)")
            hand.remove(card)

    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        if self.over:
            raise GameOver("the Kododo game is over: no more actions")
        self.check_all(actions)
        count = CARDS_PER_TURN[self.turn - 1]
        played = []
        for seat, hand, on_table in zip(self.seats, self.hands, self.table):
            cards = sorted(actions[seat])
            for card in cards:
                hand.remove(card)
            on_table += cards
            played.append(cards)
        events = [Event("reveal", {"round": self.round, "turn": self.turn, "cards": played})]
        if not self.last_round:
            draw = self.draw
            for seat, hand in enumerate(self.hands):
                drawn = draw[: -count - 1 : -1]  # the top `count` cards, in the order they are taken
                del draw[-count:]
                hand += drawn
                hand.sort()
                events.append(Event("draw", {"cards": drawn}, to=seat))
        if self.turn == len(CARDS_PER_TURN):
            events.extend(self._end_round())
        else:
            self.turn += 1
        return events

    def fallback(self, seat: Seat) -> JSON:
        return self.legal_actions(seat)[0]

    def view(self, seat: Seat) -> dict[str, JSON]:
        # Built from an allow-list: own hand, public table and history, public counts. Never another
        # hand, the draw pile's order, or the removed cards.
        return {**self.own_view(seat), **self.public_view()}

    def own_view(self, seat: Seat) -> dict[str, JSON]:
        return {
            "seat": seat,
            "player_count": self.n,  # `start.players` is the names list; this is their number
            "hand": self.hands[seat][:],
        }

    def public_view(self) -> dict[str, JSON]:
        return {
            "play": 0 if self.over else CARDS_PER_TURN[self.turn - 1],
            "deal": self.deal,
            "round": self.round,
            "round_in_deal": self.round_in_deal,
            "turn": self.turn,
            "last_round": self.last_round,
            "table": [cards[:] for cards in self.table],
            "points": self.totals[:],
            "pile_cards": self.total_cards[:],
            "hand_sizes": list(map(len, self.hands)),
            "draw_pile": len(self.draw),
            "kododo_target": self.kododo_target,
            "limit": self.limit,
            "history": self.history[:],  # a copy: a view kept across steps must not grow with the game
        }

    def outcome(self) -> Outcome:
        if not self.over:
            raise GameNotOver("the Kododo game is not over yet")
        points = tuple(self.points())
        tiebreaks = tuple((cards,) for cards in self.pile_cards())
        return Outcome(points, tiebreaks, competition_ranks([(p, *t) for p, t in zip(points, tiebreaks)]))

    def clone(self) -> "KododoState":
        # Every attribute by name, not a loop over `__slots__`: compiled (mypyc) the class has no
        # `__slots__` to walk, and `object.__new__` refuses a compiled class.
        other = type(self).__new__(type(self))  # a subclass clones to itself
        other.n, other.long, other.target, other.max_deals = self.n, self.long, self.target, self.max_deals
        other.deal, other.round, other.round_in_deal, other.turn = self.deal, self.round, self.round_in_deal, self.turn
        other.last_round, other.over, other.seats = self.last_round, self.over, self.seats
        other.kododo_target, other.limit = self.kododo_target, self.limit
        other.rng = Rng(self.rng.state)
        other.hands = [list(h) for h in self.hands]
        other.draw = list(self.draw)
        other.removed = list(self.removed)
        other.table = [list(t) for t in self.table]
        other.piles = [list(p) for p in self.piles]
        other.banked_points = list(self.banked_points)
        other.banked_cards = list(self.banked_cards)
        other.totals = list(self.totals)
        other.total_cards = list(self.total_cards)
        other.discard = list(self.discard)
        other.history = list(self.history)  # entries are never mutated once appended
        return other

    def snapshot(self) -> dict[str, JSON]:
        return {
            "players": self.n,
            "long": self.long,
            "target": self.target,
            "max_deals": self.max_deals,
            "rng": self.rng.state,
            "deal": self.deal,
            "round": self.round,
            "round_in_deal": self.round_in_deal,
            "turn": self.turn,
            "last_round": self.last_round,
            "hands": [list(h) for h in self.hands],
            "draw": list(self.draw),
            "removed": list(self.removed),
            "table": [list(t) for t in self.table],
            "piles": [list(p) for p in self.piles],
            "banked_points": list(self.banked_points),
            "banked_cards": list(self.banked_cards),
            "totals": list(self.totals),
            "total_cards": list(self.total_cards),
            "discard": list(self.discard),
            "history": list(self.history),
            "over": self.over,
        }

    def resample_hidden(self, seat: Seat, seed: int) -> "KododoState":
        """Other hands, the draw pile and the removed cards are redrawn from their union.

        The RNG state of future deals (long variant) is hidden too, so it is redrawn as well.
        """
        other = self.clone()
        pool = list(other.draw) + list(other.removed)
        for s in range(self.n):
            if s != seat:
                pool.extend(other.hands[s])
        rng = Rng(seed)
        rng.shuffle(pool)
        for s in range(self.n):
            if s != seat:
                size = len(other.hands[s])
                other.hands[s] = sorted(pool[:size])
                del pool[:size]
        other.removed = pool[: len(self.removed)]
        other.draw = pool[len(self.removed) :]
        other.rng = Rng(rng.next64())
        return other
