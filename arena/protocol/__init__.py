"""The wire protocol between the referee and a bot: message builders and the parsing of bot lines.

Kept apart from the referee so that the schema, the docs and the tests have one place that says what a
message looks like. Builders return plain dicts; the referee encodes each one exactly once with the
canonical encoder (`arena.jsonvalue.dumps_line`), so what is logged, validated and sent is the same bytes.

Referee -> bot: hello, start, request, end, shutdown. Bot -> referee: hello (the reply), answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena.jsonvalue import JSON

PROTOCOL_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("schema.json")

# Message "type" values, referee -> bot.
HELLO = "hello"
START = "start"
REQUEST = "request"
END = "end"
SHUTDOWN = "shutdown"
ANSWER_TYPES = ("answer", "action")  # an answer's optional "type"; both spellings are in use


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
        raise ProtocolViolation(f'the first line must be {{"type": "hello", ...}}, got {_short(message)}')
    protocol = message.get("protocol")
    if type(protocol) is not int or protocol != PROTOCOL_VERSION:  # JSON true and 1.0 are not 1
        raise ProtocolViolation(f"the bot speaks protocol {protocol!r}, this referee speaks {PROTOCOL_VERSION}")
    name = message.get("name")
    version = message.get("version", "")
    if not isinstance(name, str) or not name or len(name) > 100:
        raise ProtocolViolation(f'the hello needs a "name" (a non-empty string of at most 100 characters), got {name!r}')
    if not isinstance(version, str) or len(version) > 100:
        raise ProtocolViolation(f'the hello "version" must be a string of at most 100 characters, got {version!r}')
    return BotHello(name=name, version=version, protocol=protocol)


def parse_answer(message: Any) -> tuple[int, JSON]:
    """(id, action) of an answer line; raises ProtocolViolation for anything else."""
    if type(message) is not dict:
        raise ProtocolViolation(f'an answer must be a JSON object {{"id": ..., "action": ...}}, got {_short(message)}')
    request_id = message.get("id")
    if type(request_id) is float and request_id.is_integer():
        request_id = int(request_id)  # 3.0 is 3 in JSON
    if type(request_id) is not int:
        raise ProtocolViolation(f'an answer needs the integer "id" of its request, got {_short(message)}')
    if "action" not in message:
        raise ProtocolViolation(f'an answer needs an "action", got {_short(message)}')
    kind = message.get("type", "answer")
    if kind not in ANSWER_TYPES:
        raise ProtocolViolation(f'an answer has "type": "answer" (or "action", or no type), got {kind!r}')
    return request_id, message["action"]


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "PROTOCOL_VERSION",
    "SCHEMA_PATH",
    "BotHello",
    "ProtocolViolation",
    "end_message",
    "hello_message",
    "parse_answer",
    "parse_hello",
    "request_message",
    "shutdown_message",
    "start_message",
]
