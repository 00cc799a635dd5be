"""Fixtures for the referee tests: the C sample bot, the misbehaving bot, and a leak check.

Every bot a test starts is closed at the end of the test, and then no process of its group may be
left: that is the referee's promise, so every test checks it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from arena.referee.bot import BotProcess, BotSpec
from arena.core.limits import Limits
from arena.core.time_control import TimeControl

ROOT = Path(__file__).resolve().parents[2]
BAD_BOT = Path(__file__).with_name("bots") / "bad_bot.py"
C_BOT = ROOT / "sample_bots" / "c" / "random_bot"
PY_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
JS_BOT = ROOT / "sample_bots" / "js" / "random_bot.js"


def live_members(pgid: int) -> list[int]:
    """Non-zombie processes of a group, read from /proc independently of the code under test."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
                found.append(int(entry))
    return found


def assert_group_gone(pgid: int) -> None:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return
    assert live_members(pgid) == [], f"processes left running in group {pgid}"


@pytest.fixture(scope="session")
def c_bot() -> str:
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=ROOT, check=True)
    return str(C_BOT)


def bad_spec(mode: str, **env: str) -> BotSpec:
    return BotSpec(f"bad-{mode}", (sys.executable, str(BAD_BOT), mode), env=env)


def c_spec(c_bot: str, seed: int) -> BotSpec:
    return BotSpec(f"c{seed}", (c_bot, str(seed)))


StartBots = Callable[..., list[BotProcess]]


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
