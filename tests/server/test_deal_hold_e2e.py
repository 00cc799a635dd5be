"""A real `arena serve` on loopback playing duplicate deals with one worker (4 house bots: each deal at two
tables, one after the other): an anonymous HTTP client downloads every finished game's replay as soon
as it is listed. Whenever another game of the same deal was pending in the store both before and after
the request, the answer is 403; once the deal's last game is stored, the same request gives the replay.
The control (the rule opened) is `test_deal_hold.py`'s, in process: this one shows the real ladder
reserves a deal's every table before it plays the first, so the rule sees them."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.server.server import ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

MORE_HOUSE_BOTS = """  - name: c-random-b
    command: "sample_bots/c/random_bot 5"
  - name: py-random
    command: "{python} sample_bots/python/random_bot.py"
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path)
    srv.config.write_text(srv.config.read_text() + MORE_HOUSE_BOTS)
    srv.start()
    yield srv
    srv.stop()


def _open(db: sqlite3.Connection, game: int) -> bool:
    """Is another game of `game`'s deal pending in the store now?"""
    row = db.execute("SELECT 1 FROM games a JOIN games b ON a.seed = b.seed AND a.id != b.id "
                     "WHERE a.id = ? AND b.status = 'pending'", (game,)).fetchone()
    return row is not None


def test_a_finished_games_replay_is_held_while_its_deal_is_played_at_another_table(server: ServerProcess) -> None:
    db = sqlite3.connect(f"file:{server.data / 'server.sqlite'}?mode=ro", uri=True)
    held: set[int] = set()
    released: set[int] = set()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (held & released):
        for g in server.get("/api/v1/games?limit=20").json()["games"]:
            game = int(g["id"])
            before = _open(db, game)
            r = server.get(f"/api/v1/games/{game}/replay")
            after = _open(db, game)
            if before and after:
                assert r.status_code == 403, (game, r.status_code)  # held: never the hands
                held.add(game)
            elif not before and not after:
                assert r.status_code == 200 and b'"type"' in r.content, (game, r.status_code)
                if game in held:
                    released.add(game)
        time.sleep(0.05)
    assert held & released, f"no game seen held and then shown (held {sorted(held)}, shown {sorted(released)})"
    db.close()
