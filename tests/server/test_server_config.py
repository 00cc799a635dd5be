"""The server config is read by the tournament configs' reader (issue 35 item 2): every mistake listed
at once, commands split as an entrant's (shlex: quotes keep spaces), `{config_dir}` expanded in both,
and `arena validate` checks a server's config too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.ladder.config import parse
from arena.tournament.config import tournament as tconfig


def test_a_server_config_with_three_mistakes_lists_all_three(tmp_path: Path) -> None:
    data = {"game": "kododo", "colour": "blue", "ladder": {"workers": "two"}, "time_control": {"decision_ms": 0}}
    with pytest.raises(ConfigError) as caught:
        parse(data, tmp_path / "server.yaml")
    lines = str(caught.value).splitlines()
    assert lines[0] == f"3 mistakes in {tmp_path / 'server.yaml'}:"
    assert lines[1].startswith(f"{tmp_path / 'server.yaml'}: colour: unknown key")
    assert lines[2] == f"{tmp_path / 'server.yaml'}: time_control.decision_ms: expected a number >= 1, got 0"
    assert lines[3] == f"{tmp_path / 'server.yaml'}: ladder.workers: expected a whole number, got a string ('two')"


def test_a_house_bot_command_with_quoted_spaces_splits_as_a_tournament_entrant_does(tmp_path: Path) -> None:
    folder = tmp_path / "house bots"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    command = "{python} '{config_dir}/house bots/bot.py' --level 'very hard'"
    server = parse({"game": "kododo", "house_bots": [{"name": "h", "command": command}]}, tmp_path / "server.yaml")
    entrant = tconfig.parse({"game": "kododo", "players": 2, "sandbox": False,
                             "entrants": [{"name": "a", "command": command}, {"name": "b", "command": command}]},
                            tmp_path / "cup.yaml").entrants[0]
    expected = (sys.executable, str(tmp_path / "house bots" / "bot.py"), "--level", "very hard")
    assert server.house_bots[0].command == expected  # {config_dir} and {python} expanded, quotes kept together
    assert entrant.command == expected  # the same words a tournament's entrant gets


def test_arena_validate_checks_a_server_config(tmp_path: Path) -> None:
    good = tmp_path / "server.yaml"
    good.write_text(yaml.safe_dump({"game": "kododo", "players": 2, "ladder": {"workers": 2}, "port": 9000}))
    done = CliRunner().invoke(main, ["validate", str(good)])
    assert done.exit_code == 0, done.output
    assert f"{good}: ok: server server: kododo, 2 players per game" in done.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"game": "kododo", "port": 99999, "ladder": {"closeness": "near"}}))
    done = CliRunner().invoke(main, ["validate", str(bad)])
    assert done.exit_code == 2
    assert f"2 mistakes in {bad}:" in done.output and "port: expected a number <= 65535, got 99999" in done.output
