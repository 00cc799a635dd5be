"""Fixtures for the referee tests: the C sample bot, the misbehaving bot, and a leak check.

Every bot a test starts is closed at the end of the test, and then no process of its group may be
left: that is the referee's promise, so every test checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.referee.session import BotProcess, BotSpec
from arena.core.limits import Limits
from arena.core.time_control import TimeControl

from arena.referee.referee import play_game

from tests.support.bots import StartBots, assert_group_gone, bad_spec, c_spec


@pytest.fixture
def start_bots() -> Iterator[StartBots]:
    """start_bots(spec, ..., time_control=..., limits=...) -> bots; all closed and leak-checked after the test."""
    started: list[BotProcess] = []

    def start(*specs: BotSpec, time_control: TimeControl = TimeControl(), limits: Limits = Limits()) -> list[BotProcess]:
        bots = [BotProcess.start(spec, time_control, limits) for spec in specs]
        started.extend(bots)
        return bots

    try:
        yield start
    finally:
        for bot in started:
            bot.close()
        for bot in started:
            assert_group_gone(bot.pgid)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory, c_bot: str) -> dict[str, Path]:
    """name -> replay: a clean simultaneous game, a sequential one, and games with each kind of fallback."""
    out = tmp_path_factory.mktemp("verify")
    plans: dict[str, tuple[str, list[Any], TimeControl]] = {
        "clean": ("kododo", [c_spec(c_bot, 1), c_spec(c_bot, 2), c_spec(c_bot, 3)], TimeControl()),
        "kolpa": ("kolpa", [c_spec(c_bot, 4), c_spec(c_bot, 5)], TimeControl()),
        "faults": ("kododo", [c_spec(c_bot, 6), bad_spec("illegal"), bad_spec("crash", BAD_AT="3")], TimeControl()),
        "timeout": ("kododo", [c_spec(c_bot, 7), bad_spec("timeout", SLEEP_S="0.3")], TimeControl(decision_ms=150, shutdown_ms=300)),
        "malformed": ("kododo", [c_spec(c_bot, 8), bad_spec("malformed", BAD_AT="2")], TimeControl()),
    }
    paths = {}
    for name, (game, specs, tc) in plans.items():
        bots = [BotProcess.start(spec, tc) for spec in specs]
        try:
            paths[name] = out / f"{name}.jsonl"
            play_game(game, bots, seed=9, replay_path=paths[name], time_control=tc)
        finally:
            for bot in bots:
                bot.close()
    return paths
