"""`arena check-game --browser`: the game's viewer module drawn in a real Chromium, step by step.

A few games are played in-process with random legal actions; every seat's view at every step goes into
a viewer page exactly as a replay's would (organiser's perspective: every seat's view), and the page is
stepped from the first frame to the last. The viewer catches a renderer that throws (it then draws the
generic view and marks the page with `data-renderer-error`): the first such step fails the check
"renderer", with its seed and the error. Needs Playwright and a Chromium (`ARENA_CHROMIUM`, else
/usr/bin/chromium or `chromium` on PATH).
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import tempfile
from pathlib import Path

from arena.errors import GameError
from arena.games.base import GameSpec
from arena.games.conformance import random_chooser
from arena.games.invariants import Verdict
from arena.jsonvalue import JSON, canonical
from arena.web.frames import delta_encode
from arena.web.viewer import viewer_page

MAX_FRAMES = 400  # steps drawn per game (a long game's first ones)


def random_game_data(spec: GameSpec, seats: int, seed: int) -> dict[str, JSON]:
    """The viewer's data for one random game, as `frames.viewer_data` gives it for a replay."""
    state = spec.new_game(seats, None, seed)
    choose = random_chooser(seed)
    views: list[list[JSON]] = [[] for _ in range(seats)]
    steps: list[JSON] = []
    while state.to_move() and len(steps) < MAX_FRAMES:
        for s in range(seats):
            views[s].append(canonical(state.view(s)))
        deciding = state.to_move()
        actions = {s: state.legal_actions(s)[choose(state, s, state.legal_actions(s))] for s in deciding}
        events = [canonical(e.to_json()) for e in state.apply(actions)]
        steps.append({"deciding": list(deciding), "events": events,
                      "decisions": [{"seat": s, "source": "bot", "elapsed_ms": None, "asked": True, "played": a} for s, a in actions.items()]})
    for s in range(seats):
        views[s].append(canonical(state.view(s)))
    over = not state.to_move()
    outcome = state.outcome() if over else None
    return {
        "version": 1, "game": spec.name, "game_id": f"{spec.name}-check", "seed": str(seed),
        "players": [f"random-{s}" for s in range(seats)], "time_control": {}, "perspective": None,
        "shown": list(range(seats)), "views": {str(s): delta_encode(views[s]) for s in range(seats)},
        "rounds": [spec.round_label(v) if isinstance(v, dict) else "" for v in views[0]], "steps": steps, "faults": [],
        "result": {"points": list(outcome.points) if outcome else [0] * seats,
                   "ranks": list(outcome.ranks) if outcome else [1] * seats,
                   "game_ranks": list(outcome.ranks) if outcome else [1] * seats},
    }


def _chromium() -> str:
    found = os.environ.get("ARENA_CHROMIUM") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else shutil.which("chromium"))
    if not found:
        raise GameError("--browser needs a Chromium: install Debian's chromium or set ARENA_CHROMIUM")
    return found


def check_renderer(spec: GameSpec, games: int = 3) -> Verdict:
    """Draw `games` random games (seeds 0.., the smallest player count first) with the game's renderer.

    Playwright's sync API runs in a thread of its own: a caller with an asyncio loop, or with another
    sync Playwright already open in its thread (one per thread), can still ask for the check."""
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-renderer-check") as pool:
        return pool.submit(_check_renderer, spec, games).result()


def _check_renderer(spec: GameSpec, games: int) -> Verdict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise GameError("--browser needs Playwright: pip install playwright") from None
    if spec.renderer is None:
        return Verdict("renderer", True, "no renderer: the generic view draws this game")
    with tempfile.TemporaryDirectory(prefix="arena-renderer-") as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for seed in range(games):
                seats = spec.min_seats + seed % (spec.max_seats - spec.min_seats + 1)
                data = random_game_data(spec, seats, seed)
                page_file = Path(tmp) / f"{seed}.html"
                page_file.write_text(viewer_page(data, f"{spec.name} renderer check"), encoding="utf-8")
                page = browser.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(page_file.as_uri())
                page.wait_for_function("() => document.documentElement.dataset.ready === '1' || document.readyState === 'complete'")
                steps = len(data["steps"]) if isinstance(data["steps"], list) else 0
                for step in range(steps + 1):
                    failed = errors[0] if errors else page.evaluate(
                        "(i) => { window.ArenaViewer.go(i); return document.documentElement.getAttribute('data-renderer-error'); }", step)
                    if failed:
                        return Verdict("renderer", False, f"the renderer threw: {failed}", step, seed, seats)
                page.close()
        finally:
            browser.close()
    return Verdict("renderer", True)
