"""Fixtures for the audit tests: replays of whole games with every kind of fallback (an illegal action, a
crash, a time-out, a line that is not JSON), for verification to accept and its forgeries to be refused.

They are played by the real referee on the fake transport (`tests.support.fake_games`): no process, so the
verification tests run in the fast tier. Real games' replays are verified in the process tier
(tests/referee/test_games.py, tests/referee/test_faults.py, tests/replay/test_replay_records.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.referee.conftest import start_bots  # noqa: F401 - the fixture, for the branch tests' real bots
from tests.support.fake_games import play_fake_games


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> replay: a clean simultaneous game, a sequential one, and games with each kind of fallback."""
    return play_fake_games(tmp_path_factory.mktemp("verify"))
