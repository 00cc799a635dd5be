"""`arena standings` with intervals (table, --json, --csv), --seats and --collusion, on a real store."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from bench.simfield import Field, tournament

NAMES = ["weak", "mid", "strong\x1b[31m", "feeder", "fed"]


def _store(path: Path) -> Path:
    fld = Field((0.0, 0.5, 2.0, 0.0, 0.0), seats=3, collusion=((3, 4),), feed=1.5)
    games = tournament(fld, 12, 5)
    store = Store.create_or_resume(path, name="t", game="kolpa", fingerprint="f", identity={"x": 1},
                                   entrants=[(n, ["x"]) for n in NAMES], total_games=len(games))
    store.record_many([
        StoredGame(ScheduledGame(g.index, g.round, g.table, g.rotation, g.seats, g.seed),
                   Played(tuple(float(4 - r) for r in g.ranks), ((),) * 3, g.ranks, g.ranks, (), ("1",) * 3, 5, 0.0),
                   f"r{g.round}-t{g.table}-s{g.rotation}", None)
        for g in games
    ])
    store.close()
    return path


def test_table_shows_intervals_seats_and_collusion(tmp_path: Path) -> None:
    db = str(_store(tmp_path / "s.sqlite"))
    result = CliRunner().invoke(main, ["standings", db, "--seats", "--collusion", "--rating-resamples", "20"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "95% intervals by bootstrap over 360 deal blocks" in out  # spread: 5 entrants at 3 seats, a deal a game
    assert "\x1b" not in out  # a bot-chosen name is cleaned before it reaches the terminal
    assert "seat 0: 360 games" in out and "neighbours: each entrant after each other spread" in out
    assert "SUSPICIOUS fed gains with feeder" in out and "10 pair(s) tested" in out


def test_json_and_csv_carry_the_intervals(tmp_path: Path) -> None:
    db = str(_store(tmp_path / "s.sqlite"))
    data = json.loads(CliRunner().invoke(main, ["standings", db, "--json", "--rating-resamples", "20", "--confidence", "0.9"]).output)
    unc = data["uncertainty"]
    assert unc["confidence"] == 0.9 and unc["blocks"] == 360
    strong = unc["entrants"]["strong\x1b[31m"]
    assert strong["avg_rank"][1] <= strong["avg_rank"][0] <= strong["avg_rank"][2]
    assert strong["p_ahead_of_next"] > 0.99 and data["standings"][0]["name"] == "strong\x1b[31m"
    rows = list(csv.DictReader(io.StringIO(CliRunner().invoke(main, ["standings", db, "--csv", "--rating-resamples", "0"]).output)))
    assert len(rows) == 5 and rows[0]["name"].startswith("strong")
    assert float(rows[0]["avg_rank_low"]) <= float(rows[0]["avg_rank_high"]) and rows[0]["mu_low"] == ""
    assert rows[-1]["p_ahead_of_next"] == ""
