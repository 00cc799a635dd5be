"""The worked example, examples/goofspiel, as an author ships it: built and installed with pip into a
fresh venv (arena reachable from it), then everything a user does with a game, by name, as with a
built-in one: `arena games`, `arena check-game`, `arena play`, a YAML tournament with standings and a
report whose viewer pages draw with the example's own renderer (Chromium), `arena match`, `arena
check-bot`, and a ladder on `arena serve`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from playwright.sync_api import Page

from tests.server.server import ADMIN, free_port
from tests.support.venv import Venv, fresh_venv_with
from tests.support.browser import screenshot  # the Chromium fixtures (browser, page) are the suite's own

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "goofspiel"

pytestmark = [pytest.mark.process, pytest.mark.slow]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    return fresh_venv_with(tmp_path_factory.mktemp("goofspiel"), EXAMPLE, "goofspiel")


def test_installed_the_game_is_listed_with_its_package_and_passes_check_game(venv: Venv) -> None:
    listed = venv.run("games").stdout
    assert any(line.startswith("goofspiel 1.0 ") and "from arena-goofspiel 1.0.0 (goofspiel:SPEC)" in line for line in listed.splitlines())
    assert "site-packages" in str(venv.package()) and str(EXAMPLE) not in str(venv.package())
    checked = venv.run("check-game", "goofspiel", "--examples", "10")
    assert "goofspiel: 10 of 10 checks pass" in checked.stdout


@pytest.fixture(scope="module")
def cup(venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A YAML tournament of the installed game, played by its own bots, and its report: the folder."""
    out = tmp_path_factory.mktemp("cup")
    here = venv.package()
    config = out / "cup.yaml"
    config.write_text(f"""
name: goofspiel-cup
game: goofspiel
players: 2
entrants:
  - {{name: heuristic, command: ["{{python}}", "{here / 'heuristic_bot.py'}"], sandbox: {{shared_folder: true}}}}
  - {{name: random-a, command: ["{{python}}", "{here / 'random_bot.py'}"], sandbox: {{shared_folder: true}}}}
  - {{name: random-b, command: ["{{python}}", "{here / 'random_bot.py'}"], sandbox: {{shared_folder: true}}}}
schedule: {{format: round-robin, rounds: 4}}
seed: 7
sandbox: false
time_control: {{decision_ms: 2000, startup_ms: 10000}}
output: {{store: {out / 'cup.sqlite'}, replays: {out / 'replays'}}}
""")
    venv.run("run", str(config), "--fresh")
    venv.run("report", str(out / "cup.sqlite"), "-o", str(out / "report"))
    return out


def viewer_pages(cup: Path) -> list[Path]:
    """The report's replay viewer pages that carry the example's renderer (inlined from the installed package)."""
    pages = sorted((cup / "report").rglob("*.html"))
    return [p for p in pages if "arena-data" in p.read_text() and "G.define(\"goofspiel\"" in p.read_text()]


def test_play_a_tournament_with_standings_a_report_and_a_match(venv: Venv, cup: Path, tmp_path: Path) -> None:
    here = venv.package()
    heuristic, rand = f"{venv.python} {here / 'heuristic_bot.py'}", f"{venv.python} {here / 'random_bot.py'}"
    played = venv.run("play", "goofspiel", "--seed", "3", "--bot", heuristic, "--bot", rand, "--replay", str(tmp_path / "one.jsonl"))
    assert "goofspiel" in played.stdout
    venv.run("verify", str(tmp_path / "one.jsonl"))
    standings = venv.run("standings", str(cup / "cup.sqlite")).stdout
    assert "heuristic" in standings and "random-a" in standings
    assert viewer_pages(cup), "no viewer page carries the example's renderer"
    # 3 players: the third seat is a filler, the game's own sample bot (GameSpec.sample_bots) or arena's random one
    match = venv.run("match", "goofspiel", heuristic, rand, "--players", "3", "--games", "4", "--store", str(tmp_path / "match.sqlite"),
                     cwd=tmp_path, ok=False)
    assert match.returncode in (0, 1, 3), match.stdout + match.stderr  # 3: undecided after --games, as here
    assert "3 players" in match.stdout and "store: " in match.stdout


