"""Seat k's page shows exactly what seat k's view held: never a card of another seat's hand.

The expected views are rebuilt here with the engine, independently of the page builder; at every
step the page's DOM and text are read from a real Chromium.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, TYPE_CHECKING

import pytest

from arena.games.registry import get_game
from arena.jsonvalue import canonical
from arena.web.page import read_data
from arena.replay import read_replay
from arena.web.frames import delta_decode
from tests.web.conftest import ROOT, run_cli, screenshot

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

READ = """() => {
  const board = document.getElementById('board');
  const hands = {}, kodama = {};
  document.querySelectorAll('#board [data-hand-seat]').forEach(h => {
    hands[h.dataset.handSeat] = {cards: Array.from(h.querySelectorAll('[data-card]')).map(e => e.dataset.card), text: h.innerText.trim()};
  });
  document.querySelectorAll('#board [data-kodama-seat]').forEach(h => {
    kodama[h.dataset.kodamaSeat] = {cards: Array.from(h.querySelectorAll('[data-card]')).map(e => e.dataset.card), text: h.innerText.trim()};
  });
  return {text: document.body.innerText, cards: Array.from(board.querySelectorAll('[data-card]')).map(e => e.dataset.card), hands, kodama};
}"""
KODAMA_NAMES = {c["id"]: c["name"] for c in json.loads((ROOT / "arena/games/kodama/cards.json").read_text())["kodama"]}


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def secret_hands(game: str, snapshot: dict[str, Any]) -> list[list[str]]:
    """Every seat's hidden cards in the true state: its hand, and its Kodama cards in the Kodama games."""
    hands = snapshot.get("hands", [[] for _ in snapshot.get("kodama_hand", [])])
    kodama = snapshot.get("kodama_hand", [[] for _ in hands])
    return [[str(c) for c in h] + [str(k) for k in ks] for h, ks in zip(hands, kodama)]


def engine_frames(replay: Path, seat: int) -> tuple[list[dict[str, Any]], list[list[list[str]]], list[list[dict[str, Any]]]]:
    """Seat's view, every seat's hidden cards, and the events seat was sent, after each step."""
    records = read_replay(replay)
    header = records[0]
    game = header["game"]
    state = get_game(game).new_game(len(header["seats"]), header["options"], header["seed"])
    views: list[dict[str, Any]] = [json.loads(json.dumps(state.view(seat)))]
    hands = [secret_hands(game, state.snapshot())]
    events: list[list[dict[str, Any]]] = [[]]
    decisions: dict[int, Any] = {}
    for r in records:
        if r["type"] == "decision":
            decisions[r["seat"]] = r["played"]
        elif r["type"] == "events":
            got = state.apply(decisions)
            decisions = {}
            views.append(json.loads(json.dumps(state.view(seat))))  # a copy: views may share lists with the state
            hands.append(json.loads(json.dumps(secret_hands(game, state.snapshot()))))
            events.append([e.to_json() for e in got if e.visible_to(seat)])
    return views, hands, events


def card_ids(cards: list[Any]) -> list[str]:
    return [c if isinstance(c, str) else c["id"] for c in cards]


def shows(text: str, game: str, card: str) -> bool:
    """Kododo and Kolpa! codes ("B1") are quoted wherever the page names a card; Kodama ids ("B08",
    "K03") are whole words, and a Kodama card also shows by its name."""
    if game in ("kododo", "kolpa"):
        return f'"{card}"' in text
    return re.search(rf"\b{re.escape(card)}\b", text) is not None or (card in KODAMA_NAMES and KODAMA_NAMES[card] in text)


@pytest.mark.parametrize("game,seat", [("kododo", 1), ("kolpa", 2), ("kodama-duo", 1), ("kodama-draft", 0)])
def test_seat_page_never_shows_another_seats_hand(game: str, seat: int, replays: dict[str, Path], tmp_path: Path, page: Page) -> None:
    replay = replays[game]
    out = tmp_path / f"{game}-seat{seat}.html"
    run_cli("view", str(replay), "--seat", str(seat), "-o", str(out))
    html = out.read_text(encoding="utf-8")
    views, hands, events = engine_frames(replay, seat)
    page.goto(out.resolve().as_uri())
    data = read_data(html)  # what the file holds, decoded as the page decodes it
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
        if "hand_sizes" in view:
            assert sorted(got["hands"][str(seat)]["cards"]) == sorted(card_ids(view["hand"])), f"step {i}: seat {seat}'s own hand"
        else:
            assert got["hands"] == {}
        if "kodama" in view:
            assert sorted(got["kodama"][str(seat)]["cards"]) == sorted(card_ids(view["kodama"])), f"step {i}: seat {seat}'s Kodama cards"
        for other in range(n):
            if other == seat:
                continue
            if "hand_sizes" in view:
                shown = got["hands"][str(other)]
                assert shown["cards"] == [], f"step {i}: seat {other}'s hand is shown"
                assert shown["text"] == ("empty hand" if view["hand_sizes"][other] == 0 else ""), f"step {i}: seat {other}'s hand"
            if "kodama" in view:
                assert got["kodama"][str(other)] == {"cards": [], "text": "hidden"}, f"step {i}: seat {other}'s Kodama cards"
        # text: no card of another seat's hand that seat k never legitimately saw (in its views or the
        # events it was sent) appears
        seen.update(held)
        for e in events[i]:
            seen.update(strings(e))
        hidden = {c for other in range(n) if other != seat for c in hands[i][other]} - set(seen)
        assert hidden or i, "nothing hidden at the start: the check would be empty"
        leaked = [c for c in hidden if shows(got["text"], game, c)]
        assert leaked == [], f"step {i}: the page text holds other seats' hidden cards {leaked}"
        if i == len(views) // 2:
            screenshot(page, f"viewer-{game}-seat{seat}")
    # and the file: a card of another seat that seat k never saw in the whole game is nowhere in it
    never = {c for hs in hands for other in range(n) if other != seat for c in hs[other]} - set(seen)
    assert not never & set(strings(data)), f"the page's data holds cards seat {seat} never saw: {never & set(strings(data))}"
    assert [c for c in never if f'"{c}"' in html] == []
