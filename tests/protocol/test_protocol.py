"""The protocol module: builders match the schema, parsers refuse everything that is not a message."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arena.core.time_control import TimeControl
from arena.protocol import (
    PROTOCOL_VERSION,
    SCHEMA_PATH,
    ProtocolViolation,
    MAX_ACTION_BYTES,
    MAX_ACTION_DEPTH,
    MAX_ID,
    MAX_INT,
    Answer,
    check_action,
    end_message,
    hello_message,
    parse_answer,
    preview,
    parse_hello,
    request_message,
    shutdown_message,
    start_message,
)

SCHEMA = json.loads(SCHEMA_PATH.read_text())


def validator(name: str | None = None) -> jsonschema.Draft202012Validator:
    schema = SCHEMA if name is None else {**SCHEMA, "oneOf": None, "$ref": f"#/$defs/{name}"}
    if name is not None:
        del schema["oneOf"]
    return jsonschema.Draft202012Validator(schema)


TC = TimeControl().to_json()  # the one JSON form


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_builder_gives_a_valid_message():
    messages = [
        hello_message("0.1.0"),
        start_message(game_id="g", game="kododo", game_version="1.0", options={"long": False}, seat=0, players=["a", "b"], time_control=TC),
        request_message(
            request_id=1, game_id="g", game="kododo", seat=0, step=0, view={"hand": []}, legal=[["G1"]],
            clock={"remaining_ms": 1000, "decision_ms": 1000, "bank_ms": None, "increment_ms": 0},
            events=[{"kind": "draw", "cards": ["G1"], "to": 0}],
        ),
        end_message(game_id="g", game="kododo", seat=1, events=[], result={
            "points": [1, 2], "tiebreaks": [[1], [2]], "ranks": [2, 1], "game_ranks": [2, 1],
            "faults": [{"seat": 0, "kind": "timeout"}]}),
        shutdown_message(),
    ]
    check = validator()
    for message in messages:
        check.validate(message)


def test_schema_refuses_a_request_without_id_or_with_extra_members():
    good = request_message(
        request_id=1, game_id="g", game="kododo", seat=0, step=0, view={}, legal=[1],
        clock={"remaining_ms": 1, "decision_ms": 1, "bank_ms": None, "increment_ms": 0}, events=[])
    check = validator()
    bad = dict(good)
    del bad["id"]
    assert not check.is_valid(bad)
    assert not check.is_valid({**good, "secret": "other seat's action"})


def test_bot_messages_match_the_schema_and_the_parsers():
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "b", "version": "1"}
    validator("botHello").validate(hello)
    assert parse_hello(hello).name == "b"
    answer = {"id": 3, "action": ["G3", "B1"]}
    validator("answer").validate(answer)
    assert parse_answer(answer) == Answer(3, ["G3", "B1"])
    assert parse_answer({"type": "answer", "id": 3, "action": None}) == Answer(3, None)
    assert parse_answer({"type": "action", "id": 4, "action": 1}) == Answer(4, 1)
    with pytest.raises(ProtocolViolation):
        parse_answer({"type": "hello", "id": 4, "action": 1})


@pytest.mark.parametrize(
    "message",
    [
        {"type": "hello", "protocol": 2, "name": "b"},
        {"type": "hello", "protocol": True, "name": "b"},
        {"type": "hello", "protocol": 1.0, "name": "b"},
        {"type": "hello", "protocol": 1},
        {"type": "hello", "protocol": 1, "name": ""},
        {"type": "hello", "protocol": 1, "name": "b", "version": 3},
        {"protocol": 1, "name": "b"},
        ["hello"],
    ],
)
def test_bad_hellos_are_refused_with_a_reason(message):
    with pytest.raises(ProtocolViolation):
        parse_hello(message)


# Integers and depth inside the protocol's bounds (max_leaves keeps nesting far below 16), so that what
# the schema cannot say is only this: an id must be written as an integer (3.0 is not an id).
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-MAX_INT, max_value=MAX_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["id", "action", "type", "x"]), inner | st.sampled_from(["answer", "action"]), max_size=4),
    max_leaves=10,
)


@given(json_values)
def test_parse_answer_accepts_exactly_the_schema_answers_whose_id_is_an_integer(value):
    schema_ok = validator("answer").is_valid(value) and type(value.get("id")) is int
    try:
        parse_answer(value)
        parsed = True
    except ProtocolViolation:
        parsed = False
    assert parsed == schema_ok


@pytest.mark.parametrize(
    "message, reason",
    [
        ({"id": 3.0, "action": 1}, "an integer from 0 to 2^53-1, got 3.0"),
        ({"id": True, "action": 1}, "got True"),
        ({"id": -1, "action": 1}, "got -1"),
        ({"id": MAX_ID + 1, "action": 1}, "got 9007199254740992"),
        ({"id": 2**64, "action": 1}, "an integer from 0 to 2^53-1"),
        ({"id": 1, "action": [MAX_INT + 1]}, "integer outside"),
        ({"id": 1, "action": {"a": -(2**63) - 1}}, "integer outside"),
        ({"id": 1, "action": "x" * MAX_ACTION_BYTES}, f"more than {MAX_ACTION_BYTES}"),
        ({"id": 1, "action": ["x" * 100] * 200}, f"longer than {MAX_ACTION_BYTES}"),
        ({"id": 1, "action": float("inf")}, "not finite"),
        ({"id": 1, "action": float("nan")}, "not finite"),
    ],
)
def test_answers_outside_the_protocol_bounds_are_refused_with_a_short_reason(message, reason):
    with pytest.raises(ProtocolViolation, match=None) as info:
        parse_answer(message)
    assert reason in str(info.value) and len(str(info.value)) < 200


def nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def test_action_depth_limit_is_exact():
    check_action(nested(MAX_ACTION_DEPTH))
    with pytest.raises(ProtocolViolation, match="nests deeper than 16"):
        check_action(nested(MAX_ACTION_DEPTH + 1))
    with pytest.raises(ProtocolViolation, match="nests deeper"):
        check_action(nested(100_000))  # no recursion anywhere: a huge depth is refused, not a crash


def test_bounds_are_inclusive():
    assert parse_answer({"id": MAX_ID, "action": [MAX_INT, -MAX_INT, 1.5e300]}) == Answer(MAX_ID, [MAX_INT, -MAX_INT, 1.5e300])
    assert parse_answer({"id": 0, "action": "x" * (MAX_ACTION_BYTES - 2)}).request_id == 0  # 2 bytes of quotes


@given(st.recursive(st.integers() | st.text() | st.floats(), lambda i: st.lists(i) | st.dictionaries(st.text(), i), max_leaves=50))
def test_preview_is_short_for_any_value(value):
    assert len(preview(value)) <= 120


def test_preview_of_a_deep_value_does_not_recurse():
    assert preview(nested(100_000)).startswith("[[[[") and len(preview(nested(100_000))) <= 120


def test_the_worked_example_in_protocol_md_is_valid():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
    sent = [line.split("→ ", 1)[1] for line in text.splitlines() if line.startswith("referee → ")]
    answers = [line.split("← ", 1)[1] for line in text.splitlines() if line.startswith("bot     ← ")]
    assert len(sent) >= 5 and len(answers) >= 3
    check = validator()
    for line in sent:
        check.validate(json.loads(line))
    validator("botHello").validate(json.loads(answers[0]))
    for line in answers[1:]:
        validator("answer").validate(json.loads(line))


# Values near the size limit: long strings of characters that escape (control characters, quotes) or
# take several UTF-8 bytes, many numbers, keys that count too.
_near_limit = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-MAX_INT, max_value=MAX_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('a\x01"\\é€😀'), min_size=0, max_size=4000),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(alphabet='k\x02é', max_size=600), inner, max_size=4),
    max_leaves=12,
)


@given(_near_limit)
@example("\x01" * 3000)  # 3,000 characters, 18,002 bytes once escaped
@example(["€" * 6000])  # 3 bytes each in UTF-8
@example({"\x02" * 2800: 1})  # the size is in the key
@example("\x01" * 2730)  # 16,382 bytes: just within
def test_an_action_is_refused_for_its_size_exactly_when_its_encoding_is_over_the_limit(value):
    """check_action skips the encoding when a bound proves the action small: the bound must never be
    below the real size, so the verdict is always the one the exact encoding gives."""
    from arena.jsonvalue import dumps

    too_big = len(dumps(value)) > MAX_ACTION_BYTES
    try:
        check_action(value)
        refused = False
    except ProtocolViolation as exc:
        refused = "longer than" in str(exc) or "bytes, more than" in str(exc)
        assert refused, str(exc)  # nothing else may refuse these values
    assert refused == too_big
