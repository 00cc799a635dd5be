"""The wire protocol between the referee and a bot: message builders and the parsing of bot lines.

Kept apart from the referee so that the schema, the docs and the tests have one place that says what a
message looks like. Builders return plain dicts; the referee encodes each one exactly once with the
canonical encoder (`arena.jsonvalue.dumps_line`), so what is logged, validated and sent is the same bytes.

Referee -> bot: hello, start, request, end, shutdown. Bot -> referee: hello (the reply), answer.
"""

from __future__ import annotations

import itertools

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

from arena.jsonvalue import JSON, dumps

PROTOCOL_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("schema.json")

# Message "type" values, referee -> bot.
HELLO = "hello"
START = "start"
REQUEST = "request"
END = "end"
SHUTDOWN = "shutdown"
ANSWER_TYPES = ("answer", "action")  # an answer's optional "type"; both spellings are in use

# What an answer may contain (protocol.md, "answer"). Anything else is a malformed answer.
MAX_ID = 2**53 - 1  # ids are integers 0 <= id <= MAX_ID (JSON true and 3.0 are not ids)
MAX_INT = 2**53 - 1  # integers inside an action: -MAX_INT <= n <= MAX_INT
MAX_ACTION_DEPTH = 16  # arrays and objects nest at most this deep in an action ([] is depth 1)
MAX_ACTION_BYTES = 16_384  # an action's canonical encoding is at most this many bytes
# A flat list of at most _FLAT_ITEMS strings of at most _FLAT_CHARS characters is within every bound
# without a walk: its encoding is at most _FLAT_WORST bytes (each character escaped as \uXXXX at worst).
_FLAT_ITEMS = 16
_FLAT_CHARS = 128
_FLAT_WORST = 2 * _FLAT_ITEMS + 2 + _FLAT_ITEMS * (6 * _FLAT_CHARS + 2)
assert _FLAT_WORST <= MAX_ACTION_BYTES
# Said beside "no hello within ... ms" of a bot still running: the first mistake of nearly every new bot.
NO_HELLO_HINT = ("the likely cause: it is running but its hello never reached arena: flush stdout after every line "
                 "(Python: print(..., flush=True); C: fflush(stdout); Java: System.out.flush(); "
                 "Node: process.stdout.write), or it waits to read before it writes its hello")
PREVIEW_CHARS = 120  # a bad value is shown in a fault detail cut to about this many characters


class ProtocolViolation(ValueError):
    """A bot line that is valid JSON but not the message the protocol expects there."""


def hello_message(referee_version: str) -> dict[str, JSON]:
    return {"type": HELLO, "protocol": PROTOCOL_VERSION, "referee": f"arena {referee_version}"}


def start_message(
    *,
    game_id: str,
    game: str,
    game_version: str,
    options: Mapping[str, JSON],
    seat: int,
    players: Sequence[str],
    time_control: Mapping[str, JSON],
) -> dict[str, JSON]:
    return {
        "type": START,
        "game_id": game_id,
        "game": game,
        "game_version": game_version,
        "options": dict(options),
        "seat": seat,
        "players": list(players),
        "time_control": dict(time_control),
    }


def request_message(
    *,
    request_id: int,
    game_id: str,
    game: str,
    seat: int,
    step: int,
    view: JSON,
    legal: list[JSON],
    clock: Mapping[str, JSON],
    events: list[JSON],
) -> dict[str, JSON]:
    return {
        "type": REQUEST,
        "id": request_id,
        "game_id": game_id,
        "game": game,
        "seat": seat,
        "step": step,
        "view": view,
        "legal": legal,
        "clock": clock,
        "events": events,
    }


def end_message(*, game_id: str, game: str, seat: int, events: list[JSON], result: Mapping[str, JSON]) -> dict[str, JSON]:
    return {"type": END, "game_id": game_id, "game": game, "seat": seat, "events": events, "result": dict(result)}


def shutdown_message() -> dict[str, JSON]:
    return {"type": SHUTDOWN}


@dataclass(frozen=True)
class BotHello:
    name: str
    version: str
    protocol: int


def parse_hello(message: Any) -> BotHello:
    """The bot's reply to the referee's hello; raises ProtocolViolation saying what to fix."""
    if not isinstance(message, dict) or message.get("type") != HELLO:
        raise ProtocolViolation(f'the first line must be {{"type": "hello", ...}}, got {preview(message)}')
    protocol = message.get("protocol")
    if type(protocol) is not int or protocol != PROTOCOL_VERSION:  # JSON true and 1.0 are not 1
        raise ProtocolViolation(f"the bot speaks protocol {preview(protocol)}, this referee speaks {PROTOCOL_VERSION}")
    name = message.get("name")
    version = message.get("version", "")
    if not isinstance(name, str) or not name or len(name) > 100:
        raise ProtocolViolation(f'the hello needs a "name" (a non-empty string of at most 100 characters), got {preview(name)}')
    if not isinstance(version, str) or len(version) > 100:
        raise ProtocolViolation(f'the hello "version" must be a string of at most 100 characters, got {preview(version)}')
    return BotHello(name=name, version=version, protocol=protocol)


class Answer(NamedTuple):
    """A well-formed answer line: the id it answers and its action (checked by `check_action`).
    A named tuple: one is made for every decision, and a tuple is the cheapest record to make."""

    request_id: int
    action: JSON


