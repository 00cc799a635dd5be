"""The phases at the HTTP edge (in process, no ladder thread): uploads refused after the deadline (403 with
"uploads closed since <time>"), the organiser's phase changes (API and admin page, out of order 409),
read-only once closed, the banner on every page, the ladder halted in the final. Each refusal has its
control: the same request taken in the phase that allows it."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.ladder.config import parse
from arena.ladder.service import Server
from tests.server.inprocess import ADMIN, ORIGIN, client

DEADLINE = dt.datetime(2026, 12, 1, 18, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


class Clock:
    def __init__(self) -> None:
        self.t = DEADLINE.timestamp() - 3600

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Server, Clock]:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    config = parse({"name": "inprocess", "game": "kododo", "players": 2, "data": str(tmp_path / "data"),
                    "phases": {"deadline": DEADLINE.isoformat()}}, tmp_path / "ladder.yaml")
    clock = Clock()
    return Server(config, sandbox=False, clock=clock), clock


def test_an_upload_after_the_deadline_is_403_uploads_closed_since(made: tuple[Server, Clock]) -> None:
    server, clock = made
    _, token = server.add_participant("ada")
    api = client(server, token)
    before = api.post("/api/v1/submissions", content=b"")
    assert before.status_code == 400 and "empty upload" in before.json()["error"]  # control: open, past the gate
    csrf = re.search(r'data-csrf="(\w+)"', api.get("/submit").text).group(1)  # type: ignore[union-attr]
    form = api.post("/submit", content=b"", headers={"Origin": ORIGIN, "X-Arena-CSRF": csrf})
    assert form.status_code == 400 and "choose an archive" in form.json()["error"]  # the page's control
    clock.t = DEADLINE.timestamp() + 1
    after = api.post("/api/v1/submissions", content=b"PK-not-even-read")
    assert after.status_code == 403
    assert after.json()["error"].startswith("uploads closed since 2026-12-01 18:00 (UTC+01:00)")
    assert server.read.submissions_of(server.participant_by_token(token).id, 10) == []  # type: ignore[union-attr]
    page = api.get("/submit").text  # the upload page says so, and shows no form
    assert 'id="uploads-closed"' in page and "uploads closed since 2026-12-01 18:00" in page and 'id="upload"' not in page
    refused = api.post("/submit", content=b"x", headers={"Origin": ORIGIN, "X-Arena-CSRF": csrf})
    assert refused.status_code == 403 and "uploads closed since" in refused.json()["error"]


def test_the_organiser_moves_the_phase_by_the_api_out_of_order_is_409(made: tuple[Server, Clock]) -> None:
    server, _ = made
    admin = client(server, ADMIN)
    wrong = admin.post("/api/v1/admin/phase", json={"phase": "final"})
    assert wrong.status_code == 409 and "move it to frozen first" in wrong.json()["error"]
    assert admin.get("/api/v1/admin/phase").json()["history"] == []  # nothing changed
    assert admin.post("/api/v1/admin/phase", json={"phase": "thawed"}).status_code == 400
    _, token = server.add_participant("ada")
    assert client(server, token).post("/api/v1/admin/phase", json={"phase": "frozen"}).status_code == 403
    ok = admin.post("/api/v1/admin/phase", json={"phase": "frozen"})  # the control: in order
    assert ok.status_code == 200 and ok.json()["phase"] == "frozen"
    assert ok.json()["history"][0] | {"at": 0} == {"from": "open", "to": "frozen", "who": "organiser (admin API)", "at": 0}
    public = client(server).get("/api/v1/phase").json()
    assert public["phase"] == "frozen" and public["uploads"] is False and "history" not in public


def test_the_final_halts_the_ladder_and_frozen_does_not(made: tuple[Server, Clock]) -> None:
    server, _ = made
    server.set_phase("frozen", "t")
    assert not server.ladder.paused  # frozen: the ladder goes on
    server.set_phase("final", "t")
    assert server.ladder.paused


def test_closed_serves_every_page_but_refuses_every_write(made: tuple[Server, Clock]) -> None:
    server, _ = made
    admin = client(server, ADMIN)
    assert admin.post("/api/v1/admin/participants", json={"name": "early"}).status_code == 201  # control: open
    for step in ("frozen", "final", "closed"):
        server.set_phase(step, "t")
    late = admin.post("/api/v1/admin/participants", json={"name": "late"})
    assert late.status_code == 409 and "read-only" in late.json()["error"]
    assert admin.post("/api/v1/admin/ladder/pause").status_code == 409
    assert admin.post("/api/v1/admin/accounts/early/reset").status_code == 409
    _who, token = server.add_participant("writer")  # (past the gate: straight into the store, listed below)
    upload = client(server, token).post("/api/v1/submissions", content=b"any bytes")  # refused as after the deadline:
    assert upload.status_code == 403 and upload.json()["error"].startswith("uploads closed since ")  # `arena submit` exits 3
    for path in ("/", "/admin", "/api/v1/leaderboard", "/api/v1/phase", "/api/v1/admin/phase", "/api/v1/admin/accounts"):
        assert admin.get(path).status_code == 200, path
    assert [a["name"] for a in admin.get("/api/v1/admin/accounts").json()["accounts"]] == ["early", "writer"]


def test_the_banner_shows_the_phase_and_the_deadline_on_every_page(made: tuple[Server, Clock]) -> None:
    server, clock = made
    _, token = server.add_participant("ada")
    for who in (None, token, ADMIN):
        for path in ("/", "/submit", "/admin", "/signin", "/bots/999"):
            page = client(server, who).get(path)
            assert page.headers["content-type"].startswith("text/html"), path
            assert 'id="phase-banner"' in page.text and "phase: open; deadline 2026-12-01 18:00 (UTC+01:00)" in page.text, path
    clock.t = DEADLINE.timestamp() + 60
    page = client(server).get("/").text
    assert 'data-phase="frozen"' in page and "uploads closed since 2026-12-01 18:00 (UTC+01:00)" in page
    assert "phase-banner" not in client(server).get("/api/v1/leaderboard").text  # JSON is left alone


def test_the_admin_page_moves_the_phase_with_its_csrf_form(made: tuple[Server, Clock]) -> None:
    server, _ = made
    admin = client(server, ADMIN)
    page = admin.get("/admin").text
    assert 'id="phase-form"' in page and 'value="frozen"' in page
    csrf = re.search(r'name="csrf" value="(\w+)"', page).group(1)  # type: ignore[union-attr]
    assert admin.post("/admin/phase", data={"phase": "frozen", "csrf": "forged"}, headers={"Origin": ORIGIN}).status_code == 403
    assert server.phase().phase.value == "open"
    wrong = admin.post("/admin/phase", data={"phase": "closed", "csrf": csrf}, headers={"Origin": ORIGIN})
    assert wrong.status_code == 409 and server.phase().phase.value == "open"
    ok = admin.post("/admin/phase", data={"phase": "frozen", "csrf": csrf}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert ok.status_code == 303 and server.phase().phase.value == "frozen"
    assert "open → frozen by organiser (admin page)" in admin.get("/admin").text


def test_the_openapi_document_shows_the_request_bodies_with_examples(made: tuple[Server, Clock]) -> None:
    server, _ = made
    doc = client(server).get("/api/v1/openapi.json").json()
    body = doc["paths"]["/api/v1/admin/accounts"]["post"]["requestBody"]["content"]["application/json"]
    assert body["example"]["accounts"][1]["team"] == "bletchley"
    assert body["schema"]["properties"]["accounts"]["items"]["required"] == ["name", "display_name"]
    phase = doc["paths"]["/api/v1/admin/phase"]["post"]
    assert phase["requestBody"]["content"]["application/json"]["example"] == {"phase": "frozen"}
    assert "409" in phase["responses"] or 409 in phase["responses"]


def test_the_existing_admin_bodies_have_examples_too(made: tuple[Server, Clock]) -> None:
    server, _ = made
    doc = client(server).get("/api/v1/openapi.json").json()
    add = doc["paths"]["/api/v1/admin/participants"]["post"]["requestBody"]["content"]["application/json"]
    assert add["example"] == {"name": "alice"} and add["schema"]["required"] == ["name"]
    disable = doc["paths"]["/api/v1/admin/bots/{id}/disable"]["post"]["requestBody"]["content"]["application/json"]
    assert "reason" in disable["example"]
