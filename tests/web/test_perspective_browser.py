"""Seat k's page shows exactly what seat k's view held: never a card of another seat's hand.

The expected views are rebuilt here with the engine, independently of the page builder; at every
step the page's DOM and text are read from a real Chromium.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest
from playwright.sync_api import Page

from arena.games.registry import get_game
from arena.jsonvalue import canonical
from arena.referee.replay import read_replay
from arena.web.frames import delta_decode
from tests.web.conftest import run_cli, screenshot

READ = """() => {
  const board = document.getElementById('board');
  const hands = {};
  document.querySelectorAll('#board [data-hand-seat]').forEach(h => {
    hands[h.dataset.handSeat] = {cards: Array.from(h.querySelectorAll('[data-card]')).map(e => e.dataset.card), text: h.innerText.trim()};
  });
  return {text: document.body.innerText, cards: Array.from(board.querySelectorAll('[data-card]')).map(e => e.dataset.card), hands};
}"""


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def engine_frames(replay: Path, seat: int) -> tuple[list[dict], list[list[list[str]]], list[list[dict]]]:
    """Seat's view, every seat's true hand, and the events seat was sent, after each step."""
    records = read_replay(replay)
    header = records[0]
    state = get_game(header["game"]).new_game(len(header["seats"]), header["options"], header["seed"])
    views, hands, events = [json.loads(json.dumps(state.view(seat)))], [json.loads(json.dumps(state.snapshot()["hands"]))], [[]]
    decisions: dict[int, Any] = {}
    for r in records:
        if r["type"] == "decision":
            decisions[r["seat"]] = r["played"]
        elif r["type"] == "events":
            got = state.apply(decisions)
            decisions = {}
            views.append(json.loads(json.dumps(state.view(seat))))  # a copy: views may share lists with the state
            hands.append(json.loads(json.dumps(state.snapshot()["hands"])))
            events.append([e.to_json() for e in got if e.visible_to(seat)])
    return views, hands, events


@pytest.mark.parametrize("game,seat", [("kododo", 1), ("kolpa", 2)])
def test_seat_page_never_shows_another_seats_hand(game: str, seat: int, replays: dict[str, Path], tmp_path: Path, page: Page) -> None:
    replay = replays[game]
    out = tmp_path / f"{game}-seat{seat}.html"
    run_cli("view", str(replay), "--seat", str(seat), "-o", str(out))
    html = out.read_text(encoding="utf-8")
    views, hands, events = engine_frames(replay, seat)
    page.goto(out.resolve().as_uri())
    data = json.loads(page.locator("#arena-data").text_content() or "")
    # The file holds seat k's views only, equal to the engine's, and no other seat's actions.
    assert list(data["views"]) == [str(seat)]
    assert [canonical(v) for v in delta_decode(data["views"][str(seat)])] == [canonical(v) for v in views]
    rebuilt = page.evaluate(f"() => Array.from({{length: {len(views)}}}, (_, i) => window.ArenaViewer.frame({seat}, i))")
    assert [canonical(v) for v in rebuilt] == [canonical(v) for v in views]  # the page's own decoding
    for k, st in enumerate(data["steps"]):
        assert all(("played" in d) == (d["seat"] == seat) for d in st["decisions"])
        assert canonical(st["events"]) == canonical(events[k + 1]), f"step {k}: not the events seat {seat} was sent"
    assert page.locator("#perspective option").count() == 1
    seen: Counter[str] = Counter()
    n = len(hands[0])
    for i, view in enumerate(views):
        if i:
            page.keyboard.press("ArrowRight")
        got = page.evaluate(READ)
        assert got["text"].count(f"step {i} / {len(views) - 1}") == 1
        # DOM: every card drawn is one the view holds (as a multiset); other hands show backs only
        held = Counter(strings(view))
        drawn = Counter(got["cards"])
        assert not drawn - held, f"step {i}: cards drawn that seat {seat}'s view does not hold: {drawn - held}"
        assert sorted(got["hands"][str(seat)]["cards"]) == sorted(view["hand"]), f"step {i}: seat {seat}'s own hand"
        for other in range(n):
            if other != seat:
                shown = got["hands"][str(other)]
                assert shown["cards"] == [], f"step {i}: seat {other}'s hand is shown"
                assert shown["text"] == ("empty hand" if view["hand_sizes"][other] == 0 else ""), f"step {i}: seat {other}'s hand"
        # text: no card of another seat's hand that seat k never legitimately saw appears quoted
        for e in events[i]:
            seen.update(strings(e))
        known = held + seen
        hidden = {c for other in range(n) if other != seat for c in hands[i][other]} - set(known)
        leaked = [c for c in hidden if f'"{c}"' in got["text"]]
        assert leaked == [], f"step {i}: the page text holds other seats' hidden cards {leaked}"
        if i == len(views) // 2:
            screenshot(page, f"viewer-{game}-seat{seat}")
    # and the raw file: no other seat's hand at the start (five distinct hidden cards at least once)
    assert all(f'"hand":{json.dumps(hands[0][other], separators=(",", ":"))}' not in html for other in range(n) if other != seat)
