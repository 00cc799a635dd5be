"""Fixtures for the referee tests: the C sample bot, the misbehaving bot, and a leak check.

Every bot a test starts is closed at the end of the test, and then no process of its group may be
left: that is the referee's promise, so every test checks it.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from arena.referee.session import BotProcess, BotSpec
from arena.core.limits import Limits
from arena.core.time_control import TimeControl

from tests.support.bots import StartBots, assert_group_gone


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
