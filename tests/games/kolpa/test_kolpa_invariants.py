"""Kolpa!'s invariants after every step of hypothesis-chosen games, against an independent model.

Each step is replayed on a plain model built from the snapshot before it (the test's own reading of
the rules: what matches, where the card goes, what is drawn) and compared with the engine's state or,
when the round ended, with the hands and displays the round_end event reports.
"""

from __future__ import annotations

import pytest

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.kolpa import SPEC

from arena.games.kolpa.cards import full_deck

VALUES = {**{f"{c}{v}": v for c in "BGYOV" for v in range(6)}, "J": 10}
DECK = Counter(full_deck())


def fits(card: str, top: str, announce) -> bool:
    """The test's own matching rule, written apart from the engine's."""
    if card == "J":
        return True
    if top == "J":
        return card[0] == announce if isinstance(announce, str) else int(card[1]) == announce
    return card[0] == top[0] or card[1] == top[1]


def formula(display: list[str], hand: list[str]) -> int:
    return sum(VALUES[c] for c in display) - sum(VALUES[c] for c in hand)


def check_state(state) -> None:
    snap = state.snapshot()
    places = [snap["draw"], snap["discard"], *snap["hands"], *(p for d in snap["displays"] for p in d)]
    assert Counter(card for place in places for card in place) == DECK  # all 64 cards accounted for
    for display in snap["displays"]:
        assert len(display) == 5
        for colour, pile in zip("BGYOV", display):
            assert all(card != "J" and card[0] == colour for card in pile)  # no Joker, one colour a pile
    assert (snap["discard"][-1] == "J") == (snap["announce"] is not None)
    if not state.is_over():
        seat = snap["current"]
        legal = state.legal_actions(seat)
        assert legal
        if snap["hands"][seat]:
            assert {"pass": True} not in legal  # a seat holding cards always has a real play


def check_step(pre: dict, action: dict, events: list, state) -> None:
    n = pre["players"]
    seat = pre["current"]
    hands = [list(h) for h in pre["hands"]]
    displays = [[list(p) for p in d] for d in pre["displays"]]
    top, announce = pre["discard"][-1], pre["announce"]
    tops = [pile[-1] for pile in displays[seat] if pile]
    blocked = any(fits(t, top, announce) for t in tops)
    to_discard = False
    if "pass" in action:
        assert not hands[seat] and not blocked
    else:
        card = action["play"]
        if action["from"] == "hand":
            hands[seat].remove(card)
        else:
            pile = displays[seat]["BGYOV".index(card[0])]
            assert pile[-1] == card
            pile.pop()
        if action["to"] == "discard":
            assert fits(card, top, announce)  # only matching cards reach the discard
            to_discard = True
        else:
            assert card != "J" and not fits(card, top, announce) and not blocked  # display only when no top matches
            displays[seat]["BGYOV".index(card[0])].append(card)
            drawn = [e.data["card"] for e in events if e.kind == "drew"]
            assert all(e.to == seat for e in events if e.kind == "drew")
            assert len(drawn) <= 1
            if not drawn:
                assert not pre["draw"] and len(pre["discard"]) == 1
                assert [e.kind for e in events][:2] == ["play", "draw_skipped"]
            hands[seat].extend(drawn)
    ends = [e for e in events if e.kind == "round_end"]
    went_out = to_discard and not hands[seat]
    if ends:
        end = ends[0].data
        if end["reason"] == "out":
            assert went_out and end["ended_by"] == seat  # a round ends only with a play to the discard
        else:
            assert end["reason"] == "turn_limit" and not went_out
            assert pre["turn"] + 1 == pre["max_turns_per_round"]
        assert [sorted(h) for h in end["hands"]] == [sorted(h) for h in hands]
        assert end["displays"] == [[c for p in d for c in p] for d in displays]
        points = [formula(end["displays"][s], end["hands"][s]) for s in range(n)]
        assert end["points"] == points  # the rulebook's formula
        assert end["totals"] == state.scores == [pre["scores"][s] + points[s] for s in range(n)]
        assert state.is_over() == (max(state.scores) >= pre["target"] or pre["round"] >= pre["max_rounds"])
        if not state.is_over():
            assert state.round == pre["round"] + 1 and state.current == (state.round - 1) % n
    else:
        assert not went_out
        assert state.hands == [sorted(h, key=list(VALUES).index) for h in hands]
        assert state.displays == displays
        assert state.current == (seat + 1) % n and state.turn == pre["turn"] + 1
        assert state.scores == pre["scores"]
        if to_discard:
            assert state.discard[-1] == action["play"]
            assert state.announce == (action.get("announce") if action["play"] == "J" else None)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_invariants_hold_after_every_step(data):
    players = data.draw(st.integers(2, 6), label="players")
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    options = {
        "target": data.draw(st.sampled_from([50, 12]), label="target"),
        "max_turns_per_round": data.draw(st.sampled_from([1000, 25]), label="max_turns"),
    }
    state = SPEC.new_game(players, options, seed)
    check_state(state)
    for _ in range(400):
        if state.is_over():
            break
        pre = state.snapshot()
        legal = state.legal_actions(state.current)
        action = legal[data.draw(st.integers(0, len(legal) - 1))]
        events = state.apply({state.current: action})
        check_step(pre, action, events, state)
        check_state(state)


def test_long_random_games_keep_the_invariants_and_end():
    """Whole games at every player count, including the reshuffles that long rounds bring."""
    from arena.rng import Rng

    reshuffles = 0
    for players in range(2, 7):
        rng = Rng(players)
        state = SPEC.new_game(players, None, players * 1000)
        while not state.is_over():
            pre = state.snapshot()
            legal = state.legal_actions(state.current)
            action = legal[rng.below(len(legal))]
            events = state.apply({state.current: action})
            reshuffles += sum(e.kind == "reshuffle" for e in events)
            check_step(pre, action, events, state)
            check_state(state)
        assert state.outcome().ranks
    assert reshuffles > 0
