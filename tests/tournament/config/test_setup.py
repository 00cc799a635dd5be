"""One play setup built in code (issue 35 item 2): a `PlaySetup` made without YAML builds the same
`TournamentConfig` its YAML would, lists every mistake at once naming where each is, and `arena match`
composes one (its mistakes name NEW and OLD, never a file it never wrote)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.errors import ConfigError, MatchError
from arena.match.setup import MatchRequest, build
from arena.sandbox.policy import SandboxPolicy
from arena.tournament.config import tournament as tconfig
from arena.tournament.config.entrants import EntrantSetup
from arena.tournament.config.setup import PlaySetup, ScheduleSetup

from tests.support.tournament import BOT, det_entrants


def _in_code(tmp_path: Path, **changes: object) -> PlaySetup:
    entrants = tuple(EntrantSetup(str(e["name"]), tuple(e["command"])) for e in det_entrants(3))
    setup = PlaySetup(file=tmp_path / "t.yaml", name="t", game="kododo", players=3, entrants=entrants, seed=5,
                      schedule=ScheduleSetup(rounds=2), time_control=TimeControl(decision_ms=300),
                      limits=Limits(memory_mb=256), sandbox=SandboxPolicy(enabled=False))
    return PlaySetup(**{**setup.__dict__, **changes})  # type: ignore[arg-type]


def test_a_setup_built_in_code_is_the_config_its_yaml_would_be(tmp_path: Path) -> None:
    cfg = _in_code(tmp_path).build()
    data = {"name": "t", "game": "kododo", "players": 3, "entrants": det_entrants(3), "schedule": {"rounds": 2},
            "seed": 5, "time_control": {"decision_ms": 300}, "limits": {"memory_mb": 256}, "sandbox": False}
    read = tconfig.parse(data, tmp_path / "t.yaml")
    assert cfg == read
    assert cfg.fingerprint() == read.fingerprint() and cfg.games() == read.games()
    assert cfg.time_control.decision_ms == 300 and cfg.limits.memory_mb == 256
    assert cfg.entrants[0].command[0] != "{python}"  # placeholders substituted, as in a file


def test_a_setup_built_in_code_lists_every_mistake_with_what_to_fix(tmp_path: Path) -> None:
    entrants = (EntrantSetup("a", ("python3", str(BOT))), EntrantSetup("a", ("no-such-program-anywhere",)),
                EntrantSetup("c", ("python3", "missing.py"), cwd="nowhere"))
    with pytest.raises(ConfigError) as caught:
        _in_code(tmp_path, entrants=entrants, options={"colour": 1}).build()
    lines = str(caught.value).splitlines()
    assert lines[0] == f"5 mistakes in {tmp_path / 't.yaml'}:"
    text = str(caught.value)
    assert "options.colour: " in text
    assert "entrants[1].name: 'a' is already the name of entrants[0]; names must be unique" in text
    assert "entrants[1].command[0]: program 'no-such-program-anywhere' not found on PATH" in text
    assert f"entrants[2].cwd: folder {str(tmp_path / 'nowhere')!r} does not exist" in text
    assert f"entrants[2].command[1]: file 'missing.py' not found (looked in {tmp_path})" in text


def test_a_match_names_its_arguments_in_its_mistakes_and_no_file(tmp_path: Path) -> None:
    req = MatchRequest(game="kododo", new="no-such-program-anywhere --x", old=f"python3 '{BOT}'", games=2)
    with pytest.raises(MatchError) as caught:
        build(req, cwd=tmp_path)
    assert str(caught.value) == "NEW.command[0]: program 'no-such-program-anywhere' not found on PATH"


def test_a_match_command_with_quoted_spaces_splits_as_in_a_tournament(tmp_path: Path) -> None:
    folder = tmp_path / "my bots"
    folder.mkdir()
    (folder / "bot.py").write_text((BOT.read_text()))
    cfg = build(MatchRequest(game="kododo", new=f"python3 '{folder / 'bot.py'}' --salt a", old=f"python3 {BOT}",
                             games=2, sandbox=False), cwd=tmp_path)
    assert cfg.entrants[0].command[1:] == (str(folder / "bot.py"), "--salt", "a")
    assert [e.name for e in cfg.entrants] == ["new", "old"]


def test_a_match_plays_unsandboxed_where_the_sandbox_cannot_run_unless_asked_for(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import probe as probe_module

    missing = probe_module.Support(None, "bubblewrap (bwrap) is not installed", False, None)
    monkeypatch.setattr("arena.tournament.config.setup.probe", lambda: missing)
    monkeypatch.setattr("arena.match.setup.probe", lambda: missing)
    req = MatchRequest(game="kododo", new=f"python3 {BOT}", old=f"python3 {BOT} --salt b", games=2)
    cfg = build(req, cwd=tmp_path)  # the default: on where it runs (arena match warns about the plain bots)
    assert not any(e.sandbox.enabled for e in cfg.entrants)
    with pytest.raises(MatchError, match="--sandbox: the sandbox cannot run on this machine: bubblewrap"):
        build(MatchRequest(**{**req.__dict__, "sandbox": True}), cwd=tmp_path)
