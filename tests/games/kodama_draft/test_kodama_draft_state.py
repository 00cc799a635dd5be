"""Kodama draft: passing left and refilling, the short deck, discards, the deal, hidden hands."""

from __future__ import annotations

from arena.games import get_game
from arena.games.kodama_draft.state import HAND_SIZE, KodamaDraftState, Step


def new(players: int, seed: int = 3) -> KodamaDraftState:
    return get_game("kodama-draft").new_game(players, None, seed)


def first_legal(state: KodamaDraftState) -> dict:
    return {s: state.legal_actions(s)[0] for s in state.to_move()}


def test_the_rest_of_the_hand_passes_left_and_everyone_draws_one():
    state = new(3)
    assert [len(h) for h in state.hands] == [HAND_SIZE] * 3 and len(state.deck) == 36 - 12
    before = [list(h) for h in state.hands]
    top = list(reversed(state.deck[-3:]))  # seat 0 draws first, from the end of the list
    actions = first_legal(state)
    events = state.apply(actions)
    kinds = [e.kind for e in events]
    assert kinds == ["reveal", "pass", "hand", "hand", "hand"]
    plays = events[0].data["plays"]
    assert [p["card"] for p in plays] == [actions[s]["card"] for s in range(3)]
    for s in range(3):
        left = (s + 1) % 3
        passed = [c for c in before[s] if c != actions[s]["card"]]
        assert state.hands[left] == sorted(passed + [top[left]])
        assert actions[s]["card"] in state.trees[s]
    assert len(state.deck) == 36 - 12 - 3
    assert events[1].data == {"direction": "left", "drew": True, "hand_sizes": [4, 4, 4], "deck": 21}
    # the new hands reach their owners privately, and only them
    for s, event in enumerate(events[2:]):
        assert event.to == s and [c["id"] for c in event.data["cards"]] == state.hands[s]


def test_nobody_draws_when_the_deck_cannot_serve_everyone_and_hands_shrink():
    state = new(4)
    state.discard.extend(state.deck[3:])  # keep every card in one place: 3 left for 4 players
    del state.deck[3:]
    events = state.apply(first_legal(state))
    assert events[1].kind == "pass" and events[1].data["drew"] is False
    assert [len(h) for h in state.hands] == [3, 3, 3, 3] and len(state.deck) == 3
    state.apply(first_legal(state))
    assert [len(h) for h in state.hands] == [2, 2, 2, 2]


def test_a_season_ends_after_four_turns_without_a_last_pass_and_the_next_deals_afresh():
    state = new(2)
    for _ in range(3):
        state.apply(first_legal(state))
    last = state.apply(first_legal(state))
    assert [e.kind for e in last] == ["reveal", "kodama_phase"]
    assert state.step is Step.KODAMA and [p[0] for p in state.placed] == [4, 4]
    left_in_hand = sorted(c for h in state.hands for c in h)
    assert [len(h) for h in state.hands] == [3, 3]  # no pass, no draw after the last turn
    events = state.apply(first_legal(state))
    assert [e.kind for e in events][:4] == ["kodama", "kodama", "season", "deal"]
    assert state.season == 1 and state.turn == 0 and [len(h) for h in state.hands] == [4, 4]
    # the cards left in hand went back into the deck, with it reshuffled
    everywhere = sorted(state.deck + [c for h in state.hands for c in h])
    assert set(left_in_hand) <= set(everywhere) and len(everywhere) == 36 - 8


def test_six_players_get_three_kodama_cards_and_the_short_deck_shortens_seasons():
    state = new(6, seed=9)
    assert [len(h) for h in state.kodama_hand] == [3] * 6
    assert len({state.faces.tree_cards[t].elements for t in state.trunks}) == 6
    deals = [state.hands[0] and len(state.hands[0])]
    while not state.is_over():
        events = state.apply(first_legal(state))
        deals += [e.data["cards_each"] for e in events if e.kind == "deal"]
    assert deals == [4, 2, 0]
    assert [sum(p) for p in state.placed] == [6] * 6 and all(len(s) == 3 for s in state.kodama_scored)


def test_a_seat_that_cannot_place_discards_and_the_card_comes_back_next_season():
    state = new(2, seed=5)
    trunk = state.trunks[0]
    dead_ends = [c for c in state.deck if state.faces.tree_cards[c].attach == 0][:4]
    for i, card in enumerate(dead_ends):  # fill the Trunk's four points with dead ends
        state.deck.remove(card)
        state.trees[0].attach(card, (trunk, i), 0)
    legal = state.legal_actions(0)
    assert legal == [{"discard": c} for c in state.hands[0]]
    assert state.legal_actions(1)[0].keys() == {"card", "at"}
    events = state.apply({0: legal[1], 1: state.legal_actions(1)[0]})
    assert events[0].data["plays"][0] == {"seat": 0, "discard": legal[1]["discard"]}
    assert state.discard == [legal[1]["discard"]] and state.placed[0][0] == 0
    while state.season == 0:
        state.apply(first_legal(state))
    assert state.discard == [] and legal[1]["discard"] not in state.trees[0]


def test_views_show_only_ones_own_hand_and_resampling_keeps_passed_cards():
    state = new(3, seed=7)
    view = state.view(0)
    assert [c["id"] for c in view["hand"]] == state.hands[0] and view["hand_sizes"] == [4, 4, 4]
    assert view["pass_to"] == 1 and view["decision"] == "grow" and view["deck"] == 24
    played = first_legal(state)
    passed = sorted(c for c in state.hands[0] if c != played[0]["card"])
    state.apply(played)
    assert set(passed) <= set(state.hands[1])
    moved = False
    for seed in range(20):
        other = state.resample_hidden(0, seed)
        assert other.view(0) == state.view(0)
        assert set(passed) <= set(other.hands[1])  # seat 0 knows what it passed
        moved |= other.hands[2] != state.hands[2]
    assert moved


def test_the_card_set_has_six_different_trunks_and_duo_keeps_its_two():
    cards = new(2).faces
    assert cards.trunks == ("T1", "T2") and cards.draft_trunks == ("T3", "T4", "T5", "T6")
    elements = {cards.tree_cards[t].elements for t in cards.trunks + cards.draft_trunks}
    assert len(elements) == 6 and all(cards.tree_cards[t].attach == 4 for t in cards.draft_trunks)
