"""`arena verify REPLAY --store STORE` (issue 21, item 6): a tournament replay whose seat identities were
swapped verifies by the rules alone (the control), and is rejected against the organiser's store."""

from __future__ import annotations

import pytest
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.tournament.config import tournament as tconfig
from arena.tournament.run.runner import run

pytestmark = pytest.mark.process

BOTS = Path(__file__).parent / "bots"
ARENA = str(Path(sys.executable).parent / "arena")


def tournament(tmp_path: Path) -> tconfig.TournamentConfig:
    data: dict[str, Any] = {
        "name": "v", "game": "kododo", "players": 2, "seed": 3,
        "entrants": [{"name": n, "command": ["{python}", str(BOTS / "det_bot.py"), "--salt", n]} for n in ("ann", "bob")],
        "output": {"store": str(tmp_path / "v.sqlite"), "replays": str(tmp_path / "replays")},
    }
    config = tconfig.parse(data, tmp_path / "v.yaml")
    assert run(config, concurrency=1, quiet=True).played == 2
    return config


def swapped(path: Path, out: Path) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    a, b = header["seats"]
    header["seats"] = [{**b, "seat": 0}, {**a, "seat": 1}]  # who sat where, exchanged; seat numbers kept
    out.write_text("\n".join([json.dumps(header, separators=(",", ":")), *lines[1:]]) + "\n", encoding="utf-8")
    return out


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, "verify", *args], capture_output=True, text=True, timeout=120)


def test_swapped_seat_identities_are_rejected_against_the_store(tmp_path):
    config = tournament(tmp_path)
    assert config.replays is not None
    replays = sorted(config.replays.glob("*.jsonl"))
    assert len(replays) == 2
    for path in replays:
        done = verify(str(path), "--store", str(config.store))
        assert done.returncode == 0 and "seats and result as stored" in done.stdout, done.stderr
    forged = swapped(replays[0], tmp_path / "swapped.jsonl")
    assert verify(str(forged)).returncode == 0  # the control: the rules alone cannot tell who sat where
    done = verify(str(forged), "--store", str(config.store))
    assert done.returncode == 2 and "swapped seat identities" in done.stderr
    other = tournament(tmp_path / "other")  # another store (another secret): the game is not one of its games
    done = verify(str(replays[0]), "--store", str(other.store))
    assert done.returncode == 2 and "is no game of" in done.stderr
