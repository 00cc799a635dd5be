"""The report's numbers against a small store computed by hand, and its escaping of hostile text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from arena.web.page import embed_json
from arena.web.report_data import by_seat, head_to_head, rating_history
from arena.web.report_page import build_report
from arena.stats.standings import store_standings

A, B, C = 0, 1, 2
NAMES = ["alpha", "beta", "gam</script><b>ma"]
HOSTILE = Fault(2, FaultKind.ILLEGAL_ACTION, 4, 5, "<script>alert(1)</script>\x1b]0;title\x07 bad",
                ("</pre><img src=x onerror=alert(2)>", "\x1b[31mred\x1b[0m"))  # unbounded: the page must clean it


def game(index: int, seats: tuple[int, ...], ranks: tuple[int, ...], points: tuple[float, ...], faults: tuple = ()) -> StoredGame:
    return StoredGame(
        ScheduledGame(index=index, round=index, table=0, rotation=0, seats=seats, seed=index),
        Played(points=points, tiebreaks=((),) * 3, ranks=ranks, game_ranks=ranks, faults=faults,
               versions=("1",) * 3, decisions=10, duration_s=0.5),
        game_id=f"g{index}", replay_path=None,
    )


GAMES = [
    game(0, (A, B, C), (1, 2, 3), (10, 5, 1)),
    game(1, (B, C, A), (1, 1, 3), (7, 7, 2)),  # beta and gamma share the win
    game(2, (C, A, B), (2, 1, 3), (4, 9, 0), faults=(HOSTILE,)),  # the fault is beta's (seat 2)
]


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "hand.sqlite"
    with Store.create_or_resume(
        path, name="hand", game="kododo", fingerprint="f", identity={}, entrants=[(n, ["x"]) for n in NAMES], total_games=3
    ) as store:
        store.record_many(GAMES)
    return path


def test_head_to_head_by_hand() -> None:
    h = head_to_head(GAMES, 3)
    # game 0: A>B, A>C, B>C; game 1: B>A, C>A, B=C; game 2: A>C, A>B, C>B
    assert h.ahead == [[0, 2, 2], [1, 0, 1], [1, 1, 0]]
    assert h.met == [[0, 3, 3], [3, 0, 3], [3, 3, 0]]


def test_by_seat_by_hand() -> None:
    s = by_seat(GAMES, 3).to_json()
    overall = s["overall"]
    assert [o["games"] for o in overall] == [3, 3, 3]
    assert [o["wins"] for o in overall] == [1.5, 1.5, 0.0]  # seat 0: alpha 1 + beta 1/2; seat 1: gamma 1/2 + alpha 1
    assert [o["avg_rank"] for o in overall] == [pytest.approx(4 / 3), pytest.approx(4 / 3), 3.0]
    assert [o["avg_points"] for o in overall] == [7.0, 7.0, 1.0]  # (10+7+4)/3, (5+7+9)/3, (1+2+0)/3
    alpha = s["per_entrant"][A]
    assert [(x["games"], x["wins"], x["avg_rank"]) for x in alpha] == [(1, 1.0, 1.0), (1, 1.0, 1.0), (1, 0.0, 3.0)]
    gamma = s["per_entrant"][C]
    assert [(x["games"], x["wins"]) for x in gamma] == [(1, 0.0), (1, 0.5), (1, 0.0)]
    assert s["players"] == [3]


def test_rating_history_ends_at_the_standings(store_path: Path) -> None:
    with Store.open_existing(store_path) as store:
        standings = {s.name: s for s in store_standings(store)}
    h = rating_history([g.rated() for g in GAMES], 3)
    assert h.games == [-1, 0, 1, 2]
    for e, name in enumerate(NAMES):
        assert h.mu[e][-1] == pytest.approx(standings[name].mu, abs=1e-4)
        assert h.sigma[e][-1] == pytest.approx(standings[name].sigma, abs=1e-4)
    sampled = rating_history([g.rated() for g in GAMES], 3, points=2)
    assert sampled.games == [-1, 1, 2]  # every second game, and always the last


def test_report_page_numbers_and_escaping(store_path: Path, tmp_path: Path) -> None:
    summary = build_report(store_path, tmp_path / "rep")
    text = summary.index.read_text(encoding="utf-8")
    cells = re.findall(r'data-ahead="(\d+)" data-met="(\d+)"', text)
    assert [(int(a), int(m)) for a, m in cells] == [(2, 3), (2, 3), (1, 3), (1, 3), (1, 3), (1, 3)]
    seat_cells = re.findall(r'<td data-seat="(\d)" data-games="(\d+)" data-wins="([\d.]+)"', text)
    assert seat_cells[:3] == [("0", "3", "1.5"), ("1", "3", "1.5"), ("2", "3", "0.0")]
    # hostile text from a bot: escaped, escape sequences removed, nothing closes our <script>
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<img src=x" not in text and "&lt;/pre&gt;&lt;img src=x" in text
    assert "\x1b" not in text and "\x07" not in text
    assert "gam</script>" not in text
    data = json.loads(re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', text, re.S).group(1))  # type: ignore[union-attr]
    assert data["names"] == NAMES
    assert data["games"]["faults"] == [0, 0, 1]
    assert "beta" in text.split('id="faults"')[1].split("</section>")[0]


def test_embed_json_cannot_close_the_script() -> None:
    value = {"a": "</script><script>alert(1)</script><!--", "b": "\u2028"}
    text = embed_json(value)
    assert "<" not in text and json.loads(text) == value


def test_optional_standing_fields_get_their_own_columns() -> None:
    from dataclasses import dataclass

    from arena.jsonvalue import JSON
    from arena.stats.ratings import Standing
    from arena.web.report_tables import standings_table

    @dataclass(frozen=True)
    class WithInterval(Standing):
        ci_low: float = 0.0
        ci_high: float = 0.0

        def to_json(self) -> dict[str, JSON]:
            return {**super().to_json(), "ci_low": self.ci_low, "ci_high": self.ci_high}

    row = WithInterval(1, "alpha", 10.0, 20.0, 3.3, 5, 2.0, 7.5, 1.8, 0, ci_low=17.25, ci_high=22.75)
    html = standings_table([row])
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    assert headers[-2:] == ["CI low", "CI high"]
    assert '<td data-col="ci_low">17.25</td><td data-col="ci_high">22.75</td>' in html
    plain = standings_table([Standing(1, "alpha", 10.0, 20.0, 3.3, 5, 2.0, 7.5, 1.8, 0)])
    assert "CI low" not in plain


def test_report_standings_hold_the_intervals_arena_standings_prints(store_path: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    printed = CliRunner().invoke(main, ["standings", str(store_path), "--json"])  # the defaults: the report has the same
    assert printed.exit_code == 0, printed.output
    expected = json.loads(printed.output)
    order = [s["name"] for s in expected["standings"]]
    entrants = expected["uncertainty"]["entrants"]
    text = build_report(store_path, tmp_path / "rep").index.read_text(encoding="utf-8")
    table = re.search(r'<table id="standings-table".*?</table>', text, re.S).group(0)  # type: ignore[union-attr]
    assert "avg rank (95% interval)</th><th>P(ahead of next)</th>" in table
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    assert len(rows) == 3
    # three deals at one table: too few for an interval (df = 3 - 1 < 3); both say so, neither prints one
    assert all(entrants[name]["avg_rank"] is None and entrants[name]["p_ahead_of_next"] is None for name in order)
    assert expected["uncertainty"]["note"].startswith("no intervals yet")
    for row in rows:
        assert '<td data-col="avg_rank_interval">-</td><td data-col="p_ahead_of_next">-</td>' in row
    assert "How sure: no intervals yet" in text
    # by hand: the average ranks over the three games (alpha 1, 3, 1; beta 2, 1, 3; gamma 3, 1, 2)
    ests = {s["name"]: s["avg_rank"] for s in expected["standings"]}
    assert ests == {"alpha": pytest.approx(5 / 3), "beta": pytest.approx(2.0), NAMES[2]: pytest.approx(2.0)}


def test_report_neighbours_by_hand(store_path: Path, tmp_path: Path) -> None:
    text = build_report(store_path, tmp_path / "rep").index.read_text(encoding="utf-8")
    table = re.search(r'<table id="neighbour-table".*?</table>', text, re.S).group(0)  # type: ignore[union-attr]
    rows = re.findall(r"<tr><th class=\"name\">.*?</tr>", table.split("<tbody>")[1], re.S)
    cells = [re.findall(r'data-after="(\d)" data-games="(\d+)" data-avg-rank="([\d.]+)"', r) for r in rows]
    # game 0 (A B C; 1 2 3), game 1 (B C A; 1 1 3), game 2 (C A B; 2 1 3): in play order each entrant
    # always sits after the same one: A after C (ranks 1, 3, 1), B after A (2, 1, 3), C after B (3, 1, 2)
    assert [[(int(a), int(g), round(float(v), 4)) for a, g, v in row] for row in cells] == [
        [(C, 3, round(5 / 3, 4))], [(A, 3, 2.0)], [(B, 3, 2.0)]]
    assert "off balance: spread 3 (0 to 3 games)" in text
