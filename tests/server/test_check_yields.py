"""The check's CPU is protected from the ladder (issue 36, "check verdicts"): while a submission is
checked, the ladder starts no new game, and its games in flight end before the check begins, so the
check's timing is judged on a machine the ladder leaves alone; the ladder resumes once the check ends.

The real ladder loop runs (its supervisor part, in a thread) with its worker pool replaced by a fake
one whose games take GAME_S each (no bot process); the check is a stand-in that takes CHECK_S. The
control gives the checker a gate of its own (the protection unplugged): new ladder games then start
during the check."""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from arena.ladder import checker as checker_module, ladder as ladder_module
from arena.ladder.checker import Checker, Verdict
from arena.ladder.supervisor import CheckGate, Part
from arena.tournament.run.messages import Event, GameFailed, GameTask
from arena.tournament.run.player import PlayerSetup
from tests.server.inprocess import make_server

GAME_S = 0.3
CHECK_S = 1.2


class FakePool:
    """A pool whose every game lasts GAME_S and then ends (as a dropped game: no result to store)."""

    starts: list[float] = []  # when each game was submitted (class-wide: the ladder makes the pool)
    ends: list[float] = []

    def __init__(self, workers: int, cpus: Any = None, live: Any = None) -> None:
        self.capacity = workers
        self.running: deque[tuple[float, GameTask]] = deque()

    def start(self, setup: PlayerSetup) -> None:
        pass

    def submit(self, task: GameTask) -> None:
        FakePool.starts.append(time.monotonic())
        self.running.append((time.monotonic() + GAME_S, task))

    def next_event(self) -> Event:
        until, task = self.running.popleft()
        time.sleep(max(0.0, until - time.monotonic()))
        FakePool.ends.append(time.monotonic())
        return GameFailed(task, "fake game over")

    def close(self, interrupted: bool) -> list[Event]:
        self.running.clear()
        return []


@pytest.mark.parametrize("shared", [True, False], ids=["gate", "control-no-gate"])
def test_the_ladder_starts_no_game_while_a_check_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool) -> None:
    FakePool.starts, FakePool.ends = [], []
    monkeypatch.setattr(ladder_module, "LocalPool", FakePool)
    bot = tmp_path / "never_started.py"  # the fake pool starts no process
    bot.write_text("")
    house = [{"name": f"h{i}", "command": ["python3", str(bot)]} for i in range(4)]
    server = make_server(tmp_path, monkeypatch, house_bots=house, ladder={"workers": 2})
    ladder = server.ladder
    checker = server.checker if shared else Checker(server.db, server.config, False, lambda _bot: None, CheckGate())
    window: list[float] = []

    def stand_in(*args: Any, **kwargs: Any) -> Verdict:
        window.append(time.monotonic())
        time.sleep(CHECK_S)
        window.append(time.monotonic())
        return Verdict(False, "stand-in", "")

    monkeypatch.setattr(checker_module, "check_submission", stand_in)
    part = Part("ladder", ladder.run, 60.0)
    thread = threading.Thread(target=ladder.run, args=(part,), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while len(FakePool.starts) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(FakePool.starts) >= 4, "the ladder plays games before the check"
        row = {"id": 1, "manifest": '{"command": ["true"], "name": "x", "version": "1"}', "folder": "", "participant_id": 1}
        asked = time.monotonic()
        checker.check_one(row)
        began, ended = window
        time.sleep(4 * GAME_S)
    finally:
        ladder.stop()
        thread.join(10)
    during = [t for t in FakePool.starts if began <= t <= ended]
    after = [t for t in FakePool.starts if t > ended]
    running_at_begin = sum(1 for s in FakePool.starts if s < began) - sum(1 for e in FakePool.ends if e <= began)
    assert after, "the ladder resumes once the check ends"
    if shared:
        assert during == [], f"{len(during)} ladder game(s) started while the check ran"
        assert running_at_begin == 0, "the games in flight ended before the check began"
        assert began - asked < GAME_S + 0.5  # it waited for those games, no longer
    else:  # the control: unprotected, the ladder keeps its pool full while the check runs
        assert len(during) >= 2 and running_at_begin > 0


@pytest.mark.parametrize("turn_s", [5.0, 0.0], ids=["turn", "control-no-turn"])
def test_a_queue_of_checks_slows_the_ladder_but_never_stops_it(turn_s: float) -> None:
    """After each check the ladder gets its turn: the next check waits until the ladder has started a
    game (its games then end before the check begins). The control (no turn): back-to-back checks hold
    the ladder for as long as the queue lasts."""
    gate = CheckGate(turn_s=turn_s)
    assert gate.begin(1.0)
    gate.end()  # the first check of a queue
    began: list[float] = []
    second = threading.Thread(target=lambda: began.append(gate.begin(10.0, slice_s=0.05) and time.monotonic()))
    second.start()
    time.sleep(0.3)
    ladder_started = gate.admit()  # the ladder, woken by the end of the check, asks to start a game
    if turn_s:
        assert ladder_started and not began, "the next check waits for the ladder's game"
        time.sleep(0.3)
        assert not began  # ... and for it to end
        ended = time.monotonic()
        gate.ended()
        second.join(5)
        assert began and began[0] >= ended
    else:
        second.join(5)
        assert not ladder_started and began, "the control: the ladder gets no game between two checks"
    gate.end()
