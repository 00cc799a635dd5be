"""The Kolpa! sample heuristic, played in-process against the engine: legal every time, and far
stronger than random play or the engine's own display-first fallback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.kolpa import SPEC, arrange

from arena.rng import Rng

BOTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python"
sys.path.insert(0, str(BOTS))

import kolpa_heuristic  # noqa: E402


def hero_ranks(players: int, games: int, opponent) -> list[int]:
    ranks = []
    for seed in range(games):
        state = SPEC.new_game(players, None, seed)
        rng = Rng(seed)
        hero = seed % players
        while not state.is_over():
            seat = state.current
            legal = state.legal_actions(seat)
            if seat == hero:
                action = kolpa_heuristic.choose(state.view(seat), legal)
                assert action in legal
            else:
                action = opponent(legal, rng)
            state.apply({seat: action})
        ranks.append(state.outcome().ranks[hero])
    return ranks


def test_the_heuristic_beats_a_random_player():
    ranks = hero_ranks(2, 200, lambda legal, rng: legal[rng.below(len(legal))])
    assert sum(r == 1 for r in ranks) / len(ranks) >= 0.85  # a random player wins about half


def test_the_heuristic_beats_three_random_players():
    ranks = hero_ranks(4, 60, lambda legal, rng: legal[rng.below(len(legal))])
    assert sum(r == 1 for r in ranks) / len(ranks) >= 0.7  # a random player wins about a quarter
    assert sum(ranks) / len(ranks) <= 1.5


def test_the_heuristic_beats_the_display_first_fallback():
    ranks = hero_ranks(2, 100, lambda legal, rng: legal[0])
    assert sum(r == 1 for r in ranks) / len(ranks) >= 0.8


def test_the_heuristic_dumps_a_joker_when_an_opponent_is_about_to_go_out():
    state = arrange(2, hands=[["J", "V4", "Y1"], ["O0"]], displays={1: ["G3"]}, discard=["B2"])
    action = kolpa_heuristic.choose(state.view(0), state.legal_actions(0))
    assert action == {"play": "J", "from": "hand", "to": "discard", "announce": "G"}  # forces G3 back


def test_the_heuristic_builds_its_display_with_high_cards_early():
    state = arrange(2, hands=[["V4", "Y1", "B0", "O5", "G0"], ["O0", "O1", "O2", "O3", "O4"]], discard=["B2"])
    assert kolpa_heuristic.choose(state.view(0), state.legal_actions(0)) == {"play": "O5", "from": "hand", "to": "display"}


@pytest.mark.process
def test_the_script_answers_over_the_protocol():
    state = SPEC.new_game(2, None, 1)
    request = {"type": "request", "id": 7, "game": "kolpa", "seat": 0, "view": state.view(0),
               "legal": state.legal_actions(0), "clock": {"remaining_ms": 1000}, "events": []}
    lines = [{"type": "hello", "protocol": 1}, request, {"type": "shutdown"}]
    out = subprocess.run(
        [sys.executable, str(BOTS / "kolpa_heuristic.py")],
        input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True, text=True, timeout=30, check=True,
    ).stdout.splitlines()
    assert json.loads(out[0])["name"] == "kolpa-heuristic"
    answer = json.loads(out[1])
    assert answer["id"] == 7 and answer["action"] == kolpa_heuristic.choose(state.view(0), state.legal_actions(0))
