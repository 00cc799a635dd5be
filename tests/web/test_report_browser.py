"""The report of a small real tournament, opened in a real Chromium from file://."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.results.store import Store
from arena.stats.standings import store_standings
from tests.web.conftest import ROOT, run_cli, screenshot

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

CONFIG = """
name: tiny-cup
game: kododo
players: 3
root: {root}
entrants:
  - name: py-random
    command: ["{{python}}", "sample_bots/python/random_bot.py", "1"]
  - name: py-heuristic
    command: ["{{python}}", "sample_bots/python/kododo_heuristic.py"]
  - name: c-random
    command: ["sample_bots/c/random_bot", "3"]
  - name: crasher
    command: ["{{python}}", "tests/referee/bots/bad_bot.py", "crash"]
schedule: {{format: round-robin, rotations: none, rounds: 2}}
seed: 3
concurrency: 1
sandbox: {{shared_folder: true}}  # the sample bots share sample_bots/python
output: {{store: {out}/cup.sqlite, replays: {out}/replays, report: {out}/report}}
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cup")
    config = out / "cup.yaml"
    config.write_text(CONFIG.format(root=ROOT, out=out), encoding="utf-8")
    printed = run_cli("run", str(config), "--quiet")
    assert (out / "report" / "index.html").resolve().as_uri() in printed  # `arena run` wrote the report
    return out


def test_report_shows_the_standings_and_links(tournament: Path, page: Page) -> None:
    index = tournament / "report" / "index.html"
    with Store.open_existing(tournament / "cup.sqlite") as store:
        standings = store_standings(store)
        games = list(store.games())
    page.goto(index.resolve().as_uri())
    rows = page.locator("#standings-table tbody tr")
    assert rows.count() == 4
    for k, s in enumerate(standings):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert cells[0] == str(s.place) and cells[1] == s.name
        assert cells[2] == f"{s.score:.2f}" and cells[3] == f"{s.mu:.2f}" and cells[5] == str(s.games)
        assert cells[9] == str(s.faults)
    assert standings[-1].name == "crasher" and standings[-1].faults == len([g for g in games if 3 in g.seats])
    # the faults section shows the crash with the bot's stderr tail
    assert "bad_bot: crashing on purpose now" in page.inner_text("#faults")
    screenshot(page, "report")
    # every game is listed and links to its replay's viewer page, which exists
    assert page.inner_text("#game-count") == f"{len(games)} of {len(games)} games"
    links = page.locator("#game-table a.replay")
    assert links.count() == len(games)
    hrefs = [links.nth(k).get_attribute("href") for k in range(links.count())]
    assert hrefs == [f"replays/{g.index:06d}.html" for g in games]
    assert all((index.parent / str(h)).is_file() for h in hrefs)
    # filter and sort
    page.fill("#game-filter", "crash")
    assert page.inner_text("#game-count") == f"{sum(1 for g in games if 3 in g.seats)} of {len(games)} games"
    page.fill("#game-filter", "")
    page.check("#faults-only")
    assert page.locator("#game-table tbody tr").count() == sum(1 for g in games if sum(g.played.fault_counts))
    page.uncheck("#faults-only")
    page.click('#game-table th[data-key="index"]')  # second click on the sorted column: descending
    first = page.locator("#game-table tbody tr").first.get_attribute("data-index")
    assert first == str(games[-1].index)
    # open a game in the viewer and step to its end
    page.click(f'#game-table tr[data-index="{games[0].index}"] a.replay')
    page.wait_for_selector("#board")
    page.keyboard.press("End")
    points = [float(t) for t in page.locator("#result td.points").all_inner_texts()]
    assert points == [float(p) for p in games[0].played.points]
    assert re.search(r"step (\d+) / \1", page.inner_text("#where"))


def test_report_command_writes_and_says_where(tournament: Path, tmp_path: Path) -> None:
    printed = run_cli("report", str(tournament / "cup.sqlite"), "-o", str(tmp_path / "r"), "--no-viewers")
    assert (tmp_path / "r" / "index.html").resolve().as_uri() in printed
    assert not (tmp_path / "r" / "replays").exists()


def test_viewer_shows_a_fault_where_it_happened(tournament: Path, page: Page) -> None:
    with Store.open_existing(tournament / "cup.sqlite") as store:
        game = next(g for g in store.games() if g.played.faults)
    fault = game.played.faults[0]
    page.goto((tournament / "report" / f"replays/{game.index:06d}.html").resolve().as_uri())
    step = fault.step
    page.fill("#step-input", str(step + 1))  # the frame after the faulty step
    page.press("#step-input", "Enter")
    side = page.inner_text("#side")
    assert f"{fault.kind.value} seat {fault.seat}" in side and "bad_bot: crashing on purpose now" in side
    assert page.locator(f'#board .seat.faulty[data-seat="{fault.seat}"]').count() == 1
    assert "fallback" in side
    screenshot(page, "viewer-kododo-fault")


def test_viewer_pages_are_rebuilt_only_when_missing_or_older_than_their_replay(tournament: Path) -> None:
    import os

    from arena.web.report_page import build_report

    with Store.open_existing(tournament / "cup.sqlite") as store:
        games = list(store.games())
    first = build_report(tournament / "cup.sqlite", tournament / "report")
    assert first.viewer_pages == 0  # `arena run` wrote them all already
    page = tournament / "report" / f"replays/{games[1].index:06d}.html"
    page.unlink()
    replay = Path(str(games[2].replay_path))
    later = page.parent.joinpath(f"{games[2].index:06d}.html").stat().st_mtime + 10
    os.utime(replay, (later, later))
    again = build_report(tournament / "cup.sqlite", tournament / "report")
    assert again.viewer_pages == 2 and page.is_file()


def test_viewer_pages_share_one_copy_of_their_assets_and_inflate_their_frames_from_file(tournament: Path, page: Page) -> None:
    from arena.jsonvalue import canonical, dumps
    from arena.web import viewer
    from arena.web.frames import Perspective, viewer_data
    from arena.web.page import asset, read_data
    from arena.web.replay_source import load_game_record

    replays = tournament / "report" / "replays"
    pages = sorted(replays.glob("*.html"))
    assert len(pages) >= 2
    assert sorted(p.name for p in (replays / "assets").iterdir()) == sorted(viewer.ASSETS)
    with Store.open_existing(tournament / "cup.sqlite") as store:
        games = {g.index: g for g in store.games()}
    for p in pages:
        text = p.read_text(encoding="utf-8")
        for name in viewer.ASSETS:  # linked, not copied into every page
            assert asset(name).strip()[:300] not in text
            assert f'"assets/{name}"' in text
        expected = canonical(viewer_data(load_game_record(str(games[int(p.stem)].replay_path)), Perspective(None)))
        assert read_data(text) == expected  # the frames of the replay, compressed
        assert len(text) * 3 < len(dumps(expected))
    # the browser inflates them from file:// (DecompressionStream) and draws the first step
    page.goto(pages[0].resolve().as_uri())
    assert page.evaluate("() => window.ArenaViewer.data") == read_data(pages[0].read_text(encoding="utf-8"))
    assert page.inner_text("#where").startswith("step 0 /")
    assert page.locator("#board .seat").count() == 3
