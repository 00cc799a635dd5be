"""The replay viewer in a real Chromium: every game steps to its end and shows the replay's result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.replay import read_replay
from tests.web.conftest import SEATS, run_cli, screenshot

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def _result(replay: Path) -> dict:
    return [r for r in read_replay(replay) if r["type"] == "result"][0]


def _steps(replay: Path) -> int:
    return sum(1 for r in read_replay(replay) if r["type"] == "events")


@pytest.mark.parametrize("game", sorted(SEATS))
def test_viewer_steps_to_the_end_and_shows_the_result(game: str, replays: dict[str, Path], tmp_path: Path, page: Page) -> None:
    replay = replays[game]
    out = tmp_path / f"{game}.html"
    printed = run_cli("view", str(replay), "-o", str(out))
    assert out.resolve().as_uri() in printed  # says where to open it
    page.goto(out.resolve().as_uri())
    steps = _steps(replay)
    assert page.inner_text("#where").startswith(f"step 0 / {steps}")
    assert page.locator("#result").count() == 0
    for k in range(1, steps + 1):  # step forward with the keyboard, one step at a time
        page.keyboard.press("ArrowRight")
        if k == steps // 2:
            screenshot(page, f"viewer-{game}-middle")
    assert page.inner_text("#where").startswith(f"step {steps} / {steps}")
    page.keyboard.press("ArrowRight")  # past the end: stays at the end
    assert page.inner_text("#where").startswith(f"step {steps} / {steps}")
    points = [float(t) for t in page.locator("#result td.points").all_inner_texts()]
    assert points == [float(p) for p in _result(replay)["points"]]
    screenshot(page, f"viewer-{game}-end")
    page.keyboard.press("Home")
    assert page.inner_text("#where").startswith(f"step 0 / {steps}")
    page.keyboard.press("End")
    assert page.locator("#result").count() == 1
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#where").startswith(f"step {steps - 1} / {steps}")


def test_viewer_jumps_to_a_step_and_a_round_and_plays(replays: dict[str, Path], tmp_path: Path, page: Page) -> None:
    out = tmp_path / "kolpa.html"
    run_cli("view", str(replays["kolpa"]), "-o", str(out))
    page.goto(out.resolve().as_uri())
    page.fill("#step-input", "7")
    page.press("#step-input", "Enter")
    assert page.inner_text("#where").startswith("step 7 /")
    data = page.evaluate("() => window.ArenaViewer.data")
    rounds = data["rounds"]
    later = [r for r in dict.fromkeys(rounds)][-1]
    page.select_option("#round-select", later)
    assert page.inner_text("#where").startswith(f"step {rounds.index(later)} /")
    page.keyboard.press("Home")
    page.select_option("#speed", "60")
    page.click("#play")
    page.wait_for_function("document.getElementById('where').textContent.indexOf('step 0 ') !== 0")
    page.click("#play")  # pause
    assert not page.inner_text("#where").startswith("step 0 /")


def test_organiser_view_shows_every_hand_and_switches_perspective(replays: dict[str, Path], tmp_path: Path, page: Page) -> None:
    out = tmp_path / "kododo.html"
    run_cli("view", str(replays["kododo"]), "-o", str(out))
    page.goto(out.resolve().as_uri())
    for s in range(3):
        assert page.locator(f'[data-hand-seat="{s}"] .card:not(.back)').count() == 5
    page.select_option("#perspective", "1")
    assert page.locator('[data-hand-seat="1"] .card:not(.back)').count() == 5
    assert page.locator('[data-hand-seat="0"] .card:not(.back)').count() == 0
    assert page.locator('[data-hand-seat="0"] .card.back').count() == 5
