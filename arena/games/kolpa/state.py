"""Kolpa! as a state machine: one seat plays exactly one card per step.

Readings implemented (the French rulebook, seeds/004, and ../shared/rules-notes.md, which settles the
open points and wins where the two differ):
- Deck: 64 cards = 5 colours (B, G, Y, O, V) x numbers 0-5 x 2 copies, plus 4 Jokers ("J", all alike).
- A round: all 64 cards are shuffled, 5 dealt to each seat (seat 0 first), the top of the rest turned
  up as the discard. A Joker turned up goes back into the draw pile, the draw pile is shuffled and the
  next top card is turned up (repeated while it is a Joker). The first player of round r is seat
  (r - 1) mod n; play goes up the seat numbers ("clockwise").
- A turn is exactly one card, one of:
  * to the discard: a card from the hand, or the top card of one of your own display piles, that shares
    colour and/or number with the discard's top card (with the active announcement when the top is a
    Joker). A Joker from the hand may always go there, and its player announces a colour or a number.
    No draw.
  * to your display: a hand card that matches nothing; it goes on the pile of its colour. Then draw one
    card. Forbidden while the top card of any of your display piles matches (covered cards do not
    count) and for any card that matches (the rulebook: a card goes to the display only if it cannot go
    to the discard). A Joker never goes to a display.
- A Joker's announcement is what must be matched until a card covers the Joker: it passes on from
  player to player; a Joker played on a Joker makes a new announcement.
- Drawing from an empty draw pile (checked only when a draw is due): the discard's top card is set
  aside, the rest of the discard shuffled into a new draw pile, and the set-aside card starts the new
  discard. If that card is a Joker, its announcement stays in force: it is still the uncovered top, and
  nothing a player could see about it changed. If the discard holds only its top card, there is
  nothing to shuffle and the draw is skipped.
- A round ends the moment a player has no card in hand after a play to the discard. A last card played
  to the display is followed by the draw at once, so it never ends the round.
- Empty hand at one's turn: possible only after a skipped draw (the last card went to the display and
  there was nothing to draw). Such a player may still play a matching display top to the discard (and
  must, if one matches: that play leaves the hand empty, so it ends the round), otherwise the only legal
  action is {"pass": true}. A player holding at least one card always has a legal play: a Joker or a
  matching card goes to the discard; if every hand card fails to match, either no display top matches
  (so any of them goes to the display) or a matching display top can go to the discard.
- Scoring: + every display card (covered ones too), - every hand card (Joker 10); added to the totals.
  The game ends after the round in which some total reaches `target` (50); the highest total wins,
  equal totals share a rank (no tie-break, so tie-break tuples are empty).
- Safety rules (ours, so that every game ends whatever the bots do; neither is a fault of anyone): a
  round in which `max_turns_per_round` turns (default 1000, passes included) have been played without
  ending ends after that turn and is scored as it stands (rules-notes); and if nobody has reached the
  target after `max_rounds` rounds (default 1000, far beyond any real game: 400 purely random 6-player
  games took at most 231 rounds, a median of 31), the game ends as a **draw**: every seat shares rank 1,
  the points stand as they are (`game_end` with `"reason": "round_limit"`, the outcome `drawn`).
- Visibility: a display pile shows only its top card (the rulebook: "seule la carte du dessus soit
  visible"), so views list each pile's top; the covered cards were seen being played (events) and are
  revealed at the round's end (`round_end`).
- Legal actions come in a canonical order: hand cards to the display, matching hand cards to the
  discard, matching display tops to the discard, then the Joker (announcing B G Y O V, then 0-5); cards
  in canonical order (colours B G Y O V, numbers up) within each group. The fallback for a failed bot
  is the first of them: building the display is the game's aim, and a fallback that only discarded
  would drag every total down so that games reach `target` slowly (or only by the round limit).
"""

from __future__ import annotations

from bisect import insort
from typing import Any, Mapping

from arena.errors import GameNotOver, GameOver
from arena.games.base import Event, GameState, Outcome, Seat
from arena.games.kolpa.cards import COLOUR_INDEX, COLOURS, HAND_SIZE, JOKER, NUMBER_OF, ORDER, full_deck
from arena.games.kolpa.moves import check_action, legal_actions
from arena.games.kolpa.rules import Announcement, Target, round_points, target_of
from arena.games.kolpa.view import kolpa_snapshot, kolpa_view
from arena.jsonvalue import JSON
from arena.rng import Rng

