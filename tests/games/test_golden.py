"""Golden playthroughs: one recorded game per game, replayed and compared step by step.

What is compared is what bots and players see (every seat's view, the legal actions, the events, the
outcome), not the engine's internals, so a refactor that keeps the behaviour passes and any change of
behaviour, or of the random deal on another machine or Python version, fails at its first step.

After an intended rule change, rewrite the files and review their diff:
    ARENA_REWRITE_GOLDEN=1 python -m pytest tests/games/test_golden.py
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from arena.games import get_game
from arena.games.base import GameState
from arena.jsonvalue import dumps, loads
from arena.rng import Rng

GOLDEN = Path(__file__).parent / "golden"
CASES = [("kododo", 4, {}), ("kododo", 2, {"long": True, "target": 40}), ("kolpa", 3, {}), ("kodama-duo", 2, {}), ("kodama-draft", 4, {})]


def digest(value) -> str:
    return hashlib.sha256(dumps(value)).hexdigest()[:16]


def seen(state: GameState) -> dict:
    """What the players can see at this step, as digests (full views would make huge files)."""
    return {
        "to_move": list(state.to_move()),
        "views": digest([state.view(s) for s in range(state.num_seats)]),
        "legal": digest({s: state.legal_actions(s) for s in state.to_move()}),
    }


def record(name: str, seats: int, options: dict, seed: int) -> list[dict]:
    state = get_game(name).new_game(seats, options, seed)
    rng = Rng(seed + 1)
    lines: list[dict] = [{"game": name, "seats": seats, "options": options, "seed": seed}]
    step = 0
    while not state.is_over():
        actions = {s: (lambda legal: legal[rng.below(len(legal))])(state.legal_actions(s)) for s in state.to_move()}
        before = seen(state)
        events = state.apply(actions)
        lines.append({"step": step, **before, "actions": {str(s): a for s, a in actions.items()}, "events": [e.to_json() for e in events]})
        step += 1
    lines.append({"outcome": state.outcome().to_json(), "final_views": digest([state.view(s) for s in range(state.num_seats)])})
    return lines


def path_of(name: str, seats: int, options: dict) -> Path:
    suffix = "-long" if options.get("long") else ""
    return GOLDEN / f"{name}-{seats}p{suffix}.jsonl"


@pytest.mark.parametrize("name,seats,options", CASES, ids=[str(path_of(*c).stem) for c in CASES])
def test_the_recorded_game_is_played_again_identically(name, seats, options):
    path = path_of(name, seats, options)
    if os.environ.get("ARENA_REWRITE_GOLDEN"):
        path.write_bytes(b"".join(dumps(line) + b"\n" for line in record(name, seats, options, seed=20261121)))
    golden = [loads(line) for line in path.read_bytes().splitlines()]
    header = golden[0]
    state = get_game(header["game"]).new_game(header["seats"], header["options"], header["seed"])
    for expected in golden[1:-1]:
        step = expected["step"]
        assert seen(state) == {k: expected[k] for k in ("to_move", "views", "legal")}, f"{path.name}: step {step}: what the players see differs"
        events = state.apply({int(s): a for s, a in expected["actions"].items()})
        assert [e.to_json() for e in events] == expected["events"], f"{path.name}: step {step}: events differ"
    assert state.is_over(), f"{path.name}: the game should be over after {len(golden) - 2} steps"
    final = golden[-1]
    assert state.outcome().to_json() == final["outcome"]
    assert digest([state.view(s) for s in range(state.num_seats)]) == final["final_views"]
