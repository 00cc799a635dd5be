"""The Dask executor on a real LocalCluster: the same standings as local workers, whatever dies.

Each test marks every process it starts with an environment variable (inherited by the Dask workers,
their nannies and every bot), and asserts at the end that no marked process is left on the machine.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from arena.stats.standings import store_standings
from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.tournament.run.dask_pool import DaskExecutor
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner
from arena.results.store import Store

pytestmark = pytest.mark.cluster

REPO = Path(__file__).parents[2]
BOT = REPO / "tests" / "tournament" / "bots" / "det_bot.py"
ARENA = str(Path(sys.executable).parent / "arena")
SECRET = "0123456789abcdef0123456789abcdef"  # one secret for runs whose results are compared


@pytest.fixture
def mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A marker in the environment of everything this test starts; none may outlive the test."""
    value = uuid.uuid4().hex
    monkeypatch.setenv("ARENA_TEST_MARK", value)
    yield value
    left = _wait_gone(value, 30.0)
    assert left == [], f"processes left behind: {[_cmdline(pid) for pid in left]}"


def _marked(value: str) -> list[int]:
    needle = f"ARENA_TEST_MARK={value}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if needle in (entry / "environ").read_bytes() and not _our_multiprocessing_helper(int(entry.name)):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _our_multiprocessing_helper(pid: int) -> bool:
    """Python's own helpers that live as long as this test process, started by the local worker pool:
    the resource tracker and the fork server its workers are forked from (`local_pool.worker_context`).
    The fork server's workers are its children, not this process's: they still count."""
    parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    command = _cmdline(pid)
    return parent == os.getpid() and ("multiprocessing.resource_tracker" in command or "multiprocessing.forkserver" in command)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return f"{pid} (gone)"


