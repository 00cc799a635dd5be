"""One game under arena's own referee, through its public entry points (as `arena play` runs one).

The probe session sees more, but the referee is what a tournament runs: this game shows that what
passed the probes also passes there. The bot holds every seat (one process each), at the game's
smallest player count, so nothing but the bot itself can fault.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Mapping

from arena.checkbot.session import SANDBOX_POLICY
from arena.errors import ArenaError
from arena.games.base import GameSpec
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.referee import BotProcess, BotSpec, play_game
from arena.textsafe import clean


@dataclass
class RefereeRun:
    seats: int
    decisions: int = 0
    faults: list[str] = field(default_factory=list)  # during the game and at close
    problem: str | None = None  # the game could not be played


def referee_game(spec: GameSpec, command: tuple[str, ...], *, seed: int, time_control: TimeControl,
                 cwd: str | None = None, env: Mapping[str, str] | None = None, sandbox: bool = False,
                 limits: Limits = Limits()) -> RefereeRun:
    control = time_control  # the whole of it: a bank or a game time the bot would run out of faults it here
    run = RefereeRun(spec.min_seats)
    policy = dataclasses.replace(SANDBOX_POLICY, enabled=sandbox)  # the referee launches it as check-bot's session does
    bots: list[BotProcess] = []
    try:
        for seat in range(spec.min_seats):
            bots.append(BotProcess.start(BotSpec(f"seat{seat}", command, cwd=cwd, env=dict(env or {}), sandbox=policy), control, limits))
        result = play_game(spec, bots, seed=seed, time_control=control)
        run.decisions = result.decisions
        run.faults += [f"seat {f.seat} {f.kind.value} (step {f.step}): {clean(f.detail, 300)}" for f in result.faults]
    except ArenaError as exc:
        run.problem = clean(str(exc), 500)
    finally:
        for bot in bots:
            bot.close()
            run.faults += [f"{f.kind.value} at close: {clean(f.detail, 300)}" for f in bot.close_faults]
    return run