_ORDER_KEY = ORDER.__getitem__


class KolpaState(GameState):
    __slots__ = (
        "n", "target", "max_turns", "max_rounds", "rng", "round", "first", "current", "turn",
        "hands", "displays", "discard", "announce", "draw", "scores", "history", "over", "drawn",
    )

    def __init__(self, players: int, options: Mapping[str, Any], seed: int) -> None:
        self.n = players
        self.target = int(options["target"])
        self.max_turns = int(options["max_turns_per_round"])
        self.max_rounds = int(options["max_rounds"])
        self.rng = Rng(seed)
        self.round = 0
        self.first = 0
        self.current = 0
        self.turn = 0  # turns played in the current round
        self.hands: list[list[str]] = []  # each kept in canonical order
        self.displays: list[list[list[str]]] = []  # [seat][colour index] = pile, bottom first
        self.discard: list[str] = []  # bottom first: the top is the last card
        self.announce: Announcement | None = None  # set while a Joker is the discard's top
        self.draw: list[str] = []  # the top of the pile is the end of the list
        self.scores = [0] * players
        self.history: list[dict[str, JSON]] = []  # one public record per finished round
        self.over = False
        self.drawn = False  # the game ended by the round cap (a draw), not by the target
        self._new_round()

    # --- the flow of the game -------------------------------------------------------------------

    def _new_round(self) -> list[Event]:
        n = self.n
        self.round += 1
        deck = full_deck()
        self.rng.shuffle(deck)
        self.hands = [sorted(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)], key=_ORDER_KEY) for s in range(n)]
        self.draw = deck[HAND_SIZE * n :]
        returned = 0
        card = self.draw.pop()
        while card == JOKER:  # a Joker turned up is shuffled back and another card turned up
            returned += 1
            self.draw.append(card)
            self.rng.shuffle(self.draw)
            card = self.draw.pop()
        self.discard = [card]
        self.announce = None
        self.displays = [[[] for _ in COLOURS] for _ in range(n)]
        self.first = self.current = (self.round - 1) % n
        self.turn = 0
        data = {"round": self.round, "first": self.first, "discard": card, "jokers_returned": returned,
                "draw_pile": len(self.draw)}
        events = [Event("round_start", data)]
        events.extend(Event("hand", {"cards": list(self.hands[s])}, to=s) for s in range(n))
        return events

    def _draw_card(self, seat: Seat, events: list[Event]) -> None:
        if not self.draw:
            if len(self.discard) <= 1:
                events.append(Event("draw_skipped", {"seat": seat}))
                return
            top = self.discard.pop()
            pile = self.discard
            self.rng.shuffle(pile)
            self.draw = pile
            self.discard = [top]  # self.announce is untouched: the set-aside card is still the top
            events.append(Event("reshuffle", {"set_aside": top, "draw_pile": len(pile)}))
        card = self.draw.pop()
        insort(self.hands[seat], card, key=_ORDER_KEY)
        events.append(Event("draw", {"seat": seat, "draw_pile": len(self.draw)}))
        events.append(Event("drew", {"card": card}, to=seat))

    def _end_round(self, reason: str, ended_by: Seat | None) -> list[Event]:
        n = self.n
        points = [round_points(self.display_cards(s), self.hands[s]) for s in range(n)]
        for seat in range(n):
            self.scores[seat] += points[seat]
        record: dict[str, JSON] = {"round": self.round, "reason": reason, "ended_by": ended_by, "points": points}
        self.history.append(record)
        events = [
            Event(
                "round_end",
                {
                    **record,
                    "hands": [list(h) for h in self.hands],
                    "displays": [self.display_cards(s) for s in range(n)],
                    "totals": list(self.scores),
                },
            )
        ]
        if max(self.scores) >= self.target or self.round >= self.max_rounds:
            self.over = True
            self.drawn = max(self.scores) < self.target
            reason = "round_limit" if self.drawn else "target"
            ranks = list(self.outcome().ranks)
            events.append(Event("game_end", {"points": list(self.scores), "ranks": ranks, "reason": reason}))
        else:
            events.extend(self._new_round())
        return events

    # --- helpers --------------------------------------------------------------------------------

    def match_target(self) -> Target:
        return target_of(self.discard[-1], self.announce)

    def display_cards(self, seat: Seat) -> list[str]:
        """Every card of a display, covered ones included, pile by pile (colour order), bottom first."""
        return [card for pile in self.displays[seat] for card in pile]

    def matching_tops(self, seat: Seat, target: Target) -> list[str]:
        """The display tops that match: any of them forbids playing to the display."""
        colour, number = target
        return [pile[-1] for pile in self.displays[seat] if pile and (pile[-1][0] == colour or NUMBER_OF[pile[-1]] == number)]

    # --- the contract ---------------------------------------------------------------------------

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[Seat, ...]:
        return () if self.over else (self.current,)

    def legal_actions(self, seat: Seat) -> list[JSON]:
        return legal_actions(self, seat)

    def check(self, seat: Seat, action: JSON) -> None:
        check_action(self, seat, action)

    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        if self.over:
            raise GameOver("the Kolpa! game is over: no more actions")
        self.check_all(actions)
        seat = self.current
        action = actions[seat]
        hand = self.hands[seat]
        events: list[Event] = []
        ended = False
        if "pass" in action:
            events.append(Event("pass", {"seat": seat}))
        else:
            card, source, dest = action["play"], action["from"], action["to"]
            if source == "hand":
                hand.remove(card)
            else:
                self.displays[seat][COLOUR_INDEX[card[0]]].pop()
            data: dict[str, JSON] = {"seat": seat, "card": card, "from": source, "to": dest}
            if dest == "discard":
                self.discard.append(card)
                if card == JOKER:
                    self.announce = data["announce"] = action["announce"]
                else:
                    self.announce = None
                events.append(Event("play", data))
                if not hand:
                    self.turn += 1
                    events.extend(self._end_round("out", seat))
                    ended = True
            else:
                self.displays[seat][COLOUR_INDEX[card[0]]].append(card)
                events.append(Event("play", data))
                self._draw_card(seat, events)
        if not ended:
            self.turn += 1
            if self.turn >= self.max_turns:
                events.extend(self._end_round("turn_limit", None))
            else:
                self.current = (seat + 1) % self.n
        return events

    def fallback(self, seat: Seat) -> JSON:
        return self.legal_actions(seat)[0]

    def view(self, seat: Seat) -> dict[str, JSON]:
        return kolpa_view(self, seat)

    def outcome(self) -> Outcome:
        if not self.over:
            raise GameNotOver("the Kolpa! game is not over yet")
        tiebreaks = [() for _ in range(self.n)]
        if self.drawn:
            return Outcome.draw(self.scores, tiebreaks)
        return Outcome.ranked(self.scores, tiebreaks)

    def clone(self) -> "KolpaState":
        other = KolpaState.__new__(KolpaState)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.rng = Rng(self.rng.state)
        other.hands = [list(h) for h in self.hands]
        other.displays = [[list(p) for p in d] for d in self.displays]
        other.discard = list(self.discard)
        other.draw = list(self.draw)
        other.scores = list(self.scores)
        other.history = list(self.history)  # records are never mutated once appended
        return other

    def snapshot(self) -> dict[str, JSON]:
        return kolpa_snapshot(self)

    def resample_hidden(self, seat: Seat, seed: int) -> "KolpaState":
        """Other hands and the draw pile are redrawn from their union, sizes kept.

        The seat sees its own hand, every display, the discard's top and all counts; the covered discard
        cards are not in any view but stay put (they were seen being played). The RNG, which decides
        future reshuffles and deals, is hidden too, so it is redrawn as well.
        """
        other = self.clone()
        rng = Rng(seed)
        pool = list(other.draw)
        for s in range(self.n):
            if s != seat:
                pool.extend(other.hands[s])
        rng.shuffle(pool)
        for s in range(self.n):
            if s != seat:
                size = len(other.hands[s])
                other.hands[s] = sorted(pool[:size], key=_ORDER_KEY)
                del pool[:size]
        other.draw = pool
        other.rng = Rng(rng.next64())
        return other


__all__ = ["KolpaState"]
