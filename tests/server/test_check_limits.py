"""The submission check plays under the ladder's full limits (issue 35 item 1, issue 36): its memory and
CPU limits and its whole time control (the bank, the increment, the game's wall clock), not only the
per-decision and start-up times. A bot over the ladder's memory limit, and one over its bank, each pass
a check made with only `decision_ms` and `startup_ms` (the control) and fail the real one."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.ladder import checker
from arena.ladder.config import parse
from tests.server.bots import ROOT, SAMPLES

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

HUNGRY = """import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot
rng = random.Random(1)
held = []
def act(request):
    if len(held) < 7:  # 50 MB more at each of its first decisions, written (resident): 350 MB; the ladder allows 200
        held.append(b"\\x01" * (50 * 1024 * 1024))
    return rng.choice(request["legal"])
arenabot.run(act, name="hungry", version="1")
"""


SLOW = """import os, random, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot
rng = random.Random(1)
def act(request):
    time.sleep(0.1)  # well inside the 1 s per decision; the whole game's bank is 600 ms
    return rng.choice(request["legal"])
arenabot.run(act, name="slow", version="1")
"""


def _check(tmp_path: Path, source: str) -> checker.Verdict:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    (folder / "arenabot.py").write_bytes((SAMPLES / "python/arenabot.py").read_bytes())
    house = [{"name": "random", "command": f"python3 {SAMPLES / 'python/random_bot.py'} 3"}]
    config = parse({"name": "limits", "game": "kododo", "players": 2, "root": str(ROOT), "data": str(tmp_path / "data"),
                    "time_control": {"decision_ms": 1000, "bank_ms": 600, "startup_ms": 10000},
                    "limits": {"memory_mb": 200}, "ladder": {"check_games": 1}, "house_bots": house}, tmp_path / "ladder.yaml")
    return checker.check_submission(config, ("python3", str(folder / "bot.py")), str(folder), sandbox=True)


def _only_decision_and_startup(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check as it was: the ladder's decision and start-up times, nothing else."""
    ladders = checker.check_setup

    def setup(config: Any, sandbox: bool) -> Any:
        tc = config.time_control
        return replace(ladders(config, sandbox), time_control=TimeControl(decision_ms=tc.decision_ms, startup_ms=tc.startup_ms),
                       limits=Limits())

    monkeypatch.setattr(checker, "check_setup", setup)


@pytest.mark.parametrize("source, cause", [(HUNGRY, "memory"), (SLOW, "bank")])
def test_a_bot_over_the_ladders_limits_fails_its_check(tmp_path: Path, source: str, cause: str) -> None:
    verdict = _check(tmp_path, source)
    assert not verdict.passed, (cause, verdict.reason)


@pytest.mark.parametrize("source, cause", [(HUNGRY, "memory"), (SLOW, "bank")])
def test_the_control_checked_on_the_per_decision_times_alone_it_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       source: str, cause: str) -> None:
    _only_decision_and_startup(monkeypatch)
    verdict = _check(tmp_path, source)
    assert verdict.passed, (cause, verdict.reason, verdict.report[-1500:])
