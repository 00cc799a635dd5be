"""Who sees what of a ladder game while it is played, over every channel: a table over roles (anonymous,
a participant with a bot at the table, one without, the organiser) x moments (before the game ends,
after the delay while it still runs, after it ends) x delays (none: every hand once over; 30 s) x
channels (the live page by URL, its SSE stream, the JSON API). Each case asserts exactly which seats'
hands and private events the answer holds. The controls turn the protection off (the rule's table, by
monkeypatch) and the same client then reads the hands: the detector sees a leak when there is one.

The server is built in the test's process and never started (`tests.server.inprocess`): the board is
fed real frames of a kododo game stepped by the test (`tests.live.frames`), on a fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.jsonvalue import dumps_str, loads
from arena.ladder import access
from arena.ladder.access import Item, Role
from arena.ladder.accounts import activate_bot
from arena.ladder.service import Server
from arena.live.board import LiveBoard
from arena.server.live import spectate
from arena.web.page import read_data
from tests.live.frames import frames
from tests.server.inprocess import ADMIN, client, make_server

GAME = 7
DELAY = 30.0
ROLES = ("anonymous", "alice-at-seat-0", "carol-not-at-table", "organiser")
MOMENTS = ("running", "running-after-delay", "over")
CHANNELS = ("page", "stream", "json")


class Table:
    """A server with alice's and bob's bots at game 7's seats 0 and 1, carol's bot elsewhere."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch, delay: float | None) -> None:
        self.server: Server = make_server(tmp, monkeypatch, ladder={"full_view_delay_s": delay})
        self.tokens: dict[str, str | None] = {"anonymous": None, "organiser": ADMIN}
        bots = {}
        for name in ("alice", "bob", "carol"):
            who, token = self.server.add_participant(name)
            self.tokens[name] = token
            bots[name] = activate_bot(self.server.db, who.id, None, f"{name}-bot", "1", ("python3", "x.py"), str(tmp))
        self.tokens["alice-at-seat-0"] = self.tokens["alice"]
        self.tokens["carol-not-at-table"] = self.tokens["carol"]
        self.now = [1000.0]
        self.board = LiveBoard("kododo", delay, clock=lambda: self.now[0])
        self.server.ladder.live = self.board
        self.bots = bots
        self.board.begin(GAME, ["a", "b"], [bots["alice"], bots["bob"]], deal=99)
        self.played = list(frames(GAME, seed=3))
        for i, frame in enumerate(self.played[:12]):
            self.now[0] = 1000.0 + i
            self.board.frame(frame)
        self.latest = loads(self.played[11].data)

    def at(self, moment: str) -> None:
        if moment == "running-after-delay":  # the play goes on: frames 12-14 arrive after the delay passed
            self.now[0] += DELAY + 1
            for frame in self.played[12:15]:
                self.board.frame(frame)
            self.latest = loads(self.played[14].data)
        elif moment == "over":
            for frame in self.played[15:]:
                self.board.frame(frame)
            self.board.end(GAME)
            self.latest = loads(self.played[-1].data)

    def secrets(self, seat: int) -> list[str]:
        """What only seat `seat` may know now: its hand, and the cards of its private events."""
        own = self.latest["own"][seat]  # type: ignore[index,call-overload]
        out = [dumps_str(own["hand"])]
        out += [dumps_str(e["cards"]) for e in self.latest["events"] if e.get("to") == seat]  # type: ignore[union-attr,index]
        return out


def ask(c: TestClient, channel: str, query: str = "") -> tuple[int, dict[str, Any] | None]:
    """One channel's answer: (status, the share it holds)."""
    if channel == "page":
        r = c.get(f"/live/{GAME}{query}")
        return r.status_code, read_data(r.text)["shown"] if r.status_code == 200 else None  # type: ignore[index,call-overload]
    if channel == "json":
        r = c.get(f"/api/v1/live/{GAME}{query}")
        return r.status_code, r.json() if r.status_code == 200 else None
    r = c.get(f"/live/{GAME}/events{query}")  # MAX_STREAM_S = 0: the first frame, then the stream ends
    if r.status_code != 200:
        return r.status_code, None
    data = [line[6:] for line in r.text.splitlines() if line.startswith("data: {") and '"id"' in line]
    return 200, loads(data[0]) if data else None  # type: ignore[return-value]


def expected(role: str, moment: str, delay: float | None) -> tuple[set[int], bool]:
    """(seats whose hands the answer holds as played, whether it holds every hand behind the play)."""
    if moment == "over" or role == "organiser":
        return {0, 1}, False
    if role == "alice-at-seat-0":
        return {0}, False
    return set(), moment == "running-after-delay" and delay is not None


def seen(answer: dict[str, Any], table: Table) -> set[int]:
    """The seats whose secrets appear anywhere in the answer (the whole text is searched, not its keys)."""
    text = dumps_str({k: v for k, v in answer.items() if k != "full"})
    return {s for s in (0, 1) if any(secret in text for secret in table.secrets(s))}


@pytest.fixture(autouse=True)
def one_frame_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spectate, "MAX_STREAM_S", 0.0)


