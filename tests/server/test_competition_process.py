"""Quotas, budgets, the version that plays and challenges on a real `arena serve` on loopback (issue 37,
items 5-7): real uploads, checks and ladder games in the sandbox, the participant's own commands."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from tests.server.bots import python_heuristic, python_random
from tests.server.server import ADMIN, ServerProcess, sign_in

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]
KEEP_DAYS = 0.0002  # 17.3 s: games older than this keep their replay only in the sample (every 2nd id)


class BudgetServer(ServerProcess):
    def __init__(self, tmp: Path, yaml: str) -> None:
        super().__init__(tmp, per_minute=100)
        self.config.write_text(self.config.read_text() + yaml)


def arena(server: ServerProcess, token: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_SERVER": server.url, "ARENA_TOKEN": token, "ARENA_CLIENT_CONFIG": "/nonexistent"}
    return subprocess.run([*ARENA, *args], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = BudgetServer(tmp_path_factory.mktemp("budget"), f"""
quotas: {{uploads_per_day: 2, challenges_per_day: 1, challenge_games: 24}}
budget: {{keep_days: {KEEP_DAYS}, keep_sample: 0.5, compress: true, challenge_share: 0.5}}
""").start()
    yield srv
    srv.stop()


def _bot(server: ServerProcess, bot: int) -> dict[str, Any]:
    body: dict[str, Any] = server.get(f"/api/v1/bots/{bot}").json()
    return body


def test_uploads_a_day_then_a_rollback_the_ladder_plays_the_chosen_version(server: ServerProcess) -> None:
    assert "disk a day:" in server.log.read_text()  # `arena serve` says it at start
    alice = server.add("alice")
    subs = []
    for archive in (python_random("1"), python_heuristic("2")):  # the control: the day's two uploads are taken
        r = server.post("/api/v1/submissions", alice, content=archive)
        assert r.status_code == 202, r.text
        subs.append(r.json()["submission"])
        assert server.wait_submission(subs[-1], alice)["status"] == "passed"
    r = server.post("/api/v1/submissions", alice, content=python_random("3"))
    assert r.status_code == 429 and "2 uploads a day" in r.json()["error"] and "next is allowed at" in r.json()["error"]
    me = server.get("/api/v1/me", alice).json()
    v1, v2 = (b["id"] for b in me["bots"])
    assert [b["status"] for b in me["bots"]] == ["retired", "active"]  # the newest plays by default
    server.wait("games of version 2", lambda: _bot(server, v2)["games"] >= 2)

    listed = arena(server, alice, "ladder", "versions")
    assert listed.returncode == 0 and "<- plays" in listed.stdout, listed.stderr
    used = arena(server, alice, "ladder", "use", "1")
    assert used.returncode == 0 and "now plays" in used.stdout, used.stdout + used.stderr
    start = _bot(server, v1)["games"]
    server.wait("version 1 back on the ladder", lambda: _bot(server, v1)["games"] >= start + 3)
    v2_games = _bot(server, v2)["games"]
    server.wait("more games of version 1", lambda: _bot(server, v1)["games"] >= start + 6)
    assert _bot(server, v2)["games"] == v2_games and _bot(server, v2)["status"] == "retired"  # only the chosen one plays
    refused = arena(server, alice, "ladder", "use", "#999999")
    assert refused.returncode != 0 and "no version" in refused.stderr + refused.stdout


def test_a_challenge_reaches_arena_matchs_verdict_and_a_second_is_over_the_quota(server: ServerProcess) -> None:
    bob = server.add("bob")
    r = server.post("/api/v1/submissions", bob, content=python_random("1"))
    assert server.wait_submission(r.json()["submission"], bob)["status"] == "passed"
    done = arena(server, bob, "challenge", "house-py-heuristic", "--timeout", "240")
    assert "verdict:" in done.stdout, done.stdout + done.stderr
    challenges = server.get("/api/v1/challenges", bob).json()["challenges"]
    assert len(challenges) == 1
    verdict = challenges[0]["verdict"]
    assert done.returncode == {"better": 0, "not-better": 1, "undecided": 3}[verdict]
    detail = server.get(f"/api/v1/challenges/{challenges[0]['id']}", bob).json()
    games = detail["games"]
    assert len(games) == 2 * detail["deals"] and games[0]["bots"] == games[1]["bots"][::-1]  # paired, seats swapped
    for g in games[:2]:
        assert server.get(f"/api/v1/games/{g['id']}").status_code == 404  # unranked: not a ladder game
    ladder = {g["id"] for g in server.get("/api/v1/games?limit=500").json()["games"]}
    assert not ladder & {g["id"] for g in games}
    again = arena(server, bob, "challenge", "house-py-heuristic", "--timeout", "5")
    assert again.returncode == 4 and "1 challenges a day" in again.stdout, again.stdout + again.stderr
    assert len(server.get("/api/v1/challenges", bob).json()["challenges"]) == 1


def test_submit_with_a_challenge_uploads_then_challenges_with_the_new_bot(server: ServerProcess, tmp_path: Path) -> None:
    carol = server.add("carol")
    archive = tmp_path / "bot.zip"
    archive.write_bytes(python_random("1"))
    done = arena(server, carol, "submit", str(archive), "--games", "0", "--challenge", "house-py-heuristic",
                 "--check-timeout", "240")
    assert "joined the ladder" in done.stdout and "verdict:" in done.stdout, done.stdout + done.stderr
    challenges = server.get("/api/v1/challenges", carol).json()["challenges"]
    assert len(challenges) == 1 and challenges[0]["bot"] == server.get("/api/v1/me", carol).json()["bots"][0]["id"]
    assert done.returncode == {"better": 0, "not-better": 1, "undecided": 3}[challenges[0]["verdict"]]


def test_retention_thins_old_replays_keeps_recent_ones_and_compressed_replays_verify(server: ServerProcess, tmp_path: Path) -> None:
    server.wait("games older than keep_days", lambda: len(server.get("/api/v1/games?limit=500").json()["games"]) >= 6)
    time.sleep(KEEP_DAYS * 86400 + 1)  # a real process's clock: the only wait in this file
    before = time.time()
    swept = server.post("/api/v1/admin/upkeep", ADMIN).json()
    assert swept["removed"] > 0, swept
    games = server.get("/api/v1/games?limit=500").json()["games"]
    keep = KEEP_DAYS * 86400
    recent = 0
    for g in sorted(games, key=lambda g: -g["finished"]):  # the newest first: the upkeep part sweeps on its own too
        status = server.get(f"/api/v1/games/{g['id']}/replay", ADMIN).status_code  # the organiser: no deal held back
        if time.time() - g["finished"] < keep - 2:
            assert status == 200, g  # recent: kept
            recent += 1
        elif g["finished"] < before - keep - 2:
            assert status == (200 if g["id"] % 2 == 0 else 404), g  # old: the sample kept, the rest removed
    old = [g for g in games if g["finished"] < before - keep - 2]
    assert old and recent
    kept = next(g for g in old if g["id"] % 2 == 0)
    on_disk = list((server.data / "replays").glob(f"{kept['id']:06d}-*"))
    assert on_disk and all(p.name.endswith((".gz", ".sig.json")) for p in on_disk)  # compressed at rest
    key = tmp_path / "server.pem"
    key.write_text(server.get("/api/v1/public-key").text)
    replay = tmp_path / "game.jsonl"
    replay.write_bytes(server.get(f"/api/v1/games/{kept['id']}/replay").content)
    (tmp_path / "game.jsonl.sig.json").write_bytes(server.get(f"/api/v1/games/{kept['id']}/signature").content)
    for path in (str(replay), str(next(p for p in on_disk if p.name.endswith(".public.jsonl.gz")))):
        checked = subprocess.run([*ARENA, "verify", "--key", str(key), path], capture_output=True, text=True, timeout=120)
        assert checked.returncode == 0 and "ok:" in checked.stdout, checked.stdout + checked.stderr
    assert server.get(f"/games/{kept['id']}").status_code == 200  # the viewer reads it compressed


def test_the_disk_budget_refuses_uploads_and_the_admin_page_says_so(tmp_path: Path) -> None:
    srv = BudgetServer(tmp_path, "budget: {disk_budget_mb: 40}\n").start()
    try:
        alice = srv.add("alice")
        r = srv.post("/api/v1/submissions", alice, content=python_random("1"))
        assert r.status_code == 202, r.text  # the control: under the budget
        srv.wait_submission(r.json()["submission"], alice)
        stored = {p: p.read_bytes() for p in (srv.data / "uploads").rglob("*") if p.is_file()}
        (srv.data / "filler.bin").write_bytes(b"\0" * (40 * 1024 * 1024))
        assert "OVER" in srv.post("/api/v1/admin/upkeep", ADMIN).json()["disk_budget"]
        r = srv.post("/api/v1/submissions", alice, content=python_random("2"))
        assert r.status_code == 507 and "disk budget" in r.json()["error"], r.text
        with httpx.Client(base_url=srv.url) as browser:
            assert sign_in(browser, ADMIN, srv.url).status_code == 303
            assert "OVER: uploads and new games refused" in browser.get("/admin").text
        assert all(p.read_bytes() == data for p, data in stored.items())  # nothing stored was touched
        (srv.data / "filler.bin").unlink()
        srv.post("/api/v1/admin/upkeep", ADMIN)
        assert srv.post("/api/v1/submissions", alice, content=python_random("3")).status_code == 202  # room again
    finally:
        srv.stop()
