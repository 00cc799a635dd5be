"""The ladder's pages in a real Chromium, served by a real `arena serve` on loopback while its ladder
plays: the live leaderboard, the upload form and its verdict, bot pages and replays, who may read a
bot's stderr, hostile text, a phone-width screen, and no request leaving the server."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Iterator, TYPE_CHECKING

import httpx
import pytest

from arena.ladder.checker import CHECK_TIMEOUT_S, GAME_TIMEOUT_S
from tests.server.bots import HOSTILE_TEXT, hostile, loud_broken, python_random
from tests.server.server import ADMIN, ServerProcess
from tests.support.browser import guarded_page, page_says
from tests.web.conftest import screenshot

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Browser, Page, Route

pytestmark = [pytest.mark.browser, pytest.mark.process, pytest.mark.sandbox]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
MARKER = "hostile-stderr"


class Ladder:
    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.tokens = {name: server.add(name) for name in ("alice", "bob", "mallory")}
        r = server.post("/api/v1/submissions", self.tokens["mallory"], content=hostile())
        assert r.status_code == 202, r.text
        verdict = server.wait_submission(r.json()["submission"], self.tokens["mallory"])
        assert verdict["status"] == "passed", verdict
        self.hostile_bot = int(verdict["bot"])
        # ladder games cannot be told from the check's: the test turns the hostile text on now (tests/server/bots.py)
        (script,) = server.data.glob("uploads/*/*/hostile.py")
        (script.parent / "misbehave").write_text("1")
        self.hostile_game = int(server.wait("a ladder game of the hostile bot with its fault",
                                            lambda: self._faulty_game(self.hostile_bot)))

    def _faulty_game(self, bot: int) -> int | None:
        body = self.server.get(f"/api/v1/bots/{bot}", self.tokens["mallory"]).json()
        faults = [f for f in body["faults"] if f.get("stderr_tail")]
        return int(faults[0]["game"]) if faults else None


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    # The hostile bot faults in every ladder game from now on; the limit that would suspend it is out of
    # reach, since the tests below need it on the leaderboard however long a slow machine takes.
    srv = ServerProcess(tmp_path_factory.mktemp("pages"), fault_limit=10**9).start()
    try:
        yield Ladder(srv)
    finally:
        srv.stop()


def open_page(browser: Browser, server: ServerProcess, width: int = 1300) -> tuple[Page, list[str]]:
    """A page whose every request is intercepted: one to anywhere but the server is aborted and
    recorded; console errors, uncaught exceptions and dialogs (alert) are recorded too."""
    problems: list[str] = []
    return guarded_page(browser, server.url, width, problems), problems


@pytest.fixture
def pages(browser: Browser, ladder: Ladder) -> Iterator[list[tuple[Page, list[str]]]]:
    opened: list[tuple[Page, list[str]]] = []
    yield opened
    for pg, problems in opened:
        pwned = pg.evaluate("window.__pwned === undefined")
        pg.context.close()
        assert problems == [], problems
        assert pwned, "a hostile text ran script in the page"


def new(pages: list[tuple[Page, list[str]]], browser: Browser, ladder: Ladder, width: int = 1300) -> Page:
    pg, problems = open_page(browser, ladder.server, width)
    pages.append((pg, problems))
    return pg


def sign_in(pg: Page, ladder: Ladder, token: str) -> None:
    pg.goto(ladder.server.url + "/signin")
    pg.focus("#token")
    pg.keyboard.type(token)
    with pg.expect_navigation():
        pg.keyboard.press("Enter")  # the form with the keyboard alone


def keep(pg: Page, name: str) -> None:
    """Every run keeps its screenshots in tests/web/artifacts; `ARENA_UPDATE_SCREENSHOTS=1` also copies
    them over the README's pictures in docs/screenshots (so a test run leaves the work tree clean)."""
    shot = screenshot(pg, name)
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, SCREENSHOTS / f"{name}.png")


