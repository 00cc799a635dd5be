"""Kolpa!'s game flow: one hand-written test per clarification in rules-notes, and the wire formats."""

from __future__ import annotations

from collections import Counter

import pytest
from tests.support.kolpa import SPEC, arrange, kinds, play

from arena.errors import GameNotOver, IllegalAction
from arena.games.kolpa.cards import JOKER, full_deck, sort_cards
from arena.rng import Rng


def all_cards(state) -> Counter:
    places = [state.draw, state.discard, *state.hands, *(pile for d in state.displays for pile in d)]
    return Counter(card for place in places for card in place)


# --- set-up and turn order -----------------------------------------------------------------------


def test_a_new_round_deals_five_each_and_turns_up_one_card():
    state = SPEC.new_game(4, None, 5)
    assert [len(h) for h in state.hands] == [5] * 4
    assert len(state.discard) == 1 and state.discard[0] != JOKER and state.announce is None
    assert len(state.draw) == 64 - 20 - 1
    assert all_cards(state) == Counter(full_deck())
    assert state.to_move() == (0,) and state.round == 1 and state.turn == 0


def test_the_first_player_of_round_r_is_seat_r_minus_1_mod_n_and_play_goes_up_the_seats():
    state = SPEC.new_game(3, {"target": 10_000, "max_turns_per_round": 7}, 2)
    firsts = {1: state.current}
    while state.round < 8:
        seat = state.current
        events = state.apply({seat: state.fallback(seat)})
        starts = [e for e in events if e.kind == "round_start"]
        if starts:
            firsts[state.round] = state.current
            assert starts[0].data["first"] == state.current == state.first
        else:
            assert state.current == (seat + 1) % 3
    assert firsts == {r: (r - 1) % 3 for r in range(1, 9)}


def test_a_joker_turned_up_at_the_start_is_shuffled_back_and_another_card_turned_up():
    def top_of_shuffled_deck(seed: int) -> str:
        deck = full_deck()
        Rng(seed).shuffle(deck)
        return deck[-1]

    seed = next(s for s in range(1000) if top_of_shuffled_deck(s) == JOKER)
    deck = full_deck()
    Rng(seed).shuffle(deck)
    state = SPEC.new_game(2, None, seed)
    assert state.hands == [sort_cards(deck[0:5]), sort_cards(deck[5:10])]  # the deal is not disturbed
    assert state.discard[0] != JOKER and len(state.discard) == 1
    assert all_cards(state) == Counter(full_deck())  # the Joker is back in the draw pile
    assert len(state.draw) == 64 - 10 - 1
    assert Counter(state.draw)[JOKER] == 4 - Counter(state.hands[0] + state.hands[1])[JOKER]


def test_a_later_round_reports_the_jokers_turned_back():
    # Round starts are events; over many rounds some turned-up Joker must have gone back.
    state = SPEC.new_game(2, {"target": 10_000, "max_turns_per_round": 2, "max_rounds": 400}, 1)
    returned = 0
    while not state.is_over():
        for event in state.apply({state.current: state.fallback(state.current)}):
            if event.kind == "round_start":
                returned += event.data["jokers_returned"]
                assert event.data["discard"] != JOKER
    assert returned > 0


# --- Jokers and announcements --------------------------------------------------------------------


def test_a_joker_announcement_is_passed_on_until_a_card_covers_the_joker():
    state = arrange(
        3,
        hands=[["J", "G1"], ["V1", "Y4", "O0"], ["B2", "Y4", "O1"]],
        discard=["B2"],
        draw=["O5", "G0"],
    )
    play(state, JOKER, announce=4)
    assert state.announce == 4 and state.view(1)["match"] == {"colour": None, "number": 4}
    play(state, "V1", dest="display")  # seat 1 matches nothing of "4": it may build its display
    assert state.announce == 4 and state.discard[-1] == JOKER and state.current == 2
    with pytest.raises(IllegalAction, match="B2 does not match the announcement 4 of the Joker"):
        play(state, "B2")  # matched the card under the Joker, not the announcement
    with pytest.raises(IllegalAction, match="O1 does not match the announcement 4"):
        play(state, "O1")
    play(state, "Y4")  # covers the Joker: the announcement ends
    assert state.announce is None and state.view(0)["match"] == {"colour": "Y", "number": 4}


