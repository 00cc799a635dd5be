"""One function plays a task and maps what it raised to an event, for every executor (inline, local
pool, Dask): the same exception gives the same event wherever the game was played."""

from __future__ import annotations

from typing import Any, cast

import pytest

from arena.errors import ConfigError
from arena.tournament.run.messages import GameDone, GameFailed, GameTask, WorkerBug
from arena.tournament.run.player import GamePlayer, play_event

TASK = GameTask(game=cast(Any, None), key="k")


class Player:
    def __init__(self, outcome: BaseException | str) -> None:
        self.outcome = outcome

    def play(self, task: GameTask) -> Any:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def event(outcome: BaseException | str) -> object:
    return play_event(cast(GamePlayer, Player(outcome)), TASK)


def test_a_played_game_an_arena_error_and_a_bug() -> None:
    assert event("stored") == GameDone(TASK, cast(Any, "stored"))
    assert event(ConfigError("fix the output path")) == GameFailed(TASK, "fix the output path")
    bug = event(ZeroDivisionError("oops"))
    assert isinstance(bug, WorkerBug) and bug.task == TASK
    assert "ZeroDivisionError: oops" in bug.traceback and "in play" in bug.traceback  # where it happened


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(3)])
def test_ctrl_c_and_exit_pass_through(exc: BaseException) -> None:
    with pytest.raises(type(exc)):
        event(exc)

