"""The Executor seam: the coordinator works with any executor that honours the contract (a cluster
executor plugs in here), replays what a lost worker held, and stops on a game lost too often."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

import pytest

from arena.errors import RunnerError
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner
from arena.tournament.run.executor import InlineExecutor
from arena.tournament.run.messages import Event, GameTask, WorkerLost
from arena.tournament.run.player import PlayerSetup

from tests.support.tournament import SECRET, small


pytestmark = pytest.mark.process


class Losing:
    """Plays in-process, but loses the worker holding the tasks whose index is in `doomed`, every time
    (as a cluster whose node died would report it)."""

    def __init__(self, doomed: set[int], times: int) -> None:
        self.inner = InlineExecutor()
        self.capacity = 2
        self.doomed = doomed
        self.times = times
        self.held: list[GameTask] = []
        self.lost = 0

    def start(self, setup: PlayerSetup) -> None:
        self.inner.start(setup)

    def submit(self, task: GameTask) -> None:
        self.held.append(task)

    def next_event(self) -> Event:
        task = self.held.pop(0)
        if task.index in self.doomed and task.attempt <= self.times:
            self.lost += 1
            return WorkerLost(f"node {self.lost}", "the node stopped answering", (task,))
        self.inner.submit(task)
        return self.inner.next_event()

    def close(self, interrupted: bool) -> list[Event]:
        return self.inner.close(interrupted)


def test_a_game_lost_with_its_worker_is_played_again_and_counted_once(write_config: Callable[..., Path]) -> None:
    ref = runner.run(tconfig.load(write_config(small(1, output={"store": "ref.sqlite"}), "ref.yaml")), concurrency=1, quiet=True, secret=SECRET)
    executor = Losing({0, 5}, times=2)
    notices = io.StringIO()
    cfg = tconfig.load(write_config(small(1, output={"store": "lost.sqlite"}), "lost.yaml"))
    summary = runner.run(cfg, quiet=True, executor=executor, notices=notices, secret=SECRET)
    assert summary.played == 12 and summary.workers_lost == executor.lost == 4
    assert summary.standings == ref.standings
    assert "arena: node 1 ended unexpectedly (the node stopped answering); playing game(s) 0 again" in notices.getvalue()


def test_a_game_lost_max_attempts_times_stops_the_run_with_one_line(write_config: Callable[..., Path]) -> None:
    cfg = tconfig.load(write_config(small(1, output={"store": "doom.sqlite"}), "doom.yaml"))
    with pytest.raises(RunnerError, match=rf"game 3 was lost with its worker {runner.MAX_ATTEMPTS} times .* rerun to resume"):
        runner.run(cfg, quiet=True, executor=Losing({3}, times=99), notices=io.StringIO(), secret=SECRET)
    again = runner.run(cfg, concurrency=1, quiet=True, secret=SECRET)  # the rerun resumes: nothing was lost
    assert 3 <= again.stored_before < 12 and again.played == 12 - again.stored_before and again.stored == 12