def test_a_joker_on_a_joker_makes_a_new_announcement():
    state = arrange(2, hands=[["J", "B0"], ["J", "G3"]], discard=["B2"], draw=["O5"])
    play(state, JOKER, announce="Y")
    play(state, JOKER, announce=0)
    assert state.discard[-2:] == [JOKER, JOKER] and state.announce == 0
    assert {"play": "B0", "from": "hand", "to": "discard"} in state.legal_actions(0)


def test_a_display_top_matching_the_announcement_forces_a_play_to_the_discard():
    state = arrange(2, hands=[["O5"], ["V2", "O1"]], displays={1: ["G4"]}, discard=["B1", JOKER], announce=4, current=1)
    assert state.legal_actions(1) == [{"play": "G4", "from": "display", "to": "discard"}]
    with pytest.raises(IllegalAction) as info:
        play(state, "V2", dest="display")
    assert info.value.reason == (
        "your display's top G4 matches the announcement 4 of the Joker on the discard: you must play to the discard"
    )


def test_a_display_top_matching_the_discard_forces_a_play_to_the_discard_from_hand_or_display():
    # The rulebook's example: a red 3 on the discard and a blue 3 on the display; here B3 on the
    # discard, G3 on the display, B1 in hand.
    state = arrange(2, hands=[["B1", "V4"], ["O0"]], displays={0: ["Y2", "G3"]}, discard=["B3"])
    assert state.legal_actions(0) == [
        {"play": "B1", "from": "hand", "to": "discard"},
        {"play": "G3", "from": "display", "to": "discard"},
    ]
    with pytest.raises(IllegalAction, match="your display's top G3 matches the discard B3: you must play to the discard"):
        play(state, "V4", dest="display")


def test_only_top_cards_of_the_display_count():
    state = arrange(2, hands=[["V2"], ["O0"]], displays={0: ["G4", "G0"]}, discard=["B1", JOKER], announce=4)
    assert state.legal_actions(0) == [{"play": "V2", "from": "hand", "to": "display"}]
    with pytest.raises(IllegalAction, match="G4 is not the top of one of your display piles"):
        play(state, "G4", source="display")


# --- drawing ---------------------------------------------------------------------------------------


def test_an_empty_draw_pile_is_refilled_from_the_discard_under_its_top_card():
    state = arrange(2, hands=[["V2", "Y1"], ["O0"]], discard=["B1", "G1", "O3", "B3"])
    events = play(state, "V2", dest="display")
    assert kinds(events) == ["play", "reshuffle", "draw", "drew"]
    assert events[1].data == {"set_aside": "B3", "draw_pile": 3}
    assert state.discard == ["B3"] and len(state.draw) == 2
    drawn = events[3].data["card"]
    assert events[3].to == 0 and events[2].to is None and "card" not in events[2].data
    assert sorted(state.draw + [drawn]) == ["B1", "G1", "O3"] and drawn in state.hands[0]


def test_a_set_aside_joker_keeps_its_announcement():
    state = arrange(2, hands=[["V2", "Y1"], ["O0"]], discard=["B1", "G1", JOKER], announce="O")
    play(state, "V2", dest="display")
    assert state.discard == [JOKER] and state.announce == "O"
    assert state.view(1)["match"] == {"colour": "O", "number": None}


def test_the_draw_is_skipped_when_nothing_is_left_to_shuffle():
    state = arrange(2, hands=[["V2", "Y1"], ["O0"]], discard=["B3"])
    events = play(state, "V2", dest="display")
    assert kinds(events) == ["play", "draw_skipped"]
    assert state.hands[0] == ["Y1"] and state.discard == ["B3"] and state.draw == []
    assert state.current == 1 and state.round == 1


def test_a_last_card_played_to_the_display_is_followed_by_the_draw_at_once():
    state = arrange(2, hands=[["V2"], ["O0", "G2"]], discard=["B3"], draw=["G0", "O5"])
    events = play(state, "V2", dest="display")
    assert "round_end" not in kinds(events)
    assert state.hands[0] == ["O5"] and state.round == 1 and state.current == 1


