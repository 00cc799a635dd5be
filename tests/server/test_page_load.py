"""Pages under load (issue 36, item 16): a finished game's page is rendered once per view and kept (it
is a re-simulation of its replay), each answer under its own nonce; pages are limited per client
address, and one client's limit is not another's. The load itself is `python -m bench.bench_load`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.server.app import build
from tests.server.test_access_rule import Ladder


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ladder:
    return Ladder(tmp_path, monkeypatch)


def _nonces(text: str, csp: str) -> tuple[set[str], str]:
    found = re.search(r"script-src 'nonce-([\w-]+)'", csp)
    assert found
    return set(re.findall(r'nonce="([\w-]+)"', text)), found.group(1)


def test_a_finished_games_page_is_rendered_once_per_view(ladder: Ladder) -> None:
    app = build(ladder.server)
    anonymous = TestClient(app)
    seen = set()
    for _ in range(5):
        r = anonymous.get(f"/games/{ladder.game}")
        assert r.status_code == 200
        in_page, in_header = _nonces(r.text, r.headers["content-security-policy"])
        assert in_page == {in_header} and in_header not in seen  # each answer its own nonce, used by every script
        seen.add(in_header)
    pages = app.app.app.app.state.game_pages  # WarningHeader -> PageRateLimit -> BodyLimit -> Starlette
    assert pages.renders == 1
    owner = TestClient(app, cookies={"arena_session": ladder.alice})
    assert "STDERR-MARK-0" in owner.get(f"/games/{ladder.game}").text  # the owner's view is its own page
    assert "STDERR-MARK-0" not in anonymous.get(f"/games/{ladder.game}").text
    assert pages.renders == 2
    pages.size = 0  # the control: nothing kept, every answer re-simulates
    pages.pages.clear()
    for _ in range(3):
        anonymous.get(f"/games/{ladder.game}")
    assert pages.renders == 5


def test_pages_are_limited_per_client_address(ladder: Ladder) -> None:
    app = build(ladder.server, pages_per_minute=5)
    one = TestClient(app, client=("10.0.0.1", 4000))
    assert [one.get("/").status_code for _ in range(5)] == [200] * 5
    over = one.get(f"/bots/{ladder.bots[0]}")
    assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
    assert one.get("/api/v1/leaderboard").status_code == 200  # the API is limited by its own rules
    other = TestClient(app, client=("10.0.0.2", 4000))
    assert other.get("/").status_code == 200
