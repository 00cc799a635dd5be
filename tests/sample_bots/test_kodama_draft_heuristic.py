"""The Kodama draft sample heuristic, in-process on real views: each of its decisions against what the
engine itself scores, and whole games against random players at 2, 4 and 6 seats."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

import kodama_draft_heuristic as bot
from arena.games import get_game
from arena.games.kodama_draft import KodamaDraftState
from arena.jsonvalue import JSON, canonical
from arena.rng import Rng

SPEC = get_game("kodama-draft")


def request(state: KodamaDraftState, seat: int) -> dict[str, Any]:
    """The request as it arrives on the wire."""
    return dict(canonical({"view": state.view(seat), "legal": state.legal_actions(seat)}))


def random_play(players: int, seed: int) -> Iterator[KodamaDraftState]:
    """Every state of a game of random players (the state is advanced after each yield)."""
    state = SPEC.new_game(players, None, seed)
    rng = Rng(seed)
    while not state.is_over():
        yield state
        actions = {}
        for seat in state.to_move():
            legal = state.legal_actions(seat)
            actions[seat] = legal[rng.below(len(legal))]
        state.apply(actions)


def key(action: JSON) -> str:
    return json.dumps(action, sort_keys=True)


def gain(state: KodamaDraftState, seat: int, action: JSON) -> int:
    """The points `seat` scores now by `action`, by the engine (the other seats take their first legal action)."""
    after = state.clone()
    before = after.scores[seat]
    after.apply({s: action if s == seat else after.legal_actions(s)[0] for s in after.to_move()})
    return after.scores[seat] - before


def best_gain_of_pick(state: KodamaDraftState, seat: int, pick: JSON) -> int:
    """The most the picked card can score now: its best placement on the seat's tree, by the engine."""
    after = state.clone()
    after.apply({s: pick if s == seat else after.legal_actions(s)[0] for s in after.to_move()})
    return max(gain(after, seat, a) for a in after.legal_actions(seat))


def views(decision: str, players: int = 3, games: int = 30) -> Iterator[tuple[KodamaDraftState, int]]:
    for seed in range(games):
        for state in random_play(players, seed):
            for seat in state.to_move():
                if state.view(seat)["decision"] == decision:
                    yield state, seat


def test_a_place_takes_the_placement_scoring_most_now_when_it_stands_out() -> None:
    checked = 0
    for state, seat in views("place"):
        gains = {key(a): gain(state, seat, a) for a in state.legal_actions(seat)}
        top = sorted(gains.values(), reverse=True)
        if len(top) < 2 or top[0] - top[1] < 2:  # lines it opens for later may outweigh a point or so
            continue
        choice = bot.decide(request(state, seat))
        assert choice in state.legal_actions(seat)
        assert gains[key(choice)] == top[0], (choice, gains)
        checked += 1
    assert checked >= 20


@pytest.mark.slow  # whole games (5 to 7 s): the sample bot's strategy, not the pipeline
def test_a_pick_takes_the_card_scoring_most_now_when_it_stands_out() -> None:
    checked = 0
    for state, seat in views("pick"):
        legal = state.legal_actions(seat)
        if len(legal) < 2 or not state._placements_from(seat, [legal[0]["pick"]], first_only=True):
            continue
        gains = {a["pick"]: best_gain_of_pick(state, seat, a) for a in legal}
        top = sorted(gains.values(), reverse=True)
        if top[0] - top[1] < 3:  # denial and open lines are worth less than 3 points now
            continue
        choice = bot.decide(request(state, seat))
        assert gains[choice["pick"]] == top[0], (choice, gains)
        checked += 1
    assert checked >= 10


@pytest.mark.slow  # whole games (5 to 7 s): the sample bot's strategy, not the pipeline
def test_a_pick_that_will_be_discarded_denies_the_next_seat_its_best_card() -> None:
    checked = 0
    for state, seat in views("pick", players=3, games=200):
        legal = state.legal_actions(seat)
        if state._placements_from(seat, [legal[0]["pick"]], first_only=True):
            continue  # a placeable pick: not this case
        nxt = state.view(seat)["pass_to"]
        worth = {}
        for a in legal:  # what each card would score for the next seat now, were it its hand
            probe = state.clone()
            probe.hands[nxt] = [a["pick"]]
            placeable = probe._placements_from(nxt, [a["pick"]], first_only=True)
            worth[a["pick"]] = best_gain_of_pick(probe, nxt, a) if placeable else 0
        top = sorted(worth.values(), reverse=True)
        if len(top) < 2 or top[0] - top[1] < 2:
            continue
        choice = bot.decide(request(state, seat))
        assert worth[choice["pick"]] == top[0], (choice, worth)
        checked += 1
    assert checked >= 3


def test_the_kodama_choice_scores_most_now() -> None:
    checked = 0
    for state, seat in views("kodama", games=10):
        gains = {a["kodama"]: gain(state, seat, a) for a in state.legal_actions(seat)}
        choice = bot.decide(request(state, seat))
        assert gains[choice["kodama"]] == max(gains.values()), (choice, gains)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("players,first_at_least", [(2, 0.9), (4, 0.6), (6, 0.4)])
def test_the_heuristic_plays_legal_actions_and_beats_random_players(players: int, first_at_least: float) -> None:
    games, ranks = 30, []
    for seed in range(games):
        state = SPEC.new_game(players, None, 500 + seed)
        rng, hero = Rng(seed), seed % players
        while not state.is_over():
            actions = {}
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                if seat == hero:
                    actions[seat] = bot.decide(request(state, seat))
                    assert actions[seat] in legal
                else:
                    actions[seat] = legal[rng.below(len(legal))]
            state.apply(actions)
        ranks.append(state.outcome().ranks[hero])
    # a random player comes first in 1 / players of the games
    assert sum(r == 1 for r in ranks) / games >= first_at_least, ranks
