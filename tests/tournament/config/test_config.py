"""Configs: good ones load into typed values; each bad one is refused, naming file, key and expectation."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.tournament.config import tournament as tconfig
from arena.tournament.schedule.plan import Fill, Format

from tests.support.tournament import BOT, det_entrants


def good() -> dict[str, Any]:
    return {
        "name": "t",
        "game": "kododo",
        "players": 3,
        "entrants": det_entrants(3),
        "schedule": {"rounds": 2},
        "seed": 5,
    }


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation that sets `a.b[2].c` to `value`."""

    def mutate(data: dict[str, Any]) -> None:
        keys: list[Any] = []
        for part in path.replace("]", "").split("."):
            name, *idx = part.split("[")
            keys.append(name)
            keys.extend(int(i) for i in idx)
        target = data
        for k in keys[:-1]:
            target = target.setdefault(k, {}) if isinstance(k, str) else target[k]
        target[keys[-1]] = value

    return mutate


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


BAD = [
    (_set("speed", 3), "speed: unknown key (expected one of:"),
    (_delete("game"), "game: missing (required)"),
    (_set("game", "chess"), "game: unknown game 'chess'"),
    (_set("options", {"colour": 1}), "options.colour: game 'kododo' has no option 'colour'"),
    (_set("options", {"long": "yes"}), "options: option 'long' of game 'kododo' must be true or false"),
    (_set("options", {1: True, "long": True}), "options: option names are words, got a number (1)"),
    (_set("players", "four"), "players: expected a whole number, got a string ('four')"),
    (_set("players", 9), "players: game 'kododo' is for 2 to 5 players, got 9"),
    (_set("players", 4), "schedule: 4 seats per table but only 3 entrants to fill them; set `fill: cycle`"),
    (_set("entrants", []), "entrants: expected at least one entrant"),
    (_set("entrants", {"a": 1}), "entrants: expected a list, got a mapping"),
    (_set("entrants[2].command", ["/nonexistent/bot"]), "entrants[2].command[0]: program '/nonexistent/bot' not found"),
    (_set("entrants[2].command", ["no-such-program-xyz"]), "entrants[2].command[0]: program 'no-such-program-xyz' not found on PATH"),
    (_set("entrants[1].command", ["{python}", "missing_bot.py"]), "entrants[1].command[1]: file 'missing_bot.py' not found"),
    (_set("entrants[0].command", ""), "entrants[0].command: expected a command, got an empty one"),
    (_set("entrants[0].command", 42), "entrants[0].command: expected a command as a string or a list of strings"),
    (_set("entrants[1].name", "bot0"), "entrants[1].name: 'bot0' is already the name of entrants[0]"),
    (_set("entrants[0].colour", "red"), "entrants[0].colour: unknown key"),
    (_set("entrants[0].cwd", "no/such/dir"), "entrants[0].cwd: folder"),
    (_set("entrants[0].env", {"A": [1]}), "entrants[0].env.A: expected a string value, got a list"),
    (_set("schedule.rounds", 0), "schedule.rounds: expected a number >= 1, got 0"),
    (_set("schedule.format", "swiss"), "schedule.format: expected one of round-robin, gauntlet, got 'swiss'"),
    (_set("schedule.rotations", "some"), "schedule.rotations: expected one of cyclic, all, none"),
    (_set("schedule.format", "gauntlet"), "schedule: a gauntlet needs at least one candidate"),
    (_set("schedule.candidates", ["nobody"]), "schedule.candidates[0]: no entrant named 'nobody' (entrants: bot0, bot1, bot2)"),
    (_set("time_control.decision_ms", -5), "time_control.decision_ms: expected a number >= 1, got -5"),
    (_set("time_control.turbo", True), "time_control.turbo: unknown key"),
    (_set("limits.max_line_bytes", 10), "limits.max_line_bytes: expected a number >= 1024"),
    (_set("fault_policy", "ignore"), "fault_policy: expected one of forfeit, continue, got 'ignore'"),
    (_set("concurrency", 0), "concurrency: expected a number >= 1, got 0"),
    (_set("restart_bots", "no"), "restart_bots: expected true or false"),
    (_set("output.db", "x"), "output.db: unknown key"),
    (_set("seed", 1.5), "seed: expected a whole number, got a number (1.5)"),
    (_set("root", "nowhere"), "root: folder"),
]


