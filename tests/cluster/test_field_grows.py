"""The field grows and shrinks without restarts (issue 39 item 2): an entrant added to a running
executor reaches its workers as a message, plays its first game within seconds, and every other bot
process stays alive (process ids compared before and after); a retired entrant's bots are closed.
On the local pool and on Dask; the control restarts the executor, as the ladder did, and sees new pids."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.tournament.config import tournament as tconfig
from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run.executor import Executor
from arena.tournament.run.local_pool import LocalPool
from arena.tournament.run.messages import GameDone, GameTask, PlayerSetup
from arena.core.scheduled import ScheduledGame
from tests.cluster.test_dask import BOT, SECRET, _marked, _cmdline, mark  # noqa: F401 - `mark`: the fixture

pytestmark = [pytest.mark.cluster, pytest.mark.process]


def _config(tmp_path: Path) -> tconfig.TournamentConfig:
    data = {"name": "grow", "game": "kododo", "players": 2, "sandbox": False, "seed": 3,
            "entrants": [{"name": f"bot{i}", "command": ["{python}", str(BOT), "--salt", f"s{i}"]} for i in range(4)],
            "schedule": {"rounds": 1}, "output": {"store": "grow.sqlite"}}
    path = tmp_path / "grow.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return tconfig.load(path)


def _executor(where: str) -> Executor:
    if where == "local":
        return LocalPool(2)
    from arena.tournament.run.dask_pool import DaskExecutor

    return DaskExecutor(ClusterSpec.parse("local:2"), batch=1)


class Games:
    def __init__(self) -> None:
        self.index = 0

    def play(self, executor: Executor, tables: list[tuple[int, int]]) -> list[GameDone]:
        """Play these tables (two seats each), every worker busy, until all are back."""
        done: list[GameDone] = []
        todo = list(tables)
        while len(done) < len(tables):
            while todo and len(tables) - len(todo) - len(done) < executor.capacity:
                self.index += 1
                seats = todo.pop(0)
                executor.submit(GameTask(ScheduledGame(self.index, self.index, 0, 0, seats, 1000 + self.index), str(self.index)))
            event = executor.next_event()
            assert isinstance(event, GameDone), event
            done.append(event)
        return done


def _bots(mark: str) -> dict[str, set[int]]:
    """Each entrant's live bot processes (by its salt), among this test's marked processes."""
    out: dict[str, set[int]] = {}
    for pid in _marked(mark):
        command = _cmdline(pid)
        if BOT.name in command:  # on Dask, run from its unpacked copy
            salt = command.split("--salt ", 1)[1].split()[0]
            out.setdefault(salt, set()).add(pid)
    return out


@pytest.mark.parametrize("where", ["local", "dask"])
@pytest.mark.parametrize("grows", [True, False], ids=["grow", "control-restart"])
def test_a_new_entrant_plays_within_seconds_and_no_other_bot_restarts(tmp_path: Path, mark: str, where: str, grows: bool) -> None:
    full = _config(tmp_path)
    first = dataclasses.replace(full, entrants=full.entrants[:3])
    executor = _executor(where)
    executor.start(PlayerSetup(first, secret=SECRET))
    games = Games()
    try:
        games.play(executor, [(0, 1), (1, 2), (0, 2), (2, 1)] * 2)
        before = _bots(mark)
        assert set(before) == {"s0", "s1", "s2"}
        status = executor.workers_status()  # type: ignore[attr-defined]  # what the admin page and `arena ladder status` show
        assert len(status) == 2 and sum(w["games_per_minute"] for w in status) == 8, status
        if where == "dask":
            assert all(w["cache"]["archives"] >= 1 and w["cache"]["refused"] == 0 for w in status), status
        joined = time.monotonic()
        if grows:
            executor.grow(PlayerSetup(full, secret=SECRET))
        else:  # what the ladder did: let the games end, start again with the new field
            executor.close(False)
            executor = _executor(where)
            executor.start(PlayerSetup(full, secret=SECRET))
        new = games.play(executor, [(3, 0), (1, 3)])
        first_game_s = time.monotonic() - joined
        assert all(3 in g.task.game.seats for g in new)
        after = _bots(mark)
        kept = {salt: before[salt] & after.get(salt, set()) for salt in before}
        if not grows:
            assert all(not pids for pids in kept.values()), "control: a restart keeps no bot process"
            return
        assert kept == before, f"bot processes restarted: before {before}, after {after}"
        assert "s3" in after
        assert first_game_s < 10.0, first_game_s
        executor.grow(PlayerSetup(full, secret=SECRET), retired=(0,))  # bot0 leaves the field
        games.play(executor, [(1, 2), (2, 3), (3, 1), (1, 2)])
        gone = _bots(mark)
        assert "s0" not in gone, "a retired entrant's bot is still running"
        assert {s: gone[s] & before.get(s, after[s]) for s in ("s1", "s2")} == {s: before[s] for s in ("s1", "s2")}
    finally:
        executor.close(False)