def _wait_gone(value: str, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := _marked(value)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def _config(tmp_path: Path, name: str, rounds: int = 2, delay_ms: int = 0, **extra: Any) -> Path:
    data = {
        "name": "cluster-test",
        "game": "kododo",
        "players": 3,
        "entrants": [
            {"name": f"bot{i}", "command": ["{python}", str(BOT), "--salt", f"s{i}", "--delay-ms", str(delay_ms)]}
            for i in range(4)
        ],
        "schedule": {"rounds": rounds},
        "seed": 11,
        "output": {"store": f"{name}.sqlite"},
        **extra,
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _stored(store: Path) -> list[tuple[Any, ...]]:
    with Store.open_existing(store) as s:
        return [(g.index, g.seed, g.seats, g.played.points, g.ranks) for g in s.games()]


def _count(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as db:
            return int(db.execute("select count(*) from games").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_the_demo_config_gives_the_same_standings_locally_and_on_a_local_cluster(tmp_path: Path, mark: str) -> None:
    demo = yaml.safe_load((REPO / "configs" / "kododo.yaml").read_text(encoding="utf-8"))
    demo["root"] = str(REPO)
    demo["schedule"]["rounds"] = 3  # the demo's bots and seating, fewer deals
    results = {}
    for where in ("local", "local:2"):
        demo["output"] = {"store": str(tmp_path / f"{where.replace(':', '')}.sqlite")}
        path = tmp_path / f"demo-{where.replace(':', '')}.yaml"
        path.write_text(yaml.safe_dump(demo), encoding="utf-8")
        cfg = tconfig.load(path)
        executor = None if where == "local" else DaskExecutor(ClusterSpec.parse(where))
        summary = runner.run(cfg, concurrency=2, quiet=True, executor=executor, secret=SECRET)
        assert summary.played == summary.total == 12
        results[where] = (summary.standings, _stored(cfg.store))
    assert results["local"] == results["local:2"]


def test_a_worker_killed_mid_run_loses_only_its_game(tmp_path: Path, mark: str) -> None:
    local = tconfig.load(_config(tmp_path, "local"))
    expected = runner.run(local, concurrency=1, quiet=True, secret=SECRET)

    cfg = tconfig.load(_config(tmp_path, "cluster", delay_ms=20))
    executor = DaskExecutor(ClusterSpec.parse("local:2"), batch=1)  # one game a task: the kill lands mid-game
    killed: list[int] = []

    def kill_one_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _count(cfg.store) < 4:
            time.sleep(0.05)
        pids = executor.client.run(os.getpid)  # worker address -> pid, while games are in flight
        victim = sorted(pids.values())[0]
        os.kill(victim, signal.SIGKILL)
        killed.append(victim)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    notices = tmp_path / "notices.txt"
    with notices.open("w") as out:
        summary = runner.run(cfg, quiet=True, executor=executor, notices=out, secret=SECRET)
    killer.join()
    assert killed, "the test did not kill a worker"
    assert "ended unexpectedly" in notices.read_text(), "the lost worker was not reported"
    assert summary.workers_lost >= 1
    stored = _stored(cfg.store)
    assert [g[0] for g in stored] == list(range(summary.total)), "a game missing or stored twice"
    assert stored == _stored(local.store)
    assert summary.standings == expected.standings


def test_a_coordinator_killed_mid_run_resumes_without_duplicates(tmp_path: Path, mark: str) -> None:
    # Six rounds: the first batches are of up to 12 games, each stored once its check returns, so with
    # two rounds a quiet machine could store all 24 games between two looks at the store.
    local = tconfig.load(_config(tmp_path, "local", rounds=6))
    expected = runner.run(local, concurrency=1, quiet=True, secret=SECRET)

    path = _config(tmp_path, "cluster", delay_ms=20, rounds=6)
    cfg = tconfig.load(path)
    first = subprocess.Popen([ARENA, "run", "--secret", SECRET, str(path), "-q", "--cluster", "local:2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _count(cfg.store) < 4 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert 4 <= _count(cfg.store) < local.schedule.rounds * 12, "the kill did not land mid-run"
    assert _wait_gone(mark, 30.0) == [], "workers or bots outlived their coordinator"

    again = subprocess.run([ARENA, "run", "--secret", SECRET, str(path), "-q", "--cluster", "local:2"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    stored = _stored(cfg.store)
    assert [g[0] for g in stored] == list(range(local.schedule.rounds * 12)), "a game missing or stored twice"
    assert stored == _stored(local.store)
    with Store.open_existing(cfg.store) as s:
        assert store_standings(s) == expected.standings


def test_an_entrant_that_cannot_start_on_a_worker_is_named_before_any_game(tmp_path: Path, mark: str) -> None:
    script = tmp_path / "bot.py"
    script.write_text(BOT.read_text(encoding="utf-8"), encoding="utf-8")
    path = _config(tmp_path, "cluster")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["entrants"][2]["command"] = ["{python}", str(script), "--salt", "x"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    cfg = tconfig.load(path)
    script.write_text("import sys; sys.exit(3)\n", encoding="utf-8")  # changed after the config was checked
    with pytest.raises(ClusterError) as caught:
        runner.run(cfg, quiet=True, executor=DaskExecutor(ClusterSpec.parse("local:1")), secret=SECRET)
    message = str(caught.value)
    assert "worker tcp://" in message and "entrant 'bot2'" in message
    assert _count(cfg.store) == 0


def test_the_config_and_the_command_line_choose_the_cluster(tmp_path: Path, mark: str) -> None:
    path = _config(tmp_path, "cfg", rounds=1, executor={"dask": "local:1"})
    assert tconfig.load(path).cluster == "local:1"
    done = subprocess.run([ARENA, "run", "--secret", SECRET, str(path), "-q"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "12/12 games stored" in done.stdout
    bad = _config(tmp_path, "bad", executor={"dask": "somewhere"})
    with pytest.raises(tconfig.ConfigError) as caught:
        tconfig.load(bad)
    assert "executor.dask" in str(caught.value)


@pytest.mark.parametrize(
    "text, expected",
    [("local:2", ClusterSpec(local_workers=2)), ("tcp://10.0.0.5:8786", ClusterSpec(address="tcp://10.0.0.5:8786"))],
)
def test_cluster_addresses(text: str, expected: ClusterSpec) -> None:
    assert ClusterSpec.parse(text) == expected


@pytest.mark.parametrize("text", ["local:0", "local:x", "10.0.0.5:8786", ""])
def test_bad_cluster_addresses_say_what_to_write(text: str) -> None:
    with pytest.raises(ClusterError, match="local:N|local:2"):
        ClusterSpec.parse(text)


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path, mark: str) -> None:
    cfg = tconfig.load(_config(tmp_path, "cluster", rounds=1))
    executor = DaskExecutor(ClusterSpec.parse("tcp://127.0.0.1:9"))
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        runner.run(cfg, quiet=True, executor=executor, secret=SECRET)
