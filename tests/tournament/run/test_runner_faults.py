"""Item 2 of issue 11: every failure of a bot is a fault charged to it, at any -j, and the run goes on;
a lost worker is reported and its game played again; Ctrl-C leaves no traceback."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner

from arena.tournament.run.player import played_game_id

from tests.support.tournament import SECRET, det_entrants, group_gone, small, standings_json, start_run, stored_count, wait_for, worker_pids

pytestmark = pytest.mark.process

DIES = Path(__file__).parents[1] / "bots" / "dies_bot.py"


def _faults_by_entrant(store: Path) -> dict[int, list[str]]:
    """entrant index -> the kinds of the faults charged to its seats, in schedule order."""
    from arena.results.store import Store

    out: dict[int, list[str]] = {}
    with Store.open_existing(store) as s:
        for g in s.games():
            for fault in g.played.faults:
                out.setdefault(g.seats[fault.seat], []).append(fault.kind.value)
    return out


def _run_both(write_config: Callable[..., Path], data: dict[str, Any]) -> tuple[runner.RunSummary, runner.RunSummary, Path, Path]:
    one = tconfig.load(write_config({**data, "output": {"store": "j1.sqlite"}}, "j1.yaml"))
    two = tconfig.load(write_config({**data, "output": {"store": "j2.sqlite"}}, "j2.yaml"))
    s1 = runner.run(one, concurrency=1, quiet=True, secret=SECRET)
    s2 = runner.run(two, concurrency=2, quiet=True, secret=SECRET)
    return s1, s2, one.store, two.store


def test_a_bot_that_cannot_start_is_charged_and_the_run_completes_at_j1_and_j2(write_config: Callable[..., Path]) -> None:
    data = small(1)
    data["entrants"][1]["command"] = ["{python}", "-c", "pass"]  # exits before its handshake, every time
    s1, s2, store1, store2 = _run_both(write_config, data)
    assert s1.played == s2.played == 12 and not s1.interrupted and not s2.interrupted
    assert s1.standings == s2.standings
    assert _faults_by_entrant(store1) == _faults_by_entrant(store2) == {1: ["start_failed"] * 9}
    bot1 = next(s for s in s1.standings if s.name == "bot1")
    assert bot1.faults == 9 and bot1.place == 4  # forfeit: last at every table
    for summary in (s1, s2):
        assert {(name, f.kind.value) for name, f in summary.bot_faults} == {("bot1", "start_failed")}
        assert "during the handshake" in summary.bot_faults[0][1].detail


def test_a_bot_that_fails_its_handshake_is_charged_not_fatal(write_config: Callable[..., Path]) -> None:
    data = small(1)
    data["entrants"][2]["command"] = ["{python}", "-c", "import sys; sys.stdin.readline(); print('not json', flush=True)"]
    s1, s2, store1, store2 = _run_both(write_config, data)
    assert s1.played == s2.played == 12 and s1.standings == s2.standings
    assert _faults_by_entrant(store1) == _faults_by_entrant(store2) == {2: ["start_failed"] * 9}


def test_a_bot_that_dies_on_its_second_game_is_charged_once_and_restarted(write_config: Callable[..., Path]) -> None:
    data = small(1)
    probe = tconfig.load(write_config(data, "probe.yaml"))
    second = [g for g in probe.games() if 3 in g.seats][1]  # bot3's second game in schedule order
    game_id = played_game_id(SECRET, probe.game, second)  # the id bots see
    data["entrants"][3]["command"] = ["{python}", str(DIES), "--die-in", game_id, "--salt", "s3"]
    for entrant in data["entrants"]:  # the dying bot lies beside the others: one author's test bots
        entrant["sandbox"] = {"shared_folder": True}
    s1, s2, store1, store2 = _run_both(write_config, data)
    assert s1.played == s2.played == 12
    assert s1.standings == s2.standings
    assert _faults_by_entrant(store1) == _faults_by_entrant(store2) == {3: ["crash"]}
    with sqlite3.connect(store1) as conn:
        (faults,) = conn.execute("SELECT faults FROM games WHERE idx = ?", (second.index,)).fetchone()
    assert '"crash"' in faults


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the workers")
def test_a_worker_killed_mid_run_is_reported_and_its_games_played_again(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = write_config(small(2, delay_ms=3, output={"store": "k.sqlite"}), "k.yaml")
    ref = write_config(small(2, output={"store": "ref.sqlite"}), "ref.yaml")
    store = tmp_path / "k.sqlite"
    proc = start_run(cfg, "-j", "2")
    try:
        wait_for(lambda: stored_count(store) >= 3 and len(worker_pids(proc.pid)) == 2, 60, "games and two workers", proc)
        victim = worker_pids(proc.pid)[0]
        os.kill(victim, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = err.decode()
    assert proc.returncode == 0, text
    assert f"(pid {victim}) ended unexpectedly (killed by signal SIGKILL)" in text
    assert "Traceback" not in text and "IndexError" not in text
    assert "; playing game(s) " in text  # it held a game (it was mid-run): that game is played again
    assert "24/24 games stored" in out.decode()
    with sqlite3.connect(store) as conn:
        count, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games").fetchone()
    assert count == distinct == 24
    whole = start_run(ref, "-j", "1")
    whole.communicate(timeout=120)
    assert whole.returncode == 0
    assert standings_json(store) == standings_json(tmp_path / "ref.sqlite")
    wait_for(lambda: group_gone(proc.pid), 10, "the run's processes to exit")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for processes")
def test_ctrl_c_at_j2_prints_no_traceback_from_any_worker(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = write_config(small(4, delay_ms=5, output={"store": "c.sqlite"}), "c.yaml")
    proc = start_run(cfg, "-j", "2")
    wait_for(lambda: len(worker_pids(proc.pid)) == 2, 60, "two workers", proc)
    time.sleep(0.3)  # mid-game, and (often) while a worker is still importing
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode() and "KeyboardInterrupt" not in err.decode()


def test_entrants_of_a_crashing_table_keep_identical_standings_with_restart_bots(write_config: Callable[..., Path]) -> None:
    data = small(1, entrants=det_entrants(3) + [{"name": "gone", "command": ["{python}", "-c", "pass"]}])
    cfg = tconfig.load(write_config({**data, "output": {"store": "r.sqlite"}}, "r.yaml"))
    summary = runner.run(cfg, concurrency=1, restart_bots=True, quiet=True, secret=SECRET)
    assert summary.played == 12 and next(s for s in summary.standings if s.name == "gone").faults == 9


@pytest.mark.parametrize("sandboxed", [False, True])
def test_a_program_the_system_cannot_execute_is_charged_not_fatal(
    write_config: Callable[..., Path], tmp_path: Path, sandboxed: bool
) -> None:
    garbage = tmp_path / "bot.bin"
    garbage.write_bytes(b"\x00\x01 not a program")
    garbage.chmod(0o755)  # passes the config's checks; exec fails (ENOEXEC) when the bot is spawned
    data = {**small(1), "sandbox": sandboxed}
    data["entrants"][0]["command"] = [str(garbage)]
    s1, s2, store1, store2 = _run_both(write_config, data)
    assert s1.played == s2.played == 12 and s1.standings == s2.standings
    assert _faults_by_entrant(store1) == _faults_by_entrant(store2) == {0: ["start_failed"] * 9}
    detail = s1.bot_faults[0][1].detail
    # Unsandboxed, arena's own exec fails; in bubblewrap, the shell that hands the bot its stdout cannot
    # execute it and exits 126 ("cannot execute").
    assert ("status 126 during the handshake" if sandboxed else "cannot start") in detail


def test_a_stop_rule_is_asked_after_each_complete_round_and_stops_later_rounds(write_config: Callable[..., Path]) -> None:
    seen: list[tuple[int, int]] = []

    def after_first_round(end: runner.RoundEnd) -> bool:
        seen.append((end.round, end.book.rated))
        return end.round == 1

    for j in (1, 2):
        cfg = tconfig.load(write_config(small(4, output={"store": f"stop{j}.sqlite"}), f"stop{j}.yaml"))
        summary = runner.run(cfg, concurrency=j, quiet=True, stop_rule=after_first_round, secret=SECRET)
        assert summary.stopped_after_round == 1 and summary.played == 24 and summary.total == 48
        assert seen == [(0, 12), (1, 24)]
        seen.clear()
        # A rerun finds the rounds complete, asks the rule again, and plays nothing more.
        again = runner.run(cfg, concurrency=j, quiet=True, stop_rule=after_first_round, secret=SECRET)
        assert again.played == 0 and again.stopped_after_round == 1
        seen.clear()
