"""The live leaderboard stays fast on a ladder of a million games (issue 39; BENCHMARKS.md, ladder-scale):
every query the leaderboard and the server's facts (`arena ladder status`) make is answered by an index,
none scans the games or their seats. The statements are the ones the code runs (traced), each planned
by SQLite on a store whose statistics say it holds many games."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.ladder import access
from arena.server.api import bot_details, leaderboard_rows
from bench.bench_ladder_scale import fill
from tests.server.inprocess import make_server
from tests.server.test_head_to_head import RECOUNT


def test_the_leaderboard_and_the_facts_scan_no_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    fill(server.config.database, 3000)  # ANALYZEd: the planner knows games and seats are many
    statements: list[str] = []
    server.db.reader().set_trace_callback(statements.append)
    board = leaderboard_rows(server.read)["leaderboard"]
    counts = server.read.game_counts()
    assert len(board) == 30 and sum(counts.values()) == 3000
    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert any("game_seats" in q for q in queries) and any("FROM games" in q for q in queries)
    plans = {q: [row[3] for row in sqlite3.connect(server.config.database).execute("EXPLAIN QUERY PLAN " + q)] for q in queries}
    scans = {q: p for q, p in plans.items() if any(step.startswith(("SCAN games", "SCAN game_seats", "SCAN s", "SCAN g ", "SCAN t"))
                                                   for step in p)}
    assert not scans, scans
    # Control: the same check sees a scan where there is one (a count of every game by its result).
    control = [row[3] for row in sqlite3.connect(server.config.database).execute(
        "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM games WHERE result LIKE '%ranks%'")]
    assert any(step.startswith("SCAN games") for step in control), control


def test_a_bots_page_counts_none_of_its_games_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot page's queries (its details, recent games, rating history, head to head) each reach only
    a bounded number of rows: none scans the games, and none groups over all of the bot's seats."""
    server = make_server(tmp_path, monkeypatch)
    fill(server.config.database, 3000)
    statements: list[str] = []
    server.db.reader().set_trace_callback(statements.append)
    details = bot_details(server.read, 7, 15, access.ANONYMOUS)
    h2h = server.read.head_to_head(7)
    assert details["recent_games"] and len(h2h) == 29 and sum(r["games"] for r in h2h) > 100
    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    plans = {q: [row[3] for row in sqlite3.connect(server.config.database).execute("EXPLAIN QUERY PLAN " + q)] for q in queries}
    heavy = {q: p for q, p in plans.items()
             if any(step.startswith(("SCAN games", "SCAN game_seats", "SCAN s", "SCAN g ", "SCAN t", "SCAN m", "SCAN o"))
                    or "TEMP B-TREE FOR GROUP BY" in step for step in p)}
    assert not heavy, heavy
    # Control: the head to head as it was counted before the tally groups over every seat of the bot.
    control = [row[3] for row in sqlite3.connect(server.config.database).execute("EXPLAIN QUERY PLAN " + RECOUNT, (7, 7))]
    assert any("GROUP BY" in step for step in control), control
