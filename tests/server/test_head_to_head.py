"""The bot page's head-to-head table is a tally kept in each game's commit (`head_to_head`), so a bot
with a million games is not counted again on every visit (issue 39; BENCHMARKS.md, ladder-scale). It
must say what a count over the stored seats says, after any games, and a store from before the tally
(an old data folder, a restored backup) gets it counted once when it is opened."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from arena.core.result import Played
from arena.ladder import results
from arena.ladder.db import Database
from arena.ladder.queries import Reads
from arena.stats.ratings import FastRater

BOTS = 6
# The head-to-head as the bot page counted it before the tally: over every stored seat.
RECOUNT = ("SELECT o.bot_id AS other, COUNT(*) AS games, SUM(m.rank < o.rank) AS ahead, SUM(m.rank = o.rank) AS level, "
           "SUM(m.rank > o.rank) AS behind FROM game_seats m JOIN game_seats o ON o.game_id = m.game_id "
           "AND o.seat != m.seat WHERE m.bot_id = ? AND o.bot_id != ? GROUP BY o.bot_id ORDER BY games DESC, other")


def store(tmp: Path) -> Database:
    db = Database(tmp / "ladder.sqlite")
    with db.write() as conn:
        for i in range(1, BOTS + 1):
            conn.execute("INSERT INTO participants(id, name, token_hash, is_house, created) VALUES(?,?,?,0,0)", (i, f"p{i}", f"h{i}"))
            conn.execute("INSERT INTO bots(id, participant_id, name, version, command, folder, status, created, mu, sigma, games) "
                         "VALUES(?,?,?,?,?,?,?,0,25,8.3,0)", (i, i, f"bot{i}", "1", '["true"]', "/nowhere", "active"))
    return db


def play(db: Database, rng: random.Random, games: int) -> None:
    rater = FastRater(results.MODEL)
    for _ in range(games):
        n = rng.choice((2, 3, 4))
        seats = tuple(rng.sample(range(1, BOTS + 1), n))
        ranks = tuple(rng.randint(1, n) for _ in seats)  # ties included
        played = Played(tuple(n - r for r in ranks), tuple(() for _ in seats), ranks, ranks, (),
                        tuple("1" for _ in seats), 10, 0.01)
        game = results.reserve(db, seats, rng.getrandbits(31))
        results.commit(db, results.Finished(game, played, None), 10**6, rater)


def recount(db: Database, bot: int) -> list[dict[str, int]]:
    return [{k: int(r[k]) for k in ("other", "games", "ahead", "level", "behind")} for r in db.all(RECOUNT, bot, bot)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), games=st.integers(0, 40))
def test_the_tally_says_what_a_count_of_the_stored_seats_says(seed: int, games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = store(Path(tmp))
        play(db, random.Random(seed), games)
        read = Reads(db)
        for bot in range(1, BOTS + 1):
            assert read.head_to_head(bot) == recount(db, bot)
        db.close()


def test_a_store_from_before_the_tally_is_counted_once_when_opened(tmp_path: Path) -> None:
    db = store(tmp_path)
    play(db, random.Random(7), 60)
    want = {bot: recount(db, bot) for bot in range(1, BOTS + 1)}
    assert all(want.values())
    db.close()
    with sqlite3.connect(tmp_path / "ladder.sqlite") as old:  # as a data folder from before the tally would be
        old.execute("DROP TABLE head_to_head")
    db = Database(tmp_path / "ladder.sqlite")
    assert {bot: Reads(db).head_to_head(bot) for bot in want} == want
    play(db, random.Random(8), 10)  # and kept from there by each game's commit
    assert all(Reads(db).head_to_head(bot) == recount(db, bot) for bot in want)
    db.close()
    again = Database(tmp_path / "ladder.sqlite")  # opened again: not counted twice
    assert all(Reads(again).head_to_head(bot) == recount(again, bot) for bot in want)
    again.close()
