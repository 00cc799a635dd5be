"""A new user's first mistakes get messages that name the cause (issue 23, item 5): a bot that never
flushes, a mistyped script path (shown as the host path the user wrote), check-bot's exit status 2 on a
bad command, a quiet exit on a closed pipe, and every config mistake at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.sandbox.probe import probe

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
NO_FLUSH = """import json, sys
print(json.dumps({"type": "hello", "name": "nf", "version": "1", "protocol": 1}))  # no flush: stuck in the buffer
for line in sys.stdin:
    pass
"""


COMMAND = [sys.executable, "-c", "from arena.cli import main; main()"]


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_a_bot_that_never_flushes_is_told_to_flush(tmp_path: Path) -> None:
    bot = tmp_path / "nf.py"
    bot.write_text(NO_FLUSH)
    done = arena("play", "kododo", "--bot", f"python3 {bot}", "--bot", f"python3 {RANDOM}", "--startup-ms", "1500", "--quiet")
    assert done.returncode == 2
    assert "no hello within the start-up allowance of 1500 ms" in done.stderr
    assert "flush stdout after every line" in done.stderr and "print(..., flush=True)" in done.stderr


@pytest.mark.parametrize("sandbox", ["--sandbox", "--no-sandbox"])
def test_a_mistyped_script_is_reported_at_the_host_path_the_user_wrote(tmp_path: Path, sandbox: str) -> None:
    if sandbox == "--sandbox" and not probe().sandbox:
        pytest.skip("no sandbox here")
    done = arena("play", "kododo", "--bot", "python3 mybott.py", "--bot", f"python3 {RANDOM}", sandbox, "--quiet", cwd=tmp_path)
    assert done.returncode == 2
    assert f"no file {tmp_path / 'mybott.py'} (the path 'mybott.py' is read from the folder {tmp_path})" in done.stderr
    assert "/scratch" not in done.stderr  # not the sandbox's inside view of it


def test_check_bot_exits_2_on_a_command_that_cannot_run(tmp_path: Path) -> None:
    done = arena("check-bot", "kododo", "--quick", "--", "python3", "nothere.py", cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert f"no file {tmp_path / 'nothere.py'}" in done.stderr
    missing = arena("check-bot", "kododo", "--quick", "--", "no-such-program-anywhere", cwd=tmp_path)
    assert missing.returncode == 2


def test_a_closed_pipe_ends_quietly_as_a_unix_tool_does() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`| head`) is gone before arena writes a line: every write fails
    try:
        done = subprocess.run([*COMMAND, "games"], stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write_end)
    assert done.stderr == ""  # no "arena: error: Broken pipe", no traceback
    assert done.returncode == 141  # 128 + SIGPIPE, what a shell shows for `yes | head`


def test_every_config_mistake_is_reported_at_once(tmp_path: Path) -> None:
    config = {
        "game": "kododo",
        "colour": "blue",
        "entrants": [
            {"name": "a", "command": ["python3", str(RANDOM)]},
            {"name": "b", "command": ["python3", "bots/typo.py"], "env": {"X": [1]}},
            {"name": "a", "command": ["python3", str(RANDOM)]},
        ],
        "time_control": {"decision_ms": 0},
        "fault_policy": "explode",
    }
    path = tmp_path / "cup.yaml"
    path.write_text(yaml.safe_dump(config))
    done = arena("validate", str(path))
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0] == f"arena: error: 6 mistakes in {path}:", done.stderr
    expected = ["colour: unknown key", "entrants[1].env.X: expected a string value", "entrants[1].command[1]: file 'bots/typo.py' not found",
                "entrants[2].name: 'a' is already the name of entrants[0]", "time_control.decision_ms: expected a number >= 1",
                "fault_policy: expected one of forfeit, continue"]
    for want, line in zip(expected, lines[1:], strict=True):
        assert line.startswith(f"{path}: {want}"), (want, line)
