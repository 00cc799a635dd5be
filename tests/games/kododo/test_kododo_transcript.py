"""Kododo's whole observable behaviour, pinned by one digest per player count and variant.

Seeded random games are played and, at every step, everything a caller can observe is written to a
transcript: every seat's view and legal actions (key order included), the fallback, the verdict of
`check` on legal and illegal probes (the exact error messages), the events, the outcome, the full
snapshot and a resampled state. The digests were made on the engine before its speed-up, so an
optimisation that changes anything a bot, a replay or an error message shows fails here; the golden
test (tests/games/test_golden.py) then says at which step. The RNG's outputs are pinned the same way.

After an intended rule change, print the new digests with
    ARENA_PRINT_DIGESTS=1 python -m pytest -q -s tests/games/kododo/test_kododo_transcript.py
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import pytest

from arena.errors import GameError
from arena.games import get_game
from arena.games.kododo.cards import VALUE
from arena.rng import Rng

SPEC = get_game("kododo")
LONGS = ({"long": True, "target": 30, "max_deals": 3}, {"long": True, "target": 60, "max_deals": 2})  # by target, by max_deals

EXPECTED = {
    (2, False): "32f2c33ddbc748ea80de7cf7ba955af3",
    (3, False): "ab5cee3becbd25f5aa57e3fb2018956e",
    (4, False): "f13d6b1d48173445890a3cc67a742d0c",
    (5, False): "e5f36300f5b1ff017f7039e8090ee4aa",
    (2, True): "b229c1f30c1af784530c322d5d241efe",
    (3, True): "d058ac8a0ec343737a55d32e525b4177",
    (4, True): "bf4654575527ce16c37516cbfaab73d3",
    (5, True): "cf72344c8fc71fac0f4b8c2d148b97e8",
}
RNG_EXPECTED = "f91d9862a7574f86b46cf5aa19de7a64"


def outcome_of(call: Any) -> Any:
    """What a call returns, or its exception's type and message."""
    try:
        return {"ok": call()}
    except GameError as error:
        return {"error": type(error).__name__, "message": str(error)}


def probes(hand: list[str], count: int) -> list[Any]:
    """Actions to `check`: legal and illegal ones of every kind the engine tells apart."""
    absent = next(card for card in VALUE if card not in hand)
    first = hand[0] if hand else "B1"
    return [
        hand[:count][::-1],  # legal in any order
        [first] * count,  # twice the same card: legal only if held twice
        [absent] * count,
        [first, absent][:count] if count == 2 else [absent],
        ["X9"] * count,
        [first] * (count + 1),
        [],
        first,
        [1] * count,
        None,
    ]


def transcript(players: int, options: dict[str, Any], seed: int) -> list[Any]:
    state = SPEC.new_game(players, options, seed)
    rng = Rng(seed + 7)
    lines: list[Any] = []
    while not state.is_over():
        deciding = state.to_move()
        legal = {s: state.legal_actions(s) for s in range(players)}
        lines.append({"to_move": list(deciding), "views": [state.view(s) for s in range(players)], "legal": legal})
        lines.append({"fallback": [state.fallback(s) for s in range(players)]})
        count = state.view(0)["play"]
        for s in range(players):
            lines.append([outcome_of(lambda: state.check(s, p)) for p in probes(state.hands[s], count)])
        lines.append(outcome_of(lambda: state.check(players, legal[0][0])))
        actions = {s: list(legal[s][rng.below(len(legal[s]))]) for s in deciding}
        for action in actions.values():
            if rng.below(2):
                action.reverse()
        lines.append(outcome_of(lambda: state.apply({s: a for s, a in actions.items() if s != players - 1})))
        lines.append(outcome_of(lambda: state.apply({**actions, players: actions[0]})))
        lines.append(outcome_of(lambda: state.apply({**actions, 0: ["X9"] * count})))
        lines.append([event.to_json() for event in state.apply(actions)])
        if rng.below(5) == 0:
            lines.append(state.clone().snapshot())
    lines.append({"views": [state.view(s) for s in range(players)], "legal": [state.legal_actions(s) for s in range(players)]})
    lines.append(outcome_of(lambda: state.outcome().to_json()))
    lines.append(outcome_of(lambda: state.check(0, ["B1"])))
    lines.append(outcome_of(lambda: state.apply({s: ["B1"] for s in range(players)})))
    lines.append(state.snapshot())
    lines.append(state.resample_hidden(0, seed).snapshot())
    return lines


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value).encode("utf-8")).hexdigest()[:32]


def game_digest(players: int, long: bool) -> str:
    variants = LONGS if long else ({},)
    return digest([transcript(players, options, seed) for options in variants for seed in (0, 1, 20261121)])


def mid_game_resamples(players: int) -> list[Any]:
    state = SPEC.new_game(players, None, 5)
    out = []
    while not state.is_over():
        out.append([state.resample_hidden(s, 11 + s).snapshot() for s in range(players)])
        state.apply({s: state.fallback(s) for s in state.to_move()})
    return out


@pytest.mark.parametrize("players,long", sorted(EXPECTED), ids=[f"{p}p{'-long' if lg else ''}" for p, lg in sorted(EXPECTED)])
def test_everything_observable_is_as_recorded(players, long):
    got = digest([game_digest(players, long), mid_game_resamples(players)])
    if os.environ.get("ARENA_PRINT_DIGESTS"):
        print(f"    ({players}, {long}): {got!r},")
    assert got == EXPECTED[(players, long)]


def test_the_rng_outputs_are_as_recorded():
    rng = Rng(12345)
    out: list[Any] = [rng.next64() for _ in range(5)]
    out.append([rng.below(n) for n in (1, 2, 3, 7, 100, 2**40 + 3, 2**63 + 5)])
    for size in (0, 1, 2, 5, 100):
        items = list(range(size))
        rng.shuffle(items)
        out.append(items)
    out.append(rng.choice("abcdefg"))
    out.append(rng.fork("x", 1).next64())
    out.append(rng.state)
    got = digest(out)
    if os.environ.get("ARENA_PRINT_DIGESTS"):
        print(f"RNG_EXPECTED = {got!r}")
    assert got == RNG_EXPECTED
