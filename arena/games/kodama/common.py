"""What Kodama Duo and the Kodama drafting variant share: the tree, Kodama and Season-card parts.

Both games grow one tree per seat under the same rules (rules.py), score the same secret Kodama cards
in a simultaneous Kodama phase, reveal the same Season cards and break ties the same way; they differ
only in how Branch cards reach a seat (Duo: cut-and-choose piles and spirits; the draft: passed hands).
`KodamaTable` is their common base class: it declares the fields both keep (typed, each with the same
meaning in both games) and holds the common rules once, so a rules fix in it reaches both games. Each
difference is a small hook the game overrides:

- `_spirits_on(seat)`: the spirits Kodama terms count on a seat's tree (none in the draft);
- `_instance_marks(seat, card)`: extra per-card fields of the tree view (Duo's shown elements and
  spirits);
- `_begin_next_season()`: what happens when a season other than the last ends;
- `GAME_TITLE` and `STEP_OVER`: the game's name in error messages and its Step enum's final member.
"""

from __future__ import annotations

import abc
import enum
from typing import Any, ClassVar, Mapping, Sequence, TypeVar

from arena.errors import GameNotOver, IllegalAction
from arena.games.base import Event, GameState, Outcome, Seat
from arena.games.kodama.cards import SEASONS, CardSet
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS, Tree, kodama_points, line_points, season_count
from arena.jsonvalue import JSON
from arena.rng import Rng

T = TypeVar("T", bound="KodamaTable")


def is_int(value: Any) -> bool:
    """A JSON integer: `bool` is an `int` subclass in Python, but `true` is not an index."""
    return isinstance(value, int) and not isinstance(value, bool)


def attachment(seat: Seat, action: Any, at: Any, tree: Tree, example: str) -> tuple[str, int]:
    """The `at` of a place action, checked: [card id of the seat's tree, attachment point index]."""
    if not isinstance(at, list) or len(at) != 2 or not isinstance(at[0], str) or not is_int(at[1]):
        raise IllegalAction(seat, action, f'"at" must be [card id, attachment point index], as in {example}')
    parent, point = at
    if parent not in tree:
        raise IllegalAction(seat, action, f"{parent!r} is not a card of your tree")
    return parent, point


def all_slots(cls: type) -> list[str]:
    """Every slot of `cls` and its bases (a subclass's `__slots__` lists only its own)."""
    return [name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())]


