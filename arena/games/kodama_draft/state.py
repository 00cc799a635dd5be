"""Kodama, drafting variant ("Les Esprits de l'Arbre", the seed's last section) for 2 to 6 players.

Same tree rules and card data as Kodama Duo (arena/games/kodama: rules.py, cards.json); no
cut-and-choose and no spirits (the variant is written for the base Kodama game, which has none).

Readings implemented (the seed's last section, issue 6 item 5):
- Set-up, all from the seed's SplitMix64 stream, in this order: the Trunks (Duo's 2 plus the 4 stand-in
  `draft_trunks` of cards.json, six different elements) are shuffled and seat s takes the s-th; the 21
  Kodama cards are shuffled and each seat takes K of them, K = 4, or 3 at 6 players (6 x 4 = 24 > 21;
  the rest stay in the box, unseen); for each season the season's stand-in cards are shuffled and the
  first is its Season card (face down until its season begins), as in Duo; one shuffle seed per season
  is drawn for the deck shuffle at each season's deal (below). The seed's
  ban on two published Season cards ("Bourrasque", "Invocation du Printemps") has no stand-in
  counterpart.
- A season: its Season card is revealed; every Branch card not on a tree (the deck, the cards left in
  hands last season and any discarded card: "les cartes Branche inutilisées") is shuffled into the
  deck, and H cards are dealt face down to each seat, one at a time from seat 0, H = min(4, deck // N).
  Then growth turns, each of two simultaneous steps, as the rulebook has it ("Chaque joueur choisit
  simultanément une des cartes Branche de sa main et la place face cachée en face de lui. Quand tout le
  monde est prêt, les cartes sont retournées. Chaque joueur place simultanément sa carte..."):
  * pick (every seat at once, in secret): `{"pick": "B17"}`, a card of your hand. Listed: the hand
    cards that have at least one legal placement on your tree; when none has, every hand card (the
    picked card will be discarded). The picks are then revealed to everyone together (event `reveal`).
  * place (every seat whose pick can be placed, at once): `{"card": "B17", "at": ["B05", 1]}`, your
    revealed pick and a free attachment point of your tree. It scores as in Duo (line points, more than
    10 before the Season bonus is forbidden, plus the current Season card's bonus). A seat whose pick
    has no legal placement is not asked: the card is discarded (event `cannot_place`) and it scores
    nothing this turn. Nobody else touches a seat's tree, so a pick that could be placed when picked
    still can be.
  * if the season goes on, every seat passes its remaining cards to the seat on its left, seat
    (s + 1) mod N, then every seat draws one card if the deck holds at least one card for every seat
    (in seat order); otherwise nobody draws (all or nothing keeps the hands equal) and hands shrink by
    one card a turn.
  * the season's growth ends after 4 turns ("until everyone placed four cards this season") or when
    the hands are empty; there is no pass and no draw after the last turn (the cards left in hand go
    back into the deck at the next season's deal).
  Then the Kodama phase, as in Duo: every seat at once scores one of its unscored Kodama cards.
- The deck runs short: 36 Branch cards and placed cards leave the game, so at 2 and 3 players every
  season has its 4 turns, but from 4 players on later seasons deal fewer cards (4 players: 4, 4, 1
  cards each; 5 players: 4, 3, 0; 6 players: 4, 2, 0 -- discards can change this by a card or two), a
  season with fewer than N cards to deal has no growth turn, only its Kodama phase. Each seat places at
  most 4 cards a season and every seat places the same number each turn (or discards).
- End: after the third Kodama phase. Most points wins; the tie-break is the number of instances of
  one's Trunk's element on one's tree (the Trunk's own included); then a shared rank.
- Visibility: trees, scores, discards, hand sizes, the deck size, revealed Season cards and scored
  Kodama cards are public; a seat's hand and unscored Kodama cards are its own; the deck order, other
  hands, face-down Season cards, future shuffles and the box are seen by nobody. A seat does know the
  cards it passed on while they stay in other hands (resample_hidden keeps those).
- Events: public `season`, `deal` (hand sizes), `reveal` (every seat's pick), `cannot_place`, `place`
  (one per placing seat), `pass`, `kodama_phase`, `kodama`, `game_over`; private `hand` (to one seat:
  its new hand after a deal or a pass).
- Fallback for a failed bot: the first legal action in the listed order (deterministic).
"""

from __future__ import annotations

import enum
from typing import Any, Mapping

