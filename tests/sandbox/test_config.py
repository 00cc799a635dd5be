"""`sandbox:` in tournament configs, --sandbox/--no-sandbox on `arena play`, `arena validate`'s report,
and refusal where the sandbox cannot run."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.sandbox import probe as probe_module
from arena.sandbox.policy import SandboxPolicy, Scratch, policy_from_mapping
from arena.tournament.config import tournament as tconfig
from arena.tournament.config import sandbox as config_sandbox

from .conftest import ROOT

pytestmark = pytest.mark.sandbox

PY_BOT = str(ROOT / "sample_bots" / "python" / "random_bot.py")
UNAVAILABLE = probe_module.Support(None, "bubblewrap (bwrap) is not installed", False, None)


@pytest.fixture(autouse=True)
def keep_umask():
    """The CLI sets a private umask for its process; the tests run it in-process, so restore it."""
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


def config(tmp_path: Path, **top: object) -> dict[str, object]:
    entrants = [{"name": f"b{i}", "command": [sys.executable, PY_BOT, str(i)]} for i in range(2)]
    return {"game": "kododo", "entrants": entrants, "output": {"store": str(tmp_path / "s.sqlite")}, **top}


def test_the_default_is_on_with_safe_limits(tmp_path):
    cfg = tconfig.parse(config(tmp_path), tmp_path / "t.yaml")
    assert all(dataclasses.replace(e.sandbox, hide=(), private=(), show_cwd=True) == SandboxPolicy() for e in cfg.entrants)
    assert all(not e.sandbox.show_cwd and str(tmp_path / "s.sqlite") in e.sandbox.hide for e in cfg.entrants)
    assert SandboxPolicy().scratch is Scratch.FRESH and not SandboxPolicy().writable_folder


def test_per_tournament_and_per_entrant_settings(tmp_path):
    data = config(tmp_path, sandbox={"processes": 8, "scratch": "keep"})
    data["entrants"][1]["sandbox"] = {"writable_folder": True, "open_files": 64}  # type: ignore[index]
    cfg = tconfig.parse(data, tmp_path / "t.yaml")
    first, second = cfg.entrants
    assert first.sandbox.processes == 8 and not first.sandbox.writable_folder
    assert second.sandbox.processes == 8 and second.sandbox.writable_folder and second.sandbox.open_files == 64
    assert first.sandbox.keep_dir == str(tmp_path / "s-scratch" / "b0")  # beside the store, one per entrant


def test_an_entrant_can_be_trusted(tmp_path):
    data = config(tmp_path)
    data["entrants"][0]["sandbox"] = False  # type: ignore[index]
    cfg = tconfig.parse(data, tmp_path / "t.yaml")
    assert [e.sandbox.enabled for e in cfg.entrants] == [False, True]


@pytest.mark.parametrize(
    "value,message",
    [
        ({"processes": 0}, "sandbox.processes must be a positive whole number"),
        ({"proceses": 8}, "sandbox.proceses: unknown key"),
        ({"scratch": "disk"}, "sandbox.scratch: expected fresh or keep"),
        ("yes", "sandbox: expected true, false or a mapping"),
        ({"extra_ro": ["relative/path"]}, "sandbox.extra_ro: expected a list of absolute paths"),
    ],
)
def test_bad_settings_name_the_key(tmp_path, value, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        tconfig.parse(config(tmp_path, sandbox=value), tmp_path / "t.yaml")


def test_policy_from_mapping_keeps_the_base():
    base = SandboxPolicy(processes=10)
    assert policy_from_mapping(None, "s", base) is base
    assert policy_from_mapping(False, "s", base) == SandboxPolicy(enabled=False, processes=10)


def test_a_config_asking_for_the_sandbox_is_refused_where_it_cannot_run(tmp_path, monkeypatch):
    monkeypatch.setattr(tconfig, "probe", lambda: UNAVAILABLE)  # the default
    monkeypatch.setattr(config_sandbox, "probe", lambda: UNAVAILABLE)  # the refusal
    with pytest.raises(ConfigError, match="sandbox is asked for but cannot run on this machine: bubblewrap"):
        tconfig.parse(config(tmp_path, sandbox=True), tmp_path / "t.yaml")
    cfg = tconfig.parse(config(tmp_path), tmp_path / "t.yaml")  # not asked: off, and validate says so
    assert not any(e.sandbox.enabled for e in cfg.entrants)


def test_play_refuses_sandbox_where_it_cannot_run_and_warns_by_default(monkeypatch):
    monkeypatch.setattr(probe_module, "probe", lambda: UNAVAILABLE)
    with pytest.raises(ConfigError):
        probe_module.decide(True)
    enabled, warning = probe_module.decide(None)
    assert not enabled and warning and "no sandbox on this machine" in warning


def test_play_runs_sandboxed_by_default_and_not_with_no_sandbox(tmp_path):
    # A bot that crashes when it finds itself in the sandbox (HOME is its scratch folder there).
    shutil.copy(ROOT / "sample_bots" / "python" / "arenabot.py", tmp_path)
    script = tmp_path / "where.py"
    script.write_text(
        "import os, sys\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "import arenabot\n"
        "boxed = os.environ.get('HOME') == '/scratch' and not os.path.exists(%r)\n"
        "arenabot.run(lambda r: sys.exit(5) if boxed else r['legal'][0], name='where')\n" % PY_BOT
    )
    for flag, crashed in ((None, True), ("--no-sandbox", False)):
        replay = tmp_path / f"r{flag}.jsonl"
        args = ["play", "kododo", "--bot", f"{sys.executable} {script}", "--bot", f"{sys.executable} {PY_BOT} 1",
                "--json", "--option", "max_deals=1", "--replay", str(replay)]
        result = CliRunner().invoke(main, args + ([flag] if flag else []))
        assert result.exit_code == 0, result.output
        faults = json.loads(result.stdout)["faults"]
        assert [f["kind"] for f in faults] == (["crash"] if crashed else [])
        assert stat.S_IMODE(replay.stat().st_mode) == 0o600
        assert ("sandbox off" in result.stderr) == (flag == "--no-sandbox")


def test_validate_reports_the_protections_in_force(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "game: kododo\nentrants:\n"
        f"  - {{name: a, command: ['{sys.executable}', '{PY_BOT}']}}\n"
        f"  - {{name: b, command: ['{sys.executable}', '{PY_BOT}'], sandbox: false}}\n"
        f"output: {{store: {tmp_path / 's.sqlite'}}}\n"
    )
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "sandboxed entrants: a; unsandboxed: b" in result.output
    assert "network: none" in result.output and "limit processes:" in result.output


def test_arena_run_writes_a_private_store_and_replays(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "game: kododo\noptions: {max_deals: 1}\nentrants:\n"
        f"  - {{name: a, command: ['{sys.executable}', '{PY_BOT}', '1']}}\n"
        f"  - {{name: b, command: ['{sys.executable}', '{PY_BOT}', '2']}}\n"
        f"output: {{store: {tmp_path / 'out' / 's.sqlite'}, replays: {tmp_path / 'out' / 'replays'}}}\n"
    )
    result = CliRunner().invoke(main, ["run", str(path), "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "sandbox: 2 of 2 entrants sandboxed (no network" in result.stdout  # the default, said in one line
    out = tmp_path / "out"
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files) and any(p.suffix == ".sqlite" for p in files)
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {"0o600"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in out.rglob("*") if p.is_dir()} == {"0o700"}


def test_arena_run_warns_before_running_unsandboxed_bots(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "game: kododo\noptions: {max_deals: 1}\nsandbox: false\nentrants:\n"
        f"  - {{name: a, command: ['{sys.executable}', '{PY_BOT}', '1']}}\n"
        f"  - {{name: b, command: ['{sys.executable}', '{PY_BOT}', '2'], sandbox: true}}\n"
        f"output: {{store: {tmp_path / 's.sqlite'}}}\n"
    )
    result = CliRunner().invoke(main, ["run", str(path), "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "WARNING: not sandboxed: a (sandbox: false in the config)" in result.stderr
    assert "sandbox: 1 of 2 entrants sandboxed" in result.stdout
