"""check-bot's protocol side driven by a fake pipe: no process, exact times. The process side (spawn,
pipes, limits, sandbox, teardown) is the referee's, tested in test_session.py with real processes."""

from __future__ import annotations

from typing import Any

import pytest

from arena.checkbot.driver import UNKNOWN_MEMBER, UNKNOWN_TYPE, CheckedGame, GameConfig, GameDriver
from arena.referee.request_ids import Classification, RequestIds
from arena.checkbot.runner import handshake, shutdown
from arena.games.registry import get_game

from tests.support.fake_pipe import EXIT, FakePipe, polite


def test_a_hello_is_timed_and_read() -> None:
    pipe = FakePipe(polite(), think_s=0.25)
    result = handshake(pipe, startup_ms=10_000)
    assert result.problem is None and (result.name, result.version) == ("fake", "1")
    assert result.elapsed_ms == pytest.approx(250.0)


def test_a_hello_that_is_not_json_or_comes_late_is_a_problem() -> None:
    garbled = handshake(FakePipe(lambda m: [b"hello there"]), startup_ms=10_000)
    assert garbled.problem is not None and "its first line is not JSON: 'hello there'" in garbled.problem
    late = handshake(FakePipe(polite(), think_s=11.0), startup_ms=10_000)  # read past the allowance: how late it is
    assert late.problem is None and late.elapsed_ms == pytest.approx(11_000.0)
    silent = handshake(FakePipe(lambda m: []), startup_ms=1000)
    assert silent.problem is not None and silent.problem.startswith("no hello within 3000 ms (the allowance is 1000 ms)")


def play(reply: Any, injected: bool = False, game: str = "kodama-duo") -> tuple[CheckedGame, FakePipe]:
    pipe = FakePipe(reply)
    handshake(pipe, startup_ms=10_000)
    driver = GameDriver(get_game(game), pipe, RequestIds(), decision_ms=1000, startup_ms=10_000)
    record = driver.play(CheckedGame(1, GameConfig(2, {}), seat=0, seed=5, injected=injected))
    return record, pipe


def test_a_whole_game_with_unknown_messages_and_members() -> None:
    record, pipe = play(polite(), injected=True)
    assert record.finished and record.failure is None and record.illegal_count == 0 and record.requests > 0
    assert {m["type"] for m in pipe.sent} >= {"hello", "start", "request", "end", UNKNOWN_TYPE}  # the probe's own messages
    assert all(UNKNOWN_MEMBER in m for m in pipe.sent if m["type"] in ("start", "request", "end"))
    assert record.latencies_ms == pytest.approx([1.0] * record.requests)  # the fake clock: exact times


def test_illegal_answers_late_answers_and_noise_are_recorded() -> None:
    illegal, _ = play(polite(lambda request: "Z9"))
    assert illegal.illegal_count == illegal.requests > 0 and "illegal answer" in illegal.illegal[0]
    noisy, _ = play(lambda m: [b"debug: thinking"] + polite()(m) if m.get("type") == "request" else polite()(m))
    assert noisy.finished and noisy.noise_count == noisy.requests and "'debug: thinking'" in noisy.noise[0]
    slow = FakePipe(polite(), think_s=2.0)  # every answer after the 1000 ms allowance
    handshake(slow, startup_ms=10_000)
    driver = GameDriver(get_game("kodama-duo"), slow, RequestIds(), decision_ms=1000, startup_ms=10_000)
    record = driver.play(CheckedGame(1, GameConfig(2, {}), seat=0, seed=5, injected=False))
    assert record.timeouts and "within 1000 ms" in record.timeouts[0]


def test_a_bot_that_exits_mid_game_is_lost() -> None:
    count = {"n": 0}

    def dies(m: dict[str, Any]) -> list[bytes]:
        if m.get("type") == "request":
            count["n"] += 1
            if count["n"] == 3:
                return [EXIT]
        return polite()(m)

    record, _ = play(dies)
    assert not record.finished and record.crashed and record.failure is not None
    assert "exited with status 0" in record.failure and "closed its stdout" in record.failure


def test_shutdown_exit_is_timed() -> None:
    pipe = FakePipe(polite(), think_s=0.04)
    result = shutdown(pipe, grace_ms=1000)
    assert result.exit_code == 0 and result.after_shutdown_ms == pytest.approx(40.0)
    stubborn = shutdown(FakePipe(lambda m: []), grace_ms=1000)
    assert stubborn.after_shutdown_ms is None


def test_ids_are_judged_as_the_referee_judges_them() -> None:
    """check-bot and the referee keep their ids in one RequestIds: an answer sent twice is a duplicate (not an
    answer to a request never asked, as check-bot's own ids called it), and a late answer is ignored once."""
    twice, _ = play(lambda m: polite()(m) * 2 if m.get("type") == "request" else polite()(m))
    assert twice.finished and twice.noise_count >= twice.requests - 1 > 0  # the last copy comes after the game
    assert all("which was already answered" in n for n in twice.noise), twice.noise[:3]
    ids = RequestIds()
    first = ids.new()
    ids.expire()
    second = ids.new()
    assert [ids.classify(first), ids.classify(first), ids.classify(second), ids.classify(second + 1)] == [
        Classification.LATE, Classification.DUPLICATE, Classification.ANSWER, Classification.UNASKED]