def test_an_empty_hand_after_a_skipped_draw_passes_or_must_play_a_matching_display_top():
    state = arrange(2, hands=[["V2"], ["B4", "V4", "Y3"]], discard=["B3"])
    play(state, "V2", dest="display")  # nothing to draw: seat 0 now holds no card, the round goes on
    assert state.hands[0] == [] and state.round == 1
    play(state, "B4")
    assert state.legal_actions(0) == [{"pass": True}]
    with pytest.raises(IllegalAction, match="V2 does not match the discard B4"):
        play(state, "V2", source="display")  # V2 does not match B4
    events = state.apply({0: {"pass": True}})
    assert kinds(events) == ["pass"] and state.current == 1
    play(state, "V4")
    assert state.legal_actions(0) == [{"play": "V2", "from": "display", "to": "discard"}]
    with pytest.raises(IllegalAction, match="your display's top V2 matches the discard V4"):
        state.apply({0: {"pass": True}})
    events = play(state, "V2", source="display")
    end = next(e for e in events if e.kind == "round_end")
    assert end.data["reason"] == "out" and end.data["ended_by"] == 0
    assert end.data["points"] == [0, -3]


def test_a_seat_with_cards_always_has_a_play():
    # Every hand card fails to match and a display top matches: the top itself can go.
    state = arrange(2, hands=[["V2", "O1"], ["G0"]], displays={0: ["B5"]}, discard=["Y5"])
    assert state.legal_actions(0) == [{"play": "B5", "from": "display", "to": "discard"}]
    # A lone Joker can always go to the discard (eleven announcements).
    state = arrange(2, hands=[["J"], ["G0"]], displays={0: ["B5"]}, discard=["Y5"])
    legal = state.legal_actions(0)
    assert {"play": "B5", "from": "display", "to": "discard"} in legal
    assert [a["announce"] for a in legal if a["play"] == JOKER] == ["B", "G", "Y", "O", "V", 0, 1, 2, 3, 4, 5]


# --- the end of a round and of the game --------------------------------------------------------------


def test_a_round_ends_when_the_last_card_goes_to_the_discard_and_scores_by_the_rulebook():
    # The rulebook's example: display 21 (covered cards too), hand 0 + 3 + Joker = -13: 8 points.
    state = arrange(
        2,
        hands=[["V0", "G3", "J"], ["B1"]],
        displays={0: ["B5", "B4", "G3", "Y5", "O4"], 1: ["V2"]},
        discard=["B2"],
        current=1,
        scores=[10, 20],
    )
    events = play(state, "B1")
    end = next(e for e in events if e.kind == "round_end")
    assert end.data["reason"] == "out" and end.data["ended_by"] == 1
    assert end.data["points"] == [8, 2] and end.data["totals"] == [18, 22] and state.scores == [18, 22]
    assert end.data["hands"] == [["G3", "V0", "J"], []]
    assert state.round == 2 and state.current == 1 and state.turn == 0
    assert state.history[-1] == {"round": 1, "reason": "out", "ended_by": 1, "points": [8, 2]}
    assert kinds(events) == ["play", "round_end", "round_start", "hand", "hand"]


def test_the_safety_limit_ends_a_round_after_max_turns_and_scores_it_as_it_stands():
    state = SPEC.new_game(3, {"max_turns_per_round": 3}, 4)
    assert state.view(0)["max_turns_per_round"] == 3
    for _ in range(2):
        assert "round_end" not in kinds(state.apply({state.current: state.fallback(state.current)}))
    assert state.turn == 2
    hands_before = [list(h) for h in state.hands]
    events = state.apply({state.current: state.fallback(state.current)})
    end = next(e for e in events if e.kind == "round_end")
    assert end.data["reason"] == "turn_limit" and end.data["ended_by"] is None
    values = {**{f"{c}{v}": v for c in "BGYOV" for v in range(6)}, "J": 10}
    assert end.data["points"] == [
        sum(values[c] for c in d) - sum(values[c] for c in h) for d, h in zip(end.data["displays"], end.data["hands"])
    ]
    assert sum(map(len, end.data["hands"])) >= sum(map(len, hands_before)) - 1
    assert state.round == 2 and state.turn == 0