from arena.errors import GameOver, IllegalAction
from arena.games.base import Event, Seat
from arena.games.kodama.cards import SEASONS, CardSet, default_cards
from arena.games.kodama.common import KodamaTable, attachment
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS, Tree, line_points
from arena.jsonvalue import JSON
from arena.rng import Rng

TURNS_PER_SEASON = 4
HAND_SIZE = 4
KODAMA_PER_PLAYER = 4


class Step(enum.Enum):
    """The kind of decision asked now; its value is the view's "decision"."""

    PICK = "pick"
    PLACE = "place"
    KODAMA = "kodama"
    OVER = "over"


def kodama_per_player(players: int, available: int) -> int:
    """4 each, or as many as the box allows for everyone (3 at 6 players with 21 cards)."""
    return min(KODAMA_PER_PLAYER, available // players)


class KodamaDraftState(KodamaTable):
    __slots__ = ("n", "hands", "seen", "shuffle_seeds", "picks", "placing")  # besides KodamaTable's
    GAME_TITLE = "Kodama draft"
    STEP_OVER = Step.OVER

    def __init__(self, players: int, options: Mapping[str, Any], seed: int, cards: CardSet | None = None) -> None:
        faces = cards or default_cards()
        self.n = n = players
        self.faces: CardSet = faces
        # No spirits in this variant: elements are always read as printed (shared, never mutated).
        self.shown = {c: f.elements for c, f in faces.tree_cards.items()}
        rng = Rng(seed)
        trunks = list(faces.trunks) + list(faces.draft_trunks)
        if n > len(trunks):
            raise ValueError(f"the card set has {len(trunks)} Trunks, not enough for {n} players")
        rng.shuffle(trunks)
        self.trunks = trunks[:n]
        self.trees = [Tree(t, faces.tree_cards[t].attach) for t in self.trunks]
        kodama = list(faces.kodama)
        rng.shuffle(kodama)
        k = kodama_per_player(n, len(kodama))
        self.kodama_hand = [sorted(kodama[s * k : (s + 1) * k]) for s in range(n)]
        self.kodama_scored: list[list[dict[str, JSON]]] = [[] for _ in range(n)]
        self.season_cards: list[str] = []
        for name in SEASONS:
            ids = list(faces.seasons_by_name[name])
            rng.shuffle(ids)
            self.season_cards.append(ids[0])
        self.deck = list(faces.branches)  # the top of the deck is the end of the list; shuffled at each deal
        self.shuffle_seeds = [rng.next64() for _ in SEASONS]
        self.hands: list[list[str]] = [[] for _ in range(n)]  # kept sorted
        self.seen: list[set[str]] = [set() for _ in range(n)]  # cards each seat has held since the deal
        self.discard: list[str] = []
        self.season = 0
        self.turn = 0
        self.scores = [0] * n
        self.placed = [[0] * len(SEASONS) for _ in range(n)]
        self.picks: list[str | None] = [None] * n  # the revealed picks, until placed or discarded
        self.placing: tuple[int, ...] = ()  # the seats asked to place now
        self.step = Step.PICK
        self._start_season()

    # --- the flow of the game -------------------------------------------------------------------

    def _start_season(self) -> list[Event]:
        n = self.n
        card = self.faces.seasons[self.season_cards[self.season]]
        events = [Event("season", {"season": self.season + 1, "name": SEASONS[self.season], "card": card.to_json()})]
        for hand in self.hands:
            self.deck.extend(hand)
        self.deck.extend(self.discard)
        self.discard = []
        self.deck.sort()  # the shuffle alone decides the order
        Rng(self.shuffle_seeds[self.season]).shuffle(self.deck)
        size = min(HAND_SIZE, len(self.deck) // n)
        hands: list[list[str]] = [[] for _ in range(n)]
        for _ in range(size):
            for s in range(n):
                hands[s].append(self.deck.pop())
        self.hands = [sorted(h) for h in hands]
        self.seen = [set(h) for h in self.hands]
        self.turn = 0
        events.append(Event("deal", {"season": self.season + 1, "cards_each": size, "deck": len(self.deck)}))
        if size:
            events.extend(self._hand_events("deal"))
            self.step = Step.PICK
            return events
        self.step = Step.KODAMA
        events.append(Event("kodama_phase", {"season": self.season + 1, "reason": "no cards to deal"}))
        return events

    def _hand_events(self, why: str) -> list[Event]:
        tc = self.faces.tree_cards
        return [Event("hand", {"why": why, "cards": [tc[c].to_json() for c in self.hands[s]]}, to=s) for s in range(self.n)]

    def _reveal(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        """Every pick is taken from its hand and shown; an unplaceable one is discarded at once."""
        tc = self.faces.tree_cards
        for seat in range(self.n):
            card = actions[seat]["pick"]
            self.hands[seat].remove(card)
            self.picks[seat] = card
        picks = [tc[c].to_json() for c in self.picks if c is not None]
        events = [Event("reveal", {"season": self.season + 1, "turn": self.turn + 1, "picks": picks})]
        placing = []
        for seat, card in enumerate(self.picks):
            assert card is not None
            if self._placements_from(seat, [card], first_only=True):
                placing.append(seat)
            else:
                self.discard.append(card)
                self.picks[seat] = None
                events.append(Event("cannot_place", {"seat": seat, "card": card}))
        self.placing = tuple(placing)
        if placing:
            self.step = Step.PLACE
            return events
        return events + self._end_turn()

    def _end_turn(self) -> list[Event]:
        self.picks = [None] * self.n
        self.placing = ()
        self.turn += 1
        n = self.n
        if self.turn >= TURNS_PER_SEASON or not self.hands[0]:
            self.step = Step.KODAMA
            return [Event("kodama_phase", {"season": self.season + 1})]
        self.step = Step.PICK
        self.hands = [self.hands[(s - 1) % n] for s in range(n)]  # seat s passes to its left, s + 1
        drew = len(self.deck) >= n
        if drew:
            for s in range(n):
                self.hands[s].append(self.deck.pop())
        for s in range(n):
            self.hands[s].sort()
            self.seen[s].update(self.hands[s])
        events = [Event("pass", {"direction": "left", "drew": drew, "hand_sizes": [len(h) for h in self.hands], "deck": len(self.deck)})]
        return events + self._hand_events("pass")

    def _begin_next_season(self) -> list[Event]:
        return self._start_season()

    # --- what may be done now -------------------------------------------------------------------

    def _pickable(self, seat: int) -> list[str]:
        """The hand cards with a legal placement, or the whole hand when none has one."""
        hand = self.hands[seat]
        return [c for c in hand if self._placements_from(seat, [c], first_only=True)] or list(hand)

    # --- the contract ---------------------------------------------------------------------------

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[Seat, ...]:
        if self.step is Step.OVER:
            return ()
        if self.step is Step.PLACE:
            return self.placing
        return tuple(range(self.n))

    def legal_actions(self, seat: Seat) -> list[JSON]:
        if seat not in self.to_move():
            return []
        if self.step is Step.KODAMA:
            return [{"kodama": k} for k in self.kodama_hand[seat]]
        if self.step is Step.PICK:
            return [{"pick": c} for c in self._pickable(seat)]
        card = self.picks[seat]
        assert card is not None
        return self._placements_from(seat, [card])

    def check(self, seat: Seat, action: JSON) -> None:
        if self.step is Step.OVER:
            raise IllegalAction(seat, action, "the game is over")
        self.check_seat_decides(seat, action)
        if self.step is Step.KODAMA:
            self._check_kodama(seat, action)
        elif self.step is Step.PICK:
            self._check_pick(seat, action)
        else:
            self._check_place(seat, action)

    def _check_pick(self, seat: Seat, action: JSON) -> None:
        if not isinstance(action, dict) or set(action) != {"pick"}:
            raise IllegalAction(seat, action, 'a pick action is an object like {"pick": "B17"}: a card of your hand')
        card = action["pick"]
        if not isinstance(card, str) or card not in self.hands[seat]:
            raise IllegalAction(seat, action, f"{card!r} is not in your hand {self.hands[seat]}")
        pickable = self._pickable(seat)
        if card not in pickable:
            raise IllegalAction(seat, action, f"{card} cannot be placed on your tree (no free point, or every placement "
                                              f"scores over {MAX_PLACEMENT_POINTS}); pick one that can: {pickable}")

    def _check_place(self, seat: Seat, action: JSON) -> None:
        pick = self.picks[seat]
        example = f'{{"card": "{pick}", "at": ["T1", 0]}}'
        if not isinstance(action, dict) or set(action) != {"card", "at"}:
            raise IllegalAction(seat, action, f"a place action is an object like {example}")
        card, at = action["card"], action["at"]
        if card != pick:
            raise IllegalAction(seat, action, f"you place the card you picked, {pick}, not {card!r}")
        tree = self.trees[seat]
        parent, point = attachment(seat, action, at, tree, example)
        if not tree.is_free(parent, point):
            raise IllegalAction(seat, action, f"attachment point {point} of {parent} is not free (free points: {tree.free_points()})")
        points, _ = line_points(tree, self.shown, self.shown[card], parent)
        if points > MAX_PLACEMENT_POINTS:
            raise IllegalAction(seat, action, f"this placement would score {points} points; above {MAX_PLACEMENT_POINTS} is forbidden")

    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        if self.step is Step.OVER:
            raise GameOver("the Kodama draft game is over: no more actions")
        self.check_all(actions)
        if self.step is Step.KODAMA:
            return self._score_kodama(actions)
        if self.step is Step.PICK:
            return self._reveal(actions)
        events = []
        for seat in self.placing:
            events.append(Event("place", self._grow(seat, actions[seat]["card"], actions[seat]["at"])))
            self.picks[seat] = None
        return events + self._end_turn()

    def fallback(self, seat: Seat) -> JSON:
        return self.legal_actions(seat)[0]

    # --- what a seat may know -------------------------------------------------------------------

    def view(self, seat: Seat) -> dict[str, JSON]:
        # An allow-list: the public table, one's own hand and Kodama cards, revealed Season cards.
        faces = self.faces
        over = self.step is Step.OVER
        season = min(self.season, len(SEASONS) - 1)
        return {
            "seat": seat,
            "player_count": self.n,
            "step": self.step.value,
            "decision": self.step.value if seat in self.to_move() else None,
            "to_move": list(self.to_move()),
            "turn": min(self.turn + 1, TURNS_PER_SEASON),
            "pass_to": (seat + 1) % self.n,
            **self._season_view(season),
            "scores": list(self.scores),
            "trees": [self._tree_view(s) for s in range(self.n)],
            "hand": [faces.tree_cards[c].to_json() for c in self.hands[seat]],
            "picks": [faces.tree_cards[c].to_json() if c is not None else None for c in self.picks],
            "hand_sizes": [len(h) for h in self.hands],
            "deck": len(self.deck),
            "discard": [faces.tree_cards[c].to_json() for c in self.discard],
            **self._kodama_view(seat),
            "placed_this_season": [self.placed[s][season] for s in range(self.n)] if not over else [0] * self.n,
            "max_placement_points": MAX_PLACEMENT_POINTS,
        }

    def clone(self) -> "KodamaDraftState":
        other: KodamaDraftState = self._copy_common()
        other.hands = [list(h) for h in self.hands]
        other.seen = [set(s) for s in self.seen]
        other.shuffle_seeds = list(self.shuffle_seeds)
        other.picks = list(self.picks)
        return other

    def snapshot(self) -> dict[str, JSON]:
        return {
            "trunks": list(self.trunks),
            "trees": [t.to_json() for t in self.trees],
            "deck": list(self.deck),
            "hands": [list(h) for h in self.hands],
            "seen": [sorted(s) for s in self.seen],
            "discard": list(self.discard),
            **self._kodama_snapshot(),
            "shuffle_seeds": [str(s) for s in self.shuffle_seeds],
            "picks": list(self.picks),
            "placing": list(self.placing),
            "season": self.season,
            "turn": self.turn,
            "step": self.step.value,
            "scores": list(self.scores),
            "placed": [list(p) for p in self.placed],
        }

    def resample_hidden(self, seat: Seat, seed: int) -> "KodamaDraftState":
        """Redraw what `seat` has not seen: the deck order, the cards of other hands it never held this
        season (relabelled together with the deck, so every other seat's memory stays consistent), the
        other seats' unscored Kodama cards (from them and the box), face-down Season cards and the
        shuffles of seasons not yet begun."""
        other = self.clone()
        rng = Rng(seed)
        known = self.seen[seat]
        pool = list(self.deck) + [c for o in range(self.n) if o != seat for c in self.hands[o] if c not in known]
        drawn = list(pool)
        rng.shuffle(drawn)
        relabel = dict(zip(pool, drawn))
        other.deck = [relabel[c] for c in self.deck]
        for o in range(self.n):
            if o != seat:
                other.hands[o] = sorted(relabel.get(c, c) for c in self.hands[o])
                other.seen[o] = {relabel.get(c, c) for c in self.seen[o]}
        self._redraw_kodama_hands(other, seat, rng)
        for s in range(self.season + 1, len(SEASONS)):
            other.season_cards[s] = rng.choice(self.faces.seasons_by_name[SEASONS[s]])
            other.shuffle_seeds[s] = rng.next64()
        return other
