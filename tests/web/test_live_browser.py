"""A live ladder game's page in a real Chromium: while the game runs it shows the public view (every
hand face down) and follows the game over its SSE stream; every hand appears only once the delay has
passed (behind the play) and, on the main board, once the game is over. Screenshots at 390 and 1280 px.

The server is the ladder's app (`arena.server.app.build`) served by uvicorn on loopback in the test's
process; its live board is fed real frames of a kododo game stepped by the test, on a fake clock, so
the delay passes when the test says (`tests.live.frames`; the worker processes' path is
tests/live/test_live_run.py's)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.ladder.accounts import activate_bot
from arena.live.board import LiveBoard
from arena.server.app import build
from tests.live.frames import frames
from tests.live.serving import serving
from tests.server.inprocess import make_server
from tests.support.browser import guarded_page
from tests.web.test_ladder_browser import keep, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser]

HAND_CARDS = "document.querySelectorAll('#board [data-hand-seat] [data-card]').length"
FULL_CARDS = "document.querySelectorAll('#full [data-hand-seat] [data-card]').length"


def _page(browser: Browser, url: str, width: int, problems: list[str]) -> Page:
    return guarded_page(browser, url, width, problems)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_live_game_shows_the_public_view_while_it_runs_and_every_hand_only_after_the_delay(
        browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    server = make_server(tmp_path, monkeypatch)
    bots = []
    for name in ("alice", "bob"):
        p, _token = server.add_participant(name)
        bots.append(activate_bot(server.db, p.id, None, f"{name}-bot", "1", ("python3", "x"), str(tmp_path)))
    now = [0.0]
    board = server.ladder.live = LiveBoard("kododo", 30.0, clock=lambda: now[0])
    board.begin(12, ["a", "b"], bots)
    played = iter(frames(12, seed=21))
    for _ in range(6):
        board.frame(next(played))
    problems: list[str] = []
    with serving(build(server)) as url:
        pg = _page(browser, url, width, problems)
        pg.goto(url + "/live")
        assert pg.locator('#live-games a[href="/live/12"]').count() == 1
        pg.click('#live-games a[href="/live/12"]')
        wait_until(pg, "document.documentElement.dataset.ready === '1'", 10)
        assert pg.evaluate(HAND_CARDS) == 0 and pg.locator("#board .card.back").count() > 0  # the public view: backs
        assert pg.locator("#full-wrap").is_hidden()
        step = pg.evaluate("document.documentElement.dataset.step")
        for _ in range(4):  # the game goes on: the page follows it without a reload
            board.frame(next(played))
        wait_until(pg, f"document.documentElement.dataset.step !== '{step}'", 10)
        assert pg.evaluate(HAND_CARDS) == 0 and pg.locator("#full-wrap").is_hidden()
        keep(pg, f"live-{width}-public")

        now[0] = 31.0  # the delay passes: every hand, behind the play; the live board still face down
        board.frame(next(played))
        wait_until(pg, "document.documentElement.dataset.full === '1'", 10)
        assert pg.evaluate(FULL_CARDS) > 0 and pg.evaluate(HAND_CARDS) == 0
        assert "behind the play" in pg.inner_text("#full-title")
        keep(pg, f"live-{width}-delayed")

        for frame in played:
            board.frame(frame)
        board.end(12)
        wait_until(pg, "document.documentElement.dataset.over === '1'", 10)
        # every seat's view on the main board now (the last hands are empty: no card is face down any more)
        assert pg.evaluate("document.documentElement.dataset.shown") == "0,1"
        assert pg.locator("#board [data-hand-seat] .card.back").count() == 0 and pg.locator("#finished").is_visible()
        assert pg.get_attribute("#finished", "href") == "/games/12"
        pg.context.close()
    assert problems == [], problems