def test_the_game_ends_after_the_round_in_which_someone_reaches_the_target_and_ties_share():
    state = arrange(2, hands=[["B1"], ["O0"]], displays={0: ["Y4"], 1: ["G5"]}, discard=["B3"], scores=[40, 41],
                    options={"target": 45})
    with pytest.raises(GameNotOver):
        state.outcome()
    play(state, "B1")
    assert state.is_over() and state.to_move() == () and state.legal_actions(0) == []
    outcome = state.outcome()
    assert outcome.points == (44, 46) and outcome.ranks == (2, 1) and outcome.tiebreaks == ((), ())
    state = arrange(2, hands=[["B1"], []], displays={0: ["Y5"], 1: ["G5"]}, discard=["B3"], scores=[45, 45],
                    options={"target": 50})
    play(state, "B1")
    assert state.outcome().ranks == (1, 1) and state.outcome().points == (50, 50)


def test_below_the_target_a_new_round_starts():
    state = arrange(2, hands=[["B1"], ["O0"]], displays={0: ["Y4"]}, discard=["B3"], scores=[40, 41])
    events = play(state, "B1")
    assert not state.is_over() and "game_end" not in kinds(events) and state.round == 2


def test_the_round_limit_ends_the_game_as_a_draw_charged_to_nobody():
    state = SPEC.new_game(2, {"max_rounds": 2, "target": 10_000, "max_turns_per_round": 5}, 3)
    events = []
    while not state.is_over():
        events = state.apply({state.current: state.fallback(state.current)})
    assert state.round == 2 and len(state.history) == 2
    outcome = state.outcome()
    assert state.scores[0] != state.scores[1]  # the points differ, yet nobody won
    assert outcome.drawn and outcome.ranks == (1, 1) and outcome.points == tuple(state.scores)
    assert outcome.to_json()["drawn"] is True
    end = events[-1]
    assert end.kind == "game_end" and end.data["reason"] == "round_limit" and end.data["ranks"] == [1, 1]


def test_the_game_plays_on_to_the_target_and_the_round_cap_is_far_out_of_reach():
    assert {o.name: o.default for o in SPEC.options} == {"target": 50, "max_turns_per_round": 1000, "max_rounds": 1000}
    for seed in range(20):
        state = SPEC.new_game(6, None, seed)
        rng = Rng(seed)
        events = []
        while not state.is_over():
            legal = state.legal_actions(state.current)
            events = state.apply({state.current: legal[rng.below(len(legal))]})
        outcome = state.outcome()
        assert max(state.scores) >= 50 and not outcome.drawn and state.round < 1000
        assert events[-1].data["reason"] == "target" and "drawn" not in outcome.to_json()
        assert list(outcome.ranks) == [1 + sum(o > p for o in state.scores) for p in state.scores]


# --- refusals and wire formats -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "action,reason",
    [
        ("B3", "an action is an object"),
        ({"play": "B3", "from": "hand"}, "missing 'to'"),
        ({"play": "B3", "from": "hand", "to": "discard", "x": 1}, "unknown key 'x'"),
        ({"play": "R3", "from": "hand", "to": "discard"}, "'R3' is not a Kolpa! card"),
        ({"play": "B3", "from": "deck", "to": "discard"}, '"from" must be "hand" or "display"'),
        ({"play": "B3", "from": "hand", "to": "table"}, '"to" must be "discard" or "display"'),
        ({"play": "G3", "from": "hand", "to": "discard"}, "G3 is not in your hand"),
        ({"play": "V4", "from": "hand", "to": "discard"}, "V4 does not match the discard B2 (neither colour nor number)"),
        ({"play": "B5", "from": "hand", "to": "display"}, "B5 matches the discard B2: a matching card can only go to the discard"),
        ({"play": "V4", "from": "hand", "to": "display", "announce": "B"}, "only a Joker announces"),
        ({"play": "J", "from": "hand", "to": "display", "announce": "B"}, "a Joker never goes to a display"),
        ({"play": "J", "from": "display", "to": "discard", "announce": "B"}, "a Joker is never in a display"),
        ({"play": "J", "from": "hand", "to": "discard"}, "a Joker announces a colour"),
        ({"play": "J", "from": "hand", "to": "discard", "announce": True}, "True is not an announcement"),
        ({"play": "J", "from": "hand", "to": "discard", "announce": 6}, "6 is not an announcement"),
        ({"play": "Y1", "from": "display", "to": "display"}, "a display card can only go to the discard"),
        ({"play": "O2", "from": "display", "to": "discard"}, "O2 is not the top of one of your display piles"),
        ({"play": "Y1", "from": "display", "to": "discard"}, "Y1 does not match the discard B2"),
        ({"pass": True}, "you may pass only with an empty hand"),
        ({"pass": 1}, 'a pass is exactly {"pass": true}'),
    ],
)
def test_illegal_actions_are_refused_with_a_reason_and_change_nothing(action, reason):
    state = arrange(2, hands=[["B5", "V4", "J"], ["O0"]], displays={0: ["O2", "O4", "Y1"]}, discard=["B2"], draw=["G0"])
    before = state.snapshot()
    with pytest.raises(IllegalAction) as info:
        state.apply({0: action})
    assert reason in info.value.reason
    assert state.snapshot() == before


