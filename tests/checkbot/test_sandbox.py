"""check-bot runs the bot in the sandbox by default: contained, measured and torn down through bwrap."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from arena.core.time_control import TimeControl
from arena.checkbot import CheckOptions, Status, evaluate, run_check
from arena.checkbot.session import BotSession
from arena.sandbox.probe import probe

from .conftest import RELAXED_MS, ROOT

pytestmark = pytest.mark.sandbox

ESCAPE_BOT = ROOT / "tests" / "sandbox" / "bots" / "escape_bot.py"



def test_this_machine_runs_the_sandbox():
    """These tests run in CI, never skipped: `make test` installs bubblewrap (tools/system-deps)."""
    assert probe().sandbox, probe().reason


def _status_state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[0]


def _alive(pid: int) -> bool:
    return _status_state(pid) not in (None, "Z", "X")


def test_the_default_is_sandboxed_and_an_escape_to_another_folder_is_contained(tmp_path):
    """The escape bot, run by check-bot with no sandbox option, tries to read a file in another folder."""
    own, other = tmp_path / "entrant", tmp_path / "other-entrant"
    own.mkdir()
    other.mkdir()
    shutil.copy(ESCAPE_BOT, own / "bot.py")
    secret = other / "strategy.txt"
    secret.write_text("the other entrant's secret")
    assert os.access(secret, os.R_OK)  # as a plain process, the bot could read it
    options = CheckOptions(game="kododo", command=(sys.executable, str(own / "bot.py"), "read"), quick=True,
                           time_control=TimeControl(decision_ms=RELAXED_MS), env={"ESC_TARGET": str(secret)})
    evidence = run_check(options)
    assert evidence.options.sandbox is True
    attempts = [line for line in evidence.stderr_tail if line.startswith("escape read:")]
    assert attempts and all(line.startswith("escape read: BLOCKED") for line in attempts), attempts
    assert "FileNotFoundError" in attempts[0]  # the folder does not exist in its view, not merely unreadable
    results = {r.name: r for r in evaluate(evidence)}
    assert results["handshake"].status is Status.PASS and results["games"].status is Status.PASS
    assert results["referee"].status is Status.PASS  # the referee's game ran sandboxed too, without a fault


def test_no_sandbox_runs_the_same_bot_unconfined(tmp_path):
    """The control: with the sandbox off, the very same attempt succeeds (so the test above can fail)."""
    secret = tmp_path / "strategy.txt"
    secret.write_text("the other entrant's secret")
    session = BotSession((sys.executable, str(ESCAPE_BOT), "read"), env={"ESC_TARGET": str(secret)}, sandbox=False)
    try:
        session.send({"type": "hello", "protocol": 1})
        session.next_line(time.monotonic() + 10)
        session.send({"type": "request", "id": 1, "legal": [0]})
        session.next_line(time.monotonic() + 10)
        session.wait_exit(0.2)
        assert any(line.startswith("escape read: ESCAPED") for line in session.stderr_tail())
    finally:
        session.close()


def test_rss_walks_the_tree_below_bwrap():
    """Sandboxed, the process started is bwrap; the bot's 64 MB live in a descendant and still count."""
    code = "b = bytearray(64 << 20); print(1, flush=True); import time; time.sleep(30)"
    session = BotSession((sys.executable, "-c", code), sandbox=True)
    try:
        session.next_line(time.monotonic() + 10)
        assert Path(f"/proc/{session.pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"bwrap")
        tree = session.tree()
        bot = [pid for pid in tree[1:] if b"bytearray" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert bot, "the bot is not found under bwrap"
        assert (session.group_rss_kb() or 0) >= 64 * 1024
    finally:
        session.close()


def test_close_kills_a_detached_grandchild_inside_the_sandbox():
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            "        os.execvp('sleep', ['sleep', '47.125'])\n"
            "    os._exit(0)\n"
            "time.sleep(0.3); print(1, flush=True); time.sleep(30)\n")
    session = BotSession((sys.executable, "-c", code), sandbox=True)
    try:
        session.next_line(time.monotonic() + 10)
        sleeper = [pid for pid in session.tree() if b"47.125" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert sleeper, "the detached sleep should be running, in the bot's tree, before close"
    finally:
        session.close()
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in sleeper) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(_alive(pid) for pid in sleeper)
