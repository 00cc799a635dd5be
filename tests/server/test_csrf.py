"""Login CSRF and every page's POST: a page on another origin cannot sign a visitor in as the attacker,
nor write with the visitor's session. The attacker is an HTTP client shaped as the victim's browser
would send another site's form: the attacker's own token in the form, the attacker's origin (or `null`,
or no origin at all, as a redirect or a privacy setting leaves it), and none of the server's cookies
(they are `SameSite=Strict`; the pre-session cookie was set in the attacker's own browser, not the
victim's). The control turns the protection off and the same request signs the victim in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.ladder.accounts import create_participant
from arena.server import pages_account, web_session
from tests.server.inprocess import ADMIN, ORIGIN, client, make_server

FOREIGN = ({"Origin": "https://evil.example"}, {"Origin": "null"}, {}, {"Referer": "https://evil.example/page"},
           {"Origin": "http://testserver.evil.example"})


def _attacker_form(server_client: object) -> str:
    """The attacker loads the sign-in page in its own browser: a valid pre-session token, for its cookie."""
    page = server_client.get("/signin").text  # type: ignore[attr-defined]
    found = re.search(r'name="csrf" value="(\w+)"', page)
    assert found
    return found.group(1)


def test_another_origin_cannot_sign_a_visitor_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _who, attacker_token = create_participant(server.db, "mallory")
    stolen = _attacker_form(client(server))
    for headers in FOREIGN:
        for csrf in (None, stolen):
            victim = client(server)  # the victim's browser: no cookie of this server was sent cross-site
            data = {"token": attacker_token} | ({"csrf": csrf} if csrf else {})
            r = victim.post("/signin", data=data, headers=headers, follow_redirects=False)
            assert r.status_code == 403, (headers, csrf, r.status_code)
            assert "arena_session" not in r.headers.get("set-cookie", "")
    # The server's own page: the cookie it set and its form's token, from its own origin, signs in.
    own = client(server)
    csrf = _attacker_form(own)
    r = own.post("/signin", data={"token": attacker_token, "csrf": csrf}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 303 and "arena_session=" in r.headers["set-cookie"]
    # A Referer from the server's own page will do where a browser sends no Origin.
    r = own.post("/signin", data={"token": attacker_token, "csrf": csrf}, headers={"Referer": ORIGIN + "/signin"},
                 follow_redirects=False)
    assert r.status_code == 303


def test_the_control_without_the_checks_the_attack_signs_the_victim_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _who, attacker_token = create_participant(server.db, "mallory")
    monkeypatch.setattr(pages_account, "check_signin", lambda request, sent: None)
    r = client(server).post("/signin", data={"token": attacker_token}, headers={"Origin": "null"}, follow_redirects=False)
    assert r.status_code == 303 and f"arena_session={attacker_token}" in r.headers["set-cookie"]


def test_every_page_write_needs_its_own_origin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    admin = client(server, ADMIN)
    csrf = re.search(r'name="csrf" value="(\w+)"', admin.get("/admin").text)
    assert csrf
    for path in ("/admin/ladder/pause", "/admin/participants"):
        for headers in FOREIGN:  # the session's own token, but not from the server's page
            r = admin.post(path, data={"csrf": csrf.group(1), "name": "eve"}, headers=headers, follow_redirects=False)
            assert r.status_code == 403, (path, headers)
    assert server.db.setting("paused", "0") == "0"
    r = admin.post("/admin/ladder/pause", data={"csrf": csrf.group(1)}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 303 and server.db.setting("paused", "0") == "1"  # the control: the page's own write
    # Without the origin check, the foreign write goes through: the control of the check itself.
    monkeypatch.setattr(web_session, "same_origin", lambda request: None)
    r = admin.post("/admin/ladder/resume", data={"csrf": csrf.group(1)}, headers={"Origin": "null"}, follow_redirects=False)
    assert r.status_code == 303 and server.db.setting("paused", "0") == "0"
