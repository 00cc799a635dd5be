"""Planning a branch of a recorded game: which steps are replayed, and who plays each seat from then on.

`plan_branch(path, from_step, seats)` reads and verifies the original replay (a branch of a game that
does not verify would prove nothing), checks the branch point and the seats, and returns the plan:
the `Script` of the recorded steps and one `SeatPlan` per seat. A seat is played from the branch point
by the command given for it, else by its own command from the replay's header (run in the recorded
`cwd`), or, for `Play.RECORDED`, by `arena.audit.recorded_bot`, which keeps the seat's recorded
actions while they are legal. `plan.bot_specs(sandboxed)` turns the plan into the bots to start.
"""

from __future__ import annotations

import enum
import os
import sys
from dataclasses import dataclass
from typing import Mapping, Union

from arena.errors import BranchError, ReplayError
from arena.replay import Replay, load_replay
from arena.referee.script import Script
from arena.referee.session import BotSpec
from arena.audit.verify import verify_replay
from arena.rng import bot_seed
from arena.sandbox.policy import SandboxPolicy
from arena.textsafe import clean


class Play(enum.Enum):
    ORIGINAL = "original"  # the seat's own command, from the replay's header
    GIVEN = "given"  # a command given for the branch
    RECORDED = "recorded"  # the seat's recorded actions while they are legal (arena.audit.recorded_bot)


SeatChoice = Union[tuple[str, ...], Play]  # a command, or Play.RECORDED


@dataclass(frozen=True)
class SeatPlan:
    seat: int
    entrant: str
    command: tuple[str, ...]
    cwd: str | None
    play: Play


@dataclass(frozen=True)
class BranchPlan:
    source: str  # the original replay's path
    replay: Replay
    steps: int  # the original game's number of steps
    script: Script
    seats: tuple[SeatPlan, ...]

    def bot_specs(self, sandboxed: bool, hide: tuple[str, ...] = ()) -> list[BotSpec]:
        """One bot per seat. Each gets ARENA_SEED derived from the game's seed and its seat, as under
        `arena play`, so a bot that seeds itself from it plays the original game's moves again.
        The recorded-actions bot is arena's own code: it runs unsandboxed. The original replay and
        `hide` (the branch's output) are masked from every sandboxed bot."""
        hidden = tuple(os.path.abspath(p) for p in (self.source, *hide))
        seed = self.replay.header.seed
        specs = []
        for seat in self.seats:
            env = {"ARENA_SEED": str(bot_seed(seed, seat.seat))}
            policy = SandboxPolicy(enabled=sandboxed and seat.play is not Play.RECORDED, hide=hidden, private=hidden)
            specs.append(BotSpec(seat.entrant, seat.command, seat.cwd, env, sandbox=policy))
        return specs


def recorded_command(path: str, seat: int) -> tuple[str, ...]:
    return (sys.executable, "-m", "arena.audit.recorded_bot", os.path.abspath(path), str(seat))


MOVED_MODULES = {"arena.referee.recorded_bot": "arena.audit.recorded_bot"}  # where arena's own seat players live now


def current_command(command: tuple[str, ...]) -> tuple[str, ...]:
    """A command from a replay's header as it runs today: an older branch's recorded seat named
    `python -m arena.referee.recorded_bot`, a module since moved to arena.audit."""
    out = list(command)
    for i in range(len(out) - 1):
        if out[i] == "-m" and out[i + 1] in MOVED_MODULES:
            out[i + 1] = MOVED_MODULES[out[i + 1]]
    return tuple(out)


def plan_branch(path: str, from_step: int, seats: Mapping[int, SeatChoice]) -> BranchPlan:
    """The branch of the replay at `path` from step `from_step`; BranchError (or the ReplayError of a
    replay that does not read or verify) says what to fix."""
    replay = load_replay(path)
    try:
        report = verify_replay(replay)
    except ReplayError as exc:
        raise BranchError(f"cannot branch from a replay that does not verify: {exc}") from None
    header = replay.header
    count = len(header.seats)
    for seat in seats:
        if not 0 <= seat < count:
            raise BranchError(f"--seat {seat}: the game in {clean(path, 300)} has seats 0 to {count - 1}")
    steps = report.steps
    if not 0 <= from_step < steps:
        raise BranchError(f"--from-step {from_step}: the game in {clean(path, 300)} has {steps} steps, numbered 0 to "
                          f"{steps - 1}: branch at one of them")
    plans = []
    for info in header.seats:
        choice = seats.get(info.seat)
        if choice is None or choice is Play.ORIGINAL:
            if not info.command:
                raise BranchError(f"seat {info.seat} has no command in the replay's header: give one with "
                                  f"--seat {info.seat}=CMD")
            plans.append(SeatPlan(info.seat, info.entrant, current_command(info.command), info.cwd, Play.ORIGINAL))
        elif choice is Play.RECORDED:
            plans.append(SeatPlan(info.seat, f"recorded-seat{info.seat}", recorded_command(path, info.seat), None,
                                  Play.RECORDED))
        elif isinstance(choice, tuple):
            plans.append(SeatPlan(info.seat, f"seat{info.seat}", choice, None, Play.GIVEN))
        else:
            raise BranchError(f"--seat {info.seat}: {choice.value} is not a way to play a seat")
    return BranchPlan(path, replay, steps, Script.from_replay(replay, from_step), tuple(plans))

