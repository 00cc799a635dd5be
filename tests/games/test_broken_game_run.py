"""A tournament of a game whose own code raises stops with one line naming the game: no traceback, and
no result stored for the game that broke (the games before it, sound, stay stored)."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.support.plugins import arena_command, fake_distribution, plugin_env

pytestmark = pytest.mark.process
FAULTY = Path(__file__).resolve().parent / "faulty"

HIGHEST = """import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "highest", "version": "1"}), flush=True)
    elif m.get("type") == "request":
        print(json.dumps({"id": m["id"], "action": max(m["legal"])}), flush=True)
    elif m.get("type") == "shutdown":
        break
"""


def _run(tmp_path: Path, game: str) -> tuple[subprocess.CompletedProcess[str], int]:
    site = fake_distribution(tmp_path / "site", "faulty-games", "1.0", {
        "high-card": "faulty_games:GOOD", "high-card-apply-raises": "faulty_games:APPLY_RAISES"}, {})
    for k in range(2):
        (tmp_path / f"bot{k}").mkdir()
        (tmp_path / f"bot{k}" / "highest.py").write_text(HIGHEST)
    config = tmp_path / "cup.yaml"
    config.write_text(f"""
name: cup
game: {game}
players: 2
entrants:
  - {{name: a, command: ["{{python}}", "{tmp_path / 'bot0' / 'highest.py'}"]}}
  - {{name: b, command: ["{{python}}", "{tmp_path / 'bot1' / 'highest.py'}"]}}
schedule: {{format: round-robin, rounds: 2}}
sandbox: false
output: {{store: {tmp_path / 'cup.sqlite'}}}
""")
    done = subprocess.run([*arena_command(), "run", str(config), "--fresh"], capture_output=True, text=True,
                          env=plugin_env(FAULTY, site), timeout=300)
    with sqlite3.connect(tmp_path / "cup.sqlite") as db:
        stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return done, stored


def test_a_tournament_of_a_broken_game_stops_with_one_line_naming_it_and_stores_nothing_of_it(tmp_path):
    done, stored = _run(tmp_path, "high-card-apply-raises")
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and "game 'high-card-apply-raises' broke at step 0: its code raised KeyError" in errors[0]
    assert "arena check-game high-card-apply-raises" in errors[0]
    assert "Traceback" not in done.stderr and "bug in arena" not in done.stderr
    assert stored == 0


def test_control_the_sound_game_plays_the_same_tournament_to_the_end(tmp_path):
    done, stored = _run(tmp_path, "high-card")
    assert done.returncode == 0, done.stdout + done.stderr
    assert stored == 4  # 2 rounds, each with both seatings
