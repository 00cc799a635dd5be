"""A worker that lies about its results (issue 39 item 3): each result is checked by another worker
(its replay re-simulated) before it is stored, so the lie is refused, the worker named, and the game
played again elsewhere; the stored games are those of an honest run. Control: without the check the
lie is stored."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from distributed import WorkerPlugin

from arena.tournament.config import tournament as tconfig
from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run import runner
from arena.tournament.run.dask_pool import DaskExecutor
from arena.tournament.run.messages import GameDone, PlayerSetup
from tests.cluster.test_dask import SECRET, _config, _stored, mark  # noqa: F401 - `mark`: the fixture

pytestmark = [pytest.mark.cluster, pytest.mark.process]
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the plugin travels to the workers by value


class Liar(WorkerPlugin):
    """On worker 0 only: every game it finishes is reported with 100 more points for seat 0."""

    def setup(self, worker: Any) -> None:
        if worker.name != 0:
            return
        from arena.tournament.run import dask_worker

        honest = dask_worker.play_event

        def lying(player: Any, task: Any) -> Any:
            event = honest(player, task)
            if isinstance(event, GameDone):
                played = event.stored.played
                points = (played.points[0] + 100, *played.points[1:])
                event = GameDone(event.task, dataclasses.replace(event.stored, played=dataclasses.replace(played, points=points)))
            return event

        dask_worker.play_event = lying  # type: ignore[assignment]


class WithLiar(DaskExecutor):
    def start(self, setup: PlayerSetup) -> None:
        super().start(setup)
        self.client.register_plugin(Liar(), name="liar")


@pytest.mark.parametrize("verify", [True, False], ids=["checked", "control-unchecked"])
def test_a_lying_worker_is_refused_named_and_its_games_played_elsewhere(tmp_path: Path, mark: str, verify: bool) -> None:  # noqa: F811
    local = tconfig.load(_config(tmp_path, "local", rounds=1))
    runner.run(local, concurrency=1, quiet=True, secret=SECRET)
    cfg = tconfig.load(_config(tmp_path, "cluster", rounds=1))
    notices = tmp_path / "notices.txt"
    with notices.open("w") as out:
        summary = runner.run(cfg, quiet=True, executor=WithLiar(ClusterSpec.parse("local:2"), batch=2, notices=out, verify=verify),
                             notices=out, secret=SECRET)
    assert summary.played == summary.total == 12
    said = notices.read_text()
    if not verify:
        assert _stored(cfg.store) != _stored(local.store), "control: the lie was not stored without the check"
        return
    assert _stored(cfg.store) == _stored(local.store), "a lie was stored"
    assert "was refused" in said and "Dask worker tcp://" in said and "claimed points" in said, said
