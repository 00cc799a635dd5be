"""The Perl sample bot (sample_bots/perl/kolpa_greedy.pl) plays whole games through the CLI.

It was written from protocol.md alone; these games check that it keeps to the protocol
(handshake, answers, end, shutdown) in a sequential game (Kolpa!) and a simultaneous one
(Kododo), with no fault of any kind.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PERL_BOT = ROOT / "sample_bots" / "perl" / "kolpa_greedy.pl"
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"


def _perl_missing_reason() -> str | None:
    perl = shutil.which("perl")
    if perl is None:
        return "perl is not installed"
    probe = subprocess.run([perl, "-MJSON::PP", "-e", "1"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        return "perl has no JSON::PP module"
    return None


_REASON = _perl_missing_reason()
pytestmark = [pytest.mark.process, pytest.mark.skipif(_REASON is not None, reason=f"Perl bot not runnable: {_REASON}")]


def _play(tmp_path: Path, game: str, n_random: int, seed: int) -> tuple[dict, list[dict]]:
    replay = tmp_path / f"{game}-{seed}.jsonl"
    cmd = [
        sys.executable, "-c", "from arena.cli import main; main()",
        "play", game,
        "--bot", f"perl {PERL_BOT} {seed}",
    ]
    for i in range(n_random):
        cmd += ["--bot", f"{sys.executable} {RANDOM_BOT} {seed + i + 1}"]
    cmd += ["--seed", str(seed), "--replay", str(replay), "--json"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"arena play failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(proc.stdout)
    lines = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines() if line.strip()]
    return result, lines


def _assert_clean(result: dict, lines: list[dict], game: str, n_players: int) -> None:
    assert result["game"] == game
    assert result["faults"] == [], result["faults"]
    assert result.get("close_faults", []) == [], result["close_faults"]
    assert result["players"][0] == "kolpa-greedy-perl"
    assert len(result["ranks"]) == n_players
    assert result["ranks"] == result["game_ranks"]  # nothing re-ranked by the fault policy
    replay_result = lines[-1]
    assert replay_result["type"] == "result"
    assert replay_result["faults"] == []
    assert replay_result["points"] == result["points"]


def test_perl_bot_plays_kolpa(tmp_path: Path) -> None:
    result, lines = _play(tmp_path, "kolpa", n_random=1, seed=3)
    _assert_clean(result, lines, "kolpa", 2)
    assert result["decisions"] > 0


def test_perl_bot_plays_kododo(tmp_path: Path) -> None:
    result, lines = _play(tmp_path, "kododo", n_random=2, seed=4)
    _assert_clean(result, lines, "kododo", 3)
    assert result["decisions"] > 0
