"""`arena play --show-stderr` and `--keep-logs` (and `arena replay --keep-logs`), as a user runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.replay import load_replay, read_replay

ROOT = Path(__file__).resolve().parents[2]
LOG_BOT = ROOT / "tests" / "referee" / "bots" / "log_bot.py"
STEP = f"{sys.executable} {LOG_BOT} step"
ESCAPES = f"{sys.executable} {LOG_BOT} escapes"

pytestmark = pytest.mark.process


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arena.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_show_stderr_prints_the_chosen_seats_lines_beside_their_step_cleaned() -> None:
    run = arena("play", "kodama-duo", "--bot", STEP, "--bot", ESCAPES, "--seed", "2", "--no-sandbox", "--show-stderr", "1")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "seat 1 stderr| step 0" in out and "seat 0 stderr|" not in out  # only the seat asked for
    assert "\x1b" not in out and "\x07" not in out and "\x08" not in out and "\u202e" not in out
    assert "pwned" not in out and "seat 1 stderr| red" in out
    # Each "step N" line follows step N's decisions and comes before step N+1's.
    current = None
    shown = 0
    for line in out.splitlines():
        m = re.match(r"\s+step\s+(\d+) seat", line)
        if m:
            current = int(m.group(1))
        m = re.match(r"\s+seat 1 stderr\| step (\d+)$", line)
        if m:
            assert int(m.group(1)) == current, line
            shown += 1
    assert shown > 10
    everyone = arena("play", "kodama-duo", "--bot", STEP, "--bot", ESCAPES, "--seed", "2", "--no-sandbox", "--show-stderr", "all")
    assert "seat 0 stderr| step 1" in everyone.stdout and "seat 1 stderr| step 0" in everyone.stdout
    quiet = arena("play", "kodama-duo", "--bot", STEP, "--bot", ESCAPES, "--seed", "2", "--no-sandbox")
    assert "stderr|" not in quiet.stdout


def test_show_stderr_names_a_seat_that_exists() -> None:
    run = arena("play", "kodama-duo", "--bot", STEP, "--bot", STEP, "--show-stderr", "2")
    assert run.returncode == 2 and "--show-stderr '2': give a seat from 0 to 1, or `all`" in run.stderr
    assert "Traceback" not in run.stderr


def test_keep_logs_writes_log_records_that_verify_and_without_it_the_replay_has_none(tmp_path: Path) -> None:
    kept, plain = tmp_path / "kept.jsonl", tmp_path / "plain.jsonl"
    for path, extra in ((kept, ["--keep-logs"]), (plain, [])):
        run = arena("play", "kodama-duo", "--bot", STEP, "--bot", ESCAPES, "--seed", "4", "--no-sandbox", "--quiet",
                    "--replay", str(path), *extra)
        assert run.returncode == 0, run.stderr
    logs = load_replay(kept).logs
    assert logs and all(log.lines[-1] == f"step {log.step}" for log in logs)
    assert not any(r["type"] == "log" for r in read_replay(plain))
    # The same game with and without logs: the records other than the logs are the same.
    without = [r for r in read_replay(kept) if r["type"] not in ("log", "commit", "decision", "result")]
    assert without == [r for r in read_replay(plain) if r["type"] not in ("commit", "decision", "result")]
    for path in (kept, plain):
        check = arena("verify", str(path))
        assert check.returncode == 0, check.stdout + check.stderr
    branch = tmp_path / "branch.jsonl"
    run = arena("replay", str(kept), "--from-step", "5", "--keep-logs", "--no-sandbox", "--quiet", "-o", str(branch))
    assert run.returncode == 0, run.stderr
    assert {log.step for log in load_replay(branch).logs} >= set(range(5, 10))
    assert arena("verify", str(branch)).returncode == 0