def wait_until(pg: Page, expression: str, timeout_s: float, server: ServerProcess | None = None) -> None:
    """Poll `expression` in the page from here (the pages' CSP forbids the eval `wait_for_function` uses).
    A time-out says what the page showed and, given the server, the end of its log."""
    deadline = time.monotonic() + timeout_s
    while not page_says(pg, expression):
        if time.monotonic() >= deadline:
            log = server.log.read_text(errors="replace")[-3000:] if server is not None else ""
            raise AssertionError(f"waited {timeout_s} s for {expression}; the page showed "
                                 f"{pg.inner_text('body')[:1000]!r}; the server's log ends: {log}")
        pg.wait_for_timeout(200)


# The checker bounds its own work (check-bot, then each game against the house bots): the page must
# show a verdict within that, whatever the machine's speed.
VERDICT_S = CHECK_TIMEOUT_S + GAME_TIMEOUT_S + 60


def played(pg: Page) -> int:
    return int(pg.inner_text("#ladder-status").split()[0])


def test_the_leaderboard_updates_without_a_reload_while_the_ladder_runs(browser: Browser, ladder: Ladder, pages: list) -> None:  # type: ignore[type-arg]
    pg = new(pages, browser, ladder)
    pg.goto(ladder.server.url + "/")
    pg.evaluate("window.__sameDocument = true")
    before = played(pg)
    rows = pg.locator("#leaderboard tbody tr").count()
    assert rows >= 3  # the two house bots and mallory's
    wait_until(pg, f"parseInt(document.getElementById('ladder-status').textContent) > {before}", 90)
    assert pg.evaluate("window.__sameDocument") is True  # the same document: no reload happened
    assert played(pg) > before
    assert "live: updated" in pg.inner_text("#live")
    form = pg.locator("#leaderboard td.form").first.inner_text()
    assert re.fullmatch(r"[WDL\s]+", form), form
    keep(pg, "ladder-leaderboard")


def test_the_upload_form_submits_a_bot_and_shows_its_verdict(browser: Browser, ladder: Ladder, pages: list, tmp_path: Path) -> None:  # type: ignore[type-arg]
    pg = new(pages, browser, ladder)
    sign_in(pg, ladder, ladder.tokens["alice"])
    assert pg.url.endswith("/submit")
    cookie = [c for c in pg.context.cookies() if c["name"] == "arena_session"][0]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert pg.evaluate("document.cookie") == ""  # no script reads the token
    good = tmp_path / "good.zip"
    good.write_bytes(python_random("7"))
    pg.set_input_files("#archive", str(good))
    # The first two polls of the verdict fail (the server busy, the network gone for a moment): the
    # page keeps following, saying so, and shows the verdict when the server answers again.
    failed: list[str] = []

    def flaky(route: Route) -> None:
        if len(failed) < 2:
            failed.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    pg.route("**/submissions/*.json", flaky)
    pg.click("button[type=submit]")
    wait_until(pg, "document.getElementById('verdict').textContent.includes('lost contact')", 60, ladder.server)
    wait_until(pg, "/passed|refused/.test(document.getElementById('verdict').textContent)", VERDICT_S, ladder.server)
    assert len(failed) == 2
    assert "passed" in pg.inner_text("#verdict"), pg.inner_text("#verdict")
    pages[-1][1][:] = [p for p in pages[-1][1] if "net::ERR_FAILED" not in p]  # the two polls failed on purpose
    keep(pg, "ladder-submit-passed")
    pg.click("#verdict a")
    assert "alice / pyrand" in pg.inner_text("h1")

    pg.goto(ladder.server.url + "/submit")
    bad = tmp_path / "broken.zip"
    bad.write_bytes(loud_broken())
    pg.set_input_files("#archive", str(bad))
    pg.focus("#archive")
    pg.keyboard.press("Tab")
    pg.keyboard.press("Enter")  # the submit button, reached with the keyboard
    wait_until(pg, "/passed|refused/.test(document.getElementById('verdict').textContent)", VERDICT_S, ladder.server)
    assert "refused" in pg.inner_text("#verdict")
    assert "broken bot: I only print garbage" in pg.inner_text("#report")


