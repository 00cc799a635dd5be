"""The runner with real bot processes: concurrency does not change results; kills and Ctrl-C lose nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.jsonvalue import loads
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner
from arena.results.store import Store

from tests.support.tournament import REPO, SECRET, det_entrants

pytestmark = pytest.mark.process

ARENA = [str(Path(sys.executable).parent / "arena")]


def small(rounds: int, delay_ms: float = 0.0, **extra: Any) -> dict[str, Any]:
    return {
        "name": "small",
        "game": "kododo",
        "players": 3,
        "entrants": det_entrants(4, delay_ms),
        "schedule": {"rounds": rounds},
        "seed": 3,
        **extra,
    }


def _standings_json(store: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["standings", "--json", str(store)])
    assert result.exit_code == 0, result.output
    return loads(result.stdout)["standings"]


def test_concurrency_1_and_2_give_identical_standings(write_config: Callable[..., Path]) -> None:
    cfg1 = tconfig.load(write_config(small(1, output={"store": "one.sqlite"}), "one.yaml"))
    cfg2 = tconfig.load(write_config(small(1, output={"store": "two.sqlite"}), "two.yaml"))
    s1 = runner.run(cfg1, concurrency=1, quiet=True, secret=SECRET)
    s2 = runner.run(cfg2, concurrency=2, quiet=True, secret=SECRET)
    assert s1.played == s2.played == len(cfg1.games()) == 12
    assert s1.standings == s2.standings
    with Store.open_existing(cfg1.store) as a, Store.open_existing(cfg2.store) as b:
        strip = lambda g: (g.index, g.seed, g.seats, g.points, g.ranks)  # noqa: E731
        assert [strip(g) for g in a.games()] == [strip(g) for g in b.games()]
    # A second run of the same config finds everything stored and plays nothing.
    again = runner.run(cfg1, concurrency=2, quiet=True, secret=SECRET)
    assert again.played == 0 and again.stored == 12 and again.standings == s1.standings


def test_restart_bots_every_game_gives_the_same_results(write_config: Callable[..., Path]) -> None:
    cfg = tconfig.load(write_config(small(1, output={"store": "r.sqlite"}), "r.yaml"))
    ref = tconfig.load(write_config(small(1, output={"store": "k.sqlite"}), "k.yaml"))
    restarted = runner.run(cfg, concurrency=1, restart_bots=True, quiet=True, secret=SECRET)
    kept = runner.run(ref, concurrency=1, quiet=True, secret=SECRET)
    assert restarted.standings == kept.standings


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def _wait_for(predicate: Callable[[], bool], timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the run ended (status {proc.returncode}) before {what}: {err.decode()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _group_gone(pgid: int) -> bool:
    """No live process in the group. Zombies do not count: they have exited, and whether pid 1 reaps
    them at once (multiprocessing's resource tracker ends as one) is up to the container."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            state, group = fields[0], int(fields[2])
            if group == pgid and state not in (b"Z", b"X"):
                return False
    return True


def _bots_running(marker: str) -> list[int]:
    """Processes whose command line mentions `marker` (our test's private folder): the bots."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                continue
    return pids


def _start(config: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*ARENA, "run", "--quiet", "--secret", SECRET, *args, str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group, as a terminal would give it
        cwd=REPO,
    )


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for leftover processes")
def test_sigkill_then_rerun_equals_an_uninterrupted_run(write_config: Callable[..., Path], tmp_path: Path) -> None:
    killed_cfg = write_config(small(4, delay_ms=3, output={"store": "killed.sqlite"}), "killed.yaml")
    whole_cfg = write_config(small(4, output={"store": "whole.sqlite"}), "whole.yaml")
    killed_store, whole_store = tmp_path / "killed.sqlite", tmp_path / "whole.sqlite"

    proc = _start(killed_cfg, "--concurrency", "2")
    try:
        _wait_for(lambda: _stored(killed_store) >= 5, 60, "some games to be stored", proc)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    stored_at_kill = _stored(killed_store)
    assert 5 <= stored_at_kill < 48
    # The workers notice their parent is gone, finish or drop their game, and close their bots.
    _wait_for(lambda: _group_gone(proc.pid), 30, "the killed run's workers to exit")
    _wait_for(lambda: not _bots_running(str(tmp_path)), 30, "the killed run's bots to exit")

    rerun = _start(killed_cfg, "--concurrency", "2")
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    assert f"48/48 games stored" in out.decode()

    whole = _start(whole_cfg, "--concurrency", "1")
    out, err = whole.communicate(timeout=120)
    assert whole.returncode == 0, err.decode()

    with sqlite3.connect(killed_store) as conn:
        count, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games").fetchone()
    assert count == distinct == 48
    assert _standings_json(killed_store) == _standings_json(whole_store)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for leftover processes")
def test_ctrl_c_stops_cleanly_keeps_what_finished_and_resumes(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = write_config(small(4, delay_ms=3, output={"store": "c.sqlite"}), "c.yaml")
    store = tmp_path / "c.sqlite"
    proc = _start(cfg, "--concurrency", "2")
    _wait_for(lambda: _stored(store) >= 3, 60, "some games to be stored", proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert "interrupted" in err.decode() and "Traceback" not in err.decode()
    # Workers were joined before the exit; multiprocessing's resource tracker ends when it sees us go.
    _wait_for(lambda: _group_gone(proc.pid), 5, "the run's processes to exit")
    assert not _bots_running(str(tmp_path))
    kept = _stored(store)
    assert kept >= 3
    rerun = _start(cfg)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    assert _stored(store) == 48
