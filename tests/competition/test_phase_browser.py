"""The phase banner and the organiser's phase controls in a real Chromium against a real `arena serve`: the
banner on every page with the deadline in the competition's zone, the admin page moving the phase one step
at a time (its CSRF form), the upload page closed after the freeze, and the banner at a phone's width."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, TYPE_CHECKING

import pytest

from tests.server.server import ADMIN, ServerProcess
from tests.support.browser import screenshot
from tests.web.test_ladder_browser import open_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.process]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path, extra=["--no-sandbox"])  # no bot is uploaded here: the house bots are the organiser's
    srv.config.write_text(srv.config.read_text() + "phases: {deadline: '2099-03-01T18:00:00+01:00', timezone: Europe/Paris}\n")
    srv.start()
    yield srv
    srv.stop()


def sign_in(pg: Page, server: ServerProcess, token: str) -> None:
    pg.goto(server.url + "/signin")
    pg.fill("#token", token)
    with pg.expect_navigation():
        pg.keyboard.press("Enter")


def test_the_banner_and_the_organisers_phase_controls(browser: Browser, server: ServerProcess) -> None:
    student = server.add("ada")
    pg, problems = open_page(browser, server)
    pg.goto(server.url + "/")
    banner = pg.locator("#phase-banner")
    assert banner.is_visible() and banner.inner_text() == "phase: open; deadline 2099-03-01 18:00 (UTC+01:00)"
    sign_in(pg, server, ADMIN)
    assert pg.url.endswith("/admin") and "the competition is open" in pg.inner_text("#phase-now")
    with pg.expect_navigation():
        pg.click("button:text('move to frozen')")
    assert pg.locator("#phase-banner").get_attribute("data-phase") == "frozen"
    assert "uploads closed since" in pg.inner_text("#phase-banner")
    assert "open → frozen by organiser (admin page)" in pg.inner_text("#phase-history")
    assert server.get("/api/v1/phase").json()["phase"] == "frozen"
    screenshot(pg, "phase-admin-frozen")
    with pg.expect_navigation():
        pg.click("button:text('move to final')")
    with pg.expect_navigation():
        pg.click("button:text('move to closed')")
    assert pg.locator("#phase-banner").get_attribute("data-phase") == "closed"
    assert pg.locator("#phase-form").count() == 0 and "closed: the last phase" in pg.inner_text("main")
    assert server.get("/api/v1").json()["paused"] is True  # the final stopped the ladder
    pg.context.close()

    phone, more = open_page(browser, server, width=390)  # a participant, on a phone: the upload page says it is closed
    sign_in(phone, server, student)
    phone.goto(server.url + "/submit")
    assert "uploads closed since" in phone.inner_text("#uploads-closed") and phone.locator("#upload").count() == 0
    assert phone.locator("#phase-banner").is_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(phone, "phase-390-submit")
    phone.context.close()
    assert problems == [] and more == [], problems + more
