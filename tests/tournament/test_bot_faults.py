"""Faults found when a tournament closes its bots (no_exit, orphans) are stored and shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from arena.tournament.config import tournament as tconfig
from arena.tournament.run.runner import run
from arena.results.store import Store
from arena.stats.standings import store_standings
from tests.support.tournament import det_entrants
import pytest

pytestmark = pytest.mark.process

BAD_BOT = Path(__file__).parents[1] / "referee" / "bots" / "bad_bot.py"


def write_config(tmp_path: Path) -> Path:
    data = {
        "name": "closing",
        "game": "kododo",
        "players": 2,
        "entrants": det_entrants(1) + [{"name": "stubborn", "command": ["{python}", str(BAD_BOT), "no_exit"]}],
        "schedule": {"format": "round-robin", "rotations": "none", "rounds": 1},
        "seed": 3,
        "output": {"store": str(tmp_path / "closing.sqlite")},
    }
    path = tmp_path / "closing.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_bot_that_refuses_to_exit_is_recorded_outside_games(tmp_path):
    config = tconfig.load(write_config(tmp_path))
    summary = run(config, concurrency=1, fresh=True, quiet=True)
    assert summary.played == 1
    assert [(name, fault.kind.value) for name, fault in summary.bot_faults] == [("stubborn", "no_exit")]
    with Store.open_existing(config.store) as store:
        assert [(e, k) for e, k, _ in store.bot_faults()] == [("stubborn", "no_exit")]
        assert all(s.faults == 0 for s in store_standings(store))  # no game is charged with it


def test_the_cli_shows_faults_outside_games(tmp_path):
    path = write_config(tmp_path)
    cli = [sys.executable, "-c", "from arena.cli import main; main()"]
    ran = subprocess.run([*cli, "run", str(path), "-j", "2", "--quiet"], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "faults outside games (1)" in ran.stderr and "stubborn: no_exit" in ran.stderr
    shown = subprocess.run([*cli, "standings", str(tmp_path / "closing.sqlite")], capture_output=True, text=True, timeout=60)
    assert "stubborn: no_exit" in shown.stdout
