"""The attack as a real HTTP client (httpx) against the ladder's app and `arena run --watch`'s page,
each served by uvicorn on loopback: another seat's view, or every hand before the delay, asked for by
URL and by the SSE stream, refused; the stream follows the game and never carries a hand it may not,
until the game ends."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from arena.jsonvalue import dumps_str, loads
from arena.ladder.accounts import activate_bot
from arena.live.board import LiveBoard
from arena.server.app import build
from arena.server.live.watch import Watch
from tests.live.frames import frames
from tests.live.serving import serving, sse_frames
from tests.server.inprocess import make_server


def _secrets(frame_data: bytes) -> list[str]:
    body = loads(frame_data)
    return [dumps_str(o["hand"]) for o in body["own"]]  # type: ignore[index,union-attr]


def test_a_participant_at_the_table_cannot_read_the_opponents_hand_by_url_or_stream(tmp_path: Path,
                                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    who = {}
    for name in ("alice", "bob"):
        p, token = server.add_participant(name)
        who[name] = (token, activate_bot(server.db, p.id, None, name, "1", ("python3", "x"), str(tmp_path)))
    board = server.ladder.live = LiveBoard("kododo", None)
    board.begin(3, ["a", "b"], [who["alice"][1], who["bob"][1]])
    played = list(frames(3, seed=9))
    board.frame(played[0])
    alice = {"Authorization": f"Bearer {who['alice'][0]}"}
    with serving(build(server)) as url, httpx.Client(base_url=url, cookies={"arena_session": who["alice"][0]}) as c:
        for path in ("/live/3?seat=1", "/live/3?full=1", "/live/3/events?seat=1", "/live/3/events?full=1"):
            assert c.get(path).status_code == 403, path
        for path in ("/api/v1/live/3?seat=1", "/api/v1/live/3?full=1"):
            assert c.get(path, headers=alice).status_code == 403, path
        bob_hand = _secrets(played[0].data)[1]
        assert bob_hand not in c.get("/live/3").text and bob_hand not in c.get("/api/v1/live/3", headers=alice).text

        fed = iter(played[1:6])

        def next_frame(_i: int) -> None:
            board.frame(next(fed))

        seen = sse_frames(c, "/live/3/events", 4, next_frame)  # the stream follows the game as frames arrive
        steps = [loads(s)["step"] for s in seen]  # type: ignore[index,call-overload]
        assert steps == sorted(set(steps)) and len(steps) == 4
        for i, text in enumerate(seen):
            hands = _secrets(played[i].data)
            assert hands[0] in text and hands[1] not in text  # its own bot's hand, never the opponent's

        for frame in played[6:]:
            board.frame(frame)
        board.end(3)
        final = loads(sse_frames(c, "/live/3/events", 1)[0])
        assert final["over"] and all(h in dumps_str(final) for h in _secrets(played[-1].data))  # type: ignore[index,call-overload]


def test_the_watch_page_needs_its_secret_and_shows_every_hand_only_behind_the_play(tmp_path: Path) -> None:
    now = [0.0]
    board = LiveBoard("kododo", 5.0, clock=lambda: now[0])
    watch = Watch(board, "t")
    board.begin(1, ["x", "y"], [0, 1])
    played = list(frames(1, seed=4))
    board.frame(played[0])
    base = f"/{watch.secret}"
    with serving(watch.app()) as url, httpx.Client(base_url=url) as c:
        assert c.get("/").status_code == 404 and c.get("/wrong-secret/live/1").status_code == 404
        assert c.get("/wrong-secret/live/1/events").status_code == 404
        assert c.get(f"{base}/").status_code == 200 and f"{base}/live/1" in c.get(f"{base}/").text
        hands = _secrets(played[0].data)
        for path in (f"{base}/live/1", f"{base}/live/1.json"):
            text = c.get(path).text
            assert not any(h in text for h in hands), path
        for path in (f"{base}/live/1?full=1", f"{base}/live/1/events?seat=0", f"{base}/live/1.json?seat=1"):
            assert c.get(path).status_code == 403, path
        first = sse_frames(c, f"{base}/live/1/events", 1)[0]
        assert not any(h in first for h in hands) and loads(first)["full"] is None  # type: ignore[index,call-overload]
        now[0] = 6.0
        board.frame(played[1])
        later = loads(c.get(f"{base}/live/1.json").text)
        assert later["full"]["step"] == -1 and all(h in dumps_str(later["full"]) for h in hands)  # type: ignore[index,call-overload]


def test_a_stream_ends_when_the_viewers_bot_starts_the_same_deal_elsewhere_and_the_reconnect_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(tmp_path, monkeypatch)
    who = {}
    for name in ("alice", "bob", "carol"):
        p, token = server.add_participant(name)
        who[name] = (token, activate_bot(server.db, p.id, None, name, "1", ("python3", "x"), str(tmp_path)))
    board = server.ladder.live = LiveBoard("kododo", None)
    board.begin(3, ["a", "b"], [who["alice"][1], who["bob"][1]], deal=42)
    played = list(frames(3, seed=9))
    board.frame(played[0])
    with serving(build(server)) as url, httpx.Client(base_url=url, cookies={"arena_session": who["carol"][0]}) as c:
        events: list[str] = []
        with c.stream("GET", "/live/3/events") as r:
            assert r.status_code == 200
            for line in r.iter_lines():
                if line.startswith("event: "):
                    events.append(line[7:])
                    if line == "event: frame" and events.count("frame") == 1:
                        board.begin(4, ["c", "b"], [who["carol"][1], who["bob"][1]], deal=42)  # carol's bot, same deal
        assert events == ["frame"]  # the stream ended as it was: no "over", no other frame
        assert c.get("/live/3/events").status_code == 403 and c.get("/live/3").status_code == 403  # the reconnect
