"""Helpers to write small tournament configs around the deterministic test bot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

REPO = Path(__file__).parents[2]
BOT = REPO / "tests" / "tournament" / "bots" / "det_bot.py"
SECRET = "0123456789abcdef0123456789abcdef"  # one secret for runs whose results are compared


def det_entrants(count: int, delay_ms: float = 0.0) -> list[dict[str, Any]]:
    return [
        {"name": f"bot{i}", "command": ["{python}", str(BOT), "--salt", f"s{i}", "--delay-ms", str(delay_ms)]}
        for i in range(count)
    ]
