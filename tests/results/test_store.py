"""The store: one row per schedule index, resumable, refusing another config, ratings cached correctly."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from arena.core.faults import Fault, FaultKind
from arena.errors import StoreError
from arena.stats.ratings import RatingBook, RatingModel, leaderboard
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from arena.stats.standings import store_ratings, store_standings

ENTRANTS = [("a", ["x"]), ("b", ["y"]), ("c", ["z"]), ("d", ["w"])]


def _open(path: Path, fingerprint: str = "f1", fresh: bool = False, identity: dict | None = None) -> Store:
    return Store.create_or_resume(
        path,
        name="t",
        game="kododo",
        fingerprint=fingerprint,
        identity=identity or {"players": 4, "seed": 1},
        entrants=ENTRANTS,
        total_games=1000,
        fresh=fresh,
    )


def _game(index: int, rnd: random.Random) -> StoredGame:
    seats = list(range(4))
    rnd.shuffle(seats)
    points = [rnd.randint(0, 5) + e for e in seats]
    ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
    return StoredGame(
        ScheduledGame(index=index, round=0, table=0, rotation=index, seats=tuple(seats), seed=2**62 + index),
        Played(points=tuple(points), tiebreaks=((),) * 4, ranks=ranks, game_ranks=ranks,
               faults=(Fault(0, FaultKind.TIMEOUT, 1, 3, "late"),), versions=("1", "1", "2", "1"), decisions=12,
               duration_s=0.01),
        game_id=f"r0-t0-s{index}",
        replay_path=None,
    )


def test_a_game_is_stored_once_and_read_back(tmp_path: Path) -> None:
    rnd = random.Random(1)
    with _open(tmp_path / "s.sqlite") as store:
        g = _game(0, rnd)
        store.record(g)
        with pytest.raises(StoreError, match="never stored twice"):
            store.record(g)
        assert list(store.games()) == [g]
        assert store.done_indices() == {0}
        assert store.info().stored_games == 1 and store.info().entrants == ("a", "b", "c", "d")


def test_reopening_with_another_config_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _open(path).close()
    with pytest.raises(StoreError, match=r"differs in: seed.*--fresh"):
        _open(path, "f2", identity={"players": 4, "seed": 2})
    with _open(path, "f2", fresh=True, identity={"players": 4, "seed": 2}) as store:
        assert store.info().fingerprint == "f2"


def test_standings_use_the_cache_and_equal_a_full_recomputation(tmp_path: Path) -> None:
    rnd = random.Random(2)
    games = [_game(i, rnd) for i in range(300)]
    order = list(range(300))
    random.Random(3).shuffle(order)
    path = tmp_path / "s.sqlite"
    with _open(path) as store:
        for step, i in enumerate(order):
            store.record(games[i])
            if step % 37 == 0:  # standings asked mid-run, with gaps in the stored indices
                book = RatingBook.new(RatingModel(), 4)
                book.apply_all(g.rated() for g in sorted((games[j] for j in order[: step + 1]), key=lambda g: g.index))
                assert store_ratings(store).current().to_json() == book.to_json()
        cached = store_ratings(store)
        assert cached.prefix.last_index == 299 and not cached.pending
        full = store_ratings(store, use_cache=False).current()
        assert cached.current().to_json() == full.to_json()
        assert store_standings(store) == leaderboard(full, ["a", "b", "c", "d"])
    # The cache row holds the gap-free prefix.
    row = sqlite3.connect(path).execute("SELECT prefix FROM ratings_cache").fetchone()
    assert row == (300,)


def test_a_cache_from_other_rating_constants_is_not_used(tmp_path: Path) -> None:
    rnd = random.Random(4)
    with _open(tmp_path / "s.sqlite") as store:
        for i in range(10):
            store.record(_game(i, rnd))
        store_ratings(store)
        other = RatingModel(beta=3.0)
        book = RatingBook.new(other, 4)
        book.apply_all(g.rated() for g in store.games())
        assert store_ratings(store, other).current().to_json() == book.to_json()


def test_standings_of_a_missing_or_foreign_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no results store"):
        Store.open_existing(tmp_path / "none.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.commit()
    with pytest.raises(StoreError, match="not an arena results store"):
        Store.open_existing(other)


def test_a_store_that_cannot_be_created_or_used_is_refused_with_what_to_do(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot create the results store"):
        _open(blocker / "results.sqlite")
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE meta (x INTEGER)")  # another program's database
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="cannot use .* as the results store"):
        _open(foreign)


def test_standings_command_prints_table_json_and_csv(tmp_path: Path) -> None:
    import csv
    import io

    from click.testing import CliRunner

    from arena.cli import main
    from arena.jsonvalue import loads

    rnd = random.Random(9)
    path = tmp_path / "s.sqlite"
    with _open(path) as store:
        store.record_many([_game(i, rnd) for i in range(40)])
        expected = store_standings(store)
    runner = CliRunner()
    table = runner.invoke(main, ["standings", str(path)])
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0] == "t (kododo): 40/1000 games"
    assert lines[1].split()[:3] == ["#", "entrant", "mu-3sigma"]
    block = lines[3 : lines.index("")]  # the standings; the intervals follow after a blank line
    assert [line.split()[1] for line in block] == [s.name for s in expected]
    as_json = loads(runner.invoke(main, ["standings", "--json", str(path)]).stdout)
    assert as_json["games"] == 40 and [s["name"] for s in as_json["standings"]] == [s.name for s in expected]
    assert as_json["standings"][0]["score"] == pytest.approx(expected[0].score)
    rows = list(csv.DictReader(io.StringIO(runner.invoke(main, ["standings", "--csv", str(path)]).stdout)))
    assert [r["name"] for r in rows] == [s.name for s in expected] and float(rows[0]["wins"]) == expected[0].wins
    missing = runner.invoke(main, ["standings", str(tmp_path / "nope.sqlite")])
    assert missing.exit_code == 2 and "no results store" in missing.output