def test_a_seat_not_to_move_is_refused():
    state = arrange(2, hands=[["B5"], ["B4"]], discard=["B2"])
    with pytest.raises(IllegalAction, match="seat 1 is not to move"):
        state.check(1, {"play": "B4", "from": "hand", "to": "discard"})
    assert state.legal_actions(1) == []


def test_legal_actions_come_in_canonical_order_without_repeats():
    state = arrange(2, hands=[["V4", "V4", "G2", "B5", "O2", "J"], ["O0"]], discard=["B2"])
    legal = state.legal_actions(0)
    assert legal[:4] == [
        {"play": "V4", "from": "hand", "to": "display"},
        {"play": "B5", "from": "hand", "to": "discard"},
        {"play": "G2", "from": "hand", "to": "discard"},
        {"play": "O2", "from": "hand", "to": "discard"},
    ]
    assert legal[4] == {"play": "J", "from": "hand", "to": "discard", "announce": "B"} and len(legal) == 15
    assert state.fallback(0) == legal[0]
    for action in legal:
        state.check(0, action)


def test_the_view_shows_public_facts_and_only_the_seats_own_hand():
    state = arrange(
        3,
        hands=[["B5", "V4"], ["O0", "O1", "J"], ["G2"]],
        displays={1: ["Y1", "Y3", "B0"]},
        discard=["G1", "B2"],
        draw=["G0", "V5"],
        scores=[3, -4, 0],
    )
    view = state.view(0)
    assert view["hand"] == ["B5", "V4"] and view["hand_sizes"] == [2, 3, 1]
    assert view["displays"][1] == {"B": "B0", "G": None, "Y": "Y3", "O": None, "V": None}  # the tops only
    assert view["player_count"] == 3 and "players" not in view  # `players` is the names list of `start`
    assert view["discard"] == "B2" and view["announce"] is None and view["discard_size"] == 2
    assert view["match"] == {"colour": "B", "number": 2}
    assert view["draw_pile"] == 2 and view["scores"] == [3, -4, 0] and view["to_move"] == 0
    assert view["round"] == 1 and view["first"] == 0 and view["turn"] == 0 and view["target"] == 50
    text = repr(view)
    assert "O0" not in text and "J" not in text.replace("'J'", "") and "G0" not in text and "V5" not in text
    assert "G1" not in text  # a covered discard card is not shown
    assert "Y1" not in text  # nor a covered display card: only a pile's top is visible


def test_resampling_keeps_the_view_and_redraws_other_hands_and_the_draw_pile():
    state = SPEC.new_game(4, None, 9)
    for _ in range(7):
        state.apply({state.current: state.fallback(state.current)})
    other = state.resample_hidden(2, 123)
    assert other.view(2) == state.view(2)
    assert other.hands[2] == state.hands[2] and other.displays == state.displays and other.discard == state.discard
    assert (other.hands, other.draw) != (state.hands, state.draw)
    assert all_cards(other) == all_cards(state) == Counter(full_deck())


def test_same_seed_and_actions_give_the_same_game():
    a, b = SPEC.new_game(5, None, 77), SPEC.new_game(5, None, 77)
    rng = Rng(3)
    while not a.is_over():
        legal = a.legal_actions(a.current)
        action = legal[rng.below(len(legal))]
        assert [e.to_json() for e in a.apply({a.current: action})] == [e.to_json() for e in b.apply({b.current: action})]
    assert a.snapshot() == b.snapshot()
