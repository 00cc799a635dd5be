"""Playing the ladder's bots in person (issue 41, item 2), on the fast tier: the quota, the refusals, the
bot page's form, and who reaches a game's seat through the server's routes. The game itself is not played
here (`HumanGames._play` is replaced); tests/server/test_human_games_process.py plays one for real."""

from __future__ import annotations

import json
import time
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.errors import ConfigError, PlayRefused
from arena.ladder.accounts import activate_bot
from arena.ladder.competition import human_games
from arena.ladder.competition.human_games import HumanGames, day_start
from arena.ladder.config import parse
from arena.ladder.service import Server
from tests.server.inprocess import ORIGIN, client, make_server

DAY = 86_400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0  # a fixed moment: the quota's day starts at UTC midnight

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def no_play(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Games are recorded and 'started' but nothing is played: their threads end at once."""
    started: list[int] = []
    monkeypatch.setattr(HumanGames, "_play", lambda self, game_id, seat, bots: started.append(game_id))
    return started


def _people(server: Server) -> tuple[str, str, int, int]:
    """Two participants (alice, bob), each with an active bot: (alice's token, bob's, alice's bot, bob's bot)."""
    alice, alice_token = server.add_participant("alice")
    bob, bob_token = server.add_participant("bob")
    cmd = ("python3", "sample_bots/python/random_bot.py")
    a = activate_bot(server.db, alice.id, None, "a", "1", cmd, "/tmp")
    b = activate_bot(server.db, bob.id, None, "b", "1", cmd, "/tmp")
    return alice_token, bob_token, a, b


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="(\w+)"', page)
    assert found, page[:500]
    return found.group(1)


def test_quota_per_utc_day_refuses_with_429_and_a_control(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          no_play: list[int]) -> None:
    server = make_server(tmp_path, monkeypatch, human_games={"per_day": 2, "at_once": 5})
    clock = Clock()
    server.human.clock = clock
    _a, _b, alice_bot, bob_bot = _people(server)
    alice = server.participant_by_token(_a)
    assert alice is not None
    server.human.start(alice.id, 0, [bob_bot])  # the control: under the quota, accepted
    server.human.start(alice.id, 1, [alice_bot])  # their own bot too
    with pytest.raises(PlayRefused) as refused:
        server.human.start(alice.id, 0, [bob_bot])
    assert refused.value.status == 429 and "2 game(s)" in str(refused.value) and "per UTC day" in str(refused.value)
    bob = server.participant_by_token(_b)
    assert bob is not None
    server.human.start(bob.id, 0, [alice_bot])  # a quota is each participant's own
    clock.now = day_start(clock.now) + DAY  # the next UTC day: the same request is accepted again
    server.human.start(alice.id, 0, [bob_bot])
    assert len(no_play) == 4
    assert [g.status for g in server.human.games_of(alice.id)] == ["starting"] * 3


def test_refusals_name_what_to_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_play: list[int]) -> None:
    server = make_server(tmp_path, monkeypatch)
    token, _b, _alice_bot, bob_bot = _people(server)
    who = server.participant_by_token(token)
    assert who is not None
    for seat, opponents, status, words in ((2, [bob_bot], 400, "seat must be from 0 to 1"),
                                           (0, [bob_bot, bob_bot], 400, "choose 1 ladder bot"),
                                           (0, [999], 404, "bot 999 is not on the ladder")):
        with pytest.raises(PlayRefused) as refused:
            server.human.start(who.id, seat, opponents)
        assert refused.value.status == status and words in str(refused.value)
    assert no_play == [] and server.human.games_of(who.id) == []


def test_no_new_game_once_the_competition_is_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    no_play: list[int]) -> None:
    server = make_server(tmp_path, monkeypatch)
    token, _b, _a, bob_bot = _people(server)
    who = server.participant_by_token(token)
    assert who is not None
    server.human.start(who.id, 0, [bob_bot])  # control: open
    for phase in ("frozen", "final", "closed"):
        server.set_phase(phase, "organiser")
    with pytest.raises(PlayRefused) as refused:
        server.human.start(who.id, 0, [bob_bot])
    assert refused.value.status == 409 and "closed" in str(refused.value)


def test_at_once_bounds_the_games_played_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    monkeypatch.setattr(HumanGames, "_play", lambda self, game_id, seat, bots: release.wait(10))
    server = make_server(tmp_path, monkeypatch, human_games={"per_day": 10, "at_once": 1})
    token, _b, _a, bob_bot = _people(server)
    who = server.participant_by_token(token)
    assert who is not None
    first = server.human.start(who.id, 0, [bob_bot])
    with pytest.raises(PlayRefused) as refused:
        server.human.start(who.id, 0, [bob_bot])
    assert refused.value.status == 429 and "at once" in str(refused.value)
    release.set()
    server.human.wait(first, 10)
    server.human.start(who.id, 0, [bob_bot])  # control: the slot is free again


def test_config_key_is_validated(tmp_path: Path) -> None:
    base = {"name": "x", "game": "kododo", "players": 2, "data": str(tmp_path)}
    assert parse({**base, "human_games": {"per_day": 3}}, tmp_path / "l.yaml").human_games.per_day == 3
    assert parse(base, tmp_path / "l.yaml").human_games.per_day == 5
    for bad, words in (({"per_day": -1}, "human_games.per_day"), ({"per_day": "many"}, "human_games.per_day"),
                       ({"at_once": 0}, "human_games.at_once"), ({"perday": 3}, "perday"),
                       ({"decision_ms": 10}, "human_games.decision_ms")):
        with pytest.raises(ConfigError) as error:
            parse({**base, "human_games": bad}, tmp_path / "l.yaml")
        assert words in str(error.value), (bad, str(error.value))


def test_bot_page_form_starts_a_game_and_the_429_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          no_play: list[int]) -> None:
    server = make_server(tmp_path, monkeypatch, human_games={"per_day": 1})
    token, _b, _a, bob_bot = _people(server)
    me = client(server, token)
    page = me.get(f"/bots/{bob_bot}").text
    assert 'action="/bots/%d/play"' % bob_bot in page and "1 of 1 game(s) left today" in page
    assert "play against this bot" not in client(server).get(f"/bots/{bob_bot}").text  # anonymous: no form
    form = {"csrf": _csrf(page), "seat": "1", "opponent0": str(bob_bot)}
    r = me.post(f"/bots/{bob_bot}/play", data=form, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 303 and re.fullmatch(r"/play/\d+/", r.headers["location"])
    r = me.post(f"/bots/{bob_bot}/play", data=form, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 429 and "try again tomorrow" in r.text
    r = me.post(f"/bots/{bob_bot}/play", data={**form, "csrf": "0" * 64}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 403  # a forged form


class FakeSeat(BaseHTTPRequestHandler):
    """A seat's server: records every request that reaches it."""

    seen: list[str] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _ok(self) -> None:
        body = json.dumps({"phase": "asked", "request_id": 1, "legal": [1]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        FakeSeat.seen.append("GET " + self.path)
        self._ok()

    def do_POST(self) -> None:  # noqa: N802
        FakeSeat.seen.append("POST " + self.path + " " + self.rfile.read(int(self.headers["Content-Length"])).decode())
        self._ok()


@pytest.fixture
def fake_seat() -> Iterator[str]:
    FakeSeat.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeSeat)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/secret-of-this-game/"
    httpd.shutdown()
    httpd.server_close()


def test_only_the_player_reaches_the_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_play: list[int],
                                          fake_seat: str) -> None:
    """The attack: another participant (bob, whose bot is at the table) and an anonymous visitor ask for the
    seat's state, post a choice, open the page; each gets 404 and nothing reaches the seat. The control: the
    player's own requests are forwarded; with the ownership check off, bob's are too."""
    server = make_server(tmp_path, monkeypatch)
    alice_token, bob_token, _a, bob_bot = _people(server)
    alice = server.participant_by_token(alice_token)
    assert alice is not None
    game = server.human.start(alice.id, 0, [bob_bot])
    server.human.seats[game] = fake_seat
    alice_client, bob_client, anonymous = client(server, alice_token), client(server, bob_token), client(server)
    bob_csrf = _csrf(bob_client.get(f"/bots/{bob_bot}").text)
    choice = json.dumps({"request_id": 1, "index": 0})

    def attempts(who: Any, csrf: str) -> list[int]:
        return [who.get(f"/play/{game}/").status_code, who.get(f"/play/{game}/state?since=-1").status_code,
                who.post(f"/play/{game}/choose", content=choice, headers={"Origin": ORIGIN, "X-Arena-CSRF": csrf,
                                                                          "Content-Type": "application/json"}).status_code]

    assert attempts(bob_client, bob_csrf) == [404, 404, 404]
    assert attempts(anonymous, "") == [401, 401, 401]
    assert FakeSeat.seen == []
    page = alice_client.get(f"/play/{game}/")
    assert page.status_code == 200 and "your seat" in page.text
    alice_csrf = re.search(r'name="arena-csrf" content="(\w+)"', page.text)
    assert alice_csrf
    assert attempts(alice_client, alice_csrf.group(1)) == [200, 200, 200]
    assert FakeSeat.seen == ["GET /secret-of-this-game/state?since=-1",
                             'POST /secret-of-this-game/choose {"request_id": 1, "index": 0}']
    assert "secret-of-this-game" not in page.text
    # her choice without the page's token, or from another site: refused before the seat
    r = alice_client.post(f"/play/{game}/choose", content=choice, headers={"Origin": ORIGIN, "Content-Type": "application/json"})
    assert r.status_code == 403
    r = alice_client.post(f"/play/{game}/choose", content=choice, headers={"Origin": "https://evil.example",
                                                                           "X-Arena-CSRF": alice_csrf.group(1)})
    assert r.status_code == 403 and len(FakeSeat.seen) == 2
    # control: with the ownership check off, bob's requests would reach the seat
    from arena.server.compete import pages_play

    monkeypatch.setattr(pages_play, "_own", lambda request, session: server.human.game(game))
    assert attempts(bob_client, bob_csrf) == [200, 200, 200] and len(FakeSeat.seen) == 4


def test_low_priority_is_inherited_by_the_bots(tmp_path: Path) -> None:
    """A game's thread lowers its niceness; the processes it starts (the bots) inherit it, the server's
    other threads (the ladder's) keep theirs."""
    import os
    import subprocess
    import sys

    seen: list[str] = []

    def game_thread() -> None:
        human_games.low_priority()
        seen.append(subprocess.run([sys.executable, "-c", "import os; print(os.nice(0))"], capture_output=True,
                                   text=True, check=True).stdout.strip())

    thread = threading.Thread(target=game_thread)
    thread.start()
    thread.join()
    mine = os.nice(0)
    assert seen == [str(min(19, mine + human_games.LOW_PRIORITY_NICE))] and os.nice(0) == mine


@pytest.mark.process
def test_a_stopping_server_ends_the_games_in_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real game (the seat process and a bot, unsandboxed), nobody at the page: the server stops, and every
    process of the game is gone (each runs in its own session: nothing else would end it), the game recorded
    as failed, and no new game starts (503). The control: before the stop, the processes are running."""
    import os
    import sys

    from tests.server.bots import ROOT

    server = make_server(tmp_path, monkeypatch)
    alice, _token = server.add_participant("alice")
    bob, _ = server.add_participant("bob")
    bot = activate_bot(server.db, bob.id, None, "b", "1", (sys.executable, "sample_bots/python/random_bot.py"), str(ROOT))
    game = server.human.start(alice.id, 0, [bot])
    deadline = time.monotonic() + 30
    while server.human.seat_url(game) is None or len(server.human.processes.get(game, [])) < 2:
        assert time.monotonic() < deadline, server.human.game(game)
        time.sleep(0.05)
    pids = [p.proc.pid for p in server.human.processes[game]]

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    assert all(alive(pid) for pid in pids)  # the control
    server.human.stop()
    assert not any(alive(pid) for pid in pids)
    stored = server.human.game(game)
    assert stored is not None and stored.status == "failed" and "server stopped" in stored.reason
    with pytest.raises(PlayRefused) as refused:
        server.human.start(alice.id, 0, [bot])
    assert refused.value.status == 503


def test_the_end_is_shown_after_the_seat_is_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_play: list[int],
                                                fake_seat: str) -> None:
    """The seat exits soon after the game's end, and a page on a slow machine may not have fetched that end
    by then (CI saw a page stuck on "connection lost: retrying..."). Once the seat is gone the server answers
    the page's poll itself: 503 while the game is still being recorded (the page retries), then the last state
    it forwarded, closed with the result as stored (the page stops polling); a page reloaded later (nothing
    forwarded) gets the result alone. Without this the page got 410 for ever and polled on."""
    server = make_server(tmp_path, monkeypatch)
    alice_token, _bob_token, _a, bob_bot = _people(server)
    alice = server.participant_by_token(alice_token)
    assert alice is not None
    game = server.human.start(alice.id, 0, [bob_bot])
    alice_client = client(server, alice_token)
    server.human.seats[game] = fake_seat
    assert alice_client.get(f"/play/{game}/state?since=-1").json()["phase"] == "asked"
    server.human.seats.pop(game)  # the seat exited; the game's thread has not yet recorded its end
    server.human._set(game, "playing")
    assert alice_client.get(f"/play/{game}/state?since=0").status_code == 503
    with server.db.write() as conn:
        conn.execute("UPDATE human_games SET status = 'over', result = ? WHERE id = ?",
                     (json.dumps({"points": [12, 9], "ranks": [1, 2], "faults": []}), game))
    end = alice_client.get(f"/play/{game}/state?since=0")
    assert end.status_code == 200 and end.headers["cache-control"] == "no-store"
    body = end.json()
    assert body["phase"] == "over" and body["result"] == {"points": [12, 9], "ranks": [1, 2]}
    assert body["request_id"] is None and body["legal"] == [] and body["version"] == 1
    server.human.last_states.clear()  # a page opened after the game, or after a server restart
    fresh = alice_client.get(f"/play/{game}/state?since=-1").json()
    assert fresh["result"] == {"points": [12, 9], "ranks": [1, 2]} and fresh["phase"] == "over"
    assert fresh["seat"] == 0 and fresh["players"] == [] and fresh["events"] == [] and fresh["game"] == server.config.game
    # the seat's own `over` state, where the page was forwarded it, is shown as it was
    server.human.keep_state(game, b'{"phase": "over", "version": 9, "result": {"points": [1, 2], "ranks": [2, 1]}}')
    assert alice_client.get(f"/play/{game}/state?since=0").json()["version"] == 9
    # a game that failed ends the page's polling too, saying why
    with server.db.write() as conn:
        conn.execute("UPDATE human_games SET status = 'failed', result = '', reason = 'the server stopped during the game' "
                     "WHERE id = ?", (game,))
    server.human.last_states.clear()
    failed = alice_client.get(f"/play/{game}/state?since=0").json()
    assert failed["phase"] == "over" and failed["result"] is None and failed["reason"] == "the server stopped during the game"
    # nobody else reaches it
    assert client(server).get(f"/play/{game}/state?since=0").status_code == 401
