"""A person plays a whole game of each built-in game in Chromium, by clicking, against the sample bots.

`arena play GAME --human 0 --bot ...` runs as a user runs it (a subprocess); the test reads the link it
prints, opens it in the suite's Chromium, and plays every decision of seat 0 by clicking what the page
offers: the board's own elements (a card in hand, a tree position) where the game's renderer offers
them, else the buttons. The replay must verify, with every decision of seat 0 the person's own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Iterator, TYPE_CHECKING

import pytest

from arena.replay import iter_replay
from tests.support.browser import page_says, screenshot
from tests.support.plugins import fake_distribution, plugin_env

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.process]

ROOT = Path(__file__).resolve().parents[2]
C_BOT = str(ROOT / "sample_bots" / "c" / "random_bot")
SCREENSHOTS = ROOT / "docs" / "screenshots"
SEATS = {"kododo": 2, "kolpa": 3, "kodama-duo": 2, "kodama-draft": 3}
OPTIONS = {"kolpa": ("--option", "max_rounds=1")}  # one round of Kolpa: the test's game stays short
ARENA = str(Path(sys.executable).with_name("arena"))
URL = re.compile(r"open (http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+/)")


class Game:
    def __init__(self, game: str, tmp: Path, seed: int = 7, extra: tuple[str, ...] = (), bot: str = C_BOT,
                 env: dict[str, str] | None = None) -> None:
        self.replay = tmp / f"{game}.jsonl"
        bots = [a for _ in range(SEATS.get(game, 2) - 1) for a in ("--bot", bot)]
        argv = [ARENA, "play", game, "--human", "0", *bots, "--seed", str(seed),
                "--replay", str(self.replay), "--no-sandbox", "--quiet", *OPTIONS.get(game, ()), *extra]
        self.proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.proc.stderr is not None
        self.url = self._link(self.proc.stderr)

    def _link(self, stderr: IO[str]) -> str:
        seen = []
        for line in stderr:
            seen.append(line)
            found = URL.search(line)
            if found:
                return found.group(1)
        raise AssertionError(f"arena play printed no link: {''.join(seen)} {self.proc.communicate()}")

    def finish(self) -> str:
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return out

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture(scope="session", autouse=True)
def c_bot() -> None:
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=ROOT, check=True)


def open_seat(browser: Browser, url: str, width: int) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    problems: list[str] = []
    pg.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda exc: problems.append(str(exc)))
    pg.on("request", lambda r: problems.append(f"request to {r.url}") if not r.url.startswith(url) else None)
    pg.goto(url)
    return pg, problems


def phase(pg: Page) -> str:
    return str(pg.evaluate("document.documentElement.getAttribute('data-phase') || ''"))


def wait_for(pg: Page, expression: str, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not page_says(pg, expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited for {expression}; the page shows {pg.inner_text('body')[:800]!r}")
        pg.wait_for_timeout(15)


SHOWN = "document.documentElement.getAttribute('data-version') + '/' + document.getElementById('picked').innerHTML"


def play_by_clicking(pg: Page, shots: dict[int, str] | None = None, reload_at: int | None = None,
                     stop_after: int | None = None) -> tuple[int, int]:
    """Click through every decision of the seat (or until `stop_after` decisions are seen); returns
    (decisions, clicks on the board itself)."""
    decisions = board_clicks = 0
    last_request = ""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        wait_for(pg, "['asked','over','gone','closed'].includes(document.documentElement.getAttribute('data-phase'))")
        now = phase(pg)
        if now in ("over", "gone", "closed"):
            return decisions, board_clicks
        if now != "asked":
            continue
        request = str(pg.evaluate("document.documentElement.getAttribute('data-request')"))
        if request != last_request:
            last_request = request
            if stop_after is not None and decisions == stop_after:
                return decisions, board_clicks
            decisions += 1
            if shots and decisions in shots:
                screenshot(pg, shots[decisions])
            if reload_at == decisions:
                pg.reload()
                wait_for(pg, "document.documentElement.getAttribute('data-request') === " + repr(request))
        # A board element that stands for one choice (a card in hand); where it stands for several (a
        # card with two destinations), clicking it narrows the buttons: then a button.
        target = pg.query_selector("#board .pickable:not([data-pick*='|'])") or pg.query_selector("#options button")
        if target is None:
            pg.wait_for_timeout(15)
            continue
        on_board = pg.evaluate("el => el.closest('#board') !== null", target)
        before = pg.evaluate(SHOWN)
        try:
            target.click(timeout=2000)
        except Exception:  # noqa: BLE001 - the page redrew under the click (news arrived): look again
            continue
        board_clicks += bool(on_board)
        wait_for(pg, f"{SHOWN} !== {before!r}", 10)  # as a person does: look at what the click did
    raise AssertionError(f"the game did not end within 90 s: {decisions} decisions; the page shows {pg.inner_text('body')[:800]!r}")


def check_replay(path: Path, seat: int = 0, env: dict[str, str] | None = None) -> list[dict[str, object]]:
    checked = subprocess.run([ARENA, "verify", str(path)], capture_output=True, text=True, env=env)
    assert checked.returncode == 0 and checked.stdout.startswith("ok:"), checked.stdout + checked.stderr
    records = [r for _, r in iter_replay(str(path))]
    mine = [r for r in records if r["type"] == "decision" and r["seat"] == seat]
    assert mine and all(r["source"] == "bot" for r in mine), [r for r in mine if r["source"] != "bot"][:3]
    assert not [r for r in records if r["type"] == "fault"]
    return records


def keep(name: str) -> None:
    """The README's pictures: copied from tests/web/artifacts with ARENA_UPDATE_SCREENSHOTS=1 (as the ladder's)."""
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS") != "1":
        return
    shot = Path(__file__).resolve().parents[1] / "web" / "artifacts" / f"{name}.png"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SCREENSHOTS / f"{name}.png")


@pytest.mark.parametrize("game", sorted(SEATS))
def test_a_person_plays_a_whole_game_by_clicking(browser: Browser, tmp_path: Path, game: str) -> None:
    played = Game(game, tmp_path)
    try:
        pg, problems = open_seat(browser, played.url, 1280)
        wait_for(pg, "document.documentElement.getAttribute('data-phase') === 'asked'")
        # The page holds the seat's own view only: the other seats' hidden cards are not in its data.
        data = pg.evaluate("JSON.stringify(ArenaHuman.state())")
        assert '"hands"' not in data and pg.locator("#board [data-hand-seat='1'] .card[data-card]").count() == 0
        decisions, board_clicks = play_by_clicking(pg, shots={3: f"human-{game}-1280"})
        played.finish()
    finally:
        played.kill()
    check_replay(played.replay)
    assert decisions > 2
    assert board_clicks > 0, "the game's renderer offered nothing to click on its board"
    assert problems == []
    keep(f"human-{game}-1280")


def test_on_a_phone_a_reloaded_page_resumes_the_seat_and_a_stale_choice_is_refused(browser: Browser, tmp_path: Path) -> None:
    played = Game("kodama-duo", tmp_path, seed=11)
    try:
        pg, problems = open_seat(browser, played.url, 390)
        # Two decisions, a picture, then the page is reloaded mid-game (at its third decision).
        wait_for(pg, "document.documentElement.getAttribute('data-phase') === 'asked'")
        first = int(str(pg.evaluate("document.documentElement.getAttribute('data-request')")))
        decisions, _ = play_by_clicking(pg, shots={2: "human-kodama-duo-390"}, reload_at=3, stop_after=4)
        # A choice for the first request, long answered (a stale tab, a replayed POST): refused on the page.
        pg.evaluate(f"ArenaHuman.choose({first}, 0)")
        wait_for(pg, "document.getElementById('message').textContent.indexOf('refused') === 0")
        assert "already answered" in pg.inner_text("#message")
        screenshot(pg, "human-kodama-duo-390-refused")
        play_by_clicking(pg)
        played.finish()
    finally:
        played.kill()
    check_replay(played.replay)
    assert decisions >= 4
    assert [p for p in problems if "409" not in p] == []  # the refused POST is the only failed request
    keep("human-kodama-duo-390")


def test_a_game_whose_renderer_offers_nothing_lists_the_legal_actions(browser: Browser, tmp_path: Path) -> None:
    """Goofspiel (examples/goofspiel, a plugin from outside) draws its board but offers no actions: each
    legal action is a button, and a person plays the whole game with them."""
    example = ROOT / "examples" / "goofspiel"
    site = fake_distribution(tmp_path / "site", "arena-goofspiel", "1.0.0", {"goofspiel": "goofspiel:SPEC"}, {})
    env = plugin_env(site, example)
    played = Game("goofspiel", tmp_path, bot=f"{sys.executable} {example / 'goofspiel' / 'random_bot.py'}", env=env)
    try:
        pg, problems = open_seat(browser, played.url, 1280)
        wait_for(pg, "document.documentElement.getAttribute('data-phase') === 'asked'")
        assert pg.locator("#board .prize[data-prize]").count() == 1  # its own renderer draws the board
        buttons = pg.locator("#options button").all_inner_texts()
        legal = pg.evaluate("ArenaHuman.state().legal.map(a => JSON.stringify(a))")
        assert buttons == legal and len(buttons) > 1
        decisions, board_clicks = play_by_clicking(pg)
        played.finish()
    finally:
        played.kill()
    check_replay(played.replay, env=env)
    assert decisions > 2 and board_clicks == 0
    assert problems == []
