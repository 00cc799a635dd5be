"""arenabot: a single-file helper for writing arena bots in Python. Copy it next to your bot.

    import arenabot

    def decide(request):
        # request["view"]: what your seat may know; request["legal"]: every legal action;
        # request["clock"]["remaining_ms"]: time for this decision; request["events"]: news since
        # your last message. Return one action (any JSON value the game accepts).
        return request["legal"][0]

    arenabot.run(decide, name="my-bot", version="1.0")

It speaks arena protocol 1 (see protocol.md): answers the referee's hello, then any number of games,
then exits on shutdown or end of input. Print debugging output to stderr (`log(...)`), never to
stdout: stdout carries the protocol only. Uses only the standard library (orjson if installed).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

try:  # orjson is ~10x faster at parsing big views; the standard library is enough
    import orjson as _orjson

    def _loads(line: bytes) -> Any:
        return _orjson.loads(line)

    def _dumps(value: Any) -> bytes:
        return _orjson.dumps(value) + b"\n"

except ImportError:  # pragma: no cover - depends on the interpreter running the bot
    import json as _json

    def _loads(line: bytes) -> Any:
        return _json.loads(line)

    def _dumps(value: Any) -> bytes:
        return (_json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


PROTOCOL_VERSION = 1


def log(*parts: Any) -> None:
    """Debug output for humans: goes to stderr, which the referee keeps the last lines of."""
    print(*parts, file=sys.stderr, flush=True)


def run(
    decide: Callable[[dict], Any],
    name: str = "python-bot",
    version: str = "0.1",
    on_start: Optional[Callable[[dict], None]] = None,
    on_end: Optional[Callable[[dict], None]] = None,
) -> None:
    """Serve the referee until it says shutdown or closes stdin.

    `decide(request)` gets each request message and returns the action; `on_start(message)` and
    `on_end(message)` are called at the start and end of each game (the end message has the result).
    """
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    for line in stdin:
        message = _loads(line)
        kind = message.get("type")
        if kind == "request":
            action = decide(message)
            stdout.write(_dumps({"id": message["id"], "action": action}))
            stdout.flush()
        elif kind == "hello":
            stdout.write(_dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version}))
            stdout.flush()
        elif kind == "start":
            if on_start is not None:
                on_start(message)
        elif kind == "end":
            if on_end is not None:
                on_end(message)
        elif kind == "shutdown":
            return
        # Unknown message types are ignored: later protocol versions may add some.
