"""`arena new-bot` and bot folders' manifests, without building anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.build import folder as bot_folder
from arena.build.languages import DEFAULTS, by_name
from arena.build.runner import parse_settings
from arena.cli import main
from arena.errors import BuildError, ConfigError


def test_new_bot_writes_a_kit_named_for_its_folder_and_game(tmp_path: Path) -> None:
    dest = tmp_path / "duo bot"
    result = CliRunner().invoke(main, ["new-bot", "go", "kodama-duo", str(dest)])
    assert result.exit_code == 0, result.output
    assert json.loads((dest / "manifest.json").read_text()) == {"name": "duo-bot", "version": "1", "language": "go"}
    readme = (dest / "README.md").read_text()
    assert "arena play kodama-duo --bot . --bot .`" in readme and "arena check-bot kodama-duo ." in readme
    assert sorted(p.name for p in dest.rglob("*") if p.is_file()) == [
        "README.md", "arena.go", "arena_test.go", "go.mod", "main.go", "manifest.json"]
    again = CliRunner().invoke(main, ["new-bot", "go", "kolpa", str(dest)])
    assert again.exit_code == 2 and "already exists and is not empty" in again.output
    unknown = CliRunner().invoke(main, ["new-bot", "cobol", "kolpa", str(tmp_path / "x")])
    assert unknown.exit_code == 2 and "cobol" in unknown.output


def test_a_folder_manifest_gives_the_command_to_run(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"name": "r", "language": "java"}')
    (tmp_path / "bot.jar").write_bytes(b"PK")
    folder = bot_folder.read(str(tmp_path))
    assert folder.argv() == ("java", "-XX:+UseSerialGC", "-Xmx64m", "-jar", str(tmp_path / "bot.jar"))
    (tmp_path / "manifest.json").write_text('{"name": "r", "language": "rust"}')
    with pytest.raises(BuildError, match="build the bot first"):
        bot_folder.read(str(tmp_path)).argv()
    (tmp_path / "manifest.json").write_text('{"name": "r", "language": "cobol"}')
    with pytest.raises(BuildError, match="'cobol' is not one offered here"):
        bot_folder.read(str(tmp_path))
    (tmp_path / "manifest.json").write_text('{"name": "r", "lang": "go"}')
    with pytest.raises(BuildError, match="unknown keys lang"):
        bot_folder.read(str(tmp_path))


def test_the_server_build_settings(tmp_path: Path) -> None:
    settings = parse_settings({"time_s": 60, "languages": {"go": None, "java": {"run": "java -jar b.jar"},
                                                          "zig": {"build": "zig build", "run": "./zig-out/bin/bot", "tools": ["zig"]}}})
    langs = by_name(settings.languages)
    assert settings.limits.time_s == 60 and langs["go"] == by_name(DEFAULTS)["go"]
    assert langs["java"].build == by_name(DEFAULTS)["java"].build and langs["java"].run == "java -jar b.jar"
    assert langs["java"].runtime == "java" and langs["zig"].runtime is None and langs["zig"].missing() == ("zig",)
    assert [lang.name for lang in parse_settings({"languages": ["rust"]}).languages] == ["rust"]
    for bad, message in (({"languages": ["cobol"]}, "not a default language"), ({"time_s": -1}, "time_s"),
                         ({"speed": 1}, "unknown key"), ({"languages": {"x": {"build": "make"}}}, "run")):
        with pytest.raises(ConfigError, match=message):
            parse_settings(bad)
