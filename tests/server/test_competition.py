"""Quotas, budgets, version choice and challenges (issue 37, items 5-7), in the fast tier: fake clocks,
a server built in the test's process (never started), its routes through Starlette's TestClient."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.errors import DiskBudgetExceeded, QuotaExceeded
from arena.jsonvalue import dumps
from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.competition.pace import Pace
from arena.ladder.competition.quota import DAY_S
from arena.ladder.budget_config import Budget
from arena.ladder.db import now
from arena.ladder.results import Finished, public_path
from arena.ladder.service import Server
from arena.ladder.states import BotState, GameState
from arena.match.sequential import SprtSpec, run_test
from arena.replay.reader import read_replay_bytes, replay_exists
from tests.server.inprocess import ADMIN, ORIGIN, client, make_server


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


# --- 5. quotas and budgets ----------------------------------------------------------------------------

def test_uploads_a_day_refused_with_when_the_next_is_allowed_and_the_control_accepted(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, quotas={"uploads_per_day": 2}, submissions_per_minute=100)
    _who, token = server.add_participant("alice")
    clock = Clock(now())
    server.competition.clock = clock
    web = client(server, token)
    for _ in range(2):  # the control: the quota's uploads are taken (these are refused by the unpacker, not the quota)
        r = web.post("/api/v1/submissions", content=b"not an archive")
        assert r.status_code == 422, r.text
    r = web.post("/api/v1/submissions", content=b"not an archive")
    assert r.status_code == 429, r.text
    assert "2 uploads a day" in r.json()["error"] and "next is allowed at" in r.json()["error"]
    assert int(r.headers["Retry-After"]) > 3600 * 23
    rows = len(server.read.submissions_of(1, 100))
    assert rows == 2  # nothing stored for the refusal
    clock.t = now() + DAY_S + 1  # a day after the last upload: allowed again
    assert web.post("/api/v1/submissions", content=b"not an archive").status_code == 422


def test_the_game_rate_budget_holds_an_hours_games_to_its_rate_and_no_budget_is_the_control() -> None:
    clock = Clock()
    pace = Pace(Budget(games_per_hour=120), burst=2, clock=clock)
    started = 0
    for _ in range(7200):  # two hours, a look every second, a deal of 2 games whenever allowed
        if pace.may_start():
            pace.started_games(2)
            started += 2
        clock.t += 1.0
    assert 240 - 2 <= started <= 240 + 2
    free = Pace(Budget(), clock=clock)
    assert all(free.may_start() for _ in range(100))  # the control: no budget, no wait


def test_idle_when_settled_slows_once_the_top_order_stops_changing_and_a_change_restores_the_rate() -> None:
    clock = Clock()
    pace = Pace(Budget(games_per_hour=0, settled_after=5, settled_top=2, settled_games_per_hour=10), clock=clock)
    for _ in range(5):
        pace.ladder_game([1, 2, 3])
        assert pace.rate() == 0  # the first game sets the order; four unchanged are not yet five
    pace.ladder_game([1, 2, 4])  # third place moved: the top 2 did not
    assert pace.settled and pace.rate() == 10
    pace.started_games(2)
    assert not pace.may_start() and 0 < pace.wait_s() <= 360 + 1
    pace.ladder_game([2, 1, 4])  # the top order changed: back to full speed
    assert not pace.settled and pace.rate() == 0 and pace.may_start()


def test_challenges_take_at_most_their_share_while_the_ladder_wants_every_game() -> None:
    pace = Pace(Budget(challenge_share=0.1), clock=Clock())
    challenge = ladder = 0
    for _ in range(300):
        if pace.challenge_turn():
            pace.started_games(2, challenge=True)
            challenge += 2
        else:
            pace.started_games(2)
            ladder += 2
    assert 0.08 <= challenge / (challenge + ladder) <= 0.11


def test_the_disk_budget_refuses_uploads_with_507_and_says_so_on_the_admin_page(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"disk_budget_mb": 2})
    _who, token = server.add_participant("alice")
    web = client(server, token)
    assert web.post("/api/v1/submissions", content=b"junk").status_code == 422  # the control: under the budget
    filler = server.config.data / "filler.bin"
    filler.write_bytes(b"\0" * (2 * 1024 * 1024))
    server.competition.meter.refresh(force=True)
    stored = {p: p.read_bytes() for p in server.config.data.rglob("*") if p.is_file() and p.suffix != ".bin"}
    r = web.post("/api/v1/submissions", content=b"junk")
    assert r.status_code == 507 and "disk budget" in r.json()["error"], r.text
    assert server.competition.next_games([1, 2]) is None  # no new game either
    admin = client(server, ADMIN)
    page = admin.get("/admin").text
    assert "OVER: uploads and new games refused" in page
    for path, data in stored.items():
        if path.suffix not in (".sqlite", ".sqlite-wal", ".sqlite-shm"):
            assert path.read_bytes() == data  # nothing already stored touched
    with pytest.raises(DiskBudgetExceeded):
        server.competition.check_upload(1, 10)


def _game(server: Server, seats: list[int], finished: float, replay: Path | None, status: GameState = GameState.DONE) -> int:
    with server.db.write() as conn:
        cur = conn.execute("INSERT INTO games(status, seats, seed, created, finished, result, replay) VALUES(?, ?, ?, ?, ?, ?, ?)",
                           (status, dumps(seats).decode(), 1, finished, finished, "{}", None if replay is None else str(replay)))
        return int(cur.lastrowid or 0)


def test_retention_compresses_keeps_recent_games_and_a_sample_of_old_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"keep_days": 1, "keep_sample": 0.25})
    clock = Clock(now())
    server.competition.upkeep.clock = clock
    ids = []
    for i in range(8):
        replay = server.config.replays / f"{i + 1:06d}-game.jsonl"
        replay.write_bytes(b'{"type": "header"}\n' * 50)
        public_path(replay).write_bytes(b'{"type": "header"}\n' * 40)
        ids.append(_game(server, [1, 2], clock.t - (3 * DAY_S if i < 6 else 60), replay))
    done = server.competition.upkeep.sweep()
    assert done["compressed"] == 8
    kept = {g: server.db.one("SELECT replay FROM games WHERE id = ?", g)["replay"] for g in ids}
    for g in ids[:6]:
        assert (kept[g] is not None) == (g % 4 == 0), g  # old: the sample alone
    for g in ids[6:]:
        path = Path(kept[g])
        assert not path.exists() and path.with_name(path.name + ".gz").is_file()  # recent: kept, compressed at rest
        assert read_replay_bytes(path) == b'{"type": "header"}\n' * 50 and replay_exists(path)
        assert gzip.decompress(path.with_name(path.name + ".gz").read_bytes()) == read_replay_bytes(path)
    gone = next(g for g in ids[:6] if g % 4)
    assert not list(server.config.replays.glob(f"{gone:06d}-*"))
    r = client(server).get(f"/api/v1/games/{gone}/replay")
    assert r.status_code == 404 and "no replay" in r.json()["error"]
    server_plain = make_server(tmp_path / "control", monkeypatch)  # the control: no retention keeps every replay
    server_plain.competition.upkeep.clock = clock
    old = server_plain.config.replays / "000001-game.jsonl"
    old.write_bytes(b"x\n")
    _game(server_plain, [1, 2], clock.t - 30 * DAY_S, old)
    assert server_plain.competition.upkeep.sweep()["removed"] == 0


def test_a_refused_submissions_report_is_emptied_after_its_days(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"refused_keep_days": 2})
    _who, token = server.add_participant("alice")
    client(server, token).post("/api/v1/submissions", content=b"junk")
    with server.db.write() as conn:
        conn.execute("UPDATE submissions SET report = 'stderr of the bot'")
    clock = Clock(now() + DAY_S)
    server.competition.upkeep.clock = clock
    assert server.competition.upkeep.empty_reports() == 0  # a day: kept
    clock.t += 2 * DAY_S
    assert server.competition.upkeep.empty_reports() == 1
    assert "removed" in server.read.submissions_of(1, 1)[0].report


# --- 6. the version that plays ------------------------------------------------------------------------

def _versions(server: Server, name: str, n: int) -> tuple[int, str, list[int]]:
    who, token = server.add_participant(name)
    bots = [activate_bot(server.db, who.id, None, "bot", f"v{i + 1}", ("python3", "bot.py"), str(server.config.data))
            for i in range(n)]
    return who.id, token, bots


def test_a_participant_rolls_back_to_an_older_version_and_only_that_one_plays(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _alice, token, (v1, v2) = _versions(server, "alice", 2)
    _bob, bob_token, (b1,) = _versions(server, "bob", 1)
    assert [int(b["id"]) for b in server.ladder._active()] == [v2, b1]  # the newest plays by default
    web = client(server, token)
    r = web.post(f"/api/v1/bots/{v1}/use")
    assert r.status_code == 200 and "now plays" in r.json()["message"], r.text
    assert [int(b["id"]) for b in server.ladder._active()] == [v1, b1]
    assert server.read.bot(v2).status is BotState.RETIRED  # type: ignore[union-attr]
    assert client(server, bob_token).post(f"/api/v1/bots/{v1}/use").status_code == 404  # not bob's
    server.disable_bot(v2, "disabled by the organiser")
    r = web.post(f"/api/v1/bots/{v2}/use")
    assert r.status_code == 409 and "only the organiser" in r.json()["error"]
    versions = web.get("/versions").text
    assert "plays now" in versions and f'action="/versions/{v1}/use"' not in versions


def test_the_version_that_plays_is_chosen_until_the_freeze(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _alice, token, (v1, v2) = _versions(server, "alice", 2)
    web = client(server, token)
    assert web.post(f"/api/v1/bots/{v1}/use").status_code == 200  # the control: open, the choice is taken
    server.set_phase("frozen", "organiser")
    r = web.post(f"/api/v1/bots/{v2}/use")
    assert r.status_code >= 400 and "frozen" in r.json()["error"], r.text
    assert server.read.bot(v1).status is BotState.ACTIVE  # type: ignore[union-attr]  # nothing changed


def test_the_versions_page_form_needs_its_csrf_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    server = make_server(tmp_path, monkeypatch)
    _alice, token, (v1, v2) = _versions(server, "alice", 2)
    web = client(server, token)
    del web.headers["Authorization"]  # the page's session only
    r = web.post(f"/versions/{v1}/use", data={"csrf": "forged"}, headers={"Origin": ORIGIN})
    assert r.status_code == 403 and server.read.bot(v2).status is BotState.ACTIVE  # type: ignore[union-attr]
    csrf = re.search(r'name="csrf" value="(\w+)"', web.get("/versions").text)
    assert csrf
    r = web.post(f"/versions/{v1}/use", data={"csrf": csrf.group(1)}, headers={"Origin": ORIGIN})
    assert r.status_code == 200 and server.read.bot(v1).status is BotState.ACTIVE  # type: ignore[union-attr]


# --- 7. challenges ------------------------------------------------------------------------------------

def _played(ranks: tuple[int, ...]) -> Played:
    return Played(points=tuple(2 - r for r in ranks), tiebreaks=((),) * len(ranks), ranks=ranks, game_ranks=ranks,
                  faults=(), versions=("1",) * len(ranks), decisions=10, duration_s=0.1)


def _play_out(server: Server, winner: int, deals: int) -> list[list[int]]:
    """Play `deals` deals of the open challenges through the ladder's hook; `winner` wins every game."""
    seats_seen = []
    for _ in range(deals):
        games = server.competition.challenges.reserve_next([1, 2, 3, 4, 5])
        if not games:
            break
        assert len(games) == 2 and games[0][2] == games[1][2]  # one deal, its seed shared
        for game_id, seats, _seed in games:
            seats_seen.append(list(seats))
            ranks = tuple(1 if b == winner else 2 for b in seats)
            replay = server.config.replays / f"{game_id:06d}-c.jsonl"
            replay.write_bytes(b'{"type": "log", "seat": 0, "line": "secret of seat 0"}\n')
            public_path(replay).write_bytes(b'{"type": "header"}\n')
            assert server.competition.commit(Finished(game_id, _played(ranks), str(replay)))
    return seats_seen


