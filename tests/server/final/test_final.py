"""The final, played by a fake executor (no bot process): its field, schedule, stop rule, resume after an
interruption, qualifying gauntlet, and the refusals that say what to fix."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from arena.errors import ConfigError, ServerError
from arena.ladder.competition.final.final import entrants, final_store, qualifying_store, run_final
from arena.ladder.config import parse
from arena.ladder.db import Database
from arena.ladder.states import BotState
from arena.ladder.accounts import set_bot_status
from arena.results.store import Store

from tests.server.final.support import SAMPLES, FakeExecutor, competition

CLEAR = {"ann": 30.0, "bob": 20.0, "cy": 10.0, "dee": 0.0}  # far apart: the order settles at the first look


def _games(store: Path) -> list[int]:
    conn = sqlite3.connect(store)
    try:
        return [int(r[0]) for r in conn.execute("SELECT idx FROM games")]
    finally:
        conn.close()


def test_the_final_config_is_checked_every_mistake_at_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        parse({"game": "kododo", "players": 4, "final": {"top": 1, "confidence": 1.5, "rounds": 0, "colour": 3}},
              tmp_path / "c.yaml")
    text = str(err.value)
    assert "final" in text and "colour" in text
    good = parse({"game": "kododo", "players": 4, "final": {"top": 6, "rounds": 12, "confidence": 0.9}}, tmp_path / "c.yaml")
    assert (good.final.top, good.final.rounds, good.final.confidence, good.final.min_rounds) == (6, 12, 0.9, 4)


def test_the_final_plays_each_participants_active_bot_and_stops_once_settled(tmp_path: Path) -> None:
    config = competition(tmp_path, list(CLEAR), rounds=12)
    outcome = run_final(config, False, executor=lambda: FakeExecutor(CLEAR))
    summary = outcome.final
    assert summary is not None and not summary.interrupted
    assert outcome.finalists == ["ann", "bob", "cy", "dee"]
    # 10 looks share 5%: a pair is ordered once 2^(1 - r) <= 0.005, at round 9 (the rule's floor, bench_stoprule)
    assert summary.stop is not None and summary.stop.after_round == 8
    assert summary.total == 12 * 4 and summary.stored == 9 * 4  # 1 table x 4 seatings a round; 3 rounds not played
    assert [s.name for s in summary.standings] == ["ann", "bob", "cy", "dee"]


def test_an_even_field_plays_to_the_maximum_and_records_no_stop(tmp_path: Path) -> None:
    config = competition(tmp_path, list(CLEAR))
    outcome = run_final(config, False, executor=lambda: FakeExecutor({n: 0.0 for n in CLEAR}, noise=5.0))
    assert outcome.final is not None and outcome.final.stop is None and outcome.final.stored == 8 * 4


def test_a_stopped_final_resumes_with_no_game_lost_or_stored_twice(tmp_path: Path) -> None:
    config = competition(tmp_path, list(CLEAR), min_rounds=7)
    stopping = threading.Event()
    first = run_final(config, False, executor=lambda: FakeExecutor(CLEAR, stop_after=9, stopping=stopping), stopping=stopping)
    assert first.final is not None and first.interrupted and 9 <= first.final.stored < 32
    held = sorted(_games(final_store(config)))
    again = run_final(config, False, executor=lambda: FakeExecutor(CLEAR))
    assert again.final is not None and not again.interrupted
    assert again.final.stored_before == len(held) and again.final.played == again.final.stored - len(held)
    games = _games(final_store(config))
    assert len(games) == len(set(games)) == again.final.stored and set(held) <= set(games)
    control = competition(tmp_path / "control", list(CLEAR), min_rounds=7)
    straight = run_final(control, False, executor=lambda: FakeExecutor(CLEAR)).final
    assert straight is not None and straight.stored == again.final.stored
    assert [s.name for s in straight.standings] == [s.name for s in again.final.standings]


def test_the_chosen_version_plays_not_a_retired_one(tmp_path: Path) -> None:
    config = competition(tmp_path, ["ann", "bob", "cy", "dee"])
    db = Database(config.database)
    try:
        bob = db.all("SELECT id FROM bots WHERE name = 'bob-bot'")[0]["id"]
        set_bot_status(db, bob, BotState.DISABLED, "test")
        assert [e.participant for e in entrants(db)] == ["ann", "cy", "dee"]
    finally:
        db.close()


def test_more_entrants_than_top_play_a_qualifying_gauntlet_first(tmp_path: Path) -> None:
    field = {"ann": 40.0, "bob": 30.0, "cy": 20.0, "dee": 10.0, "eve": 0.0, "fay": -10.0}
    config = competition(tmp_path, list(field), top=4)
    with pytest.raises(ServerError, match="house_bots"):
        run_final(config, False, executor=lambda: FakeExecutor(field))
    house = parse({**dict(config.raw), "house_bots": [{"name": "rnd", "command": ["python3", str(SAMPLES / "python" / "random_bot.py")]}]},
                  config.path)
    outcome = run_final(house, False, executor=lambda: FakeExecutor(field))
    assert outcome.qualifying is not None and qualifying_store(house).is_file()
    assert sorted(outcome.finalists) == ["ann", "bob", "cy", "dee"]
    with Store.open_existing(final_store(house)) as store:
        assert store.entrant_names() == ["ann", "bob", "cy", "dee"]


def test_a_final_needs_two_participants(tmp_path: Path) -> None:
    config = competition(tmp_path, ["ann"])
    with pytest.raises(ServerError, match="at least 2 participants"):
        run_final(config, False, executor=lambda: FakeExecutor({}))
    assert not final_store(config).exists()


def test_no_entrant_meets_a_deal_twice_and_deals_are_shared_across_the_field(tmp_path: Path) -> None:
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]  # 8 entrants, 4 seats: 70 tables a round
    config = competition(tmp_path, names, rounds=1, min_rounds=2)
    run_final(config, False, executor=lambda: FakeExecutor({n: 0.0 for n in names}))
    with Store.open_existing(final_store(config)) as store:
        games = list(store.counted_games())
    assert len(games) == 70 * 4
    met: dict[int, list[int]] = {}
    for g in games:
        for entrant in g.seats:
            met.setdefault(entrant, []).append(g.seed)
    assert all(len(seeds) == len(set(seeds)) for seeds in met.values())  # nobody meets a deal twice
    tables_per_deal = [len({g.table for g in games if g.seed == seed}) for seed in {g.seed for g in games}]
    assert max(tables_per_deal) == 2  # a deal goes to 2 entrant-disjoint tables (8 entrants / 4 seats)