def test_a_bot_page_and_its_replay_open(browser: Browser, ladder: Ladder, pages: list) -> None:  # type: ignore[type-arg]
    pg = new(pages, browser, ladder)
    pg.goto(ladder.server.url + "/")
    pg.click("#leaderboard a:text('house-py-heuristic / py-heuristic')")
    assert "house-py-heuristic / py-heuristic" in pg.inner_text("h1")
    assert pg.locator("svg.plot polyline").count() == 2  # mu and mu - 3 sigma
    assert pg.locator("#head-to-head tbody tr").count() >= 1
    keep(pg, "ladder-bot-page")
    pg.click("#recent-games a >> nth=0")
    pg.wait_for_selector("#board")
    players = pg.locator("#arena-data").text_content() or ""
    assert "house-py-heuristic / py-heuristic (house)" in players
    assert "ladder.yaml" not in players and "/sample_bots/" not in players  # no host paths, no commands
    where = pg.inner_text("#where")
    pg.keyboard.press("ArrowRight")
    assert pg.inner_text("#where") != where
    keep(pg, "ladder-replay")


def _stderr_everywhere(pg: Page, ladder: Ladder) -> dict[str, bool]:
    url = ladder.server.url
    seen = {}
    for path in (f"/bots/{ladder.hostile_bot}", f"/games/{ladder.hostile_game}"):
        pg.goto(url + path)
        pg.wait_for_load_state()
        seen[path] = MARKER in (pg.content())
    return seen


def _own_stderr_on_the_bot_page(pg: Page, ladder: Ladder) -> str:
    """The first stderr tail its owner reads among the bot page's recent faults. A fault of a game whose
    deal is still being played at another table says its stderr waits for the deal (`access.while_held`);
    the ladder keeps playing, so the page is read again until a fault of a played-out deal is among them."""
    deadline = time.monotonic() + 120
    while True:
        pg.goto(ladder.server.url + f"/bots/{ladder.hostile_bot}")
        tails = [t for t in pg.locator("ul.faults pre.stderr").all_inner_texts() if MARKER in t]
        if tails:
            return tails[0]
        held = pg.locator("ul.faults .held").count()
        assert held and time.monotonic() < deadline, f"no stderr among its faults ({held} held): {pg.inner_text('body')[:1500]!r}"
        pg.wait_for_timeout(500)


def test_only_the_owner_sees_its_bots_stderr_and_hostile_text_runs_no_script(browser: Browser, ladder: Ladder, pages: list) -> None:  # type: ignore[type-arg]
    owner = new(pages, browser, ladder)
    sign_in(owner, ladder, ladder.tokens["mallory"])
    shown = _own_stderr_on_the_bot_page(owner, ladder)
    assert HOSTILE_TEXT in shown  # shown as text, exactly as written: not parsed, not run
    # In the replay, the owner reads its bot's stderr beside each step (the ladder keeps per-step logs).
    owner.goto(ladder.server.url + f"/games/{ladder.hostile_game}")
    data = owner.locator("#arena-data").text_content() or ""
    assert '"logs"' in data and MARKER in data
    assert owner.locator("img[src=x]").count() == 0

    other = new(pages, browser, ladder)
    sign_in(other, ladder, ladder.tokens["bob"])
    assert _stderr_everywhere(other, ladder) == {f"/bots/{ladder.hostile_bot}": False, f"/games/{ladder.hostile_game}": False}
    anonymous = new(pages, browser, ladder)
    assert _stderr_everywhere(anonymous, ladder) == {f"/bots/{ladder.hostile_bot}": False, f"/games/{ladder.hostile_game}": False}
    anonymous.goto(ladder.server.url + "/")  # the hostile version is on the leaderboard, as text
    assert "<img src=x onerror=alert(1)>" in anonymous.inner_text("#leaderboard")

    # Nor from the API: with bob's token, without one, nor in the replay file they download.
    api = ladder.server
    for token in (ladder.tokens["bob"], None):
        body = api.get(f"/api/v1/bots/{ladder.hostile_bot}", token).text + api.get(f"/api/v1/games/{ladder.hostile_game}", token).text
        assert MARKER not in body
        download = api.get(f"/api/v1/games/{ladder.hostile_game}/replay", token)  # the public record
        assert download.status_code == 200 and MARKER not in download.text
    assert MARKER in api.get(f"/api/v1/bots/{ladder.hostile_bot}", ladder.tokens["mallory"]).text  # the control
    # The page's cookie does not open the API: only a bearer token does.
    cookies = {"arena_session": ladder.tokens["mallory"]}
    assert MARKER not in httpx.get(api.url + f"/api/v1/bots/{ladder.hostile_bot}", cookies=cookies).text


