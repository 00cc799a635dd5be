"""Bots for the referee tests: the sample bots, the misbehaving bot, their specs, and the leak check
(no process of a closed bot's group may be left)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from arena.referee.session import BotProcess, BotSpec

ROOT = Path(__file__).resolve().parents[2]
BAD_BOT = ROOT / "tests" / "referee" / "bots" / "bad_bot.py"
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


def bad_spec(mode: str, **env: str) -> BotSpec:
    return BotSpec(f"bad-{mode}", (sys.executable, str(BAD_BOT), mode), env=env)


def c_spec(c_bot: str, seed: int) -> BotSpec:
    return BotSpec(f"c{seed}", (c_bot, str(seed)))


StartBots = Callable[..., list[BotProcess]]
