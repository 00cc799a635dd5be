"""Wrong, missing and other participants' tokens; admin-only actions; a disabled bot; oversized
requests and too many submissions: each refused with the right status and nothing changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

import pytest

from tests.server.bots import python_random, zip_bytes, manifest
from tests.server.server import ADMIN, ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("access"), per_minute=3).start()
    yield srv
    srv.stop()


def _snapshot(server: ServerProcess) -> tuple[object, ...]:
    with sqlite3.connect(server.data / "server.sqlite") as db:
        return (db.execute("SELECT id, name, token_hash FROM participants").fetchall(),
                db.execute("SELECT id, status, reason FROM bots").fetchall(),
                db.execute("SELECT id, status FROM submissions").fetchall(),
                sorted(str(p) for p in (server.data / "uploads").rglob("*")),
                db.execute("SELECT value FROM settings WHERE key = 'paused'").fetchall())


def test_tokens_and_rights(server: ServerProcess) -> None:
    alice, bob = server.add("alice"), server.add("bob")
    r = server.post("/api/v1/submissions", alice, content=python_random())
    assert r.status_code == 202
    sub = r.json()["submission"]
    verdict = server.wait_submission(sub, alice)
    assert verdict["status"] == "passed"
    bot = verdict["bot"]
    before = _snapshot(server)
    cases = [
        ("POST", "/api/v1/submissions", None, 401),
        ("POST", "/api/v1/submissions", "not-a-token", 401),
        ("GET", f"/api/v1/submissions/{sub}", None, 401),
        ("GET", f"/api/v1/submissions/{sub}", bob, 403),
        ("GET", f"/api/v1/bots/{bot}/files", bob, 403),
        ("POST", "/api/v1/admin/participants", alice, 403),
        ("POST", "/api/v1/admin/participants", None, 401),
        ("POST", "/api/v1/admin/ladder/pause", bob, 403),
        ("POST", f"/api/v1/admin/bots/{bot}/disable", bob, 403),
        ("POST", f"/api/v1/admin/bots/{bot}/disable", "wrong-admin-token", 401),
        ("GET", "/api/v1/admin/health", alice, 403),
    ]
    for method, path, token, status in cases:
        kw = {"content": python_random()} if path.endswith("submissions") else {"json": {"name": "mallory"}}
        r = (server.post(path, token, **kw) if method == "POST" else server.get(path, token))
        assert r.status_code == status, (method, path, token, r.status_code, r.text)
        assert "error" in r.json()
    assert _snapshot(server) == before
    # Another participant sees the bot's public page, without its stderr or command.
    page = server.get(f"/api/v1/bots/{bot}", bob).json()
    assert page["owner_view"] is False and "command" not in page
    assert all("stderr_tail" not in f for f in page["faults"])
    assert server.get(f"/api/v1/bots/{bot}", alice).json()["owner_view"] is True
    # The control: with the right tokens the same requests do change things.
    assert server.get(f"/api/v1/bots/{bot}/files", alice).status_code == 200
    assert server.post(f"/api/v1/admin/bots/{bot}/disable", ADMIN, json={"reason": "test"}).status_code == 200
    assert server.get(f"/api/v1/bots/{bot}").json()["status"] == "disabled"
    board = server.get("/api/v1/leaderboard").json()["leaderboard"]
    assert bot not in [b["id"] for b in board]  # a disabled bot is out of the ladder
    assert server.post(f"/api/v1/admin/bots/{bot}/enable", ADMIN).status_code == 200


def test_pause_and_resume(server: ServerProcess) -> None:
    assert server.post("/api/v1/admin/ladder/pause", ADMIN).json()["paused"] is True
    server.wait("the games in flight to end", lambda: server.get("/api/v1").json()["in_flight"] == 0, 60)
    played = server.get("/api/v1").json()["games"]
    import time

    time.sleep(3)
    assert server.get("/api/v1").json()["games"] == played
    assert server.post("/api/v1/admin/ladder/resume", ADMIN).json()["paused"] is False
    server.wait("a game after resuming", lambda: server.get("/api/v1").json()["games"] > played, 60)


def test_oversized_requests_and_submission_rate(server: ServerProcess, tmp_path: Path) -> None:
    dave = server.add("dave")
    before = _snapshot(server)
    huge = b"PK\x03\x04" + b"\0" * (2048 * 1024 + 10)
    r = server.post("/api/v1/submissions", dave, content=huge)
    assert r.status_code == 413 and "over" in r.json()["error"]
    assert _snapshot(server) == before
    bad = zip_bytes({"manifest.json": manifest("x", "1", "python3 ../../etc/passwd.py")})
    statuses = [server.post("/api/v1/submissions", dave, content=bad).status_code for _ in range(4)]
    assert statuses == [422, 422, 422, 429]
    r = server.post("/api/v1/submissions", dave, content=bad)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    refused = server.post("/api/v1/submissions", server.add("erin"), content=bad).json()
    assert "leaves the bot's folder" in refused["error"]
    assert not any(p.name == "passwd.py" for p in server.data.rglob("*"))
    r = server.get("/api/v1/nowhere")
    assert r.status_code == 404 and r.json()["status"] == 404
    spec = server.get("/api/v1/openapi.json").json()
    assert spec["openapi"].startswith("3") and "/api/v1/leaderboard" in spec["paths"]
