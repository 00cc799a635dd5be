"""How `arena run -j N` starts its workers: forked from a fork server that imported the referee once,
yet each worker holds nothing of the coordinator (its files: the store) and sees the coordinator's
environment as the worker starts, as a spawned worker would."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.tournament.config import tournament as tconfig
from arena.tournament.run import local_pool, runner

from tests.support.tournament import BOT, SECRET, small, start_run, stored_count, wait_for, worker_pids

pytestmark = pytest.mark.process


def _marking(marks: Path) -> dict[str, object]:
    """A 4-entrant tournament whose first bot (unsandboxed: it gets the worker's environment) appends
    $ARENA_TEST_MARK to `marks` as it starts, then plays as the test bot does."""
    data = small(1, sandbox=False)
    entrants = data["entrants"]
    assert isinstance(entrants, list)
    script = f'echo "$ARENA_TEST_MARK" >> {marks}; exec "$0" "$@"'
    entrants[0] = {**entrants[0], "command": ["sh", "-c", script, sys.executable, str(BOT), "--salt", "s0"]}
    return data


def _entry_without_env(conn: Any, setup: Any, cpu: int | None = None, env: dict[str, str] | None = None) -> None:
    """A worker's entry that drops the environment it is given (imported by the worker, by name)."""
    local_pool._worker_entry(conn, setup, cpu, None)


def test_a_worker_sees_the_coordinators_environment_as_it_starts_not_the_fork_servers(
        write_config: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marks = tmp_path / "marks.txt"
    monkeypatch.setenv("ARENA_TEST_MARK", "first")
    first = tconfig.load(write_config({**_marking(marks), "output": {"store": "a.sqlite"}}, "a.yaml"))
    runner.run(first, concurrency=2, quiet=True, secret=SECRET)  # starts the fork server (if no test did)
    monkeypatch.setenv("ARENA_TEST_MARK", "second")
    second = tconfig.load(write_config({**_marking(marks), "output": {"store": "b.sqlite"}}, "b.yaml"))
    runner.run(second, concurrency=2, quiet=True, secret=SECRET)
    seen = marks.read_text().splitlines()
    assert set(seen) == {"first", "second"}, seen  # each bot saw the variable as it was when its run began


def test_without_the_coordinators_environment_a_worker_has_the_fork_servers(
        write_config: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control of the test above: a worker given no environment keeps the fork server's, which
    was fixed when the server started, so a variable set since is not seen."""
    marks = tmp_path / "marks.txt"
    monkeypatch.setenv("ARENA_TEST_MARK", "first")
    first = tconfig.load(write_config({**_marking(marks), "output": {"store": "a.sqlite"}}, "a.yaml"))
    runner.run(first, concurrency=2, quiet=True, secret=SECRET)
    monkeypatch.setenv("ARENA_TEST_MARK", "second")
    monkeypatch.setattr(local_pool, "_worker_entry", _entry_without_env)
    second = tconfig.load(write_config({**_marking(marks), "output": {"store": "b.sqlite"}}, "b.yaml"))
    runner.run(second, concurrency=2, quiet=True, secret=SECRET)
    assert "second" not in marks.read_text().split()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to see the workers' open files")
def test_a_worker_holds_none_of_the_coordinators_files(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = write_config(small(3, delay_ms=20, output={"store": "s.sqlite"}), "s.yaml")
    store = tmp_path / "s.sqlite"
    proc = start_run(cfg, "-j", "2")
    try:
        wait_for(lambda: stored_count(store) >= 1 and len(worker_pids(proc.pid)) == 2, 60, "a game and two workers", proc)

        def open_files(pid: int) -> list[str]:
            out = []
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    out.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    pass
            return out

        assert str(store) in open_files(proc.pid)  # control: the coordinator has its store open
        for worker in worker_pids(proc.pid):
            assert not [f for f in open_files(worker) if f.startswith(str(store))]
    finally:
        proc.kill()
        proc.communicate()