def test_a_challenge_plays_paired_deals_unranked_until_arena_matchs_test_decides(tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, quotas={"challenge_games": 40})
    alice, token, (a1,) = _versions(server, "alice", 1)
    _bob, _t, (b1,) = _versions(server, "bob", 1)
    before = server.read.bot(a1)
    r = client(server, token).post("/api/v1/challenges", json={"opponent": "bob"})
    assert r.status_code == 201, r.text
    cid = r.json()["challenge"]
    seats = _play_out(server, b1, 20)
    assert seats[0] == [a1, b1] and seats[1] == [b1, a1]  # seats swapped within a deal
    body = client(server, token).get(f"/api/v1/challenges/{cid}").json()
    assert body["verdict"] == "not-better" and body["status"] == "done"
    ch = server.competition.challenges.get(cid)
    assert ch is not None
    tally, verdict, deals = run_test(server.competition.challenges.games(ch), 2, SprtSpec.parse(None, 2), 20)
    assert verdict is not None and verdict.value == body["verdict"] and deals == body["deals"] < 20  # the same test
    assert len(seats) == 2 * deals  # no game after the verdict
    after = server.read.bot(a1)
    assert after is not None and before is not None and (after.mu, after.games) == (before.mu, before.games)  # unranked
    assert server.read.finished_games(None, 2**62, 100) == []  # in no ladder list
    assert server.read.game_counts()[GameState.DONE] == 0
    assert alice == ch.participant


