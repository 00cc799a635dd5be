"""Kodama draft: secret picks revealed before anyone places, passing left and refilling, the short
deck, discards, the deal, hidden hands."""

from __future__ import annotations

from arena.games import get_game
from arena.games.kodama_draft.state import HAND_SIZE, KodamaDraftState, Step


def new(players: int, seed: int = 3) -> KodamaDraftState:
    return get_game("kodama-draft").new_game(players, None, seed)


def first_legal(state: KodamaDraftState) -> dict:
    return {s: state.legal_actions(s)[0] for s in state.to_move()}


def play_turn(state: KodamaDraftState) -> tuple[dict, list]:
    """One growth turn (pick, then place) or one Kodama step: the picks made and all events."""
    if state.step is not Step.PICK:
        return {}, state.apply(first_legal(state))
    picks = {s: a["pick"] for s, a in first_legal(state).items()}
    events = state.apply({s: {"pick": c} for s, c in picks.items()})
    if state.step is Step.PLACE:
        events += state.apply(first_legal(state))
    return picks, events


def test_picks_are_secret_then_revealed_to_everyone_before_anyone_places():
    state = new(3)
    assert state.step is Step.PICK and state.to_move() == (0, 1, 2)
    view = state.view(1)
    assert view["decision"] == "pick" and view["picks"] == [None, None, None]
    legal = state.legal_actions(1)
    assert legal == [{"pick": c} for c in state.hands[1]]  # every card of a fresh hand can be placed on the Trunk
    picks = {s: state.hands[s][-1] for s in range(3)}
    events = state.apply({s: {"pick": c} for s, c in picks.items()})
    assert [e.kind for e in events] == ["reveal"] and events[0].to is None
    assert [p["id"] for p in events[0].data["picks"]] == [picks[s] for s in range(3)]
    assert state.step is Step.PLACE and state.to_move() == (0, 1, 2)
    for seat in range(3):  # every seat now sees every pick, and nothing is on any tree yet
        view = state.view(seat)
        assert view["decision"] == "place" and [p["id"] for p in view["picks"]] == [picks[s] for s in range(3)]
        assert all(len(t["cards"]) == 1 for t in view["trees"])
        assert picks[seat] not in state.hands[seat]
        legal = state.legal_actions(seat)
        assert legal and all(a["card"] == picks[seat] for a in legal)
    other = next(c for c in state.hands[0])
    assert "you place the card you picked" in _refusal(state, 0, {"card": other, "at": [state.trunks[0], 0]})
    placed = state.apply(first_legal(state))
    assert [e.kind for e in placed][:3] == ["place", "place", "place"]
    assert all(picks[s] in state.trees[s] for s in range(3)) and state.step is Step.PICK


def _refusal(state: KodamaDraftState, seat: int, action: object) -> str:
    from arena.errors import IllegalAction

    try:
        state.check(seat, action)
    except IllegalAction as exc:
        return str(exc)
    raise AssertionError(f"{action!r} was accepted")


def test_the_rest_of_the_hand_passes_left_and_everyone_draws_one():
    state = new(3)
    assert [len(h) for h in state.hands] == [HAND_SIZE] * 3 and len(state.deck) == 36 - 12
    before = [list(h) for h in state.hands]
    top = list(reversed(state.deck[-3:]))  # seat 0 draws first, from the end of the list
    picks, events = play_turn(state)
    kinds = [e.kind for e in events]
    assert kinds == ["reveal", "place", "place", "place", "pass", "hand", "hand", "hand"]
    assert [p["card"] for p in (e.data for e in events[1:4])] == [picks[s] for s in range(3)]
    for s in range(3):
        left = (s + 1) % 3
        passed = [c for c in before[s] if c != picks[s]]
        assert state.hands[left] == sorted(passed + [top[left]])
        assert picks[s] in state.trees[s]
    assert len(state.deck) == 36 - 12 - 3
    assert events[4].data == {"direction": "left", "drew": True, "hand_sizes": [4, 4, 4], "deck": 21}
    # the new hands reach their owners privately, and only them
    for s, event in enumerate(events[5:]):
        assert event.to == s and [c["id"] for c in event.data["cards"]] == state.hands[s]


