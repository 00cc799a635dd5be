"""The Chromium fixtures of the whole suite: one session browser (Debian's chromium, driven by Playwright),
a fresh page per test, screenshots. Registered once by tests/conftest.py (`pytest_plugins`), so the page
tests of every folder share one browser: two sync Playwright instances cannot live in one thread.

Chromium is the Debian package (`make test` installs it through tools/system-deps); Playwright only
drives it (`playwright install` is never needed). A machine without it FAILS these tests.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator, TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # playwright is imported by the browser fixtures only: the fast tier collects these without it
    from playwright.sync_api import Browser, ConsoleMessage, Page, Route

ARTIFACTS = Path(__file__).resolve().parents[1] / "web" / "artifacts"
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]


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


def guarded_page(browser: Browser, origin: str, width: int, problems: list[str]) -> Page:
    """A page whose every request is intercepted: one to anywhere but `origin` is aborted and recorded in
    `problems`; console errors, uncaught exceptions and dialogs (alert) are recorded too."""
    context = browser.new_context(viewport={"width": width, "height": 900})

    def route(r: Route) -> None:
        if r.request.url.startswith(origin + "/"):
            r.continue_()
        else:
            problems.append(f"request left the server: {r.request.url}")
            r.abort()

    context.route("**/*", route)
    pg = context.new_page()

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            problems.append(f"console: {msg.text}")

    pg.on("console", on_console)
    pg.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    pg.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    return pg


def page_says(pg: Page, expression: str) -> bool:
    """`expression`'s truth in the page; False while a navigation swaps the document (a click on a link
    can leave `document.documentElement` null, or the context destroyed, for a moment)."""
    from playwright.sync_api import Error

    try:
        return bool(pg.evaluate(expression))
    except Error as exc:
        if any(part in str(exc) for part in ("of null", "context was destroyed", "navigat")):
            return False
        raise