@pytest.mark.browser
def test_the_reports_viewer_pages_are_drawn_by_the_installed_renderer_in_chromium(venv: Venv, cup: Path, page: Page) -> None:
    """Every viewer page of the report, opened in Chromium: the installed example's renderer.js drew the
    board (its prize card and seats, not the generic view's trees), with the spec's round label."""
    installed = (venv.package() / "renderer.js").read_text(encoding="utf-8")
    pages = viewer_pages(cup)
    assert len(pages) == len(list((cup / "replays").glob("*.jsonl"))) == 24  # every game: 3 pairs x 4 rounds x both seatings
    for viewer in pages:
        assert installed in viewer.read_text(encoding="utf-8")  # the page carries the pip-installed module
        page.goto(viewer.resolve().as_uri())
        assert page.locator("#board .prize[data-prize]").count() == 1, viewer.name  # drawn by the example's renderer
        assert page.locator("#board .seat").count() == 2 and page.locator(".view-tree").count() == 0, viewer.name
        assert page.locator("#board .renderer-error").count() == 0, viewer.name
        assert page.inner_text("#where").startswith("step 0 / 13 · prize 1 of 13"), viewer.name  # the spec's round label
    page.keyboard.press("ArrowRight")
    events = page.inner_text("#side .events")
    assert " wins" in events or "tie, nobody wins" in events  # the renderer's event lines
    screenshot(page, "viewer-goofspiel-pip-installed")
    # the control: the same page without the example's module is drawn by the generic view, and the checks above fail
    bare = pages[0].with_name("bare.html")  # beside it: the page loads the viewer's assets by relative paths
    bare.write_text(pages[0].read_text(encoding="utf-8").replace(installed, ""), encoding="utf-8")
    page.goto(bare.resolve().as_uri())
    assert page.locator("#board .prize[data-prize]").count() == 0 and page.locator("#board .view-tree").count() == 2


def test_check_bot_plays_the_installed_game(venv: Venv) -> None:
    here = venv.package()
    done = venv.run("check-bot", "goofspiel", "--quick", "--no-sandbox", "--", str(venv.python), str(here / "heuristic_bot.py"), ok=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.sandbox
def test_a_ladder_on_arena_serve_plays_the_installed_game(venv: Venv, tmp_path: Path) -> None:
    here = venv.package()
    for folder, bot in (("h", "heuristic_bot.py"), ("r", "random_bot.py")):  # each house bot a folder of its own
        (tmp_path / folder).mkdir()
        for name in (bot, "botio.py"):
            (tmp_path / folder / name).write_bytes((here / name).read_bytes())
    config = tmp_path / "ladder.yaml"
    config.write_text(f"""
name: goofspiel-ladder
game: goofspiel
players: 2
data: {tmp_path / 'data'}
time_control: {{decision_ms: 2000, startup_ms: 10000}}
ladder: {{min_games: 2, check_games: 1, fault_limit: 3, workers: 1, seed: 5}}
house_bots:
  - name: heuristic
    command: "{{python}} {tmp_path / 'h' / 'heuristic_bot.py'}"
  - name: random
    command: "{{python}} {tmp_path / 'r' / 'random_bot.py'}"
""")
    port = free_port()
    log = tmp_path / "server.log"
    proc = subprocess.Popen([str(venv.arena), "serve", str(config), "--port", str(port)], stdout=open(log, "ab"),
                            stderr=subprocess.STDOUT, env={**os.environ, "ARENA_ADMIN_TOKEN": ADMIN})
    try:
        deadline, board = time.monotonic() + 180, []
        while time.monotonic() < deadline:
            try:
                board = httpx.get(f"http://127.0.0.1:{port}/api/v1/leaderboard", timeout=5).json()["leaderboard"]
            except (httpx.HTTPError, ValueError, KeyError):
                board = []
            if len(board) == 2 and all(b["games"] >= 2 for b in board):
                break
            assert proc.poll() is None, log.read_text()
            time.sleep(1)
        assert len(board) == 2 and all(b["games"] >= 2 for b in board), log.read_text()[-3000:] + json.dumps(board)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


