"""A bot that joins a running ladder (issue 39 item 2), on the local pool and on Dask: it plays its
first game within seconds, and no other bot process restarts (process ids compared before and after).
The ladder runs in this process with real workers; the bot is activated as a passed check does.
"hidden": the ladder's workers are `dask worker` processes in bubblewrap where the bots' folder is an
empty tmpfs: the ladder's bots reach them by hash."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.supervisor import Part
from arena.tournament.config.cluster import ClusterSpec
from tests.cluster.test_dask import BOT, _marked, mark  # noqa: F401 - `mark`: the fixture
from tests.cluster.test_no_shared_folder import Cluster
from tests.server.inprocess import make_server

pytestmark = [pytest.mark.cluster, pytest.mark.process]


def _bots(mark: str) -> dict[str, set[int]]:  # noqa: F811
    out: dict[str, set[int]] = {}
    for pid in _marked(mark):
        try:  # the whole command line: a bot's unpacked path on a worker is long
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if BOT.name in command and "--salt " in command:
            out.setdefault(command.split("--salt ", 1)[1].split()[0], set()).add(pid)
    return out


def _wait(check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)
    assert check(), "timed out"  # type: ignore[operator]


@pytest.mark.parametrize("where", ["local", "dask", "hidden"])
def test_a_bot_joining_a_running_ladder_plays_within_seconds_and_restarts_no_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mark: str, where: str) -> None:  # noqa: F811
    house = [{"name": f"h{i}", "command": [sys.executable, str(BOT), "--salt", f"h{i}"]} for i in range(3)]
    server = make_server(tmp_path, monkeypatch, house_bots=house, ladder={"workers": 2})
    ladder = server.ladder
    cluster = None
    if where == "dask":
        ladder.cluster = ClusterSpec.parse("local:2")
    elif where == "hidden":  # a scheduler and two dask worker processes that cannot see the bots' folder
        cluster = Cluster(tmp_path, (BOT.parent,))
        ladder.cluster = ClusterSpec.parse(cluster.address)
    thread = threading.Thread(target=ladder.run, args=(Part("ladder", ladder.run, 120.0),), daemon=True)
    thread.start()
    try:
        _wait(lambda: ladder.played >= 12, 120)
        before = _bots(mark)
        assert set(before) == {"h0", "h1", "h2"}, before
        who, _token = create_participant(server.db, "newcomer")
        joined = time.monotonic()
        bot = activate_bot(server.db, who.id, None, "newcomer", "1", (sys.executable, str(BOT), "--salt", "new"), str(BOT.parent))
        ladder.poke()
        _wait(lambda: int(server.db.all("SELECT games FROM bots WHERE id = ?", bot)[0]["games"]) > 0, 60)
        first_game_s = time.monotonic() - joined
        after = _bots(mark)
        assert {s: before[s] & after.get(s, set()) for s in before} == before, f"restarted: before {before}, after {after}"
        assert first_game_s < 10.0, first_game_s
        assert ladder.error is None, ladder.error
    finally:
        ladder.stop()
        thread.join(60)
        server.db.close()
        if cluster is not None:
            cluster.close()