def test_the_pages_at_390_px_wide(browser: Browser, ladder: Ladder, pages: list) -> None:  # type: ignore[type-arg]
    pg = new(pages, browser, ladder, width=390)
    sign_in(pg, ladder, ladder.tokens["mallory"])
    for name, path in (("leaderboard", "/"), ("bot", f"/bots/{ladder.hostile_bot}"), ("replay", f"/games/{ladder.hostile_game}"),
                       ("submit", "/submit")):
        pg.goto(ladder.server.url + path)
        pg.wait_for_load_state()
        width = pg.evaluate("document.documentElement.scrollWidth")
        wide = pg.evaluate("Array.from(document.querySelectorAll('body *')).filter(function (e) {"
                           " return e.getBoundingClientRect().right > 391; }).slice(0, 5)"
                           ".map(function (e) { return e.tagName + '#' + e.id + '.' + e.className; })")
        assert width <= 390, f"{path}: the page is {width} px wide at 390: {wide}"
        keep(pg, f"ladder-390-{name}")


def test_the_admin_page_pauses_the_ladder_adds_a_participant_and_disables_a_bot(browser: Browser, ladder: Ladder, pages: list) -> None:  # type: ignore[type-arg]
    pg = new(pages, browser, ladder)
    sign_in(pg, ladder, ADMIN)
    assert pg.url.endswith("/admin")
    assert "ladder alive" in pg.inner_text("#health")
    pg.click("button:text('pause the ladder')")
    assert ladder.server.get("/api/v1").json()["paused"] is True
    pg.click("button:text('resume the ladder')")
    assert ladder.server.get("/api/v1").json()["paused"] is False
    pg.fill("#pname", "dave")
    with pg.expect_navigation():
        pg.keyboard.press("Enter")
    token = pg.locator(".token code").inner_text()
    assert ladder.server.get("/api/v1/me", token).json()["participant"] == "dave"
    pg.click(f"button:text('disable bot {ladder.hostile_bot}')")
    assert ladder.server.get(f"/api/v1/bots/{ladder.hostile_bot}").json()["status"] == "disabled"
    keep(pg, "ladder-admin")
    # A write without the page's CSRF token (another site's form) is refused.
    r = httpx.post(ladder.server.url + "/admin/ladder/pause", cookies={"arena_session": ADMIN}, data={"csrf": "x"})
    assert r.status_code == 403 and ladder.server.get("/api/v1").json()["paused"] is False
    pg.click(f"button:text('enable bot {ladder.hostile_bot}')")


def test_the_interception_catches_a_request_that_leaves_the_server(browser: Browser, ladder: Ladder) -> None:
    """The control of every test above: a request elsewhere is seen (and stopped). A script's request
    is already refused by the pages' policy (connect-src 'self'); a navigation is not, and the
    interception sees it."""
    pg, problems = open_page(browser, ladder.server)
    pg.goto(ladder.server.url + "/")
    pg.evaluate("fetch('http://192.0.2.1/x').catch(function () {})")
    deadline = time.monotonic() + 10
    while not any("Content Security Policy" in p for p in problems) and time.monotonic() < deadline:
        pg.wait_for_timeout(100)
    assert any("192.0.2.1" in p and "Content Security Policy" in p for p in problems), problems
    with pytest.raises(Exception):
        pg.goto("http://192.0.2.1/y", timeout=10_000)
    pg.context.close()
    assert any("request left the server: http://192.0.2.1/y" in p for p in problems), problems


def test_the_hostile_text_is_a_real_attack_without_the_protections(browser: Browser) -> None:
    """The control of the hostile-text checks: put raw into a page under the file pages' policy
    (inline script allowed), the text runs script; under the server pages' nonce policy it does not."""
    from arena.web import page

    raw = f"<pre>{HOSTILE_TEXT}</pre>"
    for csp, runs in ((page.FILE_CSP, True), (page.server_csp("n0nce"), False)):
        context = browser.new_context()
        pg = context.new_page()
        pg.set_content(page.shell("t", "", raw, csp))
        pg.wait_for_timeout(300)
        assert pg.evaluate("window.__pwned !== undefined") is runs, csp
        context.close()
