"""Published results from a final a fake executor played: the places and their marks, the downloads, the
signed results file (a tampered one refused), the /results page, the report's folder kept closed, and the
organiser's final and publish actions (the admin token only)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from arena.cli import main
from arena.ladder.competition.final.final import final_store, run_final
from arena.ladder.competition.final.places import places
from arena.ladder.competition.final.published import publish, published_folder
from arena.ladder.service import Server
from arena.server.app import build
from arena.stats.intervals import EntrantUncertainty, Interval, Uncertainty
from arena.stats.ratings import Standing

from tests.server.final.support import ADMIN, FakeExecutor, competition

FIELD = {"ann": 3.0, "bob": 2.9, "cy": 0.0, "dee": -3.0}


def _standing(place: int, name: str, score: float, avg_rank: float) -> Standing:
    return Standing(place, name, score, score + 3, 1.0, 40, 10, 10.0, avg_rank, 0)


def test_a_first_place_the_two_statistics_disagree_on_is_marked_not_settled() -> None:
    names = ["ann", "bob", "cy", "dee"]
    standings = [_standing(1, "ann", 30, 1.9), _standing(2, "bob", 29, 1.8), _standing(3, "cy", 20, 3.0),
                 _standing(4, "dee", 10, 3.3)]

    def unc(order: tuple[int, ...]) -> Uncertainty:
        p = {0: 0.999, 1: 0.999, 2: 0.999, 3: None}
        return Uncertainty(0.95, 2000, 0, 0, 40, tuple(
            EntrantUncertainty(i, Interval(1.0, 0.5, 1.5), None, p[order.index(i)], None) for i in range(4)), order=order)

    disagree = places(standings, unc((1, 0, 2, 3)), names)  # bob is #1 by average rank, ann by mu - 3 sigma
    assert [p.settled for p in disagree] == [False, False, True, True]
    assert "#1 by average rank is bob, not ann" in disagree[0].why
    agree = places(standings, unc((0, 1, 2, 3)), names)  # the control: the same data, the statistics agreeing
    assert all(p.settled for p in agree)


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    config = competition(tmp_path, list(FIELD))
    run_final(config, False, executor=lambda: FakeExecutor(FIELD))
    return Server(config, sandbox=False)


def test_published_standings_are_arena_standings_on_the_final_store(played: Server) -> None:
    published = publish(played.config, played.db)
    data = json.loads(published.standings.read_text())
    result = CliRunner().invoke(main, ["standings", "--json", str(final_store(played.config))])
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)["standings"]
    keys = ("place", "name", "score", "mu", "sigma", "games", "avg_rank")
    assert [{k: r[k] for k in keys} for r in data["standings"]] == [{k: r[k] for k in keys} for r in again]
    assert "mu − 3σ" in data["decided_by"] and set(data["ladder"]) == set(FIELD)
    assert published.csv.read_text().splitlines()[0].startswith("place,name,score")
    assert published.report.is_file()


def test_the_published_results_name_each_participant_as_the_ladder_pages_do(played: Server) -> None:
    with played.db.write() as conn:  # ann came from a class's roster: her pages show her display name
        conn.execute("INSERT INTO display_names(participant_id, display_name) SELECT id, 'Ann <Lovelace>' FROM participants "
                     "WHERE name = 'ann'")
    published = publish(played.config, played.db)
    rows = {r["name"]: r for r in json.loads(published.standings.read_text())["standings"]}
    assert rows["ann"]["display_name"] == "Ann <Lovelace>" and rows["bob"]["display_name"] == "bob"  # bob: none, his name
    table = list(csv.DictReader(io.StringIO(published.csv.read_text())))
    assert {r["name"]: r["display_name"] for r in table} == {n: r["display_name"] for n, r in rows.items()}
    page = _client(played).get("/results").text
    assert "Ann &lt;Lovelace&gt;" in page and "<Lovelace>" not in page  # shown, escaped
    assert 'data-name="ann"' in page  # the name `arena standings` gives stays on the row


def test_the_signed_results_file_verifies_and_an_edited_one_does_not(played: Server, tmp_path: Path) -> None:
    published = publish(played.config, played.db)
    key = tmp_path / "server.pub.pem"
    key.write_text(played.public_key)
    ok = CliRunner().invoke(main, ["verify", "--key", str(key), str(published.results)])
    assert ok.exit_code == 0 and "signed by this key" in ok.output
    record = json.loads(published.results.read_text())
    record["standings"][0]["name"], record["standings"][1]["name"] = record["standings"][1]["name"], record["standings"][0]["name"]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(record))
    bad = CliRunner().invoke(main, ["verify", "--key", str(key), str(forged)])
    assert bad.exit_code != 0 and "not made by this key" in bad.output


def test_standings_on_the_server_database_name_the_final_store(played: Server) -> None:
    result = CliRunner().invoke(main, ["standings", str(played.config.database)])
    assert result.exit_code != 0
    assert f"its final's results store is {final_store(played.config)}" in result.output
    assert "schema None" not in result.output


def _client(server: Server, token: str | None = None) -> TestClient:
    made = TestClient(build(server), base_url="http://testserver")
    if token is not None:
        made.headers["Authorization"] = f"Bearer {token}"
    return made


def test_the_results_page_shows_each_place_how_sure_and_the_downloads(played: Server) -> None:
    anyone = _client(played)
    before = anyone.get("/results")
    assert before.status_code == 200 and 'id="not-published"' in before.text and 'id="final-standings"' not in before.text
    assert anyone.get("/results/standings.csv").status_code == 404
    publish(played.config, played.db)
    page = anyone.get("/results")
    assert page.status_code == 200
    text = page.text
    assert "a place is decided by" in text and 'id="final-standings"' in text and 'id="ladder-history"' in text
    assert text.count('class="unsettled"') + text.count('class="settled"') == len(FIELD)
    assert ('class="unsettled"' in text) == ("not settled:" in text)
    for name in ("standings.csv", "standings.json", "results.json"):
        got = anyone.get(f"/results/{name}")
        assert got.status_code == 200 and got.content == (published_folder(played.config) / name).read_bytes()
    assert anyone.get("/results/report/index.html").status_code == 200


def test_the_report_route_serves_nothing_outside_the_report(played: Server) -> None:
    publish(played.config, played.db)
    anyone = _client(played)
    for path in ("/results/report/../../../server.sqlite", "/results/report/%2e%2e/%2e%2e/%2e%2e/server.sqlite",
                 "/results/report/..%2f..%2f..%2fsigning-key.pem"):
        answer = anyone.get(path)
        assert answer.status_code == 404 and b"PRIVATE KEY" not in answer.content and b"SQLite" not in answer.content


def test_only_the_organiser_starts_the_final_and_publishes(played: Server, tmp_path: Path) -> None:
    from arena.ladder.accounts import create_participant

    _who, token = create_participant(played.db, "mallory")
    participant = _client(played, token)
    assert participant.post("/api/v1/admin/final").status_code == 403
    assert participant.post("/api/v1/admin/publish").status_code == 403
    assert not published_folder(played.config).exists()
    organiser = _client(played, ADMIN)
    played.final.executor = lambda: FakeExecutor(FIELD)
    early = organiser.post("/api/v1/admin/final")  # still open: the versions that play are not fixed yet
    assert early.status_code == 409 and "move it there first" in early.json()["error"] and not played.final.running
    played.set_phase("frozen", "organiser")
    played.set_phase("final", "organiser")
    started = organiser.post("/api/v1/admin/final")  # the control: in the final phase, it starts
    assert started.status_code == 202 and started.json()["started"] is True
    played.final.wait(30)
    assert organiser.get("/api/v1/admin/final").json()["state"] == "done"
    assert played.paused  # the ladder gives the final the machine
    done = organiser.post("/api/v1/admin/publish")
    assert done.status_code == 200 and (published_folder(played.config) / "results.json").is_file()


def test_the_admin_page_buttons_need_the_pages_csrf_token(played: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page on another origin posting the organiser's publish form (the organiser's cookie would not even be
    sent: SameSite=Strict; here it is, as the worst case) is refused; the control without the check publishes."""
    from arena.server.competition import results_pages

    organiser = TestClient(build(played), base_url="http://testserver")
    organiser.cookies.set("arena_session", ADMIN)
    page = organiser.get("/admin").text
    assert 'action="/admin/final"' in page and 'action="/admin/publish"' in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    for headers, sent in (({"Origin": "https://evil.example"}, csrf.group(1)), ({"Origin": "http://testserver"}, "forged")):
        r = organiser.post("/admin/publish", data={"csrf": sent}, headers=headers, follow_redirects=False)
        assert r.status_code == 403 and not published_folder(played.config).exists()
    own = organiser.post("/admin/publish", data={"csrf": csrf.group(1)}, headers={"Origin": "http://testserver"},
                         follow_redirects=False)
    assert own.status_code == 303 and own.headers["location"] == "/results"
    shutil.rmtree(published_folder(played.config))
    monkeypatch.setattr(results_pages, "check_write", lambda request, session, sent: session)  # the control
    r = organiser.post("/admin/publish", data={}, headers={"Origin": "https://evil.example"}, follow_redirects=False)
    assert r.status_code == 303 and published_folder(played.config).exists()