def test_challenges_over_the_days_quota_are_refused_and_the_first_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, quotas={"challenges_per_day": 1})
    _alice, token, _ = _versions(server, "alice", 1)
    _bob, _t, (b1,) = _versions(server, "bob", 1)
    web = client(server, token)
    assert web.post("/api/v1/challenges", json={"opponent": b1}).status_code == 201  # the control
    r = web.post("/api/v1/challenges", json={"opponent": b1})
    assert r.status_code == 429 and "1 challenges a day" in r.json()["error"] and "Retry-After" in r.headers
    assert len(server.competition.challenges.of(1)) == 1  # nothing changed
    for bad, status in (({"opponent": 999}, 409), ({"opponent": "nobody"}, 404), ({"x": 1}, 400)):
        server.competition.clock = Clock(now() + 2 * DAY_S)  # quota free again: these fail on their own
        assert web.post("/api/v1/challenges", json=bad).status_code == status, bad


def test_a_challenge_once_the_ladder_stopped_for_the_final_is_refused_and_one_while_frozen_accepted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _alice, token, _ = _versions(server, "alice", 1)
    _bob, _t, (b1,) = _versions(server, "bob", 1)
    web = client(server, token)
    server.set_phase("frozen", "organiser")
    assert web.post("/api/v1/challenges", json={"opponent": b1}).status_code == 201  # the control: the ladder still plays
    server.set_phase("final", "organiser")
    r = web.post("/api/v1/challenges", json={"opponent": b1})
    assert r.status_code == 409 and "the ladder has stopped for the final" in r.json()["error"], r.text
    assert len(server.competition.challenges.of(1)) == 1  # nothing asked


