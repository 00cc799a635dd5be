"""`arena ladder export` and `arena ladder status --json/--csv` against a server answering in-process:
the field as a tournament config that `arena run` accepts (the organiser's only), the leaderboard as CSV
and JSON, and a bot name made to be a spreadsheet formula written as text."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from arena.cli import main
from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.service import Server
from arena.server.app import build
from arena.tournament.config.tournament import load as load_tournament

from tests.server.final.support import ADMIN, SAMPLES, competition


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    config = competition(tmp_path, [])
    made = Server(config, sandbox=False)
    for name in ("ann", "bob"):
        folder = tmp_path / "uploads" / name
        folder.mkdir(parents=True)
        (folder / "random_bot.py").write_bytes((SAMPLES / "python" / "random_bot.py").read_bytes())
        (folder / "arenabot.py").write_bytes((SAMPLES / "python" / "arenabot.py").read_bytes())
        who, _ = create_participant(made.db, name)
        activate_bot(made.db, who.id, None, "=HYPERLINK(\"http://x\")" if name == "bob" else "plain", "1",
                     ("python3", str(folder / "random_bot.py")), str(folder))
    transport = TestClient(build(made), base_url="http://testserver")._transport
    real = httpx.Client

    def answered_here(*args: Any, **kw: Any) -> httpx.Client:
        return real(*args, **{**kw, "transport": transport})

    monkeypatch.setattr(httpx, "Client", answered_here)
    monkeypatch.setenv("ARENA_SERVER", "http://testserver")
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no client config file of the machine's
    return made


def test_the_field_exports_as_a_tournament_config_arena_run_accepts(server: Server, tmp_path: Path) -> None:
    out = tmp_path / "field.yaml"
    result = CliRunner().invoke(main, ["ladder", "export", "--format", "yaml", "--token", ADMIN, "-o", str(out)])
    assert result.exit_code == 0, result.output
    tournament = load_tournament(out)  # as `arena run` reads it
    assert list(tournament.names) == ["ann", "bob"] and tournament.game == "kododo" and tournament.players == 4
    assert tournament.stop is not None and tournament.schedule.rounds == server.config.final.rounds


def test_a_participant_cannot_export_the_field(server: Server) -> None:
    _who, token = create_participant(server.db, "mallory")
    result = CliRunner().invoke(main, ["ladder", "export", "--format", "yaml", "--token", token])
    assert result.exit_code != 0 and "organiser's action" in result.output
    assert "random_bot.py" not in result.output


def test_the_leaderboard_exports_as_csv_and_json_and_a_formula_stays_text(server: Server) -> None:
    table = CliRunner().invoke(main, ["ladder", "export", "--format", "csv"])
    assert table.exit_code == 0, table.output
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert sorted(r["participant"] for r in rows) == ["ann", "bob"]
    assert {r["name"] for r in rows} == {"plain", "'=HYPERLINK(\"http://x\")"}
    status = CliRunner().invoke(main, ["ladder", "status", "--json"])
    assert status.exit_code == 0, status.output
    data = json.loads(status.stdout)
    assert data["server"]["name"] == "cup" and len(data["leaderboard"]) == 2
    as_csv = CliRunner().invoke(main, ["ladder", "status", "--csv"])
    assert as_csv.exit_code == 0 and as_csv.stdout == table.stdout
