"""A deal's hands are held until the deal is played out (`access.Item.DEAL_IN_PLAY`, README "Who sees what").

The ladder plays one deal at several tables and seat rotations; with one worker they run one after
another. A finished game of deal D is public, but while another game of D is still to be played its
hands would tell a participant whose bot plays D next every card it will hold. The attack is a real
HTTP client on loopback: bob, whose bot plays D next, downloads the finished game's public replay and
re-simulates it to read the hands. The control opens the rule (monkeypatch) and the same client reads
them; with the rule it is refused; once the last game of D ends the same request succeeds. The table
then goes over roles x the sibling's state x every channel that serves a finished game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from starlette.testclient import TestClient

from arena.jsonvalue import dumps_str, loads
from arena.ladder import access, results
from arena.ladder.access import Item, Role
from arena.live.board import LiveBoard
from arena.server.app import build
from arena.server.live import spectate
from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import load_game_record
from tests.live.frames import frames
from tests.live.serving import serving
from tests.server.inprocess import ADMIN
from tests.server.test_access_rule import D0, D1, HAND, ROLES, S0, S1, Ladder

OPEN = frozenset(Role)  # the control: the rule opened to everyone
SIBLINGS = ("pending", "finished", "dropped")
CHANNELS = ("page", "replay", "game-json", "bot-json", "bot-page", "live-json", "live-page", "live-stream")
LIVE = ("live-json", "live-page", "live-stream")
OWN_SEAT = {"anonymous": set(), "opponent": {1}, "owner": {0}, "organiser": {0, 1}}


def read_hand(content: bytes, tmp: Path) -> str:
    """The attack's last step: a downloaded replay re-simulated, seat 1's first hand (as `Ladder.hand` writes it)."""
    path = tmp / "downloaded.jsonl"
    path.write_bytes(content)
    hand = viewer_data(load_game_record(path), Perspective(1))["views"]["1"][0]["hand"]  # type: ignore[index, call-overload]
    return json.dumps(hand).replace(" ", "")


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Ladder]:
    made = Ladder(tmp_path, monkeypatch)
    yield made
    made.server.db.close()


def test_attack_a_participant_reads_the_hands_of_the_deal_its_bot_plays_next(ladder: Ladder, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    sibling = results.reserve(ladder.server.db, tuple(ladder.bots), ladder.deal)  # deal D's next table: waiting
    url_path = f"/api/v1/games/{ladder.game}/replay"
    with (serving(build(ladder.server)) as url,
          httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ladder.bob}"}) as bob,
          httpx.Client(base_url=url, cookies={"arena_session": ladder.bob}) as bob_pages):
        monkeypatch.setitem(access.RULE, Item.DEAL_IN_PLAY, OPEN)  # the control: protection off
        leaked = bob.get(url_path)
        assert leaked.status_code == 200 and read_hand(leaked.content, tmp_path) == ladder.hand  # the attack works
        monkeypatch.setitem(access.RULE, Item.DEAL_IN_PLAY, frozenset({Role.ORGANISER}))
        refused = bob.get(url_path)
        assert refused.status_code == 403 and "still being played" in refused.json()["error"]
        assert refused.headers["cache-control"] == "no-store"
        assert bob_pages.get(f"/games/{ladder.game}").status_code == 403
        assert bob.get(url_path, headers={"Authorization": f"Bearer {ADMIN}"}).status_code == 200
        ladder.finish(sibling)  # the deal's last game ends: its hands are everyone's
        shown = bob.get(url_path)
        assert shown.status_code == 200 and read_hand(shown.content, tmp_path) == ladder.hand
        assert bob_pages.get(f"/games/{ladder.game}").status_code == 200


class Board:
    """Game `ladder.game` on the live board, just over (the board keeps a finished game a while)."""

    def __init__(self, ladder: Ladder) -> None:
        board = ladder.server.ladder.live = LiveBoard("kododo", None)
        board.begin(ladder.game, ["a", "b"], ladder.bots, deal=ladder.deal)
        played = list(frames(ladder.game, seed=3))[:12]  # mid-game, so the hands are not empty
        for frame in played:
            board.frame(frame)
        board.end(ladder.game)
        own = loads(played[-1].data)["own"]  # type: ignore[index,call-overload]
        self.hands = [dumps_str(own[s]["hand"]) for s in (0, 1)]  # type: ignore[index]


def observe(ladder: Ladder, board: Board, role: str, channel: str, tmp: Path) -> tuple[int, set[str]]:
    """(status, what of the game's private parts the answer holds: HAND, the markers, `live-K` seat K's hand)."""
    c: TestClient = ladder.client(role)
    g, b0 = ladder.game, ladder.bots[0]
    path = {"page": f"/games/{g}", "replay": f"/api/v1/games/{g}/replay", "game-json": f"/api/v1/games/{g}",
            "bot-json": f"/api/v1/bots/{b0}", "bot-page": f"/bots/{b0}", "live-json": f"/api/v1/live/{g}",
            "live-page": f"/live/{g}", "live-stream": f"/live/{g}/events"}[channel]
    r = c.get(path)
    text = r.text.replace("\\/", "/")
    found = {m for m in (S0, S1, D0, D1) if m in text}
    if r.status_code == 200 and channel == "replay" and read_hand(r.content, tmp) == ladder.hand:
        found.add(HAND)
    if ladder.hand in text.replace(" ", ""):
        found.add(HAND)
    found |= {f"live-{s}" for s in (0, 1) if board.hands[s] in text}
    return r.status_code, found


def expected(role: str, held: bool, channel: str) -> tuple[int, set[str]]:
    """The rule written out: while held, the hands are the organiser's alone (the owner's own seat as played
    on the live board stays its owner's); else each role's share as `test_access_rule` has it."""
    shown = not held or role == "organiser"
    if channel in ("page", "replay"):
        if not shown:
            return 403, set()
        markers = {S0, S1, D0, D1} if role == "organiser" else set()  # the file as played
        if channel == "page":
            markers = {m for s in OWN_SEAT[role] for m in ((S0, D0), (S1, D1))[s]}
        return 200, {HAND} | markers
    if channel in LIVE:
        return 200, {f"live-{s}" for s in ({0, 1} if shown else OWN_SEAT[role])}
    if channel == "game-json":
        return 200, {m for s in OWN_SEAT[role] for m in ((S0, D0), (S1, D1))[s]} if shown else set()
    details = {S0, D0} if 0 in OWN_SEAT[role] and shown else set()  # bot 0's faults' details and stderr tails
    report = {S0} if channel == "bot-page" and role in ("owner", "organiser") else set()  # its check report: not a hand
    return 200, details | report


@pytest.mark.parametrize("sibling", SIBLINGS)
def test_each_role_sees_a_finished_games_hands_only_once_its_deal_is_played_out(ladder: Ladder, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch, sibling: str) -> None:
    monkeypatch.setattr(spectate, "MAX_STREAM_S", 0.0)  # a stream sends its first frame, then ends
    board = Board(ladder)
    other = results.reserve(ladder.server.db, tuple(ladder.bots), ladder.deal)
    if sibling == "finished":
        ladder.finish(other)
    elif sibling == "dropped":
        results.discard(ladder.server.db, other)
    held = sibling == "pending"
    wrong = {}
    for role in ROLES:
        for channel in CHANNELS:
            seen, want = observe(ladder, board, role, channel, tmp_path), expected(role, held, channel)
            if seen != want:
                wrong[(role, channel)] = (seen, want)
    assert not wrong, f"(role, channel): ((status, seen), (status, allowed)): {wrong}"


def test_the_control_opened_rule_lets_every_role_read_a_held_deal(ladder: Ladder, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spectate, "MAX_STREAM_S", 0.0)
    board = Board(ladder)
    results.reserve(ladder.server.db, tuple(ladder.bots), ladder.deal)
    monkeypatch.setitem(access.RULE, Item.DEAL_IN_PLAY, OPEN)
    for role in ROLES:
        for channel in CHANNELS:
            seen = observe(ladder, board, role, channel, tmp_path)
            assert seen == expected(role, False, channel), (role, channel)  # every hand, as if the deal were over
            if role != "organiser" and channel in ("page", "replay", "live-json"):
                assert seen != expected(role, True, channel), (role, channel)  # so the table test sees the leak


def test_another_deal_in_play_holds_nothing(ladder: Ladder, tmp_path: Path) -> None:
    results.reserve(ladder.server.db, tuple(ladder.bots), ladder.deal + 1)  # the same bots, another deal
    c = ladder.client("anonymous")
    assert c.get(f"/api/v1/games/{ladder.game}/replay").status_code == 200
    assert c.get(f"/api/v1/games/{ladder.game}").json()["held"] is False


def test_a_running_game_of_a_held_deal_shows_no_hand_behind_the_play() -> None:
    """The rule alone (`live_share`): with a delay configured, every seat's view behind the play is withheld
    while another game of the deal is still to be played, but for the organiser; its own seat stays the owner's."""
    a, p, o, org = Role.ANONYMOUS, Role.PARTICIPANT, Role.OWNER, Role.ORGANISER
    assert access.live_share([a, a], False).delayed and not access.live_share([a, a], False, deal_open=True).delayed
    assert not access.live_share([p, p], False, deal_open=True).delayed
    assert access.live_share([o, p], False, deal_open=True).seats == frozenset({0})
    assert access.live_share([org, org], True, deal_open=True).seats == frozenset({0, 1})
    assert access.live_share([a, a], True, deal_open=True).seats == frozenset()
    assert access.live_share([a, a], True).seats == frozenset({0, 1})


def test_the_owner_is_told_its_bots_stderr_waits_for_the_deal_and_then_reads_it(ladder: Ladder) -> None:
    b0 = ladder.bots[0]
    sibling = results.reserve(ladder.server.db, tuple(ladder.bots), ladder.deal)
    owner, opponent = ladder.client("owner"), ladder.client("opponent")

    def faults(client: TestClient) -> list[dict[str, object]]:
        found = [f for f in client.get(f"/api/v1/bots/{b0}").json()["faults"] if f["game"] == ladder.game]
        assert found
        return found

    assert all(f.get("held") is True and not f.get("stderr_tail") for f in faults(owner)) and S0 not in str(faults(owner))
    assert "once every table of this deal has been played" in owner.get(f"/bots/{b0}").text
    assert not any("held" in f for f in faults(opponent))  # not its stderr to wait for: nothing said about it
    assert "once every table" not in opponent.get(f"/bots/{b0}").text
    ladder.finish(sibling)
    assert not any("held" in f for f in faults(owner)) and S0 in str(faults(owner))
    assert "once every table" not in owner.get(f"/bots/{b0}").text
