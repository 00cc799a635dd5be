"""The chaos run (issue 36): `kill -9` a busy `arena serve` at random moments, restart it, and count what
the store kept. Shared by tests/server/test_chaos.py (fewer kills) and bench/bench_chaos.py (50).

Each round starts the server on the same data, checks that every game stored before is still stored
with the same signed record, then sets things in flight (an upload and its check, a pause and a
resume, a bot disabled and enabled, page and API reads), waits a random 0.3-3 s of ladder play and
SIGKILLs it. After the last round the server runs to quiet (every submission checked) and stops; then
the whole store is judged: no game lost or stored twice, no game left pending, no submission stuck,
ratings equal a recomputation, `PRAGMA integrity_check` ok, each stored game's public record intact.
"""

from __future__ import annotations

import hashlib
import random
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import httpx

from arena.ladder.db import Database
from arena.ladder.results import public_path, recompute
from arena.replay.reader import read_replay_bytes
from tests.server.bots import python_random
from tests.server.server import ADMIN, ServerProcess

PLAYERS = 2


@dataclass
class ChaosReport:
    kills: int = 0
    games: int = 0  # stored at the end
    lost: int = 0  # stored once, then missing or changed after a restart
    doubled: int = 0  # stored with the wrong number of seats, or two rows for one replay
    pending: int = 0  # left pending after the final clean stop
    stuck: int = 0  # submissions still received/checking after the final run
    submissions: int = 0
    rating_mismatches: int = 0
    integrity: str = ""
    bad_records: int = 0  # public records whose sha256 differs from the stored one
    server_cpu_s: float = 0.0  # the server process's own CPU over the rounds
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def _done(data: Path) -> dict[int, str]:
    with sqlite3.connect(data / "server.sqlite") as db:
        return {int(i): str(s) for i, s in db.execute("SELECT id, sha256 FROM games WHERE status = 'done'")}


def _quietly(action: Callable[[], Any]) -> None:
    try:
        action()
    except (httpx.HTTPError, OSError, ValueError, KeyError):
        pass  # the kill may land mid-request: that is the point


def _activity(server: ServerProcess, tokens: list[str], rng: random.Random, k: int, stop: threading.Event) -> None:
    steps: list[Callable[[], Any]] = [
        lambda: server.post("/api/v1/submissions", rng.choice(tokens), content=python_random(f"c{k}")),
        lambda: (server.post("/api/v1/admin/ladder/pause", ADMIN), time.sleep(rng.uniform(0.0, 0.5)),
                 server.post("/api/v1/admin/ladder/resume", ADMIN)),
        lambda: server.get("/api/v1/leaderboard"),
        lambda: server.get("/api/v1/admin/health", ADMIN),
    ]
    bots = [int(b["id"]) for b in server.get("/api/v1/leaderboard").json().get("leaderboard", [])]
    if bots:
        bot = rng.choice(bots)
        steps += [lambda: server.post(f"/api/v1/admin/bots/{bot}/disable", ADMIN, json={"reason": "chaos"}),
                  lambda: server.post(f"/api/v1/admin/bots/{bot}/enable", ADMIN)]
    rng.shuffle(steps)
    for step in steps:
        if stop.is_set():
            return
        _quietly(step)
        time.sleep(rng.uniform(0.0, 0.4))


def _ladder_busy(server: ServerProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if server.get("/api/v1/admin/health", ADMIN).json().get("in_flight", 0) > 0:
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)


def _cpu(pid: int) -> float:
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_chaos(tmp: Path, kills: int, seed: int = 36, log: Callable[[str], None] = lambda _m: None) -> ChaosReport:
    rng = random.Random(seed)
    report = ChaosReport()
    server = ServerProcess(tmp, per_minute=10_000)
    server.start()
    tokens = [server.add(f"chaos{i}") for i in range(3)]
    seen: dict[int, str] = {}
    started = time.monotonic()
    for k in range(kills):
        if k:
            server.start()
        _quietly(lambda: server.post("/api/v1/admin/ladder/resume", ADMIN))  # a kill mid-pause leaves it paused
        now = _done(server.data)
        report.lost += sum(1 for g, s in seen.items() if now.get(g) != s)
        seen.update(now)
        stop = threading.Event()
        busy = threading.Thread(target=_quietly, args=(lambda: _activity(server, tokens, rng, k, stop),), daemon=True)
        busy.start()
        _ladder_busy(server, 20.0)  # kill while games are in flight, not only during start-up
        time.sleep(rng.uniform(0.2, 3.0))
        assert server.proc is not None
        report.server_cpu_s += _cpu(server.proc.pid)
        server.stop(signal.SIGKILL)
        report.kills += 1
        stop.set()
        busy.join(30)
        log(f"kill {k + 1}/{kills}: {len(seen)} games seen stored")
    report.wall_s = time.monotonic() - started
    server.start()  # the last start: resume, let every submission be checked, then a clean stop
    try:
        _quietly(lambda: server.post("/api/v1/admin/ladder/resume", ADMIN))
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with sqlite3.connect(server.data / "server.sqlite") as db:
                waiting = db.execute("SELECT COUNT(*) FROM submissions WHERE status IN ('received', 'checking')").fetchone()[0]
            if not waiting:
                break
            time.sleep(1.0)
        now = _done(server.data)
        report.lost += sum(1 for g, s in seen.items() if now.get(g) != s)
    finally:
        server.stop()
    _judge(server.data, report)
    return report


def _judge(data: Path, report: ChaosReport) -> None:
    db = Database(data / "server.sqlite")
    try:
        report.integrity = str(db.one("PRAGMA integrity_check")[0])  # type: ignore[index]
        games = db.all("SELECT id, seq, replay, sha256 FROM games WHERE status = 'done' ORDER BY seq")
        report.games = len(games)
        report.pending = int(db.one("SELECT COUNT(*) AS n FROM games WHERE status = 'pending'")["n"])  # type: ignore[index]
        seats = {int(r["game_id"]): int(r["n"]) for r in db.all("SELECT game_id, COUNT(*) AS n FROM game_seats GROUP BY game_id")}
        replays = [str(g["replay"]) for g in games]
        report.doubled = sum(1 for g in games if seats.get(int(g["id"])) != PLAYERS) + len(replays) - len(set(replays))
        if [int(g["seq"]) for g in games] != list(range(1, len(games) + 1)):
            report.doubled += 1
        report.bad_records = sum(1 for g in games
                                 if hashlib.sha256(read_replay_bytes(public_path(Path(g["replay"])))).hexdigest() != g["sha256"])
        report.submissions = int(db.one("SELECT COUNT(*) AS n FROM submissions")["n"])  # type: ignore[index]
        report.stuck = int(db.one("SELECT COUNT(*) AS n FROM submissions WHERE status IN ('received', 'checking')")["n"])  # type: ignore[index]
        fresh = recompute(db)
        for bot in db.all("SELECT id, mu, sigma, games FROM bots"):
            mu, sigma, n = fresh[int(bot["id"])]
            if abs(mu - bot["mu"]) > 1e-9 or abs(sigma - bot["sigma"]) > 1e-9 or n != bot["games"]:
                report.rating_mismatches += 1
    finally:
        db.close()
