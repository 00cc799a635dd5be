"""`arena serve CONFIG --add-participant NAME` as the organiser runs it, and the refusals of `arena serve`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.ladder.accounts import participant_by_token
from arena.ladder.db import Database
import pytest

from tests.server.server import ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]


def test_add_participant_prints_a_token_that_only_the_hash_keeps(tmp_path: Path) -> None:
    config = ServerProcess(tmp_path).config
    out = subprocess.run([*ARENA, "serve", str(config), "--add-participant", "alice"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    token = out.stdout.strip().splitlines()[-1]
    db = Database(tmp_path / "data" / "server.sqlite")
    who = participant_by_token(db, token)
    assert who is not None and who.name == "alice"
    assert token.encode() not in (tmp_path / "data" / "server.sqlite").read_bytes()
    again = subprocess.run([*ARENA, "serve", str(config), "--add-participant", "alice"], capture_output=True, text=True)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_a_remote_cluster_needs_tls_and_the_admin_token_is_not_in_the_yaml(tmp_path: Path) -> None:
    config = ServerProcess(tmp_path).config
    plain = subprocess.run([*ARENA, "serve", str(config), "--cluster", "tcp://10.0.0.5:8786"], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "ARENA_ADMIN_TOKEN": "x" * 20})
    assert plain.returncode == 2 and "only over TLS" in plain.stderr
    config.write_text(config.read_text() + "admin_token: hunter2hunter2hunter2\n")
    leaked = subprocess.run([*ARENA, "serve", str(config)], capture_output=True, text=True)
    assert leaked.returncode == 2 and "never goes in the YAML" in leaked.stderr
