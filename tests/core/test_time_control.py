"""The time control's one JSON form: every field, read back strictly (a format-2 replay header too)."""

from __future__ import annotations

import pytest

from arena.core.time_control import FIELDS, REPLAY_V2_KEYS, TimeControl
from arena.errors import ArenaError


def test_the_json_form_carries_every_field_and_reads_back() -> None:
    tc = TimeControl(decision_ms=250, bank_ms=5000, increment_ms=10, startup_ms=3000, shutdown_ms=500, game_ms=60_000)
    data = tc.to_json()
    assert tuple(data) == FIELDS == ("decision_ms", "bank_ms", "increment_ms", "startup_ms", "shutdown_ms", "game_ms")
    assert TimeControl.from_json(data) == tc
    assert TimeControl.from_json(TimeControl(game_ms=None).to_json()).game_ms is None


def test_a_format_2_form_lacks_shutdown_and_game_ms_which_keep_their_defaults() -> None:
    old = {"decision_ms": 100, "bank_ms": None, "increment_ms": 0, "startup_ms": 10000}
    assert TimeControl.from_json(old, REPLAY_V2_KEYS) == TimeControl(decision_ms=100)
    with pytest.raises(ArenaError, match="missing shutdown_ms, game_ms"):
        TimeControl.from_json(old)
    with pytest.raises(ArenaError, match="unknown game_ms"):
        TimeControl.from_json({**old, "game_ms": 5}, REPLAY_V2_KEYS)


@pytest.mark.parametrize("key, value", [("decision_ms", 1.5), ("decision_ms", True), ("decision_ms", None),
                                         ("game_ms", "1"), ("startup_ms", 0), ("bank_ms", -1)])
def test_anything_but_the_written_form_is_refused(key: str, value: object) -> None:
    with pytest.raises(ArenaError, match=key):
        TimeControl.from_json({**TimeControl().to_json(), key: value})  # type: ignore[dict-item]
