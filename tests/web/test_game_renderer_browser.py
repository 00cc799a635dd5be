"""A game's own viewer module in a real Chromium: the Goofspiel example's renderer draws its report's
viewer pages (found through its entry point, as an installed plugin's); a game without one gets the
generic view (each seat's view as a tree, events as a log); a renderer that throws falls back to it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from playwright.sync_api import Page

from arena.games import registry
from arena.games.base import Renderer
from tests.support.plugins import fake_distribution, on_path
from tests.web.conftest import ROOT, run_cli, screenshot

pytestmark = pytest.mark.browser
EXAMPLE = ROOT / "examples" / "goofspiel"
FAULTY = ROOT / "tests" / "games" / "faulty"

CONFIG = """
name: goofspiel-cup
game: {game}
players: 2
entrants:
  - {{name: first, command: ["{{python}}", "{bots}/{bot}"], sandbox: {{shared_folder: true}}}}
  - {{name: second, command: ["{{python}}", "{bots}/random_bot.py"], sandbox: {{shared_folder: true}}}}
schedule: {{format: round-robin, rotations: none, rounds: 1}}
seed: 3
concurrency: 1
sandbox: false
output: {{store: {out}/cup.sqlite, replays: {out}/replays, report: {out}/report}}
"""


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_distribution(tmp_path / "site", "arena-goofspiel", "1.0.0", {"goofspiel": "goofspiel:SPEC"}, {})
    fake_distribution(site, "faulty-games", "1.0", {"high-card": "faulty_games:GOOD"}, {})
    for root in (EXAMPLE, FAULTY, site):
        on_path(monkeypatch, root)
    return tmp_path


def _report_page(out: Path, game: str, bots: Path, bot: str) -> Path:
    config = out / "cup.yaml"
    config.write_text(CONFIG.format(game=game, bots=bots, bot=bot, out=out), encoding="utf-8")
    run_cli("run", str(config), "--quiet")
    pages = sorted((out / "report" / "replays").glob("*.html"))
    assert pages
    return pages[0]


def test_the_examples_renderer_draws_its_report_viewer_pages(plugins: Path, page: Page) -> None:
    viewer = _report_page(plugins, "goofspiel", EXAMPLE / "goofspiel", "heuristic_bot.py")
    page.goto(viewer.resolve().as_uri())
    assert page.locator("#board .prize[data-prize]").count() == 1  # drawn by examples/goofspiel/goofspiel/renderer.js
    assert page.locator("#board .seat").count() == 2 and page.locator(".view-tree").count() == 0
    assert page.inner_text("#where").startswith("step 0 / 13 · prize 1 of 13")  # the spec's round label
    page.keyboard.press("ArrowRight")
    assert " wins" in page.inner_text("#side .events") or "tie, nobody wins" in page.inner_text("#side .events")  # its event lines
    screenshot(page, "viewer-goofspiel-example")


def test_a_game_without_a_renderer_is_drawn_as_trees_with_its_events_logged(plugins: Path, page: Page) -> None:
    viewer = _report_page(plugins, "high-card", EXAMPLE / "goofspiel", "random_bot.py")
    page.goto(viewer.resolve().as_uri())
    assert page.locator("#board .view-tree").count() == 2  # the organiser's page: both seats' views
    assert "hand" in page.inner_text("#board .view-tree >> nth=0")
    page.keyboard.press("ArrowRight")
    assert "round" in page.inner_text("#side .events")
    screenshot(page, "viewer-generic")


def test_a_renderer_that_throws_falls_back_to_the_generic_view_and_says_so(plugins: Path, page: Page,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    broken = plugins / "broken_renderer"
    broken.mkdir()
    (broken / "__init__.py").write_text("")
    (broken / "renderer.js").write_text('ArenaGames.define("goofspiel", function (ctx) { return ctx.pub.nothing.here; });\n')
    monkeypatch.syspath_prepend(str(plugins))
    spec = registry.get_game("goofspiel")
    monkeypatch.setitem(registry._GAMES, "goofspiel", dataclasses.replace(spec, renderer=Renderer("broken_renderer", "renderer.js")))
    (plugins / "out").mkdir()
    viewer = _report_page(plugins / "out", "goofspiel", EXAMPLE / "goofspiel", "heuristic_bot.py")
    page.goto(viewer.resolve().as_uri())
    assert "the viewer module of game goofspiel failed at step 0" in page.inner_text("#board .renderer-error")
    assert page.locator("#board .view-tree").count() == 2 and page.locator("#board .prize").count() == 0
    screenshot(page, "viewer-renderer-throws")


def test_check_game_browser_names_the_step_and_seed_where_a_renderer_throws(plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    good = CliRunner().invoke(main, ["check-game", "goofspiel", "--examples", "3", "--browser"])
    assert good.exit_code == 0 and "PASS renderer:" in good.output, good.output  # the control: the example's own renderer
    broken = plugins / "late_renderer"
    broken.mkdir()
    (broken / "__init__.py").write_text("")
    (broken / "renderer.js").write_text(
        'ArenaGames.define("goofspiel", function (ctx) { if (ctx.pub.round === 3) { return ctx.pub.nothing.here; } return "ok"; });\n')
    monkeypatch.syspath_prepend(str(plugins))
    spec = registry.get_game("goofspiel")
    monkeypatch.setitem(registry._GAMES, "goofspiel", dataclasses.replace(spec, renderer=Renderer("late_renderer", "renderer.js")))
    bad = CliRunner().invoke(main, ["check-game", "goofspiel", "--examples", "3", "--browser"])
    assert bad.exit_code == 1
    [line] = [x for x in bad.output.splitlines() if x.startswith("FAIL")]
    assert line.startswith("FAIL renderer: step 2, seed 0, 2 seats") and "the renderer threw" in line
