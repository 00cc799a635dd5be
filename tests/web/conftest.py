"""Real replays and a real headless Chromium for the page tests.

Chromium is the Debian package (`make test` installs it through tools/system-deps); Playwright only
drives it (`playwright install` is never needed). A machine without it FAILS these tests: they are
part of CI, not optional.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, TYPE_CHECKING

import pytest
from click.testing import CliRunner

from arena.cli import main

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Browser, ConsoleMessage, Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).with_name("artifacts")
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]
PY_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
C_BOT = ROOT / "sample_bots" / "c" / "random_bot"
SEATS = {"kododo": 3, "kolpa": 3, "kodama-duo": 2, "kodama-draft": 3}


def run_cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="session")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One real replay per game, played by the sample bots through `arena play`."""
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=ROOT, check=True)
    out = tmp_path_factory.mktemp("replays")
    paths = {}
    for game, seats in SEATS.items():
        bots = [f"{sys.executable} {PY_BOT} 1"] + [f"{C_BOT} {k}" for k in range(2, seats + 1)]
        path = out / f"{game}.jsonl"
        args = ["play", game, "--seed", "11", "--replay", str(path), "--quiet"]
        for b in bots:
            args += ["--bot", b]
        run_cli(*args)
        paths[game] = path
    return paths


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    if executable is None:
        pytest.fail(f"no Chromium at {CHROMIUM} nor on PATH: run `make test` (tools/system-deps --browser installs it) or set ARENA_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that fails the test on any console error or uncaught exception."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    pg = context.new_page()
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    pg.on("console", on_console)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("request", lambda req: errors.append(f"network request {req.url}") if not req.url.startswith(("file:", "data:", "about:")) else None)
    goto = pg.goto

    def goto_drawn(url: str, **kwargs: Any) -> Any:
        """Open a page as a user waits for it: a viewer draws once its compressed frames are inflated."""
        response = goto(url, **kwargs)
        pg.wait_for_function("() => !document.querySelector('#arena-data[data-encoding]') || document.documentElement.dataset.ready === '1'")
        return response

    pg.goto = goto_drawn  # type: ignore[method-assign]
    try:
        yield pg
    finally:
        context.close()
    assert errors == [], f"console errors or network requests: {errors}"


def screenshot(pg: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path
