"""In Chromium, as a participant does it: sign in to a real `arena serve`, open a ladder bot's page, press
"play against this bot", and play the whole game on the seat's page served by the server (the session and
its CSRF token; nothing fetched from the seat's own loopback server), by clicking. The game's public
record then verifies, and the page's only requests went to the server."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.human.test_human_browser import check_replay, play_by_clicking, wait_for
from tests.server.server import ServerProcess
from tests.support.browser import screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.process, pytest.mark.sandbox]


def test_a_participant_plays_a_ladder_bot_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    try:
        token = server.add("carol")
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        pg = context.new_page()
        problems: list[str] = []
        pg.on("pageerror", lambda exc: problems.append(str(exc)))
        pg.on("request", lambda r: problems.append(f"request to {r.url}") if not r.url.startswith(server.url) else None)
        pg.goto(server.url + "/signin")
        pg.fill("#token", token)
        pg.click("form[action='/signin'] button")
        pg.goto(server.url + "/bots/1")
        pg.select_option("#seat", "0")
        pg.select_option("#opponent0", "2")
        pg.click("#play button")
        pg.wait_for_url(f"{server.url}/play/*/")
        game = int(pg.url.rstrip("/").rsplit("/", 1)[1])
        wait_for(pg, "document.documentElement.getAttribute('data-phase') === 'asked'")
        screenshot(pg, "ladder-human-seat-1280")
        decisions, _clicks = play_by_clicking(pg)
        assert decisions > 2
        context.close()
        server.wait("the game stored", lambda: "<td>over</td>" in server.get("/play", cookies={"arena_session": token}).text)
        replay = server.get(f"/play/{game}/replay.jsonl")
        assert replay.status_code == 200
        (tmp_path / "game.jsonl").write_bytes(replay.content)
        check_replay(tmp_path / "game.jsonl")
        assert problems == []
    finally:
        server.stop()