class KodamaTable(GameState):
    """Base of the Kodama game states: placement scoring, the Kodama phase, the shared view parts,
    the end of the game, and the copying of the fields both games keep."""

    __slots__ = (
        "faces", "trunks", "trees", "shown", "deck", "discard", "kodama_hand", "kodama_scored",
        "season_cards", "season", "turn", "step", "scores", "placed",
    )

    GAME_TITLE: ClassVar[str]  # "Kodama Duo", "Kodama draft": names the game in error messages
    STEP_OVER: ClassVar[enum.Enum]  # the game's Step.OVER

    faces: CardSet
    trunks: list[str]  # by seat
    trees: list[Tree]  # by seat
    shown: dict[str, tuple[str, ...]]  # card -> its elements as they count now (Duo's spirits change them)
    deck: list[str]  # the top of the deck is the end of the list
    discard: list[str]
    kodama_hand: list[list[str]]  # by seat: unscored Kodama cards, sorted
    kodama_scored: list[list[dict[str, JSON]]]  # by seat: {"card", "season", "points"}, never mutated
    season_cards: list[str]  # one Season card per season, face down until its season begins
    season: int  # 0-based; len(SEASONS) once the game is over
    turn: int  # growth turns played this season
    step: enum.Enum  # the game's Step
    scores: list[int]
    placed: list[list[int]]  # [seat][season]: Branch cards added

    # --- hooks ------------------------------------------------------------------------------------

    def _spirits_on(self, seat: int) -> Sequence[tuple[str, str]]:
        """(element, card) of each spirit on the seat's tree, as Kodama terms count them; none by default."""
        return ()

    def _instance_marks(self, seat: int, card: str) -> dict[str, JSON]:
        """Extra fields of one card in the tree view, placed after its printed elements; none by default."""
        return {}

    @abc.abstractmethod
    def _begin_next_season(self) -> list[Event]:
        """Start the season `self.season` (not the first, never past the last); its events."""

    # --- growing and scoring ------------------------------------------------------------------------

    def _grow(self, seat: int, card: str, at: Sequence[Any]) -> dict[str, JSON]:
        """Attach `card` to the seat's tree at `at` (checked legal) and score it: line points plus the
        current Season card's bonus. Returns the public record of the placement; taking the card out of
        the seat's hand is the caller's part, since the games keep hands differently."""
        parent, point = at[0], at[1]
        tree = self.trees[seat]
        face = self.faces.tree_cards[card]
        points, lines = line_points(tree, self.shown, face.elements, parent)
        season = self.faces.seasons[self.season_cards[self.season]]
        bonus = season.points * season_count(season.per, tree, face.elements, parent, points, lines)
        tree.attach(card, (parent, point), face.attach)
        self.placed[seat][self.season] += 1
        self.scores[seat] += points + bonus
        return {"seat": seat, "card": card, "at": [parent, point], "points": points, "lines": list(lines),
                "bonus": bonus, "score": self.scores[seat]}

    def _placements_from(self, seat: int, cards: Sequence[str], first_only: bool = False) -> list[JSON]:
        """Every legal placement of one of `cards` on the seat's tree (at most 10 line points), card by
        card then by free point; with `first_only`, just the first (to ask whether there is any)."""
        tree = self.trees[seat]
        free = tree.free_points()
        out: list[JSON] = []
        for card in cards:
            elements = self.faces.tree_cards[card].elements
            for parent, point in free:
                if line_points(tree, self.shown, elements, parent)[0] <= MAX_PLACEMENT_POINTS:
                    out.append({"card": card, "at": [parent, point]})
                    if first_only:
                        return out
        return out

    # --- the Kodama phase ---------------------------------------------------------------------------

    def _check_kodama(self, seat: Seat, action: JSON) -> None:
        if not isinstance(action, dict) or set(action) != {"kodama"}:
            raise IllegalAction(seat, action, 'a kodama action is an object like {"kodama": "K05"}')
        if action["kodama"] not in self.kodama_hand[seat]:
            raise IllegalAction(seat, action, f"{action['kodama']!r} is not one of your unscored Kodama cards {self.kodama_hand[seat]}")

    def _kodama_value(self, seat: int, card: str) -> int:
        """What Kodama card `card` scores on the seat's tree as it stands now."""
        return kodama_points(self.faces.kodama[card].terms, self.trees[seat], self.shown, self._spirits_on(seat))

    def _score_kodama(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        """Every seat scores the Kodama card it chose; then the season ends."""
        events: list[Event] = []
        for seat in range(self.num_seats):
            card = actions[seat]["kodama"]
            face = self.faces.kodama[card]
            points = self._kodama_value(seat, card)
            self.kodama_hand[seat].remove(card)
            self.kodama_scored[seat].append({"card": card, "season": self.season + 1, "points": points})
            self.scores[seat] += points
            events.append(Event("kodama", {"seat": seat, "card": face.to_json(), "points": points, "score": self.scores[seat]}))
        return events + self._end_season()

    def _end_season(self) -> list[Event]:
        self.season += 1
        self.turn = 0
        if self.season == len(SEASONS):
            self.step = self.STEP_OVER
            return [Event("game_over", self.outcome().to_json())]
        return self._begin_next_season()

    def kodama_box(self) -> list[str]:
        """The Kodama cards dealt to nobody, in card-set order."""
        used = {k for h in self.kodama_hand for k in h} | {r["card"] for rows in self.kodama_scored for r in rows}
        return [k for k in self.faces.kodama if k not in used]

    def _redraw_kodama_hands(self, other: KodamaTable, seat: Seat, rng: Rng) -> None:
        """Deal `other`'s unscored Kodama cards of every seat but `seat` again, from those cards and the box."""
        others = [o for o in range(self.num_seats) if o != seat]
        pool = [k for o in others for k in self.kodama_hand[o]] + self.kodama_box()
        rng.shuffle(pool)
        for o in others:
            size = len(self.kodama_hand[o])
            other.kodama_hand[o], pool = sorted(pool[:size]), pool[size:]

    # --- what a seat may know -------------------------------------------------------------------

    def _tree_view(self, seat: int) -> dict[str, JSON]:
        tree = self.trees[seat]
        faces = self.faces.tree_cards
        cards: list[JSON] = []
        for card in tree.order:
            up = tree.parent.get(card)
            children = tree.children[card]
            cards.append({
                "id": card,
                "elements": list(faces[card].elements),
                **self._instance_marks(seat, card),
                "attach": len(children),
                "parent": list(up) if up else None,
                "depth": tree.depth[card],
                "children": list(children),
                "free": [i for i, child in enumerate(children) if child is None],
                "last": tree.is_last(card),
            })
        trunk = tree.trunk
        return {"seat": seat, "trunk": trunk, "trunk_element": faces[trunk].elements[0], "cards": cards,
                "free": [list(p) for p in tree.free_points()]}

    def _season_view(self, season: int) -> dict[str, JSON]:
        """Which season it is (0-based `season`, the last one once the game is over) and the revealed
        Season cards: the current one and those of past seasons."""
        faces = self.faces
        return {
            "season": season + 1,
            "season_name": SEASONS[season],
            "season_card": faces.seasons[self.season_cards[season]].to_json(),
            "past_season_cards": [faces.seasons[s].to_json() for s in self.season_cards[:season]],
        }

    def _kodama_view(self, seat: int) -> dict[str, JSON]:
        """One's own unscored Kodama cards, each with its current value, and everyone's scored ones."""
        faces = self.faces
        return {
            "kodama": [{**faces.kodama[k].to_json(), "value": self._kodama_value(seat, k)} for k in self.kodama_hand[seat]],
            "kodama_left": [len(h) for h in self.kodama_hand],
            "kodama_scored": [[{**r, "card": faces.kodama[r["card"]].to_json()} for r in rows] for rows in self.kodama_scored],
        }

    # --- the end -----------------------------------------------------------------------------------

    def tiebreak(self, seat: int) -> int:
        """Instances of the seat's Trunk element shown on its tree (the Trunk's own and any spirit included)."""
        element = self.faces.tree_cards[self.trunks[seat]].elements[0]
        return sum(self.shown[c].count(element) for c in self.trees[seat].order)

    def outcome(self) -> Outcome:
        if self.step is not self.STEP_OVER:
            raise GameNotOver(f"the {self.GAME_TITLE} game is not over yet")
        points = tuple(self.scores)
        tiebreaks = tuple((self.tiebreak(s),) for s in range(self.num_seats))
        return Outcome.ranked(points, tiebreaks)

    # --- copies ------------------------------------------------------------------------------------

    def _copy_common(self: T) -> T:
        """A new state of the same class sharing every field, with the fields both games mutate copied;
        the caller copies its own mutable fields."""
        other = type(self).__new__(type(self))
        for name in all_slots(type(self)):
            setattr(other, name, getattr(self, name))
        other.trunks = list(self.trunks)
        other.trees = [t.copy() for t in self.trees]
        other.deck = list(self.deck)
        other.discard = list(self.discard)
        other.kodama_hand = [list(h) for h in self.kodama_hand]
        other.kodama_scored = [list(rows) for rows in self.kodama_scored]  # rows are never mutated
        other.season_cards = list(self.season_cards)
        other.scores = list(self.scores)
        other.placed = [list(p) for p in self.placed]
        return other

    def _kodama_snapshot(self) -> dict[str, JSON]:
        return {
            "kodama_hand": [list(h) for h in self.kodama_hand],
            "kodama_box": self.kodama_box(),
            "kodama_scored": [list(rows) for rows in self.kodama_scored],
            "season_cards": list(self.season_cards),
        }


def round_label(view: Mapping[str, JSON]) -> str:
    """Where a Kodama game is, as its players say it (the viewer's round list)."""
    return f"{view.get('season_name')} turn {view.get('turn')}"
