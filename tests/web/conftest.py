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
# The Chromium fixtures (browser, page) are the whole suite's, one session browser: tests/support/browser.py
from tests.support.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, screenshot  # noqa: F401 - as the page tests import them


ROOT = Path(__file__).resolve().parents[2]
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


