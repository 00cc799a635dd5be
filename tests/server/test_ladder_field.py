"""The ladder's field grows in code (issue 35 item 2): a bot that joins is one entrant added to the
config the workers play, built from the server's play setup; no YAML is written or read for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.ladder import Ladder, with_bots
from arena.tournament.config import tournament as tconfig
from arena.tournament.run.messages import PlayerSetup
from tests.server.inprocess import make_server


class Started:
    """An executor that plays nothing: it keeps the setup each start gave it."""

    capacity = 0
    setups: list[PlayerSetup] = []

    def __init__(self, workers: int, live: Any = None) -> None:
        pass

    def start(self, setup: PlayerSetup) -> None:
        Started.setups.append(setup)


def _no_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the ladder read or wrote YAML")

    for name in ("load", "safe_load", "dump", "safe_dump"):
        monkeypatch.setattr(yaml, name, refuse)
    for name in ("load", "parse", "load_setup"):
        monkeypatch.setattr(tconfig, name, refuse)


def _join(server: Any, tmp: Path, name: str) -> None:
    who, _token = create_participant(server.db, name)
    activate_bot(server.db, who.id, None, name, "1", ("python3", str(tmp / "bot.py")), str(tmp))


def test_a_bot_joining_is_an_entrant_added_in_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    (tmp_path / "bot.py").write_text("")
    for name in ("a", "b"):
        _join(server, tmp_path, name)
    ladder: Ladder = server.ladder
    _no_yaml(monkeypatch)
    monkeypatch.setattr("arena.ladder.ladder.LocalPool", Started)
    Started.setups = []
    ladder._open(ladder._active())
    _join(server, tmp_path, "c")
    ladder._open(ladder._active())
    first, grown = (s.config for s in Started.setups)
    assert grown.entrants[:2] == first.entrants  # the field so far, as it was: only the new bot is added
    assert [e.name for e in grown.entrants] == [f"bot{i}" for i in ladder.field] and len(ladder.field) == 3
    assert grown.time_control == server.config.time_control and grown.limits == server.config.limits


def test_with_bots_adds_to_a_field_without_rebuilding_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    (tmp_path / "bot.py").write_text("")
    for name in ("a", "b", "c"):
        _join(server, tmp_path, name)
    ladder: Ladder = server.ladder
    bots = ladder._active()
    _no_yaml(monkeypatch)
    field = with_bots(ladder.setup, bots[:2], bots)
    grown = with_bots(ladder.setup, bots[2:], bots, field)
    assert grown.entrants[:2] == field.entrants and grown.entrants[2].name == f"bot{bots[2]['id']}"
    assert grown.entrants[2].env["ARENA_SEED"].isdigit()
