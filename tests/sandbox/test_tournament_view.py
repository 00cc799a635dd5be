"""What an entrant of a tournament config sees: its own files, not the shared root, the other entrants,
the store or the replays, whether or not it sets `cwd:`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from arena.referee.bot import BotProcess, BotSpec
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.tournament.config import tournament as tconfig

from .conftest import ESCAPE_BOT
import pytest

pytestmark = pytest.mark.sandbox

TC = TimeControl(decision_ms=5000, shutdown_ms=300)


def tournament_root(tmp_path: Path) -> Path:
    """A repository-like root: bots/escape/, bots/other/, out/ with a store and replays in it."""
    root = tmp_path / "cup"
    for name in ("escape", "other"):
        (root / "bots" / name).mkdir(parents=True)
    shutil.copy(ESCAPE_BOT, root / "bots" / "escape" / "escape_bot.py")
    (root / "bots" / "other" / "secret.txt").write_text("other's strategy")
    (root / "out" / "replays").mkdir(parents=True)
    (root / "out" / "cup.sqlite").write_bytes(b"results")
    (root / "out" / "replays" / "g1.jsonl").write_text("{}")
    return root


def attempt(root: Path, entrant: dict[str, object], target: Path, c_bot: str) -> str:
    data = {
        "game": "kododo",
        "entrants": [entrant, {"name": "c", "command": [c_bot, "1"]}],
        "output": {"store": "out/cup.sqlite", "replays": "out/replays"},
    }
    config = tconfig.parse(data, root / "cup.yaml")
    e = config.entrants[0]
    spec = BotSpec(e.name, e.command, e.cwd, {**e.env, "ESC_TARGET": str(target)}, e.sandbox)  # as the runner does
    bots = [BotProcess.start(spec, TC)]
    try:
        bots.append(BotProcess.start(BotSpec("c", (c_bot, "1"), sandbox=config.entrants[1].sandbox), TC))
        result = play_game("kododo", bots, seed=1, time_control=TC)
        assert result.faults == ()
        return next(line for line in bots[0].stderr_tail() if line.startswith("escape read:"))
    finally:
        for bot in bots:
            bot.close()


def test_an_entrant_without_cwd_sees_only_its_own_folder(tmp_path, c_bot):
    root = tournament_root(tmp_path)
    entrant = {"name": "esc", "command": ["{python}", "bots/escape/escape_bot.py", "read"]}
    for target in (root / "bots" / "other" / "secret.txt", root / "out" / "cup.sqlite", root / "out" / "replays" / "g1.jsonl", root / "cup.yaml"):
        report = attempt(root, entrant, target, c_bot)
        assert "BLOCKED" in report and "ESCAPED" not in report, (target, report)


def test_an_entrant_whose_cwd_holds_the_outputs_still_cannot_read_them(tmp_path, c_bot):
    root = tournament_root(tmp_path)
    entrant = {"name": "esc", "command": ["{python}", "bots/escape/escape_bot.py", "read"], "cwd": "."}
    for target in (root / "out" / "cup.sqlite", root / "out" / "replays" / "g1.jsonl"):
        report = attempt(root, entrant, target, c_bot)
        assert "BLOCKED" in report and "ESCAPED" not in report, (target, report)
    # the shared folder it asked for is visible, as configured
    assert "ESCAPED" in attempt(root, entrant, root / "bots" / "other" / "secret.txt", c_bot)
