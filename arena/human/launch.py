"""Starting a human seat: its process, through the referee's own `BotProcess.start` (the same handshake,
pipes and teardown as any bot), with the secret and the port's file passed in the environment."""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import sys
import tempfile
from dataclasses import dataclass

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.errors import BotStartError
from arena.referee.session import BotProcess, BotSpec

HUMAN_NAME = "human"


@dataclass
class HumanSeat:
    bot: BotProcess
    url: str  # http://127.0.0.1:PORT/SECRET/: whoever holds it plays the seat


def human_command(game: str) -> tuple[str, ...]:
    """The seat process's argv (recorded in the replay's header: no secret in it)."""
    return (sys.executable, "-m", "arena.human.seat", game)


def start_human(game: str, control: TimeControl, limits: Limits, env: dict[str, str] | None = None) -> HumanSeat:
    """Start the seat process of `game` and return it with the URL its person opens. It is not
    sandboxed (it must listen on 127.0.0.1) and has no CPU or memory limit (it is arena's own code,
    and a person's game may last long): it is the organiser's own seat."""
    folder = tempfile.mkdtemp(prefix="arena-human-")  # 0700: the port file is the organiser's only
    info = os.path.join(folder, "port")
    secret = secrets.token_urlsafe(24)
    spec = BotSpec(HUMAN_NAME, human_command(game), env={**(env or {}), "ARENA_HUMAN_SECRET": secret, "ARENA_HUMAN_INFO": info})
    try:
        bot = BotProcess.start(spec, control, dataclasses.replace(limits, cpu_seconds=None, memory_mb=None))
        try:
            with open(info, encoding="ascii") as fh:
                port = int(fh.read().strip())
        except (OSError, ValueError) as exc:
            bot.close()
            raise BotStartError(f"the human seat did not say which port it listens on ({exc})") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return HumanSeat(bot, f"http://127.0.0.1:{port}/{secret}/")
