"""Kodama Duo as a state machine: cut-and-choose, growing trees, spirits, and secret Kodama scoring.

Readings implemented (the French rulebook, with ../shared/rules-notes.md settling the open points):
- Tree model: topological (see rules.py). A card attaches to one free attachment point of one card of
  its owner's tree; covering elements and table edges are "no free point left".
- Set-up, all from the seed's SplitMix64 stream, in this order: the two Trunks are shuffled and seat s
  takes the s-th; the Kodama cards are shuffled and seats 0 and 1 take 4 each (the rest stay in the box,
  unseen by both); for spring, summer and autumn in turn the season's cards are shuffled and the first
  is the season's card, face down until its season begins; the 36 Branch cards are shuffled into the
  deck. The first Sower is then drawn from the seed (the rulebook's "whoever wears the most green"
  cannot be known); the other seat is the Cutter.
- A season: its card is revealed, then four growth turns, then the Kodama phase. A turn:
  1 reveal: three cards from the deck (automatic, public).
  2 split (Cutter): two piles of at least one card, i.e. one card against the other two.
  3 choose (Sower): a pile; the Cutter gets the other.
  4 place (both seats at once, a simultaneous step): each attaches one of its new cards. A placement
    scoring more than 10 points before the Season bonus is forbidden. Both seats place at once because
    trees are independent and neither sees the other's placement first in the real game either.
    A seat none of whose new cards can be placed legally is not asked: its cards are discarded and it
    scores nothing this turn.
  5 score: line points (rules.py) plus the current Season card's bonus.
  6 discard and spirit: the holder of two cards discards the one it did not place (both, if it could
    place neither). The other seat then summons a spirit of an element shown on the card(s) the holder
    of two discarded -- even if it could not place its own card (its own unplaced card is discarded and
    gives no spirit). It chooses the element and one element instance on its own tree not covered by a
    spirit (the Trunk's instance included). A spirit on nobody's tree comes from the supply; one on the
    opponent's tree is taken from there (the element under it shows again); one already on its own tree
    cannot be summoned again (a placed spirit never moves except when the opponent takes it). Summoning
    is compulsory; when no summon is possible the step is skipped (event "no_spirit").
  Roles swap after every turn.
- Kodama phase (both seats at once, a simultaneous step): each scores one unscored Kodama card of its
  four on its own tree as it stands; the card is then out. The Cutter of the next season is the seat
  with the lower score; on a tie, the seat that was not the Cutter in the last turn.
- End: after the third Kodama phase (the fourth Kodama card of each seat is never scored). Most points
  wins; the tie-break is the number of instances of one's Trunk's element shown on one's tree (spirits
  included, the Trunk's own instance counted); then a shared win.
- Visibility: trees, spirits, revealed cards, piles, held cards, discards, scores, revealed Season
  cards and scored Kodama cards are public; a seat's unscored Kodama cards are its own; the deck order,
  face-down Season cards and the Kodama cards in the box are seen by nobody.
- Details of our own: the split may list its piles in either order (the legal list gives the single
  card first); a spirit may cover an instance of its own element (useless for scoring, but it keeps the
  marker from the opponent); every event is public (the only private information, the Kodama hands, is
  dealt at set-up and shown in the view); the view gives each own Kodama card's current `value` as a
  convenience (it follows from what the seat sees).
- Fallback for a failed bot: the first legal action in the listed order (deterministic).
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.errors import GameOver, IllegalAction
from arena.games.base import Event, Seat
from arena.games.kodama.cards import KODAMA_PER_PLAYER, SEASONS, CardSet, default_cards
from arena.games.kodama.common import KodamaTable, is_int
from arena.games.kodama.rules import Tree, line_points
from arena.games.kodama_duo.moves import check_place, check_spirit, check_split, shape
from arena.games.kodama_duo.table import TURNS_PER_SEASON, Step
from arena.games.kodama_duo.view import duo_snapshot, duo_view
from arena.jsonvalue import JSON
from arena.rng import Rng

REVEAL = 3


class KodamaDuoState(KodamaTable):
    __slots__ = (  # besides KodamaTable's
        "spirits", "revealed", "piles", "held", "given", "cutter", "unplaced", "placing", "spirit_seat",
        "spirit_elements",
    )
    GAME_TITLE = "Kodama Duo"
    STEP_OVER = Step.OVER
    step: Step  # narrows KodamaTable.step to this game's decisions

    def __init__(self, players: int, options: Mapping[str, Any], seed: int, cards: CardSet | None = None) -> None:
        faces = cards or default_cards()
        self.faces: CardSet = faces
        rng = Rng(seed)
        trunks = list(faces.trunks)
        rng.shuffle(trunks)
        self.trunks = trunks[:2]
        self.trees = [Tree(t, faces.tree_cards[t].attach) for t in self.trunks]
        self.shown: dict[str, tuple[str, ...]] = {t: faces.tree_cards[t].elements for t in self.trunks}
        self.spirits: dict[str, tuple[int, str, int]] = {}  # element -> (seat, card, instance index)
        kodama = list(faces.kodama)
        rng.shuffle(kodama)
        self.kodama_hand = [sorted(kodama[s * KODAMA_PER_PLAYER : (s + 1) * KODAMA_PER_PLAYER]) for s in range(2)]
        self.kodama_scored: list[list[dict[str, JSON]]] = [[], []]
        self.season_cards: list[str] = []
        for name in SEASONS:
            ids = list(faces.seasons_by_name[name])
            rng.shuffle(ids)
            self.season_cards.append(ids[0])
        self.deck = list(faces.branches)  # the top of the deck is the end of the list
        rng.shuffle(self.deck)
        sower = rng.below(2)
        self.cutter = 1 - sower
        self.revealed: list[str] = []
        self.piles: list[list[str]] | None = None
        self.held: list[list[str]] = [[], []]  # new cards not yet placed or discarded
        self.given: list[list[str]] = [[], []]  # the pile each seat received this turn
        self.discard: list[str] = []
        self.season = 0
        self.turn = 0
        self.scores = [0, 0]
        self.placed = [[0] * len(SEASONS) for _ in range(2)]  # Branch cards added per season
        self.unplaced = [[0] * len(SEASONS) for _ in range(2)]  # turns with no legal placement
        self.placing: tuple[int, ...] = ()
        self.spirit_seat = -1
        self.spirit_elements: list[str] = []
        self.step = Step.SPLIT
        self._start_turn()

    # --- the flow of the game -------------------------------------------------------------------

    @property
    def sower(self) -> int:
        return 1 - self.cutter

    def _season_event(self) -> Event:
        card = self.faces.seasons[self.season_cards[self.season]]
        return Event("season", {"season": self.season + 1, "name": SEASONS[self.season], "card": card.to_json()})

    def _start_turn(self) -> list[Event]:
        self.revealed = [self.deck.pop() for _ in range(REVEAL)]
        self.piles = None
        self.held = [[], []]
        self.given = [[], []]
        self.step = Step.SPLIT
        faces = self.faces.tree_cards
        return [Event("reveal", {"season": self.season + 1, "turn": self.turn + 1, "cutter": self.cutter,
                                 "cards": [faces[c].to_json() for c in self.revealed]})]

    def _start_placing(self) -> list[Event]:
        events: list[Event] = []
        placing = []
        for seat in range(2):
            if self._placements(seat):
                placing.append(seat)
            else:
                cards = sorted(self.held[seat])
                self.discard.extend(cards)
                self.held[seat] = []
                self.unplaced[seat][self.season] += 1
                events.append(Event("cannot_place", {"seat": seat, "cards": cards}))
        self.placing = tuple(placing)
        if placing:
            self.step = Step.PLACE
            return events
        return events + self._after_placing()

    def _after_placing(self) -> list[Event]:
        """Step 6: the holder of two discards the rest, the other seat summons a spirit from it."""
        events: list[Event] = []
        two = 0 if len(self.given[0]) == 2 else 1  # the piles hold one card and two
        discarded = sorted(c for c in self.given[two] if c not in self.trees[two])
        for seat in range(2):
            rest = sorted(self.held[seat])
            if rest:
                self.discard.extend(rest)
                events.append(Event("discard", {"seat": seat, "cards": rest}))
            self.held[seat] = []
        self.placing = ()
        summoner = 1 - two
        elements: list[str] = []
        for card in discarded:
            for e in self.faces.tree_cards[card].elements:
                if e not in elements:
                    elements.append(e)
        self.spirit_seat = summoner
        self.spirit_elements = [e for e in self.faces.elements if e in elements]
        if self._spirit_actions(summoner):
            self.step = Step.SPIRIT
            return events
        reason = "no spirit of those elements can be summoned onto the tree"
        events.append(Event("no_spirit", {"seat": summoner, "elements": list(self.spirit_elements), "reason": reason}))
        return events + self._end_turn()

    def _end_turn(self) -> list[Event]:
        self.spirit_seat = -1
        self.spirit_elements = []
        self.revealed = []
        self.piles = None
        self.turn += 1
        self.cutter = 1 - self.cutter
        if self.turn < TURNS_PER_SEASON:
            return self._start_turn()
        self.step = Step.KODAMA
        return [Event("kodama_phase", {"season": self.season + 1})]

    def _begin_next_season(self) -> list[Event]:
        events: list[Event] = []
        if self.scores[0] != self.scores[1]:
            self.cutter = 0 if self.scores[0] < self.scores[1] else 1
        # on a tie self.cutter is already the seat that was not the Cutter in the last turn
        events.append(self._season_event())
        events.extend(self._start_turn())
        return events

    # --- what may be done now -------------------------------------------------------------------

    def _placement(self, seat: int, card: str, parent: str) -> tuple[int, tuple[str, ...]]:
        return line_points(self.trees[seat], self.shown, self.faces.tree_cards[card].elements, parent)

    def _placements(self, seat: int) -> list[JSON]:
        return self._placements_from(seat, sorted(self.held[seat]))

    def _covered(self, card: str, index: int) -> str | None:
        for element, (_, c, i) in self.spirits.items():
            if c == card and i == index:
                return element
        return None

    def _spirit_targets(self, seat: int) -> list[tuple[str, int]]:
        covered = {(c, i) for (s, c, i) in self.spirits.values() if s == seat}
        return [(card, i) for card in self.trees[seat].order for i in range(len(self.shown[card])) if (card, i) not in covered]

    def _spirit_actions(self, seat: int) -> list[JSON]:
        elements = [e for e in self.spirit_elements if self.spirits.get(e, (-1,))[0] != seat]
        if not elements:
            return []
        targets = self._spirit_targets(seat)
        return [{"spirit": e, "on": [card, i]} for e in elements for card, i in targets]

    # --- the contract ---------------------------------------------------------------------------

    @property
    def num_seats(self) -> int:
        return 2

    def to_move(self) -> tuple[Seat, ...]:
        step = self.step
        if step is Step.SPLIT:
            return (self.cutter,)
        if step is Step.CHOOSE:
            return (self.sower,)
        if step is Step.PLACE:
            return self.placing
        if step is Step.SPIRIT:
            return (self.spirit_seat,)
        if step is Step.KODAMA:
            return (0, 1)
        return ()

    def legal_actions(self, seat: Seat) -> list[JSON]:
        if seat not in self.to_move():
            return []
        step = self.step
        if step is Step.SPLIT:
            r = self.revealed
            return [{"split": [[r[i]], [c for c in r if c != r[i]]]} for i in range(len(r))]
        if step is Step.CHOOSE:
            return [{"pile": 0}, {"pile": 1}]
        if step is Step.PLACE:
            return self._placements(seat)
        if step is Step.SPIRIT:
            return self._spirit_actions(seat)
        return [{"kodama": k} for k in self.kodama_hand[seat]]

    def check(self, seat: Seat, action: JSON) -> None:
        if self.step is Step.OVER:
            raise IllegalAction(seat, action, "the game is over")
        self.check_seat_decides(seat, action)
        step = self.step
        if step is Step.SPLIT:
            check_split(self, seat, action)
        elif step is Step.CHOOSE:
            pile = shape(self, seat, action, "pile", '{"pile": 0}')
            if not is_int(pile) or pile not in (0, 1):
                raise IllegalAction(seat, action, f"pile must be 0 or 1, got {pile!r}")
        elif step is Step.PLACE:
            check_place(self, seat, action)
        elif step is Step.SPIRIT:
            check_spirit(self, seat, action)
        else:
            self._check_kodama(seat, action)

    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        if self.step is Step.OVER:
            raise GameOver("the Kodama Duo game is over: no more actions")
        self.check_all(actions)
        step = self.step
        if step is Step.SPLIT:
            piles = [sorted(p) for p in actions[self.cutter]["split"]]
            self.piles = piles
            self.step = Step.CHOOSE
            return [Event("split", {"seat": self.cutter, "piles": [list(p) for p in piles]})]
        if step is Step.CHOOSE:
            assert self.piles is not None
            pile = actions[self.sower]["pile"]
            self.given[self.sower] = list(self.piles[pile])
            self.given[self.cutter] = list(self.piles[1 - pile])
            self.held = [list(g) for g in self.given]
            self.revealed = []  # the cards are now in the players' hands
            events = [Event("choose", {"seat": self.sower, "pile": pile, "cards": [list(g) for g in self.given]})]
            return events + self._start_placing()
        if step is Step.PLACE:
            events = []
            for seat in self.placing:
                events.append(self._place(seat, actions[seat]["card"], actions[seat]["at"]))
            return events + self._after_placing()
        if step is Step.SPIRIT:
            return self._summon(self.spirit_seat, actions[self.spirit_seat]) + self._end_turn()
        return self._score_kodama(actions)

    def _place(self, seat: int, card: str, at: list[Any]) -> Event:
        play = self._grow(seat, card, at)
        self.shown[card] = self.faces.tree_cards[card].elements
        self.held[seat].remove(card)
        return Event("place", play)

    def _spirits_on(self, seat: int) -> list[tuple[str, str]]:
        return [(e, c) for e, (s, c, _) in self.spirits.items() if s == seat]

    def _set_shown(self, card: str, index: int, element: str) -> None:
        values = list(self.shown[card])
        values[index] = element
        self.shown[card] = tuple(values)

    def _summon(self, seat: int, action: JSON) -> list[Event]:
        element = action["spirit"]
        card, index = action["on"]
        taken_from = None
        if element in self.spirits:
            owner, old_card, old_index = self.spirits[element]
            self._set_shown(old_card, old_index, self.faces.tree_cards[old_card].elements[old_index])
            taken_from = {"seat": owner, "on": [old_card, old_index]}
        self.spirits[element] = (seat, card, index)
        self._set_shown(card, index, element)
        return [Event("spirit", {"seat": seat, "spirit": element, "on": [card, index], "taken_from": taken_from})]

    def fallback(self, seat: Seat) -> JSON:
        return self.legal_actions(seat)[0]

    # --- what a seat may know -------------------------------------------------------------------

    def _instance_marks(self, seat: int, card: str) -> dict[str, JSON]:
        """Each element instance as shown (a spirit's element in place of the one it covers), and the
        spirit on each instance or None."""
        spirit_at = {(c, i): e for e, (s, c, i) in self.spirits.items() if s == seat}
        return {"shown": list(self.shown[card]),
                "spirits": [spirit_at.get((card, i)) for i in range(len(self.faces.tree_cards[card].elements))]}

    def view(self, seat: Seat) -> dict[str, JSON]:
        return duo_view(self, seat)

    def clone(self) -> "KodamaDuoState":
        other: KodamaDuoState = self._copy_common()
        other.shown = dict(self.shown)
        other.spirits = dict(self.spirits)
        other.revealed = list(self.revealed)
        other.piles = [list(p) for p in self.piles] if self.piles is not None else None
        other.held = [list(h) for h in self.held]
        other.given = [list(g) for g in self.given]
        other.unplaced = [list(p) for p in self.unplaced]
        other.spirit_elements = list(self.spirit_elements)
        return other

    def snapshot(self) -> dict[str, JSON]:
        return duo_snapshot(self)

    def resample_hidden(self, seat: Seat, seed: int) -> "KodamaDuoState":
        """Redraw what `seat` has not seen: the deck order, the opponent's unscored Kodama cards (from
        them and the box), and the Season cards of seasons not yet begun (from their season's cards)."""
        other = self.clone()
        rng = Rng(seed)
        rng.shuffle(other.deck)
        self._redraw_kodama_hands(other, seat, rng)
        for s in range(self.season + 1, len(SEASONS)):
            other.season_cards[s] = rng.choice(self.faces.seasons_by_name[SEASONS[s]])
        return other