@pytest.mark.parametrize("mutate, message", BAD, ids=[m for _, m in BAD])
def test_bad_config_is_refused_with_its_message(
    write_config: Callable[..., Path], mutate: Callable[[dict[str, Any]], None], message: str
) -> None:
    data = copy.deepcopy(good())
    mutate(data)
    path = write_config(data)
    with pytest.raises(ConfigError) as err:
        tconfig.load(path)
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)
    runner = CliRunner()
    for command in (["validate", str(path)], ["run", "--quiet", str(path)]):
        result = runner.invoke(main, command)
        assert result.exit_code == 2, result.output
        assert message in result.output


def test_not_yaml_and_not_a_mapping_and_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [kododo\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml: line \d+, column \d+: not valid YAML"):
        tconfig.load(bad)
    bad.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a mapping of keys to values, got a list"):
        tconfig.load(bad)
    with pytest.raises(ConfigError, match="no such config file"):
        tconfig.load(tmp_path / "absent.yaml")


def test_good_config_resolves_paths_placeholders_and_defaults(write_config: Callable[..., Path], tmp_path: Path) -> None:
    data = good()
    (tmp_path / "bots").mkdir()
    data["entrants"][0]["cwd"] = "bots"
    data["entrants"][1]["command"] = f"{{python}} {BOT} --salt 'a b'"
    cfg = tconfig.load(write_config(data))
    assert cfg.entrants[0].command[0] == sys.executable
    assert cfg.entrants[0].raw_command[0] == "{python}"
    assert cfg.entrants[0].cwd == str(tmp_path / "bots")
    assert cfg.entrants[1].command[-1] == "a b"
    assert cfg.entrants[2].cwd == str(tmp_path)
    assert cfg.store == tmp_path / "out" / "t.sqlite"
    assert cfg.options == {"long": False, "target": 50, "max_deals": 20}
    assert cfg.schedule.format is Format.ROUND_ROBIN and cfg.schedule.fill is Fill.ERROR
    assert cfg.schedule.master_seed == 5 and len(cfg.games()) == 3 * 2


def test_fingerprint_ignores_how_a_run_goes_but_not_what_it_plays(write_config: Callable[..., Path]) -> None:
    base = tconfig.load(write_config(good(), "a.yaml")).fingerprint()
    how = good() | {"concurrency": 7, "restart_bots": True, "output": {"store": "elsewhere.sqlite"}}
    assert tconfig.load(write_config(how, "b.yaml")).fingerprint() == base
    what = good() | {"seed": 6}
    assert tconfig.load(write_config(what, "c.yaml")).fingerprint() != base


def staged_repo(tmp_path: Path) -> Path:
    """The repository's configs and sample bots, seen from tmp_path, with the C sample bot's place taken by a
    stand-in when it is not built: the fast tier needs no build product (the docs tier plays the configs)."""
    root = Path(__file__).parents[3]
    (tmp_path / "configs").mkdir()
    for config in (root / "configs").glob("*.yaml"):  # copied: `root: ..` resolves from where the file really is
        (tmp_path / "configs" / config.name).write_bytes(config.read_bytes())
    bots = tmp_path / "sample_bots"
    for entry in (root / "sample_bots").iterdir():
        if entry.name != "c":
            (bots / entry.name).parent.mkdir(exist_ok=True)
            (bots / entry.name).symlink_to(entry)
    (bots / "c").mkdir()
    built = root / "sample_bots" / "c" / "random_bot"
    if built.exists():
        (bots / "c" / "random_bot").symlink_to(built)
    else:
        (bots / "c" / "random_bot").write_text("#!/bin/sh\n")
        (bots / "c" / "random_bot").chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("name", ["kododo", "kolpa", "kodama-duo"])
def test_shipped_configs_are_valid(name: str, tmp_path: Path) -> None:
    path = staged_repo(tmp_path) / "configs" / f"{name}.yaml"
    cfg = tconfig.load(path)
    assert cfg.game == name and len(cfg.games()) > 0
