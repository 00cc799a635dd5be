"""Kododo's game flow: invariants after every step, round counts, views, the long variant."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalAction
from arena.games import get_game
from arena.games.kododo.cards import VALUE, colour_limit, full_deck, kododo_target
from arena.games.kododo.state import KododoState
from arena.rng import Rng

SPEC = get_game("kododo")
ROUNDS = {2: 11, 3: 7, 4: 6, 5: 4}


def all_cards(state: KododoState) -> Counter:
    places = [state.draw, state.removed, state.discard, *state.hands, *state.table, *state.piles]
    return Counter(card for place in places for card in place)


def check_round_score(state: KododoState, event_data: dict) -> None:
    n = state.n
    scored = [card for cards in event_data["scored"] for card in cards]
    record = state.history[-1]
    played = [card for cards in record["played"] for card in cards]
    counts = Counter(card[0] for card in played)
    kododos = sum(1 for card in played if VALUE[card] == 1)
    if event_data["mode"] == "kododo":
        assert kododos == kododo_target(n)
        assert sorted(scored) == sorted(c for c in played if VALUE[c] == 1)
    else:
        assert kododos != kododo_target(n)
    if event_data["mode"] == "colour":
        colour = event_data["colour"]
        assert counts[colour] < colour_limit(n)
        # It is alone at its count, and every count above it (under the limit) is shared: the cascade.
        levels = Counter(k for k in counts.values() if k < colour_limit(n))
        assert levels[counts[colour]] == 1
        assert all(levels[k] > 1 for k in levels if k > counts[colour])
        assert sorted(scored) == sorted(c for c in played if c[0] == colour)
    if event_data["mode"] == "none":
        assert scored == []
        under = Counter(k for c, k in counts.items() if k < colour_limit(n))
        assert all(times > 1 for times in under.values())  # every level under the limit is tied


def check_invariants(state: KododoState) -> None:
    assert all_cards(state) == Counter(full_deck())
    assert state.points() == [
        state.banked_points[s] + sum(VALUE[c] for c in state.piles[s]) for s in range(state.n)
    ]
    assert state.pile_cards() == [state.banked_cards[s] + len(state.piles[s]) for s in range(state.n)]
    if not state.over:
        expected_hand = 5 if not state.last_round else {1: 5, 2: 3, 3: 2}[state.turn]
        assert [len(h) for h in state.hands] == [expected_hand] * state.n
        assert all(h == sorted(h) for h in state.hands)
        if state.turn == 1:  # each round draws 4 cards a seat, so the pile runs out exactly
            assert len(state.draw) % (4 * state.n) == 0


def play_checked(players: int, seed: int, choose, options=None) -> KododoState:
    state = SPEC.new_game(players, options, seed)
    check_invariants(state)
    while not state.is_over():
        actions = {s: choose(state.legal_actions(s)) for s in state.to_move()}
        events = state.apply(actions)
        for event in events:
            if event.kind == "round_scored":
                check_round_score(state, dict(event.data))
        check_invariants(state)
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=30)
@given(data=st.data())
def test_invariants_hold_after_every_step(players, data):
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    state = play_checked(players, seed, lambda legal: legal[data.draw(st.integers(0, len(legal) - 1))])
    assert state.round == ROUNDS[players]
    assert len(state.history) == ROUNDS[players]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_standard_game_has_the_published_number_of_rounds(players):
    for seed in range(20):
        rng = Rng(seed)
        state = play_checked(players, seed, lambda legal: legal[rng.below(len(legal))])
        assert state.round == ROUNDS[players]
        assert state.deal == 1


def test_the_last_round_is_played_from_the_hand_and_the_fifth_card_is_discarded():
    state = SPEC.new_game(4, None, 3)
    while not state.last_round:
        state.apply({s: state.fallback(s) for s in state.to_move()})
    assert state.draw == [] and state.round == 6
    sizes = []
    while not state.is_over():
        sizes.append([len(h) for h in state.hands])
        state.apply({s: state.fallback(s) for s in state.to_move()})
    assert sizes == [[5] * 4, [3] * 4, [2] * 4]
    assert [len(h) for h in state.hands] == [0] * 4


def test_after_the_third_turn_each_player_has_four_cards_played_and_five_in_hand():
    state = SPEC.new_game(3, None, 8)
    for _ in range(2):
        state.apply({s: state.fallback(s) for s in state.to_move()})
    assert [len(t) for t in state.table] == [3, 3, 3]
    events = state.apply({s: state.fallback(s) for s in state.to_move()})
    assert [len(h) for h in state.hands] == [5, 5, 5]
    scored = [e for e in events if e.kind == "round_scored"]
    assert len(scored) == 1 and [len(cards) for cards in scored[0].data["played"]] == [4, 4, 4]


def test_moves_are_revealed_together_and_draws_are_private():
    state = SPEC.new_game(2, None, 1)
    events = state.apply({0: state.legal_actions(0)[0], 1: state.legal_actions(1)[-1]})
    reveal = [e for e in events if e.kind == "reveal"]
    draws = [e for e in events if e.kind == "draw"]
    assert len(reveal) == 1 and reveal[0].to is None and len(reveal[0].data["cards"]) == 2
    assert sorted(e.to for e in draws) == [0, 1] and all(len(e.data["cards"]) == 2 for e in draws)


def test_the_view_holds_what_the_seat_may_know_and_nothing_else():
    state = SPEC.new_game(4, None, 2)
    view = state.view(1)
    assert view["hand"] == state.hands[1]
    assert view["play"] == 2 and view["turn"] == 1 and view["round"] == 1 and view["deal"] == 1
    assert view["draw_pile"] == 80 and view["points"] == [0] * 4 and view["pile_cards"] == [0] * 4
    assert view["kododo_target"] == 6 and view["limit"] == 7
    text = repr(view)
    for other in (0, 2, 3):
        assert repr(state.hands[other]) not in text
    assert "removed" not in view and "draw" not in view
    played = {s: state.fallback(s) for s in state.to_move()}
    state.apply(played)
    view = state.view(2)
    assert view["table"] == [sorted(played[s]) for s in range(4)]  # every seat's revealed cards, its own too
    assert all(len(cards) == 2 for cards in view["table"])


def test_history_records_what_each_seat_played_and_what_scored():
    state = SPEC.new_game(2, None, 4)
    for _ in range(3):
        state.apply({s: state.fallback(s) for s in state.to_move()})
    view = state.view(0)
    assert len(view["history"]) == 1
    record = view["history"][0]
    assert [len(p) for p in record["played"]] == [4, 4]
    assert record["mode"] in {"kododo", "colour", "none"}
    assert sum(record["points"]) == sum(view["points"])
    assert view["table"] == [[], []] and view["round"] == 2


@pytest.mark.parametrize(
    "action,reason",
    [
        ("G3", "list of 2 card name"),
        (["G3"], "exactly 2 card"),
        (["X9", "G1"], "'X9' is not a Kododo card"),
        ([1, 2], "list of 2 card name"),
    ],
)
def test_illegal_actions_are_refused_with_a_reason(action, reason):
    state = SPEC.new_game(2, None, 0)
    with pytest.raises(IllegalAction) as info:
        state.check(0, action)
    assert reason in info.value.reason


def test_a_card_not_in_hand_is_refused_and_nothing_changes():
    state = SPEC.new_game(2, None, 0)
    missing = next(card for card in sorted(VALUE) if card not in state.hands[0])
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=f"{missing} is not in your hand"):
        state.apply({0: [missing, state.hands[0][0]], 1: state.fallback(1)})
    assert state.snapshot() == before


def test_a_pair_needs_two_copies_in_hand():
    state = SPEC.new_game(2, None, 0)
    single = next(c for c in state.hands[0] if state.hands[0].count(c) == 1)
    with pytest.raises(IllegalAction):
        state.check(0, [single, single])


def test_legal_actions_are_the_distinct_pairs_then_the_distinct_cards():
    state = SPEC.new_game(2, None, 0)
    state.hands[0] = sorted(["G2", "G2", "B1", "Y3", "Y3"])
    assert state.legal_actions(0) == [
        ["B1", "G2"], ["B1", "Y3"], ["G2", "G2"], ["G2", "Y3"], ["Y3", "Y3"],
    ]
    state.apply({0: ["G2", "G2"], 1: state.fallback(1)})
    assert [a[0] for a in state.legal_actions(0)] == sorted(set(state.hands[0]))


def test_ties_on_points_are_broken_by_score_pile_cards_then_shared():
    state = SPEC.new_game(3, None, 0)
    state.over = True
    state.totals, state.total_cards = [6, 6, 6], [2, 4, 1]  # 6 points each; 2, 4 and 1 score-pile cards
    assert state.outcome().ranks == (2, 1, 3)
    state.total_cards = [2, 2, 1]
    assert state.outcome().ranks == (1, 1, 3)


def test_long_variant_deals_again_until_someone_reaches_the_target():
    rng = Rng(1)
    options = {"long": True, "target": 50}
    state = play_checked(3, 21, lambda legal: legal[rng.below(len(legal))], options)
    points = state.points()
    assert max(points) >= 50 or state.deal == 20
    assert state.deal >= 2
    # the game ended at the end of the first round after which someone had 50 or more
    totals_before_last = [sum(r["points"][s] for r in state.history[:-1]) for s in range(3)]
    assert max(totals_before_last) < 50


def test_long_variant_ends_after_the_first_deal_when_someone_already_has_the_target():
    rng = Rng(2)
    state = play_checked(2, 5, lambda legal: legal[rng.below(len(legal))], {"long": True, "target": 10})
    assert state.deal == 1 and state.round == 11 and max(state.points()) >= 10


def test_long_variant_safety_rule_ends_the_game_after_max_deals():
    state = play_checked(2, 9, lambda legal: legal[0], {"long": True, "target": 1000, "max_deals": 2})
    assert state.deal == 2 and state.is_over() and state.round == 22


def test_options_are_checked():
    from arena.errors import GameOptionError, SeatCountError

    with pytest.raises(GameOptionError, match="no option 'lenght'"):
        SPEC.new_game(2, {"lenght": True})
    with pytest.raises(GameOptionError, match="must be true or false"):
        SPEC.new_game(2, {"long": "yes"})
    with pytest.raises(SeatCountError, match="2 to 5 players, got 6"):
        SPEC.new_game(6)
