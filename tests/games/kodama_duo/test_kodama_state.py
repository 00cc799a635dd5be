"""Kodama Duo's state machine: the rulebook examples played through the engine, and invariants."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalAction
from arena.games.kodama_duo import SPEC
from arena.games.kodama.cards import CARDS_FILE, parse_cards
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS, line_points
from arena.games.kodama_duo.state import KodamaDuoState, Step
from arena.jsonvalue import dumps

# Test faces for the first Branch ids (the rest of the stand-in set is unchanged).
FACES = {
    "B01": (["flower", "firefly", "caterpillar"], 2),  # C1
    "B02": (["firefly", "caterpillar"], 1),  # C2
    "B03": (["caterpillar", "firefly", "firefly", "flower"], 1),  # N: the new card of the example
    "B04": (["caterpillar", "firefly"], 0),  # F: a fork off C1
    "B05": (["cloud", "star", "flower"], 1),  # X: the card the opponent discards
    "B06": (["mushroom"], 1),  # Z: the card the opponent places
    "B07": (["firefly", "firefly", "firefly"], 2),
    "B08": (["firefly", "firefly", "firefly"], 1),
    "B09": (["firefly", "firefly", "firefly"], 1),
    "B10": (["firefly", "firefly", "firefly"], 1),
}


def example_cards():
    doc = copy.deepcopy(json.loads(CARDS_FILE.read_text()))
    for b in doc["branches"]:
        if b["id"] in FACES:
            b["elements"], b["attach"] = FACES[b["id"]]
    doc["trunks"][0]["element"], doc["trunks"][1]["element"] = "star", "mushroom"
    return parse_cards(doc)


def grow(state: KodamaDuoState, seat: int, card: str, at: tuple[str, int]) -> None:
    """Put a card on a tree directly (set-up for a hand-made position), taking it out of the deck."""
    state.deck.remove(card)
    state.trees[seat].attach(card, at, state.faces.tree_cards[card].attach)
    state.shown[card] = state.faces.tree_cards[card].elements


def example_position() -> tuple[KodamaDuoState, int]:
    """The rulebook layout on "your" tree (the Cutter's), and the revealed cards N, X, Z."""
    state = KodamaDuoState(2, {}, 5, cards=example_cards())
    you = state.cutter
    trunk = state.trunks[you]
    state.deck.extend(state.revealed)
    state.revealed = []
    grow(state, you, "B01", (trunk, 0))
    grow(state, you, "B02", ("B01", 0))
    grow(state, you, "B04", ("B01", 1))
    for card in ("B03", "B05", "B06"):
        state.deck.remove(card)
    state.revealed = ["B03", "B05", "B06"]
    return state, you


def test_the_rulebook_examples_through_the_engine():
    state, you = example_position()
    opp = 1 - you
    state.apply({you: {"split": [["B03"], ["B05", "B06"]]}})
    state.apply({opp: {"pile": 1}})  # the opponent (Sower) takes X and Z, you get N
    assert state.step is Step.PLACE and state.to_move() == (0, 1)
    place_n = {"card": "B03", "at": ["B02", 0]}
    assert place_n in state.legal_actions(you)
    events = state.apply({you: place_n, opp: {"card": "B06", "at": [state.trunks[opp], 0]}})
    placed = next(e for e in events if e.kind == "place" and e.data["seat"] == you)
    assert placed.data["points"] == 7  # D: fireflies 2+1+1, E: caterpillars 1+1+1, F and G: nothing
    discard = next(e for e in events if e.kind == "discard")
    assert discard.data == {"seat": opp, "cards": ["B05"]}
    # The spirit example: you summon a spirit of the discarded card's elements.
    assert state.step is Step.SPIRIT and state.to_move() == (you,)
    assert state.view(you)["spirit_elements"] == ["cloud", "flower", "star"]
    summon = {"spirit": "flower", "on": ["B02", 0]}  # onto C2's firefly
    assert summon in state.legal_actions(you)
    before = line_points(state.trees[you], state.shown, ["flower"], "B03")[0]
    events = state.apply({you: summon})
    assert events[0].kind == "spirit" and events[0].data["taken_from"] is None
    assert state.shown["B02"] == ("flower", "caterpillar")
    after = line_points(state.trees[you], state.shown, ["flower"], "B03")[0]
    assert (before, after) == (2, 4)  # later flower lines now connect through C2 to C1
    tree_view = state.view(opp)["trees"][you]
    c2 = next(c for c in tree_view["cards"] if c["id"] == "B02")
    assert c2["spirits"] == ["flower", None] and c2["shown"] == ["flower", "caterpillar"]


def test_a_spirit_is_taken_from_the_opponent_and_never_stacked():
    state, you = example_position()
    opp = 1 - you
    state.apply({you: {"split": [["B03"], ["B05", "B06"]]}})
    state.apply({opp: {"pile": 1}})
    state.apply({you: {"card": "B03", "at": ["B02", 0]}, opp: {"card": "B06", "at": [state.trunks[opp], 0]}})
    # The flower spirit sits on the opponent's mushroom; the star spirit on your C1's firefly.
    state.spirits["flower"] = (opp, "B06", 0)
    state.shown["B06"] = ("flower",)
    state.spirits["star"] = (you, "B01", 1)
    state.shown["B01"] = ("flower", "star", "caterpillar")
    assert {"spirit": "star", "on": ["B02", 0]} not in state.legal_actions(you)  # already on your tree
    with pytest.raises(IllegalAction, match="never stack"):
        state.check(you, {"spirit": "flower", "on": ["B01", 1]})
    with pytest.raises(IllegalAction, match="cannot move"):
        state.check(you, {"spirit": "star", "on": ["B02", 0]})
    events = state.apply({you: {"spirit": "flower", "on": ["B02", 0]}})
    assert events[0].data["taken_from"] == {"seat": opp, "on": ["B06", 0]}
    assert state.shown["B06"] == ("mushroom",)  # uncovered again
    assert state.spirits["flower"] == (you, "B02", 0)


def test_a_placement_above_ten_points_is_forbidden_not_capped():
    state = KodamaDuoState(2, {}, 5, cards=example_cards())
    you = state.cutter
    state.deck.extend(state.revealed)
    grow(state, you, "B07", (state.trunks[you], 0))
    grow(state, you, "B08", ("B07", 0))
    grow(state, you, "B09", ("B08", 0))
    state.deck.remove("B10")
    others = [c for c in state.deck if c not in FACES][:2]
    for card in others:
        state.deck.remove(card)
    state.revealed = ["B10", *others]
    state.apply({you: {"split": [["B10"], others]}})
    state.apply({1 - you: {"pile": 1}})
    legal = state.legal_actions(you)
    assert {"card": "B10", "at": ["B07", 1]} in legal  # 3 + 3 = 6
    assert {"card": "B10", "at": ["B09", 0]} not in legal  # 3 + 9 = 12
    with pytest.raises(IllegalAction, match="would score 12 points"):
        state.check(you, {"card": "B10", "at": ["B09", 0]})
    with pytest.raises(IllegalAction, match="not free"):
        state.check(you, {"card": "B10", "at": ["B07", 0]})


def test_a_seat_that_cannot_place_discards_and_is_not_asked():
    state = KodamaDuoState(2, {}, 8, cards=example_cards())
    you = state.cutter
    trunk = state.trunks[you]
    state.trees[you].children[trunk] = [None]  # a one-point trunk, filled by a dead end
    state.deck.extend(state.revealed)
    grow(state, you, "B04", (trunk, 0))
    state.revealed = [state.deck.pop() for _ in range(3)]
    r = state.revealed
    state.apply({you: {"split": [[r[0]], [r[1], r[2]]]}})
    events = state.apply({1 - you: {"pile": 1}})
    assert [e.data for e in events if e.kind == "cannot_place"] == [{"seat": you, "cards": [r[0]]}]
    assert state.to_move() == (1 - you,)
    assert r[0] in state.discard
    assert state.unplaced[you][0] == 1


def test_kodama_cards_stay_secret_until_scored():
    state = SPEC.new_game(2, None, 17)
    for seat in range(2):
        text = dumps(state.view(seat)).decode()
        for k in state.kodama_hand[1 - seat]:
            assert f'"{k}"' not in text
        assert [k["id"] for k in state.view(seat)["kodama"]] == state.kodama_hand[seat]


def test_the_tiebreak_is_the_trunk_element_then_a_shared_win():
    state = play(SPEC.new_game(2, None, 4), lambda legal, st_, seat: 0)
    state.scores = [50, 50]
    t = [state.tiebreak(s) for s in range(2)]
    outcome = state.outcome()
    assert outcome.tiebreaks == ((t[0],), (t[1],))
    if t[0] == t[1]:
        assert outcome.ranks == (1, 1)
    else:
        assert outcome.ranks == ((1, 2) if t[0] > t[1] else (2, 1))


def play(state: KodamaDuoState, pick, check=None) -> KodamaDuoState:
    while not state.is_over():
        actions = {seat: (legal := state.legal_actions(seat))[pick(legal, state, seat)] for seat in state.to_move()}
        before = (state.step, state.cutter, list(state.scores), state.season)
        events = state.apply(actions)
        if check:
            check(state, before, events)
    return state


def check_invariants(state: KodamaDuoState, before, events) -> None:
    step, cutter, scores, season = before
    for e in events:
        if e.kind == "place":
            assert e.data["points"] <= MAX_PLACEMENT_POINTS
    # spirits: one per element (a dict), on the owner's tree, never two on one instance
    spots = [(c, i) for (_, c, i) in state.spirits.values()]
    assert len(spots) == len(set(spots))
    for element, (seat, card, index) in state.spirits.items():
        assert card in state.trees[seat] and card not in state.trees[1 - seat]
        assert state.shown[card][index] == element
    # every Branch card is in exactly one place
    places = state.deck + state.revealed + state.held[0] + state.held[1] + state.discard
    places += [c for t in state.trees for c in t.order if c != t.trunk]
    assert sorted(places) == sorted(state.faces.branches)
    # roles swap every turn; the next season's Cutter is the lower score
    if step is Step.KODAMA:
        assert all(state.placed[s][season] + state.unplaced[s][season] == 4 for s in range(2))
        if not state.is_over():
            if state.scores[0] != state.scores[1]:
                assert state.cutter == (0 if state.scores[0] < state.scores[1] else 1)
            else:
                assert state.cutter == cutter
    elif any(e.kind == "reveal" for e in events):
        assert state.cutter == 1 - cutter
    for s in range(2):
        assert len(state.trees[s].order) - 1 == sum(state.placed[s])


@settings(max_examples=15)
@given(data=st.data())
def test_invariants_hold_in_any_playthrough(data):
    seed = data.draw(st.integers(0, 2**32), label="seed")
    state = SPEC.new_game(2, None, seed)
    pick = lambda legal, s, seat: data.draw(st.integers(0, len(legal) - 1))  # noqa: E731
    play(state, pick, check_invariants)
    assert all(len(h) == 1 for h in state.kodama_hand)
    assert not state.deck


def test_illegal_actions_leave_the_state_untouched():
    state = SPEC.new_game(2, None, 9)
    before = dumps(state.snapshot())
    cutter = state.cutter
    for bad in [{"split": [[], state.revealed]}, {"split": [state.revealed[:1], state.revealed[:2]]}, {"pile": 0}]:
        with pytest.raises(IllegalAction):
            state.apply({cutter: bad})
    assert dumps(state.snapshot()) == before
