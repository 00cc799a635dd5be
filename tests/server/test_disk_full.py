"""A full disk under a running `arena serve` (issue 36, item 11): the data folder on a 40 MB tmpfs, filled
while the ladder plays and uploads arrive. Uploads get a clear refusal, the ladder backs off and resumes
by itself once space returns, nothing already stored is damaged. Root only (it mounts a tmpfs)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.ladder.results import public_path
from arena.replay.reader import read_replay_bytes
from tests.server.bots import python_random
from tests.server.server import ADMIN, ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox, pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs")]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(data)], check=True)
    try:
        yield data
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as out:
        block = b"\0" * (1 << 20)
        try:
            while True:
                out.write(block)
                out.flush()
        except OSError:
            pass
    return filler


def _games(server: ServerProcess) -> int:
    return int(server.get("/api/v1").json()["games"])


def _ladder(server: ServerProcess) -> dict[str, Any]:
    body = server.get("/api/v1/admin/health", ADMIN).json()
    return [p for p in body["parts"] if p["name"] == "ladder"][0]  # type: ignore[no-any-return]


def test_a_full_disk_refuses_uploads_clearly_and_the_ladder_resumes(tmp_path: Path, small_disk: Path) -> None:
    server = ServerProcess(tmp_path)
    server.config.write_text(server.config.read_text().replace("max_ratio: 50}", "max_ratio: 50, min_free_mb: 5}"))
    server.start()
    try:
        token = server.add("dora")
        server.wait("ladder games", lambda: _games(server) >= 4, 120)
        ok = server.post("/api/v1/submissions", token, content=python_random())
        assert ok.status_code == 202, ok.text  # control: with room, the same upload is taken
        server.wait_submission(int(ok.json()["submission"]), token)

        filler = _fill(small_disk)
        full_at = _games(server)
        refused = server.post("/api/v1/submissions", token, content=python_random("2"))
        assert refused.status_code in (422, 507), refused.text
        assert "disk" in refused.json()["error"] and "try again later" in refused.json()["error"]
        server.wait("the ladder to meet the full disk", lambda: _ladder(server)["restarts"] >= 1, 120)
        assert server.get("/api/v1/leaderboard").status_code == 200  # reading goes on
        error = _ladder(server)["last_error"] or ""
        assert "full" in error or "No space" in error, error

        filler.unlink()  # space returns
        server.wait("the ladder to resume by itself", lambda: _games(server) >= full_at + 3, 150)
        again = server.post("/api/v1/submissions", token, content=python_random("3"))
        assert again.status_code == 202, again.text
        assert server.wait_submission(int(again.json()["submission"]), token)["status"] == "passed"
        assert server.get("/api/v1/admin/health", ADMIN).status_code == 200
    finally:
        server.stop()
    with sqlite3.connect(small_disk / "server.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT replay, sha256 FROM games WHERE status = 'done'").fetchall()
        assert db.execute("SELECT COUNT(*) FROM submissions WHERE status IN ('received', 'checking')").fetchone()[0] == 0
    assert rows
    for replay, sha in rows:
        assert hashlib.sha256(read_replay_bytes(public_path(Path(replay)))).hexdigest() == sha  # the signed public record
