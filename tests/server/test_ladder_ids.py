"""Ladder game ids and deals (issue 36, items 3 and 15): every ladder game gets its own opaque id, keyed
with the server's secret, never repeated for a bot process; the games of one duplicate deal share their
`deal` (a field of their own), not their id; the deals come from `secrets`, not the matchmaker's
`random.Random`, and two servers (two secrets) play different ids for the same games.

The ladder's own `_fill` schedules the games onto an executor that only records them; the ids and
seeds are what its workers' players would use (`played_game_id`, `played_seed`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.ladder import Ladder
from arena.tournament.run.messages import GameTask, PlayerSetup
from arena.tournament.run.player import played_game_id, played_seed
from tests.server.inprocess import make_server


class Recorder:
    """An executor that plays nothing: it keeps what the ladder submits."""

    capacity = 40

    def __init__(self) -> None:
        self.tasks: list[GameTask] = []

    def start(self, setup: PlayerSetup) -> None:
        pass

    def submit(self, task: GameTask) -> None:
        self.tasks.append(task)


def _schedule(tmp: Path, monkeypatch: pytest.MonkeyPatch, rounds: int = 5) -> tuple[Ladder, list[GameTask]]:
    server = make_server(tmp, monkeypatch, ladder={"seed": 5})
    (tmp / "bot.py").write_text("")
    for name in ("a", "b", "c", "d"):  # four bots at two seats: a duplicate deal goes to two disjoint tables
        who, _token = create_participant(server.db, name)
        activate_bot(server.db, who.id, None, name, "1", ("python3", str(tmp / "bot.py")), str(tmp))
    ladder = server.ladder
    recorder = Recorder()
    bots = ladder._active()
    ladder.executor, ladder.field = recorder, tuple(int(b["id"]) for b in bots)  # type: ignore[assignment]
    for _ in range(rounds):
        ladder._fill(bots)
        ladder.inflight.clear()  # as if they had finished: room for the next ones
    return ladder, recorder.tasks


def test_each_ladder_game_has_its_own_keyed_id_and_a_duplicate_deal_a_shared_deal(tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ladder, tasks = _schedule(tmp_path, monkeypatch)
    assert len(tasks) >= 40
    ids = [played_game_id(ladder.secret, "kododo", t.game) for t in tasks]
    assert len(set(ids)) == len(ids)  # one per game: no bot process sees an id twice
    by_deal: dict[int, list[GameTask]] = {}
    for t in tasks:
        by_deal.setdefault(t.game.seed, []).append(t)
    assert all(len(pair) == 2 for pair in by_deal.values())  # duplicate: one deal at two tables, tied by it
    for first, second in by_deal.values():
        assert not set(first.game.seats) & set(second.game.seats)  # different bots: none meets the deal twice
        assert played_seed(ladder.secret, first.game.seed) == played_seed(ladder.secret, second.game.seed)
    # Stored: the games of one deal share the field `seed` (the API's `deal`), each with its own row id.
    rows = ladder.db.all("SELECT id, seed FROM games")
    assert len({r["id"] for r in rows}) == len(rows) == len(tasks)


def test_two_servers_key_their_games_differently_and_deals_come_from_secrets(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    one, tasks_one = _schedule(tmp_path / "one", monkeypatch, rounds=1)
    two, tasks_two = _schedule(tmp_path / "two", monkeypatch, rounds=1)
    assert one.secret != two.secret and len(one.secret) >= 32
    ids_one = [played_game_id(one.secret, "kododo", t.game) for t in tasks_one]
    ids_two = [played_game_id(two.secret, "kododo", t.game) for t in tasks_two]
    assert not set(ids_one) & set(ids_two)
    # The same matchmaker draws (a configured ladder seed) give the same tables but never the same deals.
    assert [t.game.seats for t in tasks_one] == [t.game.seats for t in tasks_two]
    assert not {t.game.seed for t in tasks_one} & {t.game.seed for t in tasks_two}


def test_the_control_one_id_per_seat_order_repeats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keyed by the table's place in its deal alone (round 0 for every game, as before), ids repeat across a bot's games."""
    ladder, tasks = _schedule(tmp_path, monkeypatch)
    from dataclasses import replace

    ids = [played_game_id(ladder.secret, "kododo", replace(t.game, round=0)) for t in tasks]
    assert len(set(ids)) == 2 < len(ids)


def test_ladder_bots_get_an_arena_seed_as_check_games_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check game (`arena play`) gives each bot an ARENA_SEED; the ladder gives its bots one too, from
    63 random bits, so neither its presence nor its value says which of the two a bot is in."""
    from arena.ladder.ladder import tournament_config

    ladder, _tasks = _schedule(tmp_path, monkeypatch, rounds=1)
    bots = ladder._active()
    seeds = [e.env.get("ARENA_SEED") for e in tournament_config(ladder.config, bots, False).entrants]
    again = [e.env.get("ARENA_SEED") for e in tournament_config(ladder.config, bots, False).entrants]
    assert all(s is not None and s.isdigit() for s in seeds) and not set(seeds) & set(again)
