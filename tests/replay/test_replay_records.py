"""The replay format itself: strict records, a writer that never fails on a value, the schema, and
hostile files (anything at all as JSON lines) that can only ever be a ReplayError."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import ReplayError
from arena.jsonvalue import dumps
from arena.referee.session import BotProcess
from arena.core.faults import Fault, FaultKind, FaultPolicy
from arena.referee.referee import play_game
from arena.replay import SCHEMA_PATH, Decision, Header, ReplayWriter, SeatInfo, Source, load_replay, parse_replay
from arena.replay.encoding import canonical_bytes, check_commitment, decode_line
from arena.audit.verify import verify_replay

from tests.support.bots import bad_spec, c_spec

pytestmark = pytest.mark.process

SCHEMA = json.loads(SCHEMA_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def replay_bytes(tmp_path_factory: pytest.TempPathFactory, c_bot: str) -> bytes:
    """A Kododo game with an illegal answer and a crash: every shape of decision but `recorded`."""
    path = tmp_path_factory.mktemp("records") / "game.jsonl"
    bots = [BotProcess.start(spec) for spec in (c_spec(c_bot, 1), bad_spec("illegal"), bad_spec("crash", BAD_AT="2"))]
    try:
        play_game("kododo", bots, seed=21, replay_path=path)
    finally:
        for bot in bots:
            bot.close()
    return path.read_bytes()


def only_replay_errors(data: bytes) -> None:
    try:
        verify_replay(parse_replay(data, "fuzz.jsonl"))
    except ReplayError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 2000
    # anything else propagates and fails the test


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=6))
def test_arbitrary_json_lines_are_a_replay_error_and_nothing_else(values: list[Any]) -> None:
    only_replay_errors(b"".join(canonical_bytes(v) + b"\n" for v in values))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_are_a_replay_error_and_nothing_else(data: bytes) -> None:
    only_replay_errors(data)


@settings(max_examples=int(os.environ.get("FUZZ_N", "400")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_real_replay_with_one_member_changed_is_verified_or_refused_never_crashes(replay_bytes: bytes, data: st.DataObject) -> None:
    lines = [json.loads(line) for line in replay_bytes.decode().splitlines()]
    i = data.draw(st.integers(0, len(lines) - 1))
    record = lines[i]
    target = record
    if data.draw(st.booleans()):  # sometimes inside a nested object (seats, events, result faults)
        nested = [v for v in record.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if nested:
            target = data.draw(st.sampled_from(data.draw(st.sampled_from(nested))))
    key = data.draw(st.sampled_from(sorted(target) + ["extra"]))
    change = data.draw(st.sampled_from(["delete", "replace"]))
    if change == "delete":
        target.pop(key, None)
    else:
        target[key] = data.draw(json_values | st.integers(min_value=2**64) | st.just("0" * 64))
    only_replay_errors(b"".join(canonical_bytes(r) + b"\n" for r in lines))


def test_the_unchanged_replay_verifies_and_every_record_matches_the_schema(replay_bytes: bytes) -> None:
    replay = parse_replay(replay_bytes)
    assert verify_replay(replay).steps > 0
    shapes = set()
    for line in replay_bytes.decode().splitlines():
        record = json.loads(line)
        errors = list(VALIDATOR.iter_errors(record))
        assert errors == [], (record, errors[0].message if errors else None)
        shapes.add((record["type"], record.get("source"), record.get("fault")))
    assert {("decision", "bot", None), ("decision", "fallback", "illegal_action"), ("decision", "fallback", "crash")} <= shapes


@pytest.mark.parametrize(
    "kind, change",
    [
        ("decision", {"answered": False}),  # an unknown member
        ("decision", {"fault": "timeout"}),  # a bot answer with a fault
        ("decision", {"source": "fallback"}),  # a fallback without its fault
        ("decision", {"source": "recorded"}),  # a recorded decision with an id, a salt and a time
        ("decision", {"salt": "XYZ"}),
        ("commit", {"commitment": "abc"}),
        ("header", {"format": 1}),
        ("header", {"branch": {"of": "0" * 64}}),
        ("header", {"seed": "7"}),
        ("events", {"events": [{"no": "kind"}]}),
        ("result", {"ranks": [0, 1, 2]}),
        ("fault", {"kind": "sneeze"}),
    ],
)
def test_the_parser_and_the_schema_refuse_the_same_impossible_records(replay_bytes: bytes, kind: str, change: dict[str, Any]) -> None:
    lines = [json.loads(line) for line in replay_bytes.decode().splitlines()]
    i = next(n for n, r in enumerate(lines) if r["type"] == kind and r.get("source", "bot") == "bot")
    lines[i].update(change)
    assert not VALIDATOR.is_valid(lines[i])
    with pytest.raises(ReplayError, match=f"line {i + 1}, '"):
        parse_replay(b"".join(canonical_bytes(r) + b"\n" for r in lines))


def test_a_record_is_refused_whatever_comes_after_the_result_or_before_the_header(replay_bytes: bytes) -> None:
    lines = replay_bytes.splitlines(keepends=True)
    with pytest.raises(ReplayError, match=r"line 2, 'type': a second header record"):
        parse_replay(lines[0] + replay_bytes)
    with pytest.raises(ReplayError, match=rf"line {len(lines) + 1}, 'type': a events record after the result record"):
        parse_replay(replay_bytes + next(line for line in lines if b'"events"' in line))
    with pytest.raises(ReplayError, match=r"line 1, 'type': the first record must be the header"):
        parse_replay(b"".join(lines[1:]))
    with pytest.raises(ReplayError, match=r"no result record: the replay is cut short"):
        parse_replay(b"".join(lines[:-1]))
    with pytest.raises(ReplayError, match=r"line 2: not a JSON line: the member 'source' appears twice"):
        parse_replay(lines[0] + b'{"type":"decision","source":"fallback","source":"bot"}\n')


# --- the writer never fails on a value -------------------------------------------------------------

HOSTILE = [2**64, -(2**63) - 1, 10**40, [[[[[[[[[[]]]]]]]]]], "\ud800 lone", {"k": 1.5e308}, math.pi]


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("answer", HOSTILE + [deep(300), {"a": deep(260), "b": 2**70}])
def test_the_writer_records_any_answer_and_the_commitment_still_opens(tmp_path: Path, answer: Any) -> None:
    path = tmp_path / "w.jsonl"
    writer = ReplayWriter(path)
    writer.header(Header(1, "kododo", "1.0", "g", {}, 2**70, (SeatInfo(0, "n", "v", "e", ("bot",), None),), {}, FaultPolicy.FORFEIT))
    writer.fault(Fault(0, FaultKind.ILLEGAL_ACTION, 0, 2**64, f"illegal {answer!r}"[:100]))
    salt = writer.commit(0, 0, 2**64, answer)
    writer.decision(step=0, seat=0, request_id=2**64, answered=True, answer=answer, salt=salt, played=["B1"], from_bot=False,
                    elapsed_ms=1.0)
    writer.close()
    lines = path.read_bytes().splitlines()
    header, commit, decision = (decode_line(line) for line in (lines[0], lines[2], lines[3]))
    assert header["seed"] == 2**70 and decision["id"] == 2**64
    assert check_commitment(commit["commitment"], decision["salt"], 0, 0, decision["answer"])
    assert canonical_bytes(decision["answer"]) == canonical_bytes(answer)


@settings(max_examples=300, deadline=None)
@given(json_values | st.integers())
def test_canonical_bytes_are_orjsons_whenever_orjson_can_and_read_back_to_the_same_bytes(value: Any) -> None:
    data = canonical_bytes(value)
    try:
        assert data == dumps(value)
    except orjson.JSONEncodeError:
        pass  # the portable encoder's turn: only its round trip below is promised
    assert canonical_bytes(decode_line(data)) == data


def test_a_bot_decision_shape_round_trips() -> None:
    d = Decision(3, 1, Source.BOT, ["G3"], 17, salt="a" * 32, elapsed_ms=2.5)
    assert d.to_json() == {"type": "decision", "step": 3, "seat": 1, "source": "bot", "played": ["G3"], "id": 17,
                           "salt": "a" * 32, "elapsed_ms": 2.5}
    with pytest.raises(ReplayError, match="the replay is empty"):
        parse_replay(b"")


def test_load_replay_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="cannot read the replay"):
        load_replay(tmp_path / "missing.jsonl")


@settings(max_examples=int(os.environ.get("FUZZ_N", "300")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_dropping_duplicating_or_swapping_whole_lines_is_always_refused(replay_bytes: bytes, data: st.DataObject) -> None:
    """Every line matters: none can go, none can repeat, and only the arrival order of the answers and
    faults of one step (which nothing fixes) may change without being noticed."""
    lines = replay_bytes.splitlines(keepends=True)
    i = data.draw(st.integers(0, len(lines) - 1))
    how = data.draw(st.sampled_from(["drop", "duplicate", "swap"]))
    if how == "drop":
        changed = lines[:i] + lines[i + 1 :]
    elif how == "duplicate":
        changed = lines[: i + 1] + lines[i:]
    else:
        j = data.draw(st.integers(0, len(lines) - 1))
        a, b = json.loads(lines[i]), json.loads(lines[j])
        # Answers and faults arriving during one step may come in any order; the referee writes them
        # as they come, so their order carries no promise. Everything else has its one place.
        if a == b or (a.get("step") == b.get("step") and {a["type"], b["type"]} <= {"commit", "fault"}
                      and "fault" in (a["type"], b["type"]) and a["type"] != b["type"]
                      and "illegal_action" not in (a.get("kind"), b.get("kind"))):
            return
        if a["type"] == b["type"] == "commit" and a["step"] == b["step"]:
            return
        changed = list(lines)
        changed[i], changed[j] = changed[j], changed[i]
    with pytest.raises(ReplayError):
        verify_replay(parse_replay(b"".join(changed)))
