"""The Kododo sample heuristic: its own copy of the rules agrees with the engine, and it beats random."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kododo_heuristic
from arena.games import get_game
from arena.games.kododo.cards import VALUE
from arena.games.kododo.rules import evaluate_round
from arena.rng import Rng

CARDS = sorted(VALUE)


@given(st.integers(2, 5).flatmap(lambda n: st.lists(st.lists(st.sampled_from(CARDS), min_size=4, max_size=4), min_size=n, max_size=n)))
def test_the_bots_round_scoring_matches_the_engine(table):
    assert kododo_heuristic.round_points(table) == list(evaluate_round(table).points)


@pytest.mark.slow  # hundreds of whole games
def test_the_heuristic_beats_three_random_players():
    spec = get_game("kododo")
    games, ranks = 40, []
    for seed in range(games):
        state = spec.new_game(4, None, seed)
        rng, bot_rng = Rng(seed), random.Random(seed)
        hero = seed % 4
        while not state.is_over():
            actions = {}
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                if seat == hero:
                    actions[seat] = kododo_heuristic.choose(state.view(seat), legal, bot_rng)
                else:
                    actions[seat] = legal[rng.below(len(legal))]
            state.apply(actions)
        ranks.append(state.outcome().ranks[hero])
    wins = sum(1 for r in ranks if r == 1)
    # a random player wins about a quarter of the time and averages rank 2.5
    assert wins / games >= 0.45, ranks
    assert sum(ranks) / games <= 2.0, ranks
