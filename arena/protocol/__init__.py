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
from arena.protocol.exchange import (
    ANSWER_TYPES,
    MAX_ACTION_BYTES,
    MAX_ACTION_DEPTH,
    MAX_ID,
    MAX_INT,
    Answer,
    REQUEST,
    check_action,
    parse_answer,
    request_message,
)
from arena.protocol.wording import PREVIEW_CHARS, ProtocolViolation, preview

PROTOCOL_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("schema.json")

# Message "type" values, referee -> bot.
HELLO = "hello"
START = "start"
END = "end"
SHUTDOWN = "shutdown"

# Said beside "no hello within ... ms" of a bot still running: the first mistake of nearly every new bot.
NO_HELLO_HINT = ("the likely cause: it is running but its hello never reached arena: flush stdout after every line "
                 "(Python: print(..., flush=True); C: fflush(stdout); Java: System.out.flush(); "
                 "Node: process.stdout.write), or it waits to read before it writes its hello")


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


__all__ = [
    "PROTOCOL_VERSION",
    "ANSWER_TYPES",
    "PREVIEW_CHARS",
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
