"""The ladder's pages over plain HTTP: their policy header, sign-in, CSRF on every write, error pages,
and the page cookie opening nothing in the API."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.server.server import ADMIN, ServerProcess, sign_in

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("pages-http")).start()
    yield srv
    srv.stop()


def test_every_page_has_the_policy_and_only_nonced_scripts(server: ServerProcess) -> None:
    server.wait("a game", lambda: server.get("/api/v1/games").json()["games"])
    game = server.get("/api/v1/games").json()["games"][0]["id"]
    for path in ("/", "/bots/1", f"/games/{game}", "/signin", "/submit", "/admin", "/bots/999"):
        r = server.get(path)
        csp = r.headers["content-security-policy"]
        nonce = re.search(r"script-src 'nonce-([\w-]+)'", csp)
        assert nonce and "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp, (path, csp)
        assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";")[0]
        scripts = re.findall(r"<script([^>]*)>", r.text)
        assert all(f'nonce="{nonce.group(1)}"' in s or 'type="application/json"' in s for s in scripts), (path, scripts)
        assert not re.search(r'(src|href|action)="(https?:)?//', r.text), path  # nothing from elsewhere
    assert server.get("/bots/999").status_code == 404 and "no bot 999" in server.get("/bots/999").text


def test_sign_in_sets_a_strict_httponly_cookie_and_a_wrong_token_is_refused(server: ServerProcess) -> None:
    token = server.add("erin")
    with httpx.Client(base_url=server.url) as browser:
        r = sign_in(browser, "wrong", server.url)
        assert r.status_code == 401 and "unknown token" in r.text and "arena_session" not in r.headers.get("set-cookie", "")
    with httpx.Client(base_url=server.url) as browser:
        r = sign_in(browser, token, server.url)
    assert r.status_code == 303 and r.headers["location"] == "/submit"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    # The cookie does not open the API: a participant's answer needs the bearer token.
    assert httpx.get(server.url + "/api/v1/me", cookies={"arena_session": token}).status_code == 401


def test_writes_need_the_pages_csrf_token_and_origin(server: ServerProcess, tmp_path: Path) -> None:
    token = server.add("frank")
    with httpx.Client(base_url=server.url) as browser:
        sign_in(browser, token, server.url)
        page = browser.get("/submit").text
        csrf = re.search(r'data-csrf="(\w+)"', page)
        assert csrf
        # Another site's page posting with the visitor's cookie: no token, or its own origin.
        assert browser.post("/submit", content=b"PK", headers={"X-Arena-CSRF": "forged"}).status_code == 403
        assert browser.post("/submit", content=b"PK", headers={"X-Arena-CSRF": csrf.group(1),
                                                             "Origin": "https://evil.example"}).status_code == 403
        # The control: the page's own token from its own origin gets through to the archive check.
        r = browser.post("/submit", content=b"not an archive", headers={"X-Arena-CSRF": csrf.group(1),
                                                                          "Origin": server.url})
        assert r.status_code == 422 and r.json()["status"] == "refused"
    with httpx.Client(base_url=server.url) as admin:
        sign_in(admin, ADMIN, server.url)
        assert admin.post("/admin/ladder/pause", data={"csrf": "forged"}, headers={"Origin": server.url}).status_code == 403
        assert server.get("/api/v1").json()["paused"] is False
        csrf = re.search(r'name="csrf" value="(\w+)"', admin.get("/admin").text)
        assert admin.post("/admin/ladder/pause", data={"csrf": csrf.group(1)}).status_code == 403  # no Origin: foreign
        assert csrf and admin.post("/admin/ladder/pause", data={"csrf": csrf.group(1)}, headers={"Origin": server.url}).status_code == 303
        assert server.get("/api/v1").json()["paused"] is True
        admin.post("/admin/ladder/resume", data={"csrf": csrf.group(1)}, headers={"Origin": server.url})
        assert server.get("/api/v1").json()["paused"] is False
    # A participant is not the organiser.
    with httpx.Client(base_url=server.url) as someone:
        sign_in(someone, token, server.url)
        assert someone.get("/admin").status_code == 403


def test_login_csrf_from_another_origin_is_refused(server: ServerProcess) -> None:
    """The attack over real HTTP: another site's page posts the attacker's token to /signin from the
    victim's browser (no cookie of this server goes along, the Origin is the attacker's or null)."""
    mallory = server.add("mallory-csrf")
    with httpx.Client(base_url=server.url) as attacker:  # a valid form token, from the attacker's own visit
        stolen = re.search(r'name="csrf" value="(\w+)"', attacker.get("/signin").text)
        assert stolen
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"}, {}):
        with httpx.Client(base_url=server.url) as victim:
            r = victim.post("/signin", data={"token": mallory, "csrf": stolen.group(1)}, headers=headers)
            assert r.status_code == 403 and "arena_session" not in r.headers.get("set-cookie", ""), (headers, r.text)
    with httpx.Client(base_url=server.url) as own:  # the control: the same form from the server's own page
        assert sign_in(own, mallory, server.url).status_code == 303
