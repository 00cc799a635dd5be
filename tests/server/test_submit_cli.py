"""`arena submit` and `arena ladder status` as a participant runs them: whole processes against a real
`arena serve` on loopback, the server and token given every way a participant can give them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.server.bots import SAMPLES, loud_broken, manifest
from tests.server.server import ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("submit")).start()
    yield srv
    srv.stop()


def arena(*args: str, env: dict[str, str] | None = None, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    if home is not None:
        base["HOME"] = str(home)
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=600, env={**base, **(env or {})})


def good_folder(root: Path) -> Path:
    folder = root / "mybot"
    folder.mkdir()
    (folder / "manifest.json").write_text(manifest("mybot", "1", "python3 random_bot.py 5"))
    for name in ("random_bot.py", "arenabot.py"):
        (folder / name).write_bytes((SAMPLES / "python" / name).read_bytes())
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("not part of the bot")
    return folder


def test_a_good_bot_folder_joins_and_its_standing_is_printed(server: ServerProcess, tmp_path: Path) -> None:
    token = server.add("alice")
    # The token from the config file, like kaggle.json; the server from the environment.
    config = tmp_path / "client.json"
    config.write_text(json.dumps({"token": token}))
    config.chmod(0o600)
    done = arena("submit", str(good_folder(tmp_path)), "--games", "2",
                 env={"ARENA_SERVER": server.url, "ARENA_CLIENT_CONFIG": str(config)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed:" in done.stdout
    assert "joined the ladder" in done.stdout
    line = [x for x in done.stdout.splitlines() if x.startswith("bot ") and "rank" in x]
    assert line and "of " in line[0] and "games" in line[0], done.stdout
    bot = int(line[0].split()[1].rstrip(":"))
    # The packed folder left out .git; the bot's files arrived.
    files = server.get(f"/api/v1/bots/{bot}/files", token).json()["files"]
    assert {f["path"] for f in files} == {"manifest.json", "random_bot.py", "arenabot.py"}


def test_a_broken_bot_is_refused_with_its_stderr_and_exit_1(server: ServerProcess, tmp_path: Path) -> None:
    token = server.add("carol")
    archive = tmp_path / "broken.zip"
    archive.write_bytes(loud_broken())
    done = arena("submit", "--server", server.url, "--token", token, str(archive))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("refused: check-bot failed"), done.stdout
    assert "broken bot: I only print garbage" in done.stdout  # the bot's own stderr, shown to its owner


def test_a_wrong_token_is_one_line_and_exit_2(server: ServerProcess, tmp_path: Path) -> None:
    done = arena("submit", "--server", server.url, str(good_folder(tmp_path)), env={"ARENA_TOKEN": "not-a-token"})
    assert done.returncode == 2
    assert done.stdout == ""
    packed, *error = done.stderr.strip().splitlines()  # what was packed is said before the upload (issue 38)
    assert packed.startswith("packed ") and " files, " in packed, done.stderr
    assert len(error) == 1 and error[0].startswith("arena: error: the server refused the token"), done.stderr


def test_a_folder_without_manifest_is_refused_before_any_upload(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print()")
    done = arena("submit", "--server", "http://127.0.0.1:9", "--token", "t", str(tmp_path))
    assert done.returncode == 2 and "no manifest.json" in done.stderr and len(done.stderr.splitlines()) == 1


def test_no_server_is_one_line_exit_2(tmp_path: Path) -> None:
    done = arena("ladder", "status", "--server", "http://127.0.0.1:9", home=tmp_path)
    assert done.returncode == 2 and "cannot reach the server" in done.stderr and len(done.stderr.splitlines()) == 1


def test_ladder_status_prints_the_leaderboard(server: ServerProcess, tmp_path: Path) -> None:
    server.wait("a few ladder games", lambda: server.get("/api/v1").json()["games"] >= 2)
    done = arena("ladder", "status", env={"ARENA_SERVER": server.url}, home=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("srvtest (kododo):") and "games" in lines[0]
    assert lines[1].split()[:4] == ["#", "bot", "version", "rating"]
    board = server.get("/api/v1/leaderboard").json()["leaderboard"]
    for row in board:
        assert any(f"{row['participant']}/{row['name']}" in line for line in lines[2:]), done.stdout
