"""Kodama draft invariants over hypothesis-chosen playthroughs at every player count."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import get_game
from arena.games.kodama_draft.state import HAND_SIZE, Step
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS


def check_invariants(state) -> None:
    branches = state.faces.branches
    places = list(state.deck) + list(state.discard)
    places += [c for h in state.hands for c in h] + [c for c in state.picks if c is not None]
    places += [c for t in state.trees for c in t.order[1:]]  # order[0] is the Trunk
    assert sorted(places) == sorted(branches), "every Branch card is in exactly one place"
    assert all(0 <= p <= HAND_SIZE for row in state.placed for p in row)
    assert len({len(h) for h in state.hands}) == 1, "hands stay equal"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_cards_stay_in_one_place_and_placements_stay_legal(data):
    players = data.draw(st.integers(2, 6), label="players")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    state = get_game("kodama-draft").new_game(players, None, seed)
    check_invariants(state)
    while not state.is_over():
        actions = {}
        for s in state.to_move():
            legal = state.legal_actions(s)
            actions[s] = legal[data.draw(st.integers(0, len(legal) - 1))]
        season, turn = state.season, state.turn
        events = state.apply(actions)
        kinds = [e.kind for e in events]
        if "reveal" in kinds:  # a pick step: every seat picked once, then placed or lost its pick
            reveal = events[kinds.index("reveal")]
            assert (reveal.data["season"], reveal.data["turn"]) == (season + 1, turn + 1)
            assert len(reveal.data["picks"]) == players
            lost = {e.data["seat"] for e in events if e.kind == "cannot_place"}
            if lost == set(range(players)):  # nobody could place: the turn ended at once
                assert "place" not in kinds and state.step is not Step.PLACE
            else:
                assert state.step is Step.PLACE and set(state.to_move()) == set(range(players)) - lost
        for event in events:
            if event.kind == "place":
                assert event.data["points"] <= MAX_PLACEMENT_POINTS
                assert event.data["card"] == actions[event.data["seat"]]["card"]
        check_invariants(state)
    assert all(sum(row) <= HAND_SIZE * 3 for row in state.placed)