def test_a_challenger_sees_only_what_a_ladder_participant_sees_of_its_games(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    _alice, token, _ = _versions(server, "alice", 1)
    _bob, bob_token, (b1,) = _versions(server, "bob", 1)
    _carol, carol_token, _ = _versions(server, "carol", 1)
    cid = client(server, token).post("/api/v1/challenges", json={"opponent": b1}).json()["challenge"]
    _play_out(server, b1, 1)
    for game in server.competition.challenges.games(server.competition.challenges.get(cid)):  # type: ignore[arg-type]
        bob_fault = Fault(game.bots.index(b1), FaultKind.ILLEGAL_ACTION, 3, 7, "bob's hand: 3 7 9", ("bob's stderr",))
        with server.db.write() as conn:
            conn.execute("UPDATE games SET faults = ? WHERE id = ?", (dumps([bob_fault.to_json()]).decode(), game.game_id))
    seen = client(server, token).get(f"/api/v1/challenges/{cid}").text
    assert "bob's hand" not in seen and "bob's stderr" not in seen
    replay = client(server, token).get(f"/api/v1/challenges/{cid}/games/{game.game_id}/replay")
    assert replay.status_code == 200 and b"secret of seat 0" not in replay.content  # the public record
    organiser = client(server, ADMIN)  # the control: the organiser sees what the rule hides from the challenger
    assert "bob's hand" in organiser.get(f"/api/v1/challenges/{cid}").text
    assert b"secret of seat 0" in organiser.get(f"/api/v1/challenges/{cid}/games/{game.game_id}/replay").content
    for other in (carol_token, bob_token, None):  # not the challenger's: no such challenge
        assert client(server, other).get(f"/api/v1/challenges/{cid}").status_code in (404, 401)
    assert client(server).get(f"/games/{game.game_id}").status_code == 404  # not a ladder game's page
    page = client(server, token).get(f"/challenges/{cid}").text
    assert "no verdict yet" in page and "bob's hand" not in page


def test_challenge_games_wait_for_their_turn_behind_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"games_per_hour": 60, "challenge_share": 0.5})
    clock = Clock()
    server.competition.pace.clock = clock
    server.competition.pace.at = clock.t
    _alice, token, _ = _versions(server, "alice", 1)
    _bob, _t, (b1,) = _versions(server, "bob", 1)
    assert server.competition.next_games([1, 2]) == []  # nothing asked: a ladder deal
    server.competition.ladder_started(2)
    client(server, token).post("/api/v1/challenges", json={"opponent": b1})
    assert server.competition.next_games([1, 2]) is None  # the budget's tokens are spent: nothing now
    clock.t += 120
    games = server.competition.next_games([1, 2])
    assert games and len(games) == 2  # the challenge's turn (under its share)
    assert server.competition.next_games([1, 2]) is None
    clock.t += 120
    assert server.competition.next_games([1, 2]) == []  # the ladder's turn again