def parse_answer(message: Any) -> Answer:
    """The answer in a parsed bot line; raises ProtocolViolation (a short reason) for anything else.

    Accepted exactly: a JSON object with an integer "id" in [0, MAX_ID] (not a bool, not a float such
    as 3.0) and an "action" that passes `check_action`; an optional "type" of "answer" or "action";
    other members are ignored.
    """
    if type(message) is not dict:
        raise ProtocolViolation(f'an answer must be a JSON object {{"id": ..., "action": ...}}, got {preview(message)}')
    request_id = message.get("id")
    if type(request_id) is not int or not 0 <= request_id <= MAX_ID:
        raise ProtocolViolation(
            f'an answer needs the "id" of its request, an integer from 0 to 2^53-1, got {preview(request_id)}'
        )
    if "action" not in message:
        raise ProtocolViolation(f'an answer needs an "action", got {preview(message)}')
    kind = message.get("type", "answer")
    if kind not in ANSWER_TYPES:
        raise ProtocolViolation(f'an answer has "type": "answer" (or "action", or no type), got {preview(kind)}')
    action = message["action"]
    check_action(action)
    return Answer(request_id, action)


def check_action(action: JSON) -> None:
    """Raise ProtocolViolation unless `action` is within the protocol's bounds: nesting at most
    MAX_ACTION_DEPTH, integers within +-MAX_INT, finite floats, string keys, and a canonical encoding of
    at most MAX_ACTION_BYTES. Within them every writer (wire, replay, store) can encode it.

    The exact size (an encoding) is only measured when an upper bound on it, kept during the walk,
    could pass the limit: a small action (a number, a short list) is judged without encoding it."""
    kind = type(action)
    if kind is int:  # the common answer: one number
        if not -MAX_INT <= action <= MAX_INT:
            raise ProtocolViolation(f"the action has an integer outside +-(2^53-1): {preview(action)}")
        return
    if kind is list and len(action) <= _FLAT_ITEMS:  # the other common one: a few short strings
        for item in action:
            if type(item) is not str or len(item) > _FLAT_CHARS:
                break
        else:
            return  # within every bound: depth 1, and at most _FLAT_WORST bytes
    stack: list[tuple[JSON, int]] = [(action, 0)]
    budget = MAX_ACTION_BYTES  # rough size so far: stops the walk of a huge value early
    worst = 0  # an upper bound on the canonical encoding's size
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind is list or kind is dict:
            if depth >= MAX_ACTION_DEPTH:
                raise ProtocolViolation(f"the action nests deeper than {MAX_ACTION_DEPTH} levels")
            budget -= len(value) + 2
            if budget < 0:  # before walking its items: a huge value costs nothing more
                raise ProtocolViolation(f"the action is longer than {MAX_ACTION_BYTES} bytes")
            worst += 2 * len(value) + 2  # brackets, commas and colons
            items = value.values() if kind is dict else value
            if kind is dict:
                if any(type(k) is not str for k in value):
                    raise ProtocolViolation("the action has an object key that is not a string")
                worst += sum(6 * len(k) + 2 for k in value)
            stack.extend((item, depth + 1) for item in items)
        elif kind is int:
            if not -MAX_INT <= value <= MAX_INT:
                raise ProtocolViolation(f"the action has an integer outside +-(2^53-1): {preview(value)}")
            budget -= 1
            worst += 17  # a sign and 16 digits
        elif kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                raise ProtocolViolation("the action has a number that is not finite")
            budget -= 1
            worst += 24  # the longest shortest-round-trip repr of a double
        elif kind is str:
            budget -= len(value)
            worst += 6 * len(value) + 2  # every character escaped as \uXXXX at worst
        elif value is None or kind is bool:
            worst += 5
        else:
            raise ProtocolViolation(f"the action has a value that is not JSON: {preview(value)}")
        if budget < 0:
            raise ProtocolViolation(f"the action is longer than {MAX_ACTION_BYTES} bytes")
    if worst <= MAX_ACTION_BYTES:
        return
    size = len(dumps(action))
    if size > MAX_ACTION_BYTES:
        raise ProtocolViolation(f"the action is {size} bytes, more than {MAX_ACTION_BYTES}")


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A short, bounded text of any parsed JSON value, safe however large or deep it is."""
    parts: list[str] = []
    size = 0
    stack: list[Any] = [value]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, _Raw):
            text = item.text
        elif type(item) is list:
            # Only the first `limit` items can show (each takes a character at least): the work on a
            # value is bounded by the preview's size, never by the value's (a bot's 1 MB line).
            stack.append(_Raw(", ...]" if len(item) > limit else "]"))
            stack.extend(reversed([x for pair in ((_Raw(", "), v) for v in item[:limit]) for x in pair][1:]))
            text = "["
        elif type(item) is dict:
            stack.append(_Raw(", ...}" if len(item) > limit else "}"))
            shown = itertools.islice(item.items(), limit)
            entries = [x for k, v in shown for x in (_Raw(", "), _Raw(f"{str(k)[:limit]!r}: "), v)][1:]
            stack.extend(reversed(entries))
            text = "{"
        elif type(item) is str:
            text = repr(item[: limit + 1])
        elif type(item) is int and abs(item) > 10**30:  # not from JSON (orjson reads these as floats)
            text = "a huge integer"
        else:
            text = repr(item)
        parts.append(text)
        size += len(text)
    text = "".join(parts)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


@dataclass(frozen=True)
class _Raw:
    text: str


__all__ = [
    "PROTOCOL_VERSION",
    "SCHEMA_PATH",
    "MAX_ACTION_BYTES",
    "MAX_ACTION_DEPTH",
    "MAX_ID",
    "MAX_INT",
    "Answer",
    "BotHello",
    "ProtocolViolation",
    "end_message",
    "hello_message",
    "parse_answer",
    "parse_hello",
    "check_action",
    "preview",
    "request_message",
    "shutdown_message",
    "start_message",
]
