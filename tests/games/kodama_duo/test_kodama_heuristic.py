"""The sample heuristic bot's policy, in-process: it must beat uniform random play clearly."""

from __future__ import annotations

import pytest

import importlib.util
from pathlib import Path

from arena.games.kodama_duo import SPEC
from arena.jsonvalue import canonical
from arena.rng import Rng

BOT = Path(__file__).resolve().parents[3] / "sample_bots" / "python" / "kodama_duo_heuristic.py"


def load_bot():
    spec = importlib.util.spec_from_file_location("kodama_duo_heuristic", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play_match(decide, games: int) -> tuple[int, int, int]:
    """Heuristic against random, seats alternating; returns (wins, draws, losses) of the heuristic."""
    spec = SPEC
    wins = draws = losses = 0
    for g in range(games):
        state = spec.new_game(2, None, 1000 + g)
        rng = Rng(g)
        hero = g % 2
        while not state.is_over():
            actions = {}
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                if seat == hero:
                    request = canonical({"view": state.view(seat), "legal": legal})  # as it arrives on the wire
                    actions[seat] = decide(request)
                else:
                    actions[seat] = legal[rng.below(len(legal))]
            state.apply(actions)
        ranks = state.outcome().ranks
        if ranks[hero] < ranks[1 - hero]:
            wins += 1
        elif ranks[hero] == ranks[1 - hero]:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses


@pytest.mark.slow
def test_the_heuristic_only_plays_legal_actions_and_beats_random():
    bot = load_bot()
    wins, draws, losses = play_match(bot.decide, 100)
    assert wins >= 70, (wins, draws, losses)