def test_bad_quota_and_budget_keys_are_refused_naming_each(tmp_path: Path) -> None:
    from arena.errors import ConfigError
    from arena.ladder.config import parse

    base = {"name": "x", "game": "kododo", "players": 2, "data": str(tmp_path / "data")}
    with pytest.raises(ConfigError) as caught:
        parse({**base, "quotas": {"uploads_per_day": 0, "nope": 1}, "budget": {"keep_sample": "all"}},
              tmp_path / "ladder.yaml")
    said = str(caught.value)
    for key in ("quotas.uploads_per_day", "quotas.nope", "budget.keep_sample"):
        assert key in said, said
    with pytest.raises(ConfigError, match="challenge_games must be an even number"):
        parse({**base, "quotas": {"challenge_games": 3}}, tmp_path / "ladder.yaml")
    with pytest.raises(ConfigError, match="challenge_share must be in"):
        parse({**base, "budget": {"challenge_share": 0}}, tmp_path / "ladder.yaml")
    assert parse({**base, "quotas": {"uploads_per_day": 3}}, tmp_path / "ladder.yaml").quotas.uploads_per_day == 3  # the control


def test_disk_a_day_from_the_budget_and_the_replays_this_store_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"games_per_hour": 100, "keep_days": 2, "keep_sample": 0.1})
    said = server.competition.disk_a_day()
    assert said.startswith("2400 games a day (budget.games_per_hour) x 14.5 KB a game (the shipped ladder's reference size, compressed)"), said
    assert "retention keeps 2 days in full" in said
    for i in range(4):
        replay = server.config.replays / f"{i + 1:06d}-game.jsonl"
        replay.write_bytes(b"x" * 2048)
        _game(server, [1, 2], now(), replay)
    said = server.competition.disk_a_day()
    assert "x 2.0 KB a game (measured here, compressed) = 4.7 MB a day" in said, said
    unlimited = make_server(tmp_path / "free", monkeypatch).competition.disk_a_day()
    assert "as many as the workers play" in unlimited  # no budget, no games yet: said so, not guessed


def test_retention_keeps_each_bots_last_games_past_keep_days(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch, budget={"keep_days": 1, "keep_sample": 0, "keep_per_bot": 1})
    clock = Clock(now())
    server.competition.upkeep.clock = clock
    games = []
    for i, seats in enumerate(([1, 2], [1, 2], [3, 1])):  # bot 2's last game is the 2nd, bot 1's and 3's the 3rd
        replay = server.config.replays / f"{i + 1:06d}-game.jsonl"
        replay.write_bytes(b"x\n")
        game = _game(server, seats, clock.t - 5 * DAY_S, replay)
        with server.db.write() as conn:
            for seat, bot in enumerate(seats):
                conn.execute("INSERT INTO game_seats(game_id, seat, bot_id, rank, points, faults, mu, sigma) "
                             "VALUES(?, ?, ?, 1, 0, 0, 25, 8)", (game, seat, bot))
        games.append(game)
    assert server.competition.upkeep.sweep()["removed"] == 1
    kept = [server.db.one("SELECT replay FROM games WHERE id = ?", g)["replay"] is not None for g in games]
    assert kept == [False, True, True]
