"""An `arena serve` server built in the test's process, never started (no ladder or checker thread, no
bot process): its routes answer through Starlette's TestClient, so access tests run in the fast tier."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.ladder.config import parse
from arena.ladder.service import Server
from arena.server.app import build

ADMIN = "inprocess-test-admin-token-0123456789"
ORIGIN = "http://testserver"


def make_server(tmp: Path, monkeypatch: pytest.MonkeyPatch, **extra: object) -> Server:
    """`extra`: more of the config's keys (e.g. `ladder={"seed": 5}`)."""
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    config = parse({"name": "inprocess", "game": "kododo", "players": 2, "data": str(tmp / "data"), **extra}, tmp / "ladder.yaml")
    return Server(config, sandbox=False)


def client(server: Server, token: str | None = None) -> TestClient:
    """A client of `server`'s app; with a token, as its bearer and as the pages' session cookie."""
    made = TestClient(build(server), base_url=ORIGIN)
    if token is not None:
        made.headers["Authorization"] = f"Bearer {token}"
        made.cookies.set("arena_session", token)
    return made