@pytest.mark.parametrize("delay", [None, DELAY], ids=["delay-none", "delay-30s"])
@pytest.mark.parametrize("moment", MOMENTS)
def test_each_role_sees_exactly_its_share_on_every_channel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moment: str,
                                                          delay: float | None) -> None:
    table = Table(tmp_path, monkeypatch, delay)
    table.at(moment)
    for role in ROLES:
        c = client(table.server, table.tokens[role])
        seats, delayed = expected(role, moment, delay)
        for channel in CHANNELS:
            status, answer = ask(c, channel)
            where = (role, moment, channel)
            assert status == 200 and answer is not None, where
            assert seen(answer, table) == seats, where
            assert sorted(int(s) for s in answer["views"]) == sorted(seats), where
            assert answer["over"] == (moment == "over"), where
            if delayed:
                full = answer["full"]
                assert full is not None and sorted(full["views"]) == ["0", "1"], where
                assert full["step"] < answer["step"], where  # behind the play
            else:
                assert answer["full"] is None, where


@pytest.mark.parametrize("channel", CHANNELS)
def test_asking_for_another_seat_or_every_hand_before_the_delay_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                          channel: str) -> None:
    table = Table(tmp_path, monkeypatch, DELAY)
    alice, anon, carol = (client(table.server, table.tokens[r]) for r in ("alice", "anonymous", "carol"))
    assert ask(alice, channel, "?seat=1")[0] == 403
    assert ask(alice, channel, "?seat=0")[0] == 200  # its own bot's seat: allowed
    assert ask(anon, channel, "?seat=0")[0] == 403
    assert ask(anon, channel, "?full=1")[0] == 403
    assert ask(carol, channel, "?full=1")[0] == 403
    table.at("running-after-delay")
    assert ask(alice, channel, "?full=1")[0] == 403  # at the table: never every hand until the end
    assert ask(alice, channel, "?seat=1")[0] == 403
    status, answer = ask(anon, channel)
    assert status == 200 and answer is not None and answer["full"] is not None  # behind the play: allowed
    table.at("over")
    status, answer = ask(anon, channel, "?full=1")
    assert status == 200 and answer is not None and seen(answer, table) == {0, 1}


@pytest.mark.parametrize("channel", CHANNELS)
def test_control_with_the_rule_opened_the_same_clients_read_the_hands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      channel: str) -> None:
    table = Table(tmp_path, monkeypatch, DELAY)
    anon, alice = client(table.server, None), client(table.server, table.tokens["alice"])
    assert seen(ask(anon, channel)[1] or {}, table) == set()
    monkeypatch.setitem(access.RULE, Item.LIVE_FULL, frozenset(Role))  # protection off: every hand to everyone, live
    status, answer = ask(anon, channel)
    assert status == 200 and answer is not None and seen(answer, table) == {0, 1}  # the leak the table test would see
    assert ask(anon, channel, "?full=1")[0] == 200
    monkeypatch.setitem(access.RULE, Item.LIVE_FULL, frozenset({Role.ORGANISER}))
    table.at("running-after-delay")
    assert ask(alice, channel)[1]["full"] is None  # type: ignore[index]
    monkeypatch.setitem(access.RULE, Item.DELAYED_FULL, frozenset(Role))  # protection off: the owner at the table too
    status, answer = ask(alice, channel)
    assert status == 200 and answer is not None and answer["full"] is not None and sorted(answer["full"]["views"]) == ["0", "1"]


def test_the_list_of_games_in_progress_shows_no_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = Table(tmp_path, monkeypatch, None)
    c = client(table.server, None)
    listed = c.get("/api/v1/live").json()["live"]
    assert [g["id"] for g in listed] == [GAME] and listed[0]["players"][0].startswith("alice")
    page = c.get("/live")
    assert page.status_code == 200 and f'href="/live/{GAME}"' in page.text
    assert not any(secret in page.text + dumps_str(listed) for s in (0, 1) for secret in table.secrets(s))
    table.at("over")
    assert c.get("/api/v1/live").json()["live"] == []
    assert c.get("/live/999").status_code == 404 and c.get("/api/v1/live/999").status_code == 404


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_bot_playing_the_same_deal_at_another_table_keeps_its_owner_from_this_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, channel: str) -> None:
    """A duplicate deal's tables (and a deal's seat rotations) hold the same cards: carol, whose bot plays
    deal 99 at game 8, sees nothing of game 7 (deal 99 too), not even its public view, until game 8 ends."""
    table = Table(tmp_path, monkeypatch, DELAY)
    table.board.begin(8, ["c", "a2"], [table.bots["carol"], table.bots["bob"]], deal=99)
    table.board.begin(9, ["c", "a2"], [table.bots["alice"], table.bots["bob"]], deal=5)  # another deal: no matter
    carol, anon = client(table.server, table.tokens["carol"]), client(table.server, None)
    assert ask(carol, channel)[0] == 403
    assert ask(anon, channel)[0] == 200  # nobody's bot elsewhere: the public view
    table.at("running-after-delay")
    assert ask(carol, channel)[0] == 403  # nor the delayed view
    monkeypatch.setitem(access.RULE, Item.DELAYED_FULL, frozenset(Role))  # control: the protection off
    status, answer = ask(carol, channel)
    assert status == 200 and answer is not None and answer["full"] is not None  # every hand of carol's own deal
    monkeypatch.setitem(access.RULE, Item.DELAYED_FULL, frozenset({Role.ANONYMOUS, Role.PARTICIPANT, Role.ORGANISER}))
    table.board.end(8)  # carol's game is over: game 7 is hers to watch as anyone's
    status, answer = ask(carol, channel)
    assert status == 200 and answer is not None and seen(answer, table) == set() and answer["full"] is not None
