"""One real 3-player Kododo game with a misbehaving bot in seat 1 (the C sample bot in seats 0 and 2)."""

from __future__ import annotations

from pathlib import Path

from arena.core.faults import FaultKind, FaultPolicy
from arena.core.limits import Limits
from arena.core.result import GameResult
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.referee.session import BotSpec
from arena.audit.verify import verify_replay
from arena.replay import read_replay

from tests.support.bots import c_spec

FAST = TimeControl(decision_ms=1000, shutdown_ms=300)
BAD = 1


def play(start_bots, c_bot: str, bad: BotSpec, tmp_path: Path, *, time_control: TimeControl = FAST,
         limits: Limits = Limits(), policy: FaultPolicy = FaultPolicy.FORFEIT):
    specs = [c_spec(c_bot, 10), bad, c_spec(c_bot, 12)]
    bots = start_bots(*specs, time_control=time_control, limits=limits)
    replay = tmp_path / "game.jsonl"
    result = play_game("kododo", bots, seed=7, time_control=time_control, policy=policy, replay_path=replay)
    verify_replay(replay)  # a game with faults is still a verifiable game
    assert all(f.seat == BAD for f in result.faults), result.faults
    return bots, result, read_replay(replay)


def kinds(result: GameResult) -> list[FaultKind]:
    return [f.kind for f in result.faults]
