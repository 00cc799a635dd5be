"""A real `arena serve` on loopback: a signed-in participant starts a game against a ladder bot from the
bot page, plays it to the end through the server's routes (a scripted client choosing legal actions, as
the page does), the replay verifies with `arena verify`, and no rating moved. Meanwhile another
participant and an anonymous visitor try to read and play that seat through the routes: refused, with the
player's own requests (the control) answered."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.server import ADMIN, ServerProcess, sign_in

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


def _browser(server: ServerProcess, token: str | None) -> httpx.Client:
    browser = httpx.Client(base_url=server.url, timeout=30)
    if token is not None:
        assert sign_in(browser, token, server.url).status_code == 303
    return browser


def test_a_participant_plays_a_ladder_bot_through_the_server(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    try:
        _play(server, tmp_path)
    finally:
        server.stop()


def _play(server: ServerProcess, tmp_path: Path) -> None:
    server.wait("a ladder game", lambda: server.get("/api/v1/games").json()["games"])  # the ladder is running
    assert server.post("/api/v1/admin/ladder/pause", ADMIN).status_code == 200  # its own games hold still
    server.wait("the ladder paused", lambda: server.get("/api/v1/admin/health", ADMIN).json()["in_flight"] == 0)
    before = server.get("/api/v1/leaderboard").json()
    games_before = server.get("/api/v1/games").json()["games"]
    alice, bob = _browser(server, server.add("alice")), _browser(server, server.add("bob"))
    anonymous = _browser(server, None)
    bot_page = alice.get("/bots/1").text
    csrf = re.search(r'name="csrf" value="(\w+)"', bot_page)
    assert csrf and 'action="/bots/1/play"' in bot_page
    started = alice.post("/bots/1/play", data={"csrf": csrf.group(1), "seat": "1", "opponent0": "2"},
                         headers={"Origin": server.url})
    assert started.status_code == 303, started.text
    path = started.headers["location"]
    page = alice.get(path)
    assert page.status_code == 200 and "your seat" in page.text
    token = re.search(r'name="arena-csrf" content="(\w+)"', page.text)
    assert token
    headers = {"Origin": server.url, "X-Arena-CSRF": token.group(1), "Content-Type": "application/json"}
    rng = random.Random(4)
    version, played, attacked = -1, 0, False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = alice.get(f"{path}state", params={"since": version})
        if r.status_code == 410:
            break  # the seat is gone: the game is over and stored
        if r.status_code == 503:
            time.sleep(0.1)  # the seat is starting
            continue
        assert r.status_code == 200, r.text
        state: dict[str, Any] = r.json()
        version = int(state["version"])
        if state["phase"] == "over":
            break
        if state["phase"] == "asked" and state["legal"]:
            if not attacked:
                _attack(server, path, bob, anonymous, state)
                attacked = True
            choice = {"request_id": state["request_id"], "index": rng.randrange(len(state["legal"]))}
            r = alice.post(f"{path}choose", content=json.dumps(choice), headers=headers)
            assert r.status_code == 200, r.text
            again = alice.post(f"{path}choose", content=json.dumps(choice), headers=headers)
            assert again.status_code == 409 and "already answered" in again.text  # a double click
            played += 1
    assert played > 0 and attacked
    game_id = int(path.strip("/").split("/")[1])
    listing = server.wait("the game stored", lambda: (lambda t: "<td>over</td>" in t and t)(alice.get("/play").text))
    assert f'href="/play/{game_id}/replay.jsonl"' in listing
    end = alice.get(f"{path}state", params={"since": -1})  # a page reloaded after the game: its end again
    assert end.status_code == 200 and end.json()["phase"] == "over" and end.json()["result"]
    assert bob.get(f"{path}state", params={"since": -1}).status_code == 404
    replay = alice.get(f"/play/{game_id}/replay.jsonl")
    assert replay.status_code == 200
    file = tmp_path / "human.jsonl"
    file.write_bytes(replay.content)
    verified = subprocess.run([str(Path(sys.executable).parent / "arena"), "verify", str(file)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # unranked: the leaderboard and the ladder's games as they were
    after = server.get("/api/v1/leaderboard").json()
    assert after == before, json.dumps([before, after])
    assert server.get("/api/v1/games").json()["games"] == games_before
    assert bob.get("/play").text.count("/replay.jsonl") == 0  # kept with alice's games, not bob's


def _attack(server: ServerProcess, path: str, bob: httpx.Client, anonymous: httpx.Client, state: dict[str, Any]) -> None:
    """Bob (another participant) and an anonymous visitor at alice's seat, mid-game: refused; alice's own
    read of the same state (the control) is answered."""
    bob_csrf = re.search(r'name="csrf" value="(\w+)"', bob.get("/bots/1").text)
    assert bob_csrf
    choice = json.dumps({"request_id": state["request_id"], "index": 0})
    for who, csrf, status in ((bob, bob_csrf.group(1), 404), (anonymous, "", 401)):
        assert who.get(path).status_code == status
        assert who.get(f"{path}state", params={"since": -1}).status_code == status
        r = who.post(f"{path}choose", content=choice, headers={"Origin": server.url, "X-Arena-CSRF": csrf,
                                                                "Content-Type": "application/json"})
        assert r.status_code == status, r.text
    assert httpx.get(f"{server.url}{path}state", params={"since": -1}, cookies={}).status_code == 401

