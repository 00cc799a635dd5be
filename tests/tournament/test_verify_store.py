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


def test_arena_run_signs_its_replays_and_a_swapped_replay_is_refused_with_the_key(tmp_path):
    """Issue 36, item 17: the organiser's key (made beside the store, 0600) signs every replay; the
    swapped-seat-names replay the rules accept (the control) is refused with the organiser's public key."""
    config = tournament(tmp_path)
    assert config.replays is not None
    private, public = tmp_path / "v.sqlite.key.pem", tmp_path / "v.sqlite.pub.pem"
    assert private.stat().st_mode & 0o777 == 0o600 and "BEGIN PUBLIC KEY" in public.read_text()
    replays = sorted(config.replays.glob("*.jsonl"))
    for path in replays:
        record = json.loads(Path(str(path) + ".sig.json").read_text())
        assert record["tournament"] == "v" and sorted(record["seats"]) == ["ann", "bob"]
        done = verify("--key", str(public), str(path))
        assert done.returncode == 0 and "signed by the key's tournament 'v'" in done.stdout, done.stderr
        done = verify(str(path), "--store", str(config.store))
        assert done.returncode == 0 and "signed by" in done.stdout, done.stderr
    forged = swapped(replays[0], tmp_path / "swapped.jsonl")
    Path(str(forged) + ".sig.json").write_bytes(Path(str(replays[0]) + ".sig.json").read_bytes())
    assert verify(str(forged)).returncode == 0  # the control: without the key the swap passes (as documented)
    done = verify("--key", str(public), str(forged))
    assert done.returncode == 2 and "is not the replay the organiser stored" in done.stderr, done.stdout
    # The attacker edits the record's seats too: the signature no longer holds.
    record = json.loads(Path(str(forged) + ".sig.json").read_text())
    record["seats"].reverse()
    Path(str(forged) + ".sig.json").write_text(json.dumps(record))
    done = verify("--key", str(public), str(forged))
    assert done.returncode == 2 and "was not made by this key" in done.stderr
    # Another organiser's key proves nothing about this tournament's replays.
    other = tournament(tmp_path / "other")
    done = verify("--key", str(tmp_path / "other" / "v.sqlite.pub.pem"), str(replays[0]))
    assert done.returncode == 2 and "was not made by this key" in done.stderr
    assert other.store != config.store
