"""Dask workers that cannot read the coordinator's folders: bots travel by hash, through Dask.

A real `dask scheduler` and two `dask worker` processes, each worker in a bubblewrap mount namespace
where the coordinator's bot folder is an empty tmpfs (and each with a bot cache of its own), play a
tournament. Controls: the shared-path design (`DaskExecutor(shared_path=True)`: bots run from the
coordinator's paths) fails on the same hidden workers, and passes on workers that see the folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from arena.tournament.config import tournament as tconfig
from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.tournament.run import runner
from arena.tournament.run.dask_pool import DaskExecutor
from tests.cluster.test_dask import BOT, SECRET, _stored, mark  # noqa: F401 - `mark`: the fixture

pytestmark = [pytest.mark.cluster, pytest.mark.process]
DASK = str(Path(sys.executable).parent / "dask")


def _bots(tmp_path: Path) -> Path:
    """Four bots, each in its own folder under `bots/` (the folder the workers will not see)."""
    root = tmp_path / "bots"
    for i in range(4):
        folder = root / f"bot{i}"
        folder.mkdir(parents=True)
        shutil.copy(BOT, folder / "bot.py")
    return root


def _config(tmp_path: Path, name: str) -> Path:
    js = tmp_path / "bots" / "js"
    data = {
        "name": "no-shared-folder", "game": "kododo", "players": 3,
        "entrants": _entrants(),
        "schedule": {"rounds": 1}, "seed": 11,
        **({"entrants": [*_entrants(), {"name": "js", "command": ["node", "bots/js/random_bot.js", "2"], "cwd": "bots/js"}]}
           if js.is_dir() else {}), "sandbox": False,  # the workers' view is the point, not the bots' sandbox
        "output": {"store": f"{name}.sqlite"},
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _entrants() -> list[dict[str, Any]]:
    return [{"name": f"bot{i}", "command": ["{python}", f"bots/bot{i}/bot.py", "--salt", f"s{i}"], "cwd": f"bots/bot{i}"}
            for i in range(4)]


class Cluster:
    """A scheduler and two workers, each a process of its own; `hide`: folders each worker cannot see."""

    def __init__(self, tmp_path: Path, hide: tuple[Path, ...], jails: tuple[list[str], list[str]] = ([], [])) -> None:
        self.file = tmp_path / f"scheduler-{len(hide)}.json"
        self.procs: list[subprocess.Popen[bytes]] = []
        log = (tmp_path / "dask.log").open("ab")
        self.procs.append(subprocess.Popen([DASK, "scheduler", "--scheduler-file", str(self.file), "--port", "0",
                                            "--no-dashboard"], stdout=log, stderr=log))
        _wait(lambda: self.file.exists() and "address" in self.file.read_text() or None, 60)
        for i in range(2):
            cache = tmp_path / f"cache{i}-{len(hide)}"
            env = {**os.environ, "ARENA_BOT_CACHE": str(cache)}
            jail = ["bwrap", "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
            for folder in hide:
                jail += ["--tmpfs", str(folder)]
            jail += jails[i]
            self.procs.append(subprocess.Popen([*jail, DASK, "worker", "--scheduler-file", str(self.file), "--nthreads", "1",
                                                "--no-dashboard", "--name", f"w{i}"], stdout=log, stderr=log, env=env))
        self.address = json.loads(self.file.read_text())["address"]
        from distributed import Client

        with Client(self.address) as client:
            client.wait_for_workers(2, timeout=60)

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait(check: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


@pytest.fixture
def hidden(tmp_path: Path, mark: str) -> Iterator[Cluster]:  # noqa: F811 - pytest's fixture by name
    _bots(tmp_path)
    cluster = Cluster(tmp_path, (tmp_path / "bots",))
    yield cluster
    cluster.close()


def _run(tmp_path: Path, name: str, address: str, shared_path: bool, notices: Any = None) -> runner.RunSummary:
    cfg = tconfig.load(_config(tmp_path, name))
    executor = DaskExecutor(ClusterSpec.parse(address), shared_path=shared_path, notices=notices)
    return runner.run(cfg, quiet=True, executor=executor, secret=SECRET)


def test_workers_that_cannot_see_the_bots_folder_play_them_by_hash(tmp_path: Path, hidden: Cluster) -> None:
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "--tmpfs", str(tmp_path / "bots"), "ls", str(tmp_path / "bots")],
                           capture_output=True, text=True, check=True)
    assert probe.stdout == "", "the workers' jail shows the bots folder"
    summary = _run(tmp_path, "hashed", hidden.address, shared_path=False)
    assert summary.played == summary.total == 12
    local = tconfig.load(_config(tmp_path, "local"))
    expected = runner.run(local, concurrency=1, quiet=True, secret=SECRET)
    assert _stored(tmp_path / "hashed.sqlite") == _stored(local.store)
    assert summary.standings == expected.standings
    archives = [p for i in range(2) for p in (tmp_path / f"cache{i}-1" / "archives").glob("*.tgz")]
    assert archives, "no worker kept an archive in its cache"
    bots = tmp_path / "bots"
    match = subprocess.run([str(Path(sys.executable).parent / "arena"), "match", "kododo", f"{sys.executable} {bots}/bot0/bot.py",
                            f"{sys.executable} {bots}/bot1/bot.py --salt x", "--games", "6", "--no-sandbox", "--json",
                            "--store", str(tmp_path / "match.sqlite"), "--cluster", hidden.address],
                           capture_output=True, text=True, timeout=300)
    assert json.loads(match.stdout)["games"] == 6, match.stderr[-2000:]


def test_control_the_shared_path_design_fails_when_the_folder_is_hidden(tmp_path: Path, hidden: Cluster) -> None:
    with pytest.raises(ClusterError, match="entrant 'bot0'"):
        _run(tmp_path, "shared", hidden.address, shared_path=True)


def test_control_the_shared_path_design_passes_when_the_folder_is_shown(tmp_path: Path, mark: str) -> None:  # noqa: F811
    _bots(tmp_path)
    cluster = Cluster(tmp_path, ())
    try:
        summary = _run(tmp_path, "shared", cluster.address, shared_path=True)
    finally:
        cluster.close()
    assert summary.played == summary.total == 12


def test_a_worker_whose_cache_is_read_only_says_so_and_the_other_plays_every_game(tmp_path: Path, mark: str) -> None:  # noqa: F811
    bots = _bots(tmp_path)
    cache = tmp_path / "cache0-1"
    cache.mkdir()
    cluster = Cluster(tmp_path, (bots,), (["--ro-bind", str(cache), str(cache)], []))
    notices = tmp_path / "notices.txt"
    try:
        with notices.open("w") as out:
            summary = _run(tmp_path, "readonly", cluster.address, shared_path=False, notices=out)
    finally:
        cluster.close()
    assert summary.played == summary.total == 12
    said = notices.read_text()
    assert "plays no games" in said and "cannot be written" in said and str(cache) in said, said
    assert list((tmp_path / "cache1-1" / "archives").glob("*.tgz")), "the other worker kept no bot"


def test_a_worker_lacking_a_runtime_names_it_and_gets_none_of_that_entrants_games(tmp_path: Path, mark: str) -> None:  # noqa: F811
    bots = _bots(tmp_path)
    (bots / "js").mkdir()
    shutil.copy(Path(__file__).parents[2] / "sample_bots" / "js" / "random_bot.js", bots / "js")
    node = shutil.which("node")
    assert node is not None
    cluster = Cluster(tmp_path, (bots,), ([], ["--ro-bind", "/dev/null", node]))  # worker 1: no node
    notices = tmp_path / "notices.txt"
    try:
        with notices.open("w") as out:
            summary = _run(tmp_path, "runtime", cluster.address, shared_path=False, notices=out)
    finally:
        cluster.close()
    assert summary.played == summary.total
    said = notices.read_text()
    assert "plays no game of entrant 'js'" in said and "runtime missing: node" in said, said
    assert [f for _, f in summary.bot_faults if f.kind.value == "start_failed"] == [], "a js game went to the worker without node"
