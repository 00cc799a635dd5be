"""The submission check composes the ladder's one play setup (issue 35 item 2): the `arena check-bot` and
`arena play` it runs read back exactly the ladder's `TimeControl` and `Limits`, every field, through the one
list of options (config.command_line). In-process: the commands are parsed, not run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from arena.checkbot import CheckOptions
from arena.cli import check_bot as check_bot_cli
from arena.cli import main
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.ladder import checker
from arena.ladder.config import parse
from arena.tournament.config.command_line import clock_argv, limits_of, time_control_of

CLOCKS = {"decision_ms": 700, "bank_ms": 600, "increment_ms": 30, "startup_ms": 4000, "game_ms": 90_000}


def _config(tmp_path: Path, **keys: Any) -> Any:
    return parse({"name": "same", "game": "kododo", "players": 2, "data": str(tmp_path / "data"),
                  "time_control": CLOCKS, "limits": {"memory_mb": 300, "cpu_seconds": 40}, **keys}, tmp_path / "ladder.yaml")


def _parsed(argv: list[str]) -> dict[str, Any]:
    """The parameters the `arena` command line `argv` (after ARENA) gives its command."""
    name, *rest = argv
    command = main.commands[name]
    assert isinstance(command, click.Command)
    return dict(command.make_context(name, rest, resilient_parsing=False).params)


def test_check_bot_and_play_get_the_ladders_whole_time_control_and_limits(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert config.time_control.bank_ms == 600 and config.limits.cpu_seconds == 40  # the config says more than decision_ms
    setup = checker.check_setup(config, sandbox=False)
    for argv in (checker.check_bot_argv(setup, ("python3", "bot.py")), checker.play_argv(setup, ["a", "b"], 7)):
        params = _parsed(argv[len(checker.ARENA):])
        assert time_control_of(params) == config.time_control, argv
        assert limits_of(params) == config.limits, argv


def test_check_bot_runs_its_check_with_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena check-bot` as the checker calls it builds CheckOptions holding the ladder's TimeControl and Limits."""
    config = _config(tmp_path)
    seen: list[CheckOptions] = []

    def stop(options: CheckOptions, progress: Any = None) -> Any:
        seen.append(options)
        raise SystemExit(0)

    monkeypatch.setattr(check_bot_cli, "run_check", stop)
    (tmp_path / "bot.py").write_text("")
    argv = checker.check_bot_argv(checker.check_setup(config, sandbox=False), ("python3", str(tmp_path / "bot.py")))
    outcome = CliRunner().invoke(main, argv[len(checker.ARENA):])
    assert seen, outcome.output and seen[0].time_control == config.time_control and seen[0].limits == config.limits


def test_defaults_and_unset_limits_round_trip() -> None:
    for tc, lim in [(TimeControl(), Limits()), (TimeControl(game_ms=None, bank_ms=0), Limits(memory_mb=None, cpu_seconds=1))]:
        params = _parsed(["play", "kododo", *clock_argv(tc, lim)])
        assert (time_control_of(params), limits_of(params)) == (tc, lim)
