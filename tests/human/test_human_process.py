"""The human seat as real processes: the terminal fallback driven through stdin, and a person who
leaves (the page closed, nobody watching) recorded as a crash once the clock runs out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from arena.replay import iter_replay

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).with_name("arena"))
PY_BOT = f"{sys.executable} {ROOT / 'sample_bots' / 'python' / 'random_bot.py'}"
URL = re.compile(r"open (http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+/)")


def records(path: Path) -> list[dict[str, object]]:
    return [r for _, r in iter_replay(str(path))]


def verify(path: Path) -> None:
    checked = subprocess.run([ARENA, "verify", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout.startswith("ok:"), checked.stdout + checked.stderr


def test_the_terminal_fallback_plays_a_whole_game_from_stdin(tmp_path: Path) -> None:
    replay = tmp_path / "tui.jsonl"
    # Not a number, a number out of range, then the first legal action at every step (the game needs 33).
    typed = "a card please\n99\n" + "0\n" * 200
    done = subprocess.run([ARENA, "play", "kododo", "--human", "1", "--bot", PY_BOT, "--tui", "--seed", "5",
                           "--replay", str(replay), "--no-sandbox"], input=typed, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "your move (seat 1" in out and "    0) [" in out
    assert out.count("refused: there is no legal action number") == 2  # the words, then 99: asked again each time
    assert "the game is over" in out or "result of kododo" in out
    assert "\x1b" not in out
    verify(replay)
    mine = [r for r in records(replay) if r["type"] == "decision" and r["seat"] == 1]
    assert mine and all(r["source"] == "bot" for r in mine)
    assert not [r for r in records(replay) if r["type"] == "fault"]


def test_end_of_input_at_the_terminal_is_the_person_leaving_a_crash(tmp_path: Path) -> None:
    replay = tmp_path / "left.jsonl"
    done = subprocess.run([ARENA, "play", "kododo", "--human", "0", "--bot", PY_BOT, "--tui", "--seed", "5",
                           "--replay", str(replay), "--no-sandbox"], input="0\n0\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    faults = [r for r in records(replay) if r["type"] == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "crash")]
    assert "left" in json.dumps(faults[0]["stderr_tail"])
    verify(replay)


def test_a_closed_page_is_a_crash_once_the_clock_runs_out(tmp_path: Path) -> None:
    replay = tmp_path / "closed.jsonl"
    proc = subprocess.Popen([ARENA, "play", "kododo", "--human", "0", "--bot", PY_BOT, "--human-ms", "9000", "--seed", "5",
                             "--replay", str(replay), "--no-sandbox", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:
            found = URL.search(line)
            if found:
                url = found.group(1)
                break
        assert url is not None
        with urllib.request.urlopen(url + "state?since=-1", timeout=5) as response:  # the page opened once ...
            assert json.loads(response.read())["phase"] in ("asked", "waiting")
        started = time.monotonic()  # ... and closed: nobody polls any more
        proc.communicate(timeout=30)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    faults = [r for r in records(replay) if r["type"] == "fault"]
    assert [(f["seat"], f["kind"], f["step"]) for f in faults] == [(0, "crash", 0)]  # not a timeout
    assert time.monotonic() - started < 15  # the page counts as gone 3 s after its last poll, well inside the 9 s clock
    decisions = [r for r in records(replay) if r["type"] == "decision" and r["seat"] == 0]
    assert all(r["source"] == "fallback" for r in decisions)  # the rest of the game is played without the person
    verify(replay)
