"""The games are `mypy --strict` clean (pyproject.toml's mypy settings), and stay so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_arena_games_passes_mypy_strict() -> None:
    mypy = Path(sys.executable).with_name("mypy")  # in the `test` extra
    result = subprocess.run([str(mypy), "arena/games"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found")
