"""Faults in what a bot says, judged on the fake transport: no process, no sleeping, exact.

Seat 1 of a 3-player Kododo game says something wrong at its first request (a line that is not JSON,
not UTF-8, out of the protocol's bounds, an illegal action, an answer sent early or twice), seats 0
and 2 answer well. Each game must end with exactly the expected fault, the fallback in its place, the
bot still in the game, and a replay that verifies. What needs a real process (pipes, exits, floods,
process groups, the hello's framing) is in test_faults.py and test_hostile.py, once per behaviour.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import FaultKind, FaultPolicy
from arena.core.result import GameResult
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.audit.verify import verify_replay
from arena.replay import read_replay

from tests.support.fake_transport import FakeBot, FakeClock, FakeTransport, Script

BAD = 1
MS = 0.001


def good(request: dict[str, Any]) -> bytes:
    return json.dumps({"id": request["id"], "action": request["legal"][0]}).encode()


def first_request(bad_lines: Any) -> Script:
    """Answer well, except the first request: `bad_lines(request)` gives the lines sent then, in one write."""

    def script(request: dict[str, Any], count: int) -> list[tuple[float, bytes]]:
        return [(MS, line) for line in (bad_lines(request) if count == 1 else [good(request)])]

    return script


def play(tmp_path: Path, bad: Script, policy: FaultPolicy = FaultPolicy.FORFEIT) -> tuple[GameResult, list[dict[str, Any]]]:
    clock = FakeClock()
    transport = FakeTransport(clock)
    bots = [FakeBot(transport, first_request(lambda r: [good(r)]), name="good0"), FakeBot(transport, bad, name="bad"),
            FakeBot(transport, first_request(lambda r: [good(r)]), name="good2")]
    replay = tmp_path / "game.jsonl"
    result = play_game("kododo", bots, seed=7, time_control=TimeControl(decision_ms=1000), policy=policy, replay_path=replay,
                       clock=clock, transport=transport)
    verify_replay(replay)  # a game with faults is still a verifiable game
    assert all(f.seat == BAD for f in result.faults), result.faults
    assert not bots[BAD].killed  # a bad line is not a fatal fault
    return result, read_replay(replay)


def kinds(result: GameResult) -> list[FaultKind]:
    return [f.kind for f in result.faults]


def mine(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == "decision" and r["seat"] == BAD]


def forfeited(result: GameResult) -> bool:
    return result.ranks[BAD] == 3 and sorted(result.ranks[s] for s in (0, 2)) in ([1, 2], [1, 1])


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (b"this is not json", FaultKind.MALFORMED_JSON),
        (b'{"id": 1, "action": "\xff\xfe"}', FaultKind.INVALID_UTF8),
        (b'{"id": 1, "action": ["Z9"]}', FaultKind.ILLEGAL_ACTION),
    ],
)
def test_bad_answer_gets_fallback_and_the_game_goes_on(tmp_path: Path, line: bytes, kind: FaultKind) -> None:
    result, records = play(tmp_path, first_request(lambda r: [line]))
    assert kinds(result) == [kind]
    assert result.faults[0].request_id == 1
    decisions = mine(records)
    assert decisions[0]["source"] == "fallback" and decisions[0]["fault"] == kind.value
    assert all(d["source"] == "bot" for d in decisions[1:])
    assert forfeited(result)


DEEP = "[" * 300 + "]" * 300


@pytest.mark.parametrize(
    "line, kind",
    [
        ('{"id": 18446744073709551616, "action": ["B1"]}', FaultKind.MALFORMED_JSON),  # id beyond 2^64
        ('{"id": -9223372036854775809, "action": ["B1"]}', FaultKind.MALFORMED_JSON),  # id below -2^63
        ('{"id": 9007199254740992, "action": ["B1"]}', FaultKind.MALFORMED_JSON),  # id 2^53
        ('{"id": {id}, "action": [18446744073709551615]}', FaultKind.MALFORMED_JSON),  # 2^64-1 in the action
        ('{"id": {id}, "action": {"n": 18446744073709551616}}', FaultKind.ILLEGAL_ACTION),  # read as a float: legal JSON, illegal move
        ('{"id": {id}, "action": ' + "[" * 254 + "]" * 254 + "}", FaultKind.MALFORMED_JSON),  # 254 deep
        ('{"id": {id}, "action": ' + DEEP + "}", FaultKind.MALFORMED_JSON),
        ('{"id": {id}.0, "action": ["B1"]}', FaultKind.MALFORMED_JSON),  # 3.0 is not 3
        ('{"id": true, "action": ["B1"]}', FaultKind.MALFORMED_JSON),
        ('{"id": {id}, "action": 1e400}', FaultKind.MALFORMED_JSON),  # not a finite number
        ("[" * 5000 + "]" * 5000, FaultKind.MALFORMED_JSON),  # deeper than the JSON reader goes
    ],
)
def test_out_of_bounds_answers_are_malformed_and_the_replay_verifies(tmp_path: Path, line: str, kind: FaultKind) -> None:
    result, _ = play(tmp_path, first_request(lambda r: [line.replace("{id}", str(r["id"])).encode()]))
    assert kinds(result) == [kind]
    assert result.faults[0].request_id == 1  # the bad line stood for the answer to request 1
    assert len(result.faults[0].detail) <= 1100


def test_answer_before_being_asked_is_never_used(tmp_path: Path) -> None:
    early = first_request(lambda r: [good(r), json.dumps({"id": r["id"] + 1, "action": r["legal"][-1]}).encode()])
    result, records = play(tmp_path, early)
    assert kinds(result) == [FaultKind.UNEXPECTED_ANSWER]
    assert result.faults[0].request_id == 2 and "not asked" in result.faults[0].detail
    second = mine(records)[1]
    assert second["id"] == 2 and second["source"] == "bot"  # the real answer, sent after the request


def test_second_answer_is_ignored_and_recorded(tmp_path: Path) -> None:
    twice = first_request(lambda r: [good(r), json.dumps({"id": r["id"], "action": r["legal"][-1]}).encode()])
    result, records = play(tmp_path, twice)
    assert kinds(result) == [FaultKind.UNEXPECTED_ANSWER]
    assert result.faults[0].request_id == 1 and "second answer" in result.faults[0].detail
    first = mine(records)[0]
    assert first["source"] == "bot" and "fault" not in first and first["played"]  # the first answer stands


def test_policy_continue_keeps_the_rules_ranking(tmp_path: Path) -> None:
    result, _ = play(tmp_path, first_request(lambda r: [b'{"id": 1, "action": ["Z9"]}']), FaultPolicy.CONTINUE)
    assert kinds(result) == [FaultKind.ILLEGAL_ACTION]
    assert result.ranks == result.game_ranks
    forfeit, _ = play(tmp_path, first_request(lambda r: [b'{"id": 1, "action": ["Z9"]}']))  # the control
    assert forfeit.ranks != forfeit.game_ranks or forfeit.game_ranks[BAD] == 3
