"""Escape attempts: each a real bot in a real 3-player Kododo game, between two sandboxed C bots.

The escaping bot (seat 1) says on stderr what it tried and what stopped it; each test also checks
the side effect from outside (no connection accepted, no file written, the other bot unharmed, no
process left) or the fault the limit produced. The game always finishes.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.referee.bot import BotProcess, BotSpec
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.core.faults import Fault, FaultKind
from arena.referee.referee import play_game
from arena.core.result import GameResult
from arena.sandbox.policy import SandboxPolicy

from .conftest import ESCAPE_BOT, ROOT, host_processes, program_pids

pytestmark = pytest.mark.sandbox

TC = TimeControl(decision_ms=5000, shutdown_ms=300)


@dataclass
class Outcome:
    result: GameResult
    report: str  # the escape bot's `escape MODE: ...` line
    faults: list[Fault]
    others_alive: bool


def escape(mode: str, c_bot: str, tmp_path: Path, *, policy: SandboxPolicy = SandboxPolicy(), limits: Limits = Limits(),
           env: dict[str, str] | None = None, replay: Path | None = None) -> Outcome:
    replay = replay or tmp_path / "replays" / "game.jsonl"
    replay.parent.mkdir(exist_ok=True)
    bots: list[BotProcess] = []
    try:
        bots.append(BotProcess.start(BotSpec("c0", (c_bot, "10"), sandbox=SandboxPolicy()), TC))
        targets = {"ESC_PIDS": " ".join(str(p) for p in program_pids(c_bot)), **(env or {})}
        spec = BotSpec(f"esc-{mode}", (sys.executable, str(ESCAPE_BOT), mode), env=targets, sandbox=policy)
        bots.append(BotProcess.start(spec, TC, limits))
        bots.append(BotProcess.start(BotSpec("c2", (c_bot, "12"), sandbox=SandboxPolicy()), TC))
        result = play_game("kododo", bots, seed=7, time_control=TC, replay_path=replay)
        others_alive = bots[0].alive and bots[2].alive
        lines = [line for line in bots[1].stderr_tail() if line.startswith(f"escape {mode}:")]
    finally:
        for bot in bots:
            bot.close()
    assert host_processes(str(ESCAPE_BOT).encode()) == [], "a process of the escaping bot outlived its match"
    assert all(f.seat == 1 for f in result.faults), result.faults
    return Outcome(result, lines[0] if lines else "", list(result.faults), others_alive)


def assert_blocked(out: Outcome) -> None:
    assert "BLOCKED" in out.report and "ESCAPED" not in out.report, out.report
    assert out.faults == [], out.faults
    assert out.others_alive


def test_tcp_to_a_local_listener_is_refused(c_bot, tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        out = escape("tcp", c_bot, tmp_path, env={"ESC_PORT": str(listener.getsockname()[1])})
        with pytest.raises(socket.timeout):
            listener.accept()
    assert_blocked(out)
    assert "Connection refused" in out.report or "unreachable" in out.report  # its own, empty loopback


def test_host_names_do_not_resolve(c_bot, tmp_path):
    out = escape("dns", c_bot, tmp_path)
    assert_blocked(out)


def test_another_entrants_file_is_not_there(c_bot, tmp_path):
    out = escape("read", c_bot, tmp_path, env={"ESC_TARGET": str(ROOT / "sample_bots" / "c" / "random_bot.c")})
    assert_blocked(out)
    assert "FileNotFoundError" in out.report


def test_the_replay_being_written_is_not_there(c_bot, tmp_path):
    replay = tmp_path / "replays" / "game.jsonl"
    out = escape("read", c_bot, tmp_path, env={"ESC_TARGET": str(replay)}, replay=replay)
    assert replay.stat().st_size > 0  # it was being written during the game
    assert_blocked(out)
    assert "FileNotFoundError" in out.report


def test_the_store_is_not_there(c_bot, tmp_path):
    store = tmp_path / "store" / "results.sqlite"
    store.parent.mkdir()
    store.write_bytes(b"secret results")
    out = escape("read", c_bot, tmp_path, env={"ESC_TARGET": str(store)})
    assert_blocked(out)


def test_home_is_not_there(c_bot, tmp_path):
    out = escape("read", c_bot, tmp_path, env={"ESC_TARGET": os.path.expanduser("~/.bashrc")})
    assert_blocked(out)


def test_other_processes_are_invisible_in_proc(c_bot, tmp_path):
    out = escape("proc", c_bot, tmp_path)
    assert_blocked(out)
    assert "leaks []" in out.report


def test_ptrace_of_another_bot_fails(c_bot, tmp_path):
    out = escape("ptrace", c_bot, tmp_path)
    assert_blocked(out)
    assert "No such process" in out.report


def test_killing_another_bot_fails(c_bot, tmp_path):
    out = escape("kill", c_bot, tmp_path)
    assert_blocked(out)
    assert "ProcessLookupError" in out.report


def test_writing_outside_its_scratch_fails(c_bot, tmp_path):
    target = tmp_path / "outside.txt"
    out = escape("write", c_bot, tmp_path, env={"ESC_TARGET": str(target)})
    assert_blocked(out)
    assert not target.exists() and not (ESCAPE_BOT.parent / "written-by-bot").exists()


def test_filling_its_scratch_stops_at_the_size_and_is_a_disk_fault(c_bot, tmp_path):
    out = escape("fill_scratch", c_bot, tmp_path, policy=SandboxPolicy(scratch_mb=8))
    assert "BLOCKED after" in out.report and "No space left on device" in out.report
    assert [f.kind for f in out.faults] == [FaultKind.LIMIT]
    assert out.faults[0].detail.startswith("disk:")


def test_a_fork_bomb_stops_at_the_process_limit(c_bot, tmp_path):
    out = escape("fork_bomb", c_bot, tmp_path, policy=SandboxPolicy(processes=16))
    assert "BLOCKED after" in out.report
    count = int(out.report.split("after ")[1].split()[0])
    assert count <= 16
    assert [f.kind for f in out.faults] == [FaultKind.LIMIT]
    assert out.faults[0].detail.startswith("processes:")


def test_memory_past_the_limit_is_a_memory_fault(c_bot, tmp_path):
    out = escape("memory", c_bot, tmp_path, limits=Limits(memory_mb=200))
    assert "ESCAPED" not in out.report
    assert [f.kind for f in out.faults] == [FaultKind.LIMIT]
    assert out.faults[0].detail.startswith("memory:")


def test_cpu_past_the_limit_is_a_cpu_fault(c_bot, tmp_path):
    out = escape("cpu", c_bot, tmp_path, limits=Limits(cpu_seconds=1))
    assert "ESCAPED" not in out.report
    assert [f.kind for f in out.faults] == [FaultKind.LIMIT]
    assert out.faults[0].detail.startswith("cpu:")


def test_setsid_and_double_fork_die_with_the_match(c_bot, tmp_path):
    marker = "41.0625"
    out = escape("setsid", c_bot, tmp_path, env={"ESC_SLEEP": marker})
    assert "BLOCKED?" in out.report and out.faults == []
    assert host_processes(b"sleep\0" + marker.encode()) == []


def test_cgroups_left_by_a_dead_arena_process_are_swept(tmp_path):
    from arena.sandbox import limits
    from arena.sandbox.probe import probe

    cgroups = probe().cgroups
    assert cgroups is not None and cgroups.pids, "this machine offers a writable pids cgroup (see probe)"
    dead = 4_000_000  # above pid_max: no process has it
    stale = Path(cgroups.pids) / f"arena-{dead}-0"
    stale.mkdir()
    limits.sweep.cache_clear()
    assert limits.sweep(cgroups.pids) >= 1
    assert not stale.exists()
