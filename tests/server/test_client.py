"""The participant's client on fakes: where settings come from, packing, following a check, refusals."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.errors import ClientError
from arena.server.client import Client, Settings, leaderboard_text, pack, settings


def test_flags_beat_the_environment_which_beats_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "client.json"
    file.write_text(json.dumps({"server": "http://file", "token": "file-token"}))
    file.chmod(0o600)
    monkeypatch.setenv("ARENA_CLIENT_CONFIG", str(file))
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    assert settings(None, None) == Settings("http://file", "file-token")
    monkeypatch.setenv("ARENA_SERVER", "http://env/")
    monkeypatch.setenv("ARENA_TOKEN", "env-token")
    assert settings(None, None) == Settings("http://env", "env-token")
    assert settings("http://flag", "flag-token") == Settings("http://flag", "flag-token")
    file.chmod(0o644)
    assert "chmod 600" in settings(None, None).warning  # a token others can read is pointed out


def test_a_folder_is_packed_without_vcs_folders_and_needs_a_manifest(tmp_path: Path) -> None:
    with pytest.raises(ClientError, match="no manifest.json"):
        pack(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bot.py").write_text("print()")
    (tmp_path / "src" / "__pycache__").mkdir()
    (tmp_path / "src" / "__pycache__" / "bot.pyc").write_bytes(b"x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    with tarfile.open(fileobj=io.BytesIO(pack(tmp_path)), mode="r:gz") as tar:
        assert sorted(tar.getnames()) == ["manifest.json", "src/bot.py"]
    archive = tmp_path / "bot.zip"
    archive.write_bytes(b"PK-bytes")
    assert pack(archive) == b"PK-bytes"
    with pytest.raises(ClientError, match="zip"):
        pack(tmp_path / "manifest.json")


def _client(handler: Any, token: str | None = "t") -> Client:
    return Client(Settings("http://ladder", token), transport=httpx.MockTransport(handler))


def test_follow_reports_each_status_once_until_the_verdict() -> None:
    answers = iter(["received", "checking", "checking", "passed"])

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer t"
        return httpx.Response(200, json={"status": next(answers), "bot": 4})

    seen: list[str] = []
    body = _client(handler).follow(1, seen.append, timeout=60, sleep=lambda _s: None)
    assert body["status"] == "passed" and seen == ["received", "checking", "passed"]


def test_a_check_that_never_ends_is_a_clear_error() -> None:
    clock = iter(range(0, 1000, 10))
    client = _client(lambda r: httpx.Response(200, json={"status": "checking"}))
    with pytest.raises(ClientError, match="still checking after 30 s"):
        client.follow(1, lambda s: None, timeout=30, sleep=lambda _s: None, clock=lambda: float(next(clock)))


def test_refusals_are_one_clear_line() -> None:
    with pytest.raises(ClientError, match="^the server refused the token: unknown token$"):
        _client(lambda r: httpx.Response(401, json={"error": "unknown token"})).submit(b"x")
    with pytest.raises(ClientError, match="no token"):
        _client(lambda r: httpx.Response(202, json={}), token=None).submit(b"x")
    with pytest.raises(ClientError, match="not an arena server"):
        _client(lambda r: httpx.Response(200, text="<html>")).leaderboard()
    with pytest.raises(ClientError, match="over 5 submissions"):
        _client(lambda r: httpx.Response(429, json={"error": "over 5 submissions a minute"})).submit(b"x")


def test_the_leaderboard_table_cleans_names() -> None:
    row = {"rank": 1, "participant": "a\x1b[31mred", "name": "n", "version": "1", "rating": 1.0, "interval": [1, 2],
           "games": 3, "form": "WL", "faults": 0}
    text = leaderboard_text([row])
    assert "\x1b" not in text and "ared/n" in text
