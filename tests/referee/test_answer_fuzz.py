"""Any JSON value as an answer (huge integers, non-finite floats, deep nesting, long strings, unicode):
the game ends, the seat is charged a fault unless the value was a legal answer, the replay verifies,
and nothing raises. Fast through the fake transport, and a few examples through real processes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.referee.session import BotProcess
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.referee.referee import play_game
from arena.replay import read_replay
from arena.audit.verify import verify_replay

from tests.support.bots import C_BOT, assert_group_gone, bad_spec, c_spec
from tests.support.fake_transport import FakeBot, FakeClock, FakeTransport, answer_after
import pytest

pytestmark = pytest.mark.process

leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**53, -(2**53), 2**63, 2**64, -(2**63) - 1, 10**40, 1])
    | st.floats()
    | st.text()
    | st.integers(0, 40_000).map(lambda n: "é\u202e\x1b[2J"[n % 4] * n)
)
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


def as_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)  # NaN and Infinity come out as their non-JSON names


texts = values.map(as_json) | st.integers(1, 5000).map(lambda n: "[" * n + "]" * n) | st.text(max_size=50)
variants = st.sampled_from(["action", "id", "line"])


def hostile_line(variant: str, text: str, request: dict) -> bytes:
    if variant == "action":
        return f'{{"id": {request["id"]}, "action": {text}}}'.encode("utf-8", "surrogatepass")
    if variant == "id":
        return f'{{"id": {text}, "action": {json.dumps(request["legal"][0])}}}'.encode("utf-8", "surrogatepass")
    return text.encode("utf-8", "surrogatepass").replace(b"\n", b" ")


def was_legal(variant: str, text: str, legal: list) -> bool:
    """Whether the line was a correct answer after all (then no fault is due)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if variant == "id":
        return type(value) is int and value == 1
    if variant == "action":
        canon = json.dumps(value, sort_keys=True)
        return any(json.dumps(action, sort_keys=True) == canon for action in legal)
    return False


def check(result, replay: Path, variant: str, text: str, first_request: dict) -> None:
    verify_replay(replay)
    records = read_replay(replay)
    assert records[-1]["type"] == "result"
    seat0 = [f for f in result.faults if f.seat == 0]
    if was_legal(variant, text, first_request["legal"]):
        assert seat0 == []
    else:
        assert seat0, f"no fault for {variant} {text[:80]!r}"
        assert seat0[0].kind in (FaultKind.MALFORMED_JSON, FaultKind.ILLEGAL_ACTION, FaultKind.UNEXPECTED_ANSWER, FaultKind.INVALID_UTF8)
        assert len(seat0[0].detail) <= 1100
    assert all(f.seat == 0 for f in result.faults)


@settings(max_examples=60, deadline=None)
@given(variants, texts)
def test_any_json_value_as_an_answer_through_the_fake_transport(variant, text):
    clock = FakeClock()
    transport = FakeTransport(clock)
    fair = answer_after([0.001])

    def script(request: dict, count: int) -> list[tuple[float, bytes]]:
        return [(0.001, hostile_line(variant, text, request))] if count == 1 else fair(request, count)

    bots = [FakeBot(transport, script, name="hostile"), FakeBot(transport, fair, name="fair")]
    with tempfile.TemporaryDirectory() as tmp:
        replay = Path(tmp) / "game.jsonl"
        result = play_game("kodama-duo", bots, seed=5, time_control=TimeControl(decision_ms=100), clock=clock, transport=transport, replay_path=replay)
        check(result, replay, variant, text, bots[0].requests[0])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["id", "line"]), texts)
def test_any_json_value_as_an_answer_from_a_real_process(variant, text):
    # The id variant carries a null action, never legal: every example is a fault of seat 0.
    line = hostile_line("line", f'{{"id": {text}, "action": null}}' if variant == "id" else text, {})
    with tempfile.TemporaryDirectory() as tmp:
        line_file = Path(tmp) / "line"
        line_file.write_bytes(line)
        tc = TimeControl(decision_ms=2000, shutdown_ms=300)
        bots = [BotProcess.start(bad_spec("line_file", LINE_FILE=str(line_file)), tc), BotProcess.start(c_spec(str(C_BOT), 1), tc)]
        try:
            replay = Path(tmp) / "game.jsonl"
            result = play_game("kodama-duo", bots, seed=5, time_control=tc, replay_path=replay)
            check(result, replay, "line", text, {"legal": []})
        finally:
            for bot in bots:
                bot.close()
            for bot in bots:
                assert_group_gone(bot.pgid)
