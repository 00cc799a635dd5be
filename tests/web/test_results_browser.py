"""The published results in a real Chromium, served by a real `arena serve` on loopback: a final of four
real bots played (the ladder paused), published by the organiser's button on the admin page (a CSRF form),
then /results at 1280 and 390 px: every place with how sure it is and its mark, the statistic that
decides a place, the downloads, the report with a viewer page per game, each participant's ladder, and
no request leaving the server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, TYPE_CHECKING

import httpx
import pytest

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.competition.final.final import run_final
from arena.ladder.config import load
from arena.ladder.db import Database
from arena.tournament.run.executor import InlineExecutor
from tests.server.final.support import ADMIN, ROOT
from tests.server.server import free_port
from tests.web.test_ladder_browser import keep, open_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.process]

CONFIG = """name: spring-cup
game: kododo
players: 4
data: data
final: {rounds: 3, min_rounds: 2}
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("results")
    (tmp / "cup.yaml").write_text(CONFIG)
    config = load(tmp / "cup.yaml")
    config.data.mkdir(parents=True)
    db = Database(config.database)
    for name in ("ada", "bea", "cal", "dot", "eli"):
        folder = tmp / "uploads" / name
        folder.mkdir(parents=True)
        shutil.copy(ROOT / "sample_bots" / "c" / "random_bot", folder / "random_bot")
        who, _ = create_participant(db, name)
        activate_bot(db, who.id, None, f"{name}-bot", "1.0", (str(folder / "random_bot"),), str(folder))
    db.set_setting("paused", "1")  # the ladder plays nothing: the page's games are the final's
    run_final(config, False, executor=InlineExecutor, db=db)
    db.close()
    port = free_port()
    log = tmp / "server.log"
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()",
                             "serve", str(tmp / "cup.yaml"), "--no-sandbox", "--port", str(port)],
                            env={**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/api/v1", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(60)


def _checked(pg: Page, problems: list[str]) -> None:
    pg.context.close()
    assert problems == [], problems


def test_the_organiser_publishes_and_results_show_each_place_and_how_sure(browser: Browser, served: str) -> None:
    pg, problems = open_page(browser, type("S", (), {"url": served})(), 1280)  # open_page reads .url only
    pg.goto(served + "/results")
    assert pg.locator("#not-published").is_visible()
    pg.goto(served + "/signin")
    pg.fill("#token", ADMIN)
    with pg.expect_navigation():
        pg.click("button[type=submit]")
    assert pg.locator("#final-status").is_visible()
    with pg.expect_navigation():
        pg.click("text=publish the results")  # the admin page's CSRF form
    assert pg.url == served + "/results"
    rows = pg.locator("#final-standings tbody tr")
    assert rows.count() == 5
    classes = [rows.nth(i).get_attribute("class") for i in range(5)]
    assert set(classes) <= {"settled", "unsettled"}
    marks = pg.locator("#final-standings .unsettled-mark").count()
    assert marks == classes.count("unsettled")
    for i in range(5):
        how = rows.nth(i).locator("td.sure").inner_text()
        assert how == "settled" if classes[i] == "settled" else how.startswith("not settled: ")
    assert "a place is decided by" in pg.locator("#decided-by").inner_text()
    assert "mu − 3σ" in pg.locator("#decided-by").inner_text()
    keep(pg, "results-1280")
    csv = pg.request.get(served + "/results/standings.csv")
    assert csv.ok and csv.text().startswith("place,name,score")
    assert pg.locator("#ladder-history details").count() == 5
    pg.click("text=the final's report")
    pg.wait_for_load_state()
    assert pg.url.endswith("/results/report/index.html") and pg.locator("#standings").is_visible()
    _checked(pg, problems)


def test_the_results_page_fits_a_phone(browser: Browser, served: str) -> None:
    httpx.post(served + "/api/v1/admin/publish", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60).raise_for_status()
    pg, problems = open_page(browser, type("S", (), {"url": served})(), 390)
    pg.goto(served + "/results")
    assert pg.locator("#final-standings").is_visible()
    overflow = pg.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at 390 px"
    box = pg.locator("#decided-by").bounding_box()
    assert box is not None and box["width"] <= 390
    keep(pg, "results-390")
    _checked(pg, problems)