def test_nobody_draws_when_the_deck_cannot_serve_everyone_and_hands_shrink():
    state = new(4)
    state.discard.extend(state.deck[3:])  # keep every card in one place: 3 left for 4 players
    del state.deck[3:]
    _, events = play_turn(state)
    passing = next(e for e in events if e.kind == "pass")
    assert passing.data["drew"] is False
    assert [len(h) for h in state.hands] == [3, 3, 3, 3] and len(state.deck) == 3
    play_turn(state)
    assert [len(h) for h in state.hands] == [2, 2, 2, 2]


def test_a_season_ends_after_four_turns_without_a_last_pass_and_the_next_deals_afresh():
    state = new(2)
    for _ in range(3):
        play_turn(state)
    _, last = play_turn(state)
    assert [e.kind for e in last] == ["reveal", "place", "place", "kodama_phase"]
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
        _, events = play_turn(state)
        deals += [e.data["cards_each"] for e in events if e.kind == "deal"]
    assert deals == [4, 2, 0]
    assert [sum(p) for p in state.placed] == [6] * 6 and all(len(s) == 3 for s in state.kodama_scored)


def test_a_pick_that_cannot_be_placed_is_discarded_and_the_card_comes_back_next_season():
    state = new(2, seed=5)
    trunk = state.trunks[0]
    dead_ends = [c for c in state.deck if state.faces.tree_cards[c].attach == 0][:4]
    for i, card in enumerate(dead_ends):  # fill the Trunk's four points with dead ends
        state.deck.remove(card)
        state.trees[0].attach(card, (trunk, i), 0)
    legal = state.legal_actions(0)
    assert legal == [{"pick": c} for c in state.hands[0]]  # nothing can be placed: any card may be picked
    assert state.legal_actions(1)[0].keys() == {"pick"}
    events = state.apply({0: legal[1], 1: state.legal_actions(1)[0]})
    card = legal[1]["pick"]
    assert [e.kind for e in events] == ["reveal", "cannot_place"]
    assert events[1].data == {"seat": 0, "card": card}
    assert state.to_move() == (1,) and state.legal_actions(0) == []  # only seat 1 places
    assert state.discard == [card] and state.placed[0][0] == 0
    state.apply(first_legal(state))
    while state.season == 0:
        play_turn(state)
    assert state.discard == [] and card not in state.trees[0]


def test_a_card_that_cannot_be_placed_may_not_be_picked_while_another_can():
    state = new(2, seed=5)
    faces = state.faces.tree_cards
    tree, trunk = state.trees[0], state.trunks[0]
    # A caterpillar line of 9 instances whose tip is the tree's only free point: one more caterpillar
    # card with two instances would score 9 + 2 = 11 > 10 there, a cloud card scores 0.
    chain = ["B21", "B20", "B01", "B04", "B12", "B35", "B03", "B33"]
    dead_ends = iter(["B09", "B14", "B18", "B27", "B29", "B36"])
    parent = trunk
    for point in range(1, faces[trunk].attach):
        tree.attach(next(dead_ends), (trunk, point), 0)
    for card in chain:
        tree.attach(card, (parent, 0), faces[card].attach)
        for point in range(1, faces[card].attach):
            tree.attach(next(dead_ends), (card, point), 0)
        parent = card
    assert tree.free_points() == [("B33", 0)]
    state.hands[0] = ["B02", "B05"]
    assert state.legal_actions(0) == [{"pick": "B05"}]
    assert "B02 cannot be placed on your tree" in _refusal(state, 0, {"pick": "B02"})
    state.check(0, {"pick": "B05"})


def test_views_show_only_ones_own_hand_and_resampling_keeps_passed_cards():
    state = new(3, seed=7)
    view = state.view(0)
    assert [c["id"] for c in view["hand"]] == state.hands[0] and view["hand_sizes"] == [4, 4, 4]
    assert view["pass_to"] == 1 and view["decision"] == "pick" and view["deck"] == 24
    assert view["player_count"] == 3 and "players" not in view  # `players` is the names list of `start`
    hand = list(state.hands[0])
    picks, _ = play_turn(state)
    passed = sorted(c for c in hand if c != picks[0])
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
