"""A batch pinned to workers that have all left is sent again (`DaskExecutor._stranded`).

A check is pinned to the workers other than the one that played (`allow_other_workers=False`), and a
batch of games to the workers whose probe seated its entrants. When those workers die, a nanny restarts
them under new addresses, and Dask holds the pinned task in its `no-worker` state for ever: a CI run
hung so, a worker killed mid-run while a check was pinned to it. Here the lost worker is a phantom
address the executor believes in when it pins its first check, and which is gone by the next look (as a
killed worker is): the check waits in `no-worker`; the executor sends it again to the workers there now,
and the run ends with the games of a local run. Control: with `_stranded` switched off the same check
sits in `no-worker` (seen on the scheduler); switched back on, the run goes on."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.config import tournament as tconfig
from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run import runner
from arena.tournament.run.dask_pool import DaskExecutor
from tests.cluster.test_dask import SECRET, _config, _stored, mark  # noqa: F401 - `mark`: the fixture

pytestmark = [pytest.mark.cluster, pytest.mark.process]

PHANTOM = "tcp://127.0.0.1:9"  # no worker of the cluster: one that was there when the check was pinned


class Pinned(DaskExecutor):
    """Believes in PHANTOM until its first check has been pinned to it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pinned_to_phantom = 0
        self.protect = threading.Event()
        self.protect.set()

    def _workers(self) -> set[str]:
        alive = super()._workers()
        return alive if self.pinned_to_phantom else alive | {PHANTOM}

    def _send_check(self, claims: Any) -> None:
        super()._send_check(claims)
        if any(PHANTOM in allowed for allowed in self.pinned.values()):
            self.pinned_to_phantom += 1

    def _stranded(self) -> bool:
        return super()._stranded() if self.protect.is_set() else False


def _no_worker_tasks(executor: DaskExecutor) -> list[str]:
    def stuck(dask_scheduler: Any) -> list[str]:
        return [key for key, ts in dask_scheduler.tasks.items() if ts.state == "no-worker"]

    return list(executor.client.run_on_scheduler(stuck))


@pytest.mark.parametrize("protect", [True, False], ids=["sent-again", "control-held-then-sent"])
def test_a_check_pinned_to_a_worker_that_left_is_sent_again(tmp_path: Path, mark: str, protect: bool) -> None:  # noqa: F811
    local = tconfig.load(_config(tmp_path, "local", rounds=1))
    runner.run(local, concurrency=1, quiet=True, secret=SECRET)
    cfg = tconfig.load(_config(tmp_path, "cluster", rounds=1))
    executor = Pinned(ClusterSpec.parse("local:1"), batch=1)
    held: list[list[str]] = []
    if not protect:
        executor.protect.clear()

        def watch() -> None:  # the control: the check is held for the phantom until the protection is back
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                stuck = _no_worker_tasks(executor) if executor.client is not None else []
                if stuck:
                    time.sleep(3)  # held, not merely on its way to a worker
                    held.append(_no_worker_tasks(executor))
                    break
                time.sleep(0.2)
            executor.protect.set()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
    summary = runner.run(cfg, quiet=True, executor=executor, secret=SECRET)
    assert executor.pinned_to_phantom >= 1, "no check was pinned to the worker that left"
    assert summary.played == summary.total
    assert _stored(cfg.store) == _stored(local.store)
    if not protect:
        watcher.join()
        assert held and any("check" in key for key in held[0]), f"the control saw no check held for the lost worker: {held}"
