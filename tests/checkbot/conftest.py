"""Shared helpers of check-bot's tests: the broken bot's command and a quick run in-process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from arena.core.time_control import TimeControl
from arena.checkbot import CheckOptions, CheckResult, evaluate, run_check
from arena.sandbox.probe import probe

ROOT = Path(__file__).resolve().parents[2]
BROKEN = Path(__file__).resolve().parent / "bots" / "broken_bot.py"


def broken(mode: str) -> tuple[str, ...]:
    return (sys.executable, str(BROKEN), mode)


# The machine running the tests may be loaded (2 cores, many jobs): unless a test is about time, a
# generous decision limit keeps a slow moment from passing for a bot's fault.
RELAXED_MS = 5000


def quick_check(game: str, command: tuple[str, ...], **kw: object) -> dict[str, CheckResult]:
    kw.setdefault("decision_ms", RELAXED_MS)
    clocks: dict[str, Any] = {k: kw.pop(k) for k in ("decision_ms", "startup_ms") if k in kw}
    options = CheckOptions(game=game, command=command, quick=True, cwd=str(ROOT), time_control=TimeControl(**clocks),
                           **kw)  # type: ignore[arg-type]
    evidence = run_check(options)
    if "sandbox" not in kw:  # the default, as a tournament runs bots: sandboxed wherever it can be
        assert evidence.options.sandbox is probe().sandbox
    return {r.name: r for r in evaluate(evidence)}
