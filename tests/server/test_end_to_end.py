"""End to end on loopback with real processes: participants submit bots over HTTP, the ladder plays
them, a new version takes over, and a downloaded replay verifies with the server's public key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.server.bots import broken, js_random, python_heuristic, python_random
from tests.server.server import ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("e2e")).start()
    yield srv
    srv.stop()


def _released(server: ServerProcess, bot: int, token: str) -> int | None:
    """The newest finished game of `bot` whose deal is played out (its replay no longer held), if any."""
    for listed in server.get(f"/api/v1/games?bot={bot}&limit=20").json()["games"]:
        if server.get(f"/api/v1/games/{listed['id']}", token).json().get("held") is False:
            return int(listed["id"])
    return None


def _bot(server: ServerProcess, bot: int) -> dict:  # type: ignore[type-arg]
    return server.get(f"/api/v1/bots/{bot}").json()  # type: ignore[no-any-return]


def test_three_participants_submit_the_ladder_plays_a_new_version_takes_over(server: ServerProcess, tmp_path: Path) -> None:
    tokens = {name: server.add(name) for name in ("alice", "bob", "carol")}
    subs = {}
    for name, archive in (("alice", python_random()), ("bob", js_random()), ("carol", broken())):
        r = server.post("/api/v1/submissions", tokens[name], content=archive)
        assert r.status_code == 202, r.text
        subs[name] = r.json()["submission"]
    verdicts = {name: server.wait_submission(sub, tokens[name]) for name, sub in subs.items()}
    assert verdicts["alice"]["status"] == "passed", verdicts["alice"]
    assert verdicts["bob"]["status"] == "passed", verdicts["bob"]
    carol = verdicts["carol"]
    assert carol["status"] == "refused" and carol["bot"] is None
    assert "check-bot failed" in carol["reason"] and "handshake" in carol["reason"]
    assert "FAIL" in carol["report"]  # the check's report, the bot's own words with it, to its owner
    # The report is its owner's alone.
    assert server.get(f"/api/v1/submissions/{subs['carol']}", tokens["alice"]).status_code == 403

    alice_bot, bob_bot = verdicts["alice"]["bot"], verdicts["bob"]["bot"]
    server.wait("games of both new bots", lambda: _bot(server, alice_bot)["games"] >= 4 and _bot(server, bob_bot)["games"] >= 4)
    board = server.get("/api/v1/leaderboard").json()["leaderboard"]
    assert {b["participant"] for b in board} >= {"alice", "bob", "house-py-heuristic", "house-c-random"}
    assert "carol" not in {b["participant"] for b in board}
    alice = _bot(server, alice_bot)
    assert alice["mu"] != 25.0 and alice["sigma"] < 8.3333 and alice["rating_history"]

    # A new version replaces alice's active bot; the old one keeps its games and history.
    r = server.post("/api/v1/submissions", tokens["alice"], content=python_heuristic("2"))
    assert r.status_code == 202, r.text
    v2 = server.wait_submission(r.json()["submission"], tokens["alice"])
    assert v2["status"] == "passed", v2
    old = _bot(server, alice_bot)
    assert old["status"] == "retired" and old["games"] >= alice["games"] and old["rating_history"]
    server.wait("the new version's first games", lambda: _bot(server, v2["bot"])["games"] >= 2)
    board = server.get("/api/v1/leaderboard").json()["leaderboard"]
    mine = [b for b in board if b["participant"] == "alice"]
    assert [b["id"] for b in mine] == [v2["bot"]] and mine[0]["version"] == "2"

    # A downloaded replay verifies with the server's public key; a changed one does not.
    # A game whose deal is played out: while another table of its deal waits, its replay is held (403).
    game = server.wait("a game of the new version whose deal is played out", lambda: _released(server, v2["bot"], tokens["alice"]))
    replay = tmp_path / "game.jsonl"
    download = server.get(f"/api/v1/games/{game}/replay", tokens["alice"])
    assert download.status_code == 200, download.text
    replay.write_bytes(download.content)
    Path(str(replay) + ".sig.json").write_bytes(server.get(f"/api/v1/games/{game}/signature").content)
    key = tmp_path / "server.pem"
    key.write_text(server.get("/api/v1/public-key").text)
    ok = subprocess.run([*ARENA, "verify", "--key", str(key), str(replay)], capture_output=True, text=True)
    assert ok.returncode == 0 and "signed by the key's server 'srvtest'" in ok.stdout, ok.stdout + ok.stderr
    other = tmp_path / "other.pem"
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from arena.audit.signing import public_pem

    other.write_text(public_pem(Ed25519PrivateKey.generate()))
    bad = subprocess.run([*ARENA, "verify", "--key", str(other), str(replay)], capture_output=True, text=True)
    assert bad.returncode == 2 and "not made by this key" in bad.stderr
    lines = replay.read_bytes().splitlines(keepends=True)
    replay.write_bytes(b"".join(lines[:-1]) + lines[-1].replace(b'"points":[', b'"points":[1'))
    tampered = subprocess.run([*ARENA, "verify", "--key", str(key), str(replay)], capture_output=True, text=True)
    assert tampered.returncode == 2 and "not the replay the server stored" in tampered.stderr
