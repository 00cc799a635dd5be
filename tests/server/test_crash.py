"""SIGKILL the server mid-ladder and start it again: no game lost or stored twice, the games in flight
discarded cleanly, every stored game's replay signed, ratings equal a recomputation from the store."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
from pathlib import Path

from arena.jsonvalue import loads
from arena.ladder.db import Database
from arena.ladder.results import PUBLIC_SUFFIX, public_path, recompute
from arena.replay.reader import read_replay_bytes
from arena.audit.signing import check, read_public_key
import pytest

from tests.server.server import ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


def _done(data: Path) -> dict[int, str]:
    with sqlite3.connect(data / "server.sqlite") as db:
        return {int(i): str(s) for i, s in db.execute("SELECT id, sha256 FROM games WHERE status = 'done'")}


def test_sigkill_mid_ladder_then_restart(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    try:
        server.wait("10 ladder games", lambda: server.get("/api/v1").json()["games"] >= 10, 120)
    finally:
        server.stop(signal.SIGKILL)
    before = _done(server.data)
    with sqlite3.connect(server.data / "server.sqlite") as db:
        cut_short = db.execute("SELECT COUNT(*) FROM games WHERE status = 'pending'").fetchone()[0]
    assert len(before) >= 10

    server.start()
    try:
        server.wait("more games after the restart", lambda: server.get("/api/v1").json()["games"] >= len(before) + 6, 120)
        key = server.get("/api/v1/public-key").text
    finally:
        server.stop()
    after = _done(server.data)
    assert {g: s for g, s in after.items() if g in before} == before  # nothing lost, nothing rewritten
    db = Database(server.data / "server.sqlite")
    assert db.one("SELECT COUNT(*) AS n FROM games WHERE status = 'pending'")["n"] == 0  # type: ignore[index]
    seqs = [r["seq"] for r in db.all("SELECT seq FROM games ORDER BY seq")]
    assert seqs == list(range(1, len(after) + 1))  # each game stored once, rated once
    assert db.one("SELECT COUNT(*) AS n FROM game_seats")["n"] == 2 * len(after)  # type: ignore[index]
    for row in db.all("SELECT id, replay, sha256 FROM games"):  # the signed file: the game's public record
        assert hashlib.sha256(read_replay_bytes(public_path(Path(row["replay"])))).hexdigest() == row["sha256"]
    names = [p.name.removesuffix(".gz") for p in (server.data / "replays").iterdir()]  # .gz: compressed at rest
    replays = {n for n in names if n.endswith(".jsonl") and not n.endswith(PUBLIC_SUFFIX)}
    assert len(replays) == len(after)  # the games cut short left no replay behind
    # Ratings kept incrementally equal a recomputation of every stored game in order.
    fresh = recompute(db)
    for bot in db.all("SELECT id, mu, sigma, games FROM bots"):
        mu, sigma, games = fresh[int(bot["id"])]
        assert abs(mu - bot["mu"]) < 1e-9 and abs(sigma - bot["sigma"]) < 1e-9 and games == bot["games"]
    last = db.one("SELECT replay FROM games ORDER BY id DESC LIMIT 1")
    assert last is not None
    signed = check(public_path(Path(last["replay"])), read_public_key(key))
    assert signed.server == "srvtest"
    print(f"games before the kill {len(before)}, cut short {cut_short}, after {len(after)}; "
          f"results {loads(db.one('SELECT result FROM games LIMIT 1')['result'])['ranks']}")  # type: ignore[index]
