"""Real live frames for tests: a game's states stepped by the test (the game's fallback actions), each
taken by `arena.live.frame.snapshot` as the referee's tap takes them."""

from __future__ import annotations

from typing import Iterator

from arena.games.registry import get_game
from arena.live.frame import LiveFrame, snapshot


def frames(game_id: int, game: str = "kododo", seats: int = 2, seed: int = 7) -> Iterator[LiveFrame]:
    """Frame after the deal, then one per step; the last one `over`."""
    spec = get_game(game)
    state = spec.new_game(seats, spec.resolve_options(None), seed)
    yield snapshot(game_id, -1, state, [], False)
    step = 0
    while state.to_move():
        events = state.apply({s: state.fallback(s) for s in state.to_move()})
        yield snapshot(game_id, step, state, [e.to_json() for e in events], False)
        step += 1
    yield snapshot(game_id, step - 1, state, [], True)


def hands(frame: LiveFrame) -> list[object]:
    """Each seat's hand in a frame (the secret a spectator must not see)."""
    from arena.jsonvalue import loads

    body = loads(frame.data)
    assert isinstance(body, dict) and isinstance(body["own"], list)
    return [o.get("hand") if isinstance(o, dict) else None for o in body["own"]]
