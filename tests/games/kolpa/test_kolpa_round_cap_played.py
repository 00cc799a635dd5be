"""Kolpa!'s round cap through the referee: real bots, a game stopped by the cap is a draw, with no
fault charged to anyone, and its replay verifies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
import pytest

pytestmark = pytest.mark.process

REPO = Path(__file__).resolve().parents[3]
ARENA = str(Path(sys.executable).with_name("arena"))


def test_a_game_stopped_by_the_round_cap_is_a_fault_free_draw(tmp_path: Path) -> None:
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=REPO, check=True)
    bot = str(REPO / "sample_bots" / "c" / "random_bot")
    replay = tmp_path / "game.jsonl"
    played = subprocess.run(
        [ARENA, "play", "kolpa", "--bot", bot, "--bot", f"{bot} 2", "--bot", f"{bot} 3", "--option", "max_rounds=2",
         "--option", "target=1000", "--seed", "5", "--json", "--replay", str(replay)],
        capture_output=True, text=True, timeout=120,
    )
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert result["faults"] == [] and result["game_ranks"] == [1, 1, 1] and result["ranks"] == [1, 1, 1]
    assert max(result["points"]) < 1000
    verified = subprocess.run([ARENA, "verify", str(replay)], capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
