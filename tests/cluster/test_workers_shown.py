"""Operations (issue 39, item 4): the organiser's page and `arena ladder status` show the ladder's workers,
the games each finished in the last minute, and each one's bot cache; the public answer (what
`arena ladder status` reads) names no worker's address or cache folder, which are the organiser's.

The workers' answers are made by the worker side's own `status_task` on a real `BotCache` plugin with a
real archive cache (an archive fetched, a tampered copy refused, games finished at known times): only the
Dask round trip (`DaskExecutor.workers_status`, covered by tests/cluster/test_field_grows.py) is left out.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.run.cluster.botcache import ArchiveCache
from arena.tournament.run.dask_worker import PLUGIN_NAME, BotCache, status_task
from tests.server.inprocess import ADMIN, client, make_server

ADDRESS = "tcp://10.1.2.3:40111"


def worker_answer(root: Path, games_last_minute: int, old_games: int) -> dict[str, Any]:
    """What `status_task` answers on a worker whose cache fetched one archive (after refusing a tampered copy)."""
    plugin = BotCache()
    plugin.archives = ArchiveCache(root, limit=64 << 20)
    data = b"a bot's archive" * 100
    digest = hashlib.sha256(data).hexdigest()
    copies = iter([b"tampered", data])
    plugin.cache.archive(digest, lambda: next(copies))
    now = time.time()
    plugin.finished.extend([now - 3600.0] * old_games + [now - 1.0] * games_last_minute)
    return status_task(SimpleNamespace(plugins={PLUGIN_NAME: plugin}))  # type: ignore[arg-type]


class Workers:
    """The ladder's executor as far as status goes: its `workers_status`, in `DaskExecutor`'s shape."""

    def __init__(self, answers: dict[str, dict[str, Any]], excluded: set[str]) -> None:
        self.answers, self.excluded = answers, excluded

    def workers_status(self) -> list[dict[str, Any]]:
        return [{"worker": a, "games_per_minute": x["games_per_minute"], "cache": x["cache"], "plays": a not in self.excluded}
                for a, x in sorted(self.answers.items())]


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    server = make_server(tmp_path, monkeypatch)
    answers = {ADDRESS: worker_answer(tmp_path / "cache-a", 7, 5),
               "tcp://10.1.2.4:40112": worker_answer(tmp_path / "cache-b", 0, 2)}
    server.ladder.executor = Workers(answers, {"tcp://10.1.2.4:40112"})  # type: ignore[assignment]
    return server, tmp_path


def test_a_workers_answer_counts_the_last_minute_and_its_cache(tmp_path: Path) -> None:
    answer = worker_answer(tmp_path / "c", 7, 5)
    assert answer["games_per_minute"] == 7  # the 5 games of an hour ago are not counted
    cache = answer["cache"]
    assert cache["archives"] == 1 and cache["bytes"] == 1500 and cache["limit"] == 64 << 20
    assert cache["fetched"] == 2 and cache["refused"] == 1 and cache["folder"] == str(tmp_path / "c")


def test_the_admin_page_shows_each_worker_its_rate_and_cache(served: Any) -> None:
    server, tmp = served
    page = client(server, ADMIN).get("/admin")
    assert page.status_code == 200
    table = re.search(r'<table class="grid" id="workers">.*?</table>', page.text, re.S)
    assert table, page.text
    rows = re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td><td>(.*?)</td><td>(.*?)</td></tr>", table.group(0))
    assert [(r[0], r[1], r[3]) for r in rows] == [(ADDRESS, "7", "plays"), ("tcp://10.1.2.4:40112", "0", "plays nothing")]
    assert rows[0][2] == f"1 bots, 1 KiB of 64 MiB in {tmp / 'cache-a'}; fetched 2, refused 1"
    # Control: anyone else is refused the page, and so never sees the addresses.
    assert ADDRESS not in client(server).get("/admin").text


def test_ladder_status_prints_each_worker_without_its_address(served: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server, _ = served
    app = client(server)
    import arena.server.client as remote

    real = remote.Client

    class InProcess(real):  # type: ignore[misc,valid-type]
        def __init__(self, config: Any, **kw: Any) -> None:
            super().__init__(config, transport=app._transport, **kw)

    monkeypatch.setattr(remote, "Client", InProcess)
    done = CliRunner().invoke(main, ["ladder", "status", "--server", "http://testserver"])
    assert done.exit_code == 0, done.output
    lines = [line for line in done.output.splitlines() if line.startswith("worker ")]
    assert lines == ["worker 1: 7 games/min, cache 1 bots, 1 KiB of 64 MiB",
                     "worker 2: 0 games/min, cache 1 bots, 1 KiB of 64 MiB (plays nothing)"], done.output
    public = httpx.Client(transport=app._transport, base_url="http://testserver").get("/api/v1").json()
    assert "10.1.2" not in str(public) and "cache-a" not in str(public)  # the organiser's facts stay on the admin page
    assert public["workers"][0]["cache"]["fetched"] == 2
