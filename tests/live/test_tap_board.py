"""The live channel's two ends without processes: the tap never makes the referee wait on a slow or
stuck sink (frames are coalesced instead), and the board keeps what the delay needs, reveals a game
only once it ended with a result, and never a game dropped (one played again on the same deal)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.games.registry import get_game
from arena.jsonvalue import loads
from arena.live.board import LiveBoard
from arena.live.frame import LiveFrame
from arena.live.tap import LiveTap
from tests.live.frames import frames, hands


class StuckSink:
    """A coordinator that does not read: its first frame() blocks until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.got: list[LiveFrame] = []

    def frame(self, frame: LiveFrame) -> None:
        self.release.wait(30)
        self.got.append(frame)


def _steps(hook: object, done: threading.Event) -> None:
    """Play a real game's steps through `hook` (as the referee calls it), then say so."""
    spec = get_game("kododo")
    state = spec.new_game(2, spec.resolve_options(None), 5)
    hook(-1, state, (), False)  # type: ignore[operator]
    step = 0
    while state.to_move():
        events = state.apply({s: state.fallback(s) for s in state.to_move()})
        hook(step, state, [e.to_json() for e in events], False)  # type: ignore[operator]
        step += 1
    hook(step - 1, state, (), True)  # type: ignore[operator]
    done.set()


def test_a_stuck_sink_never_holds_the_game_frames_are_coalesced_and_the_last_one_arrives() -> None:
    sink = StuckSink()
    tap = LiveTap(sink, gap_s=0.0)
    done = threading.Event()
    threading.Thread(target=_steps, args=(tap.hook(9), done), daemon=True).start()
    assert done.wait(10), "the referee waited on a stuck sink"
    sink.release.set()
    assert tap.drain(10)
    tap.close()
    assert 1 <= len(sink.got) <= 2  # the frame being sent when the sink stuck, then the latest: the end
    assert sink.got[-1].over and sink.got[-1].game == 9
    assert tap.dropped >= 1


def test_control_the_same_steps_calling_the_stuck_sink_directly_do_hold_the_game() -> None:
    sink = StuckSink()
    done = threading.Event()
    direct = lambda step, state, events, over: sink.frame(LiveFrame(9, step, over, b"{}"))  # noqa: E731
    threading.Thread(target=_steps, args=(direct, done), daemon=True).start()
    assert not done.wait(0.5), "the control should have been held by the sink"
    sink.release.set()
    assert done.wait(10)


def test_frames_are_taken_at_most_every_gap_and_their_skipped_events_travel_with_the_next() -> None:
    clock = [0.0]
    got: list[LiveFrame] = []

    class Sink:
        def frame(self, frame: LiveFrame) -> None:
            got.append(frame)

    tap = LiveTap(Sink(), gap_s=1.0, clock=lambda: clock[0])
    hook = tap.hook(1)
    spec = get_game("kododo")
    state = spec.new_game(2, spec.resolve_options(None), 5)
    hook(-1, state, (), False)
    tap.drain()
    for step in range(3):  # within one gap: skipped, their events kept
        hook(step, state, [{"kind": "e", "n": step}], False)
        tap.drain()
    clock[0] = 1.5
    hook(3, state, [{"kind": "e", "n": 3}], False)
    tap.drain()
    tap.close()
    assert [f.step for f in got] == [-1, 3]
    assert [e["n"] for e in loads(got[1].data)["events"]] == [0, 1, 2, 3]  # type: ignore[index,union-attr]


def _board(delay: float | None) -> tuple[LiveBoard, list[float]]:
    clock = [100.0]
    return LiveBoard("kododo", delay, clock=lambda: clock[0]), clock


def test_the_delayed_view_is_the_last_frame_at_least_the_delay_old_and_older_frames_are_let_go() -> None:
    board, clock = _board(10.0)
    board.begin(4, ["a", "b"], [11, 12])
    played = list(frames(4))
    for i, f in enumerate(played[:20]):
        clock[0] = 100.0 + i  # one frame a second
        board.frame(f)
    shown = board.show(4, frozenset(), True)
    assert shown is not None and shown["full"] is not None
    full = shown["full"]
    assert isinstance(full, dict) and full["step"] == 9 - 1  # frame 9 (step 8) arrived at 109 = now - 10
    assert sorted(full["views"]) == ["0", "1"]  # type: ignore[arg-type]
    assert len(board.games[4].frames) <= 12  # what the delay needs, not the whole game
    assert shown["views"] == {}


def test_no_delay_no_full_view_while_played_and_every_hand_once_ended() -> None:
    board, clock = _board(None)
    board.begin(4, ["a", "b"], [11, 12])
    played = list(frames(4))
    for f in played:
        board.frame(f)
    clock[0] += 10**6
    live = board.show(4, frozenset(), True)
    assert live is not None and live["full"] is None and live["views"] == {} and not live["over"]
    board.end(4)
    held = board.show(4, frozenset(), False)  # over, but the rule gave no seat (its deal is still played elsewhere)
    assert held is not None and held["over"] and held["views"] == {}
    over = board.show(4, frozenset({0, 1}), False)  # the rule's share once over: every seat
    assert over is not None and over["over"] and sorted(over["views"]) == ["0", "1"]  # type: ignore[arg-type]
    assert [v["hand"] for v in over["views"].values()] == hands(played[-1])  # type: ignore[index,union-attr]


def test_a_dropped_game_is_never_revealed_and_late_frames_change_nothing() -> None:
    board, _ = _board(0.0)
    board.begin(5, ["a", "b"], [1, 2])
    played = list(frames(5))
    board.frame(played[0])
    board.drop(5)  # lost with its worker: played again on the same deal
    assert board.show(5, frozenset({0, 1}), True) is None
    board.frame(played[1])
    assert board.show(5, frozenset({0, 1}), True) is None and board.playing() == []
    board.begin(5, ["a", "b"], [1, 2])
    board.frame(played[0])
    board.end(5)
    board.frame(played[3])  # after the end: ignored
    shown = board.show(5, frozenset(), False)
    assert shown is not None and shown["step"] == -1


def test_the_servers_delay_is_read_from_its_config_and_a_negative_one_is_refused(tmp_path: Path) -> None:
    from arena.errors import ConfigError
    from arena.ladder.config import parse

    base = {"name": "x", "game": "kododo", "players": 2}
    assert parse(base, tmp_path / "s.yaml").ladder.full_view_delay_s is None  # default: every hand once the game is over
    assert parse({**base, "ladder": {"full_view_delay_s": 45}}, tmp_path / "s.yaml").ladder.full_view_delay_s == 45.0
    with pytest.raises(ConfigError, match="full_view_delay_s: expected a number of seconds, 0 or more"):
        parse({**base, "ladder": {"full_view_delay_s": -1}}, tmp_path / "s.yaml")


def test_a_games_last_frame_is_not_replaced_by_the_next_games_first() -> None:
    sink = StuckSink()
    tap = LiveTap(sink, gap_s=0.0)
    spec = get_game("kododo")
    state = spec.new_game(2, spec.resolve_options(None), 5)
    tap.hook(1)(-1, state, (), False)  # being sent: the sink is stuck on it
    for _ in range(1000):
        if tap.sending:
            break
        threading.Event().wait(0.01)
    tap.hook(1)(0, state, (), True)  # game 1's last frame waits
    tap.hook(2)(-1, state, (), False)  # game 2 begins on the same worker
    sink.release.set()
    assert tap.drain(10)
    tap.close()
    assert [(f.game, f.over) for f in sink.got] == [(1, False), (1, True), (2, False)]