def test_the_openapi_document_holds_the_final_routes(played: Server) -> None:
    schema = _client(played).get("/api/v1/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert {"/api/v1/admin/final", "/api/v1/admin/publish", "/api/v1/admin/field"} <= set(paths)
    assert set(paths["/api/v1/admin/final"]) == {"get", "post"}


def test_closing_the_competition_publishes_the_final_and_the_final_must_have_ended(played: Server,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil as _shutil

    from arena.errors import PhaseError, ServerError

    _shutil.rmtree(published_folder(played.config), ignore_errors=True)
    with pytest.raises(PhaseError):  # open: closed is two steps away, nothing changed
        played.set_phase("closed", "organiser")
    played.set_phase("frozen", "organiser")
    played.set_phase("final", "organiser")
    with monkeypatch.context() as still:
        still.setattr(type(played.final), "running", property(lambda self: True))  # the final still playing
        with pytest.raises(ServerError, match="still running"):
            played.set_phase("closed", "organiser")
    assert played.phase().phase.value == "final" and not (published_folder(played.config) / "results.json").exists()
    played.set_phase("closed", "organiser")  # the control: once it has ended, closing publishes
    assert played.phase().phase.value == "closed" and (published_folder(played.config) / "results.json").is_file()


def test_closing_while_the_final_plays_in_another_process_is_refused(played: Server) -> None:
    from arena.errors import ServerError
    from arena.results.lock import StoreLock

    played.set_phase("frozen", "organiser")
    played.set_phase("final", "organiser")
    held = StoreLock(final_store(played.config)).acquire()  # as `arena serve CONFIG final` holds it while it plays
    try:
        assert not played.final.running  # this server's own final is not the one playing
        with pytest.raises(ServerError, match="still running"):
            played.set_phase("closed", "organiser")
        assert _client(played, ADMIN).post("/api/v1/admin/publish").status_code == 409
        assert played.phase().phase.value == "final" and not (published_folder(played.config) / "results.json").exists()
    finally:
        held.release()
    played.set_phase("closed", "organiser")  # the control: once it has ended, closing publishes
    assert (published_folder(played.config) / "results.json").is_file()
