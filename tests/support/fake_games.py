"""Replays of whole games played in-process on the fake transport (no process, no sleeping), for the fast tier.

The referee is the real one (`play_game`): only the bots are `FakeBot`s whose answers are scripted: a
bot picking among the legal actions with its own seed, and misbehaving ones (an illegal action, a
crash, a time-out, a line that is not JSON) at a given request. Their replays are what a real game with
such bots writes, so verification and its forgeries can be tested without starting a bot.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.referee.transport import Arrival, ArrivalKind

from tests.support.fake_transport import FakeBot, FakeClock, FakeTransport, Script


def answer(request: dict[str, Any], action: Any) -> bytes:
    return json.dumps({"id": request["id"], "action": action}).encode()


def chooser(seed: int, delay_s: float = 0.002) -> Script:
    """Answers each request with one of its legal actions, picked with its own seed, after `delay_s`."""
    rng = random.Random(seed)

    def script(request: dict[str, Any], count: int) -> list[tuple[float, bytes]]:
        return [(delay_s, answer(request, rng.choice(request["legal"])))]

    return script


def misbehaving(mode: str, at: int, seed: int) -> Script:
    """`chooser(seed)`, except at request `at`: "illegal" (["Z9"], a card no game has), "malformed" (not JSON),
    "timeout" (the answer comes 0.3 s later). A crash is `crashing` (it needs the bot)."""
    fair = chooser(seed)

    def script(request: dict[str, Any], count: int) -> list[tuple[float, bytes]]:
        if count != at:
            return fair(request, count)
        if mode == "illegal":
            return [(0.002, answer(request, ["Z9"]))]
        if mode == "malformed":
            return [(0.002, b"this is not json")]
        if mode == "timeout":
            return [(0.3, answer(request, request["legal"][0]))]
        raise ValueError(mode)

    return script


class CrashingBot(FakeBot):
    """Plays like `chooser(seed)` until request `at`, then its stdout closes and it is gone (exit status 3)."""

    def __init__(self, transport: FakeTransport, seed: int, at: int, name: str) -> None:
        super().__init__(transport, chooser(seed), name=name)
        self.crash_at = at

    def send(self, data: bytes) -> bool:
        message = json.loads(data)
        if message["type"] == "request" and len(self.requests) + 1 == self.crash_at:
            now = self.transport.clock.t
            self.requests.append(message)
            self.killed = True
            self.exit_detail = "exited with status 3"
            self.transport.schedule(now + 0.002, Arrival(self, ArrivalKind.EOF, now + 0.002))
            return True
        return super().send(data)


def play_fake(path: Path, game: str, make: Any, tc: TimeControl = TimeControl(), seed: int = 9) -> Path:
    """One game of `game` by the fake bots `make(transport)` makes, its replay written to `path`."""
    clock = FakeClock()
    transport = FakeTransport(clock)
    play_game(game, make(transport), seed=seed, replay_path=path, time_control=tc, clock=clock, transport=transport)
    return path


def fair_game(path: Path, game: str, seats: int, seed: int) -> Path:
    """A whole game of fair fake bots (each picks among the legal actions with its own seed)."""
    return play_fake(path, game, lambda t: [FakeBot(t, chooser(seed + s), name=f"p{s}") for s in range(seats)], seed=seed)


def play_fake_games(out: Path) -> dict[str, Path]:
    """name -> replay: a clean simultaneous game, a sequential one, and games with each kind of fallback."""
    paths: dict[str, Path] = {}

    def play(name: str, game: str, make: Any, tc: TimeControl = TimeControl()) -> None:
        paths[name] = play_fake(out / f"{name}.jsonl", game, make, tc)

    play("clean", "kododo", lambda t: [FakeBot(t, chooser(s), name=f"p{s}") for s in (1, 2, 3)])
    play("kolpa", "kolpa", lambda t: [FakeBot(t, chooser(s), name=f"p{s}") for s in (4, 5)])
    play("faults", "kododo", lambda t: [FakeBot(t, chooser(6), name="p6"), FakeBot(t, misbehaving("illegal", 1, 7), name="illegal"),
                                        CrashingBot(t, 8, 3, name="crash")])
    play("timeout", "kododo", lambda t: [FakeBot(t, chooser(7), name="p7"), FakeBot(t, misbehaving("timeout", 1, 9), name="slow")],
         TimeControl(decision_ms=150, shutdown_ms=300))
    play("malformed", "kododo", lambda t: [FakeBot(t, chooser(8), name="p8"), FakeBot(t, misbehaving("malformed", 2, 10), name="junk")])
    return paths
