"""The viewer shows each step's stderr lines (`--keep-logs`) at that step: in a real Chromium, for the
whole table (labelled by seat) and for one seat's page (only that seat's lines)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.replay import load_replay
from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import load_game_record
from tests.web.conftest import ROOT, run_cli, screenshot

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Page

LOG_BOT = ROOT / "tests" / "referee" / "bots" / "log_bot.py"


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kodama-duo game by two bots that write "step N" on stderr at step N (seat 1 with escapes too)."""
    path = tmp_path_factory.mktemp("logs") / "logged.jsonl"
    run_cli("play", "kodama-duo", "--seed", "7", "--no-sandbox", "--quiet", "--keep-logs", "--replay", str(path),
            "--bot", f"{sys.executable} {LOG_BOT} step", "--bot", f"{sys.executable} {LOG_BOT} escapes")
    return path


def test_frames_carry_each_seats_logs_only_for_its_perspective(logged: Path) -> None:
    record = load_game_record(logged)
    organiser = viewer_data(record, Perspective(None))
    seat0 = viewer_data(record, Perspective(0))
    assert {g["seat"] for st in organiser["steps"] for g in st.get("logs", [])} == {0, 1}
    assert {g["seat"] for st in seat0["steps"] for g in st.get("logs", [])} == {0}
    assert "bell" not in json.dumps(seat0) and "reversed" not in json.dumps(seat0)  # seat 1's lines are not in the page
    for k, st in enumerate(organiser["steps"]):
        for g in st.get("logs", []):
            assert g["lines"][-1] == f"step {k}"


@pytest.mark.browser
def test_the_viewer_shows_step_ks_lines_at_step_k(logged: Path, tmp_path: Path, page: Page) -> None:
    logs = {(g.step, g.seat): g.lines for g in load_replay(logged).logs}
    whole = tmp_path / "whole.html"
    run_cli("view", str(logged), "-o", str(whole))
    page.goto(whole.resolve().as_uri())
    both = next(step for step, seat in logs if (step, 1 - seat) in logs)  # a step where both seats decide
    for k in (0, 1, both, both + 1):
        page.fill("#step-input", str(k))
        page.press("#step-input", "Enter")
        assert page.inner_text("#where").startswith(f"step {k} /")
        shown = {int(el.get_attribute("data-seat") or -1): el.inner_text() for el in page.locator("#logs .log").all()}
        assert set(shown) == {seat for step, seat in logs if step == k}
        for seat, text in shown.items():
            assert f"seat {seat}" in text and f"step {k}" in text and f"step {k - 1}\n" not in text
            assert "\x1b" not in text and "pwned" not in text
    screenshot(page, "viewer-logs-whole")
    page.select_option("#perspective", "0")  # the whole-table page, looking as seat 0
    assert {el.get_attribute("data-seat") for el in page.locator("#logs .log").all()} <= {"0"}
    seat_page = tmp_path / "seat1.html"
    run_cli("view", str(logged), "--seat", "1", "-o", str(seat_page))
    page.goto(seat_page.resolve().as_uri())
    page.fill("#step-input", str(both))
    page.press("#step-input", "Enter")
    assert [el.get_attribute("data-seat") for el in page.locator("#logs .log").all()] == ["1"]
    assert f"step {both}" in page.inner_text("#logs")
    page.click("#end")
    assert page.inner_text("#where").startswith("step ") and page.locator("#result").count() == 1
    assert page.locator("#logs").count() == 0  # the final frame has no step, and no log
