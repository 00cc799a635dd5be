"""arena_protocol: the arena bot protocol (protocol.md) in Python, standard library only.

    import arena_protocol

    class MyBot(arena_protocol.Bot):
        def decide(self, request):
            return request["legal"][0]     # any element of "legal" is a legal answer

    arena_protocol.run(MyBot(), name="my-bot", version="1.0")

`start(message)` and `end(message)` are called at each game's start and end (the end has the
result). Log with `log(...)` (stderr): stdout carries the protocol only.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any


class Bot:
    def start(self, message: dict[str, Any]) -> None:
        """A game begins: game, seat, players, options, time_control."""

    def decide(self, request: dict[str, Any]) -> Any:
        """Decide now: view, legal (every legal action), clock, events. Return one action."""
        raise NotImplementedError

    def end(self, message: dict[str, Any]) -> None:
        """The game is over: its result."""


def log(*parts: Any) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _send(output: IO[str], message: dict[str, Any]) -> None:
    output.write(json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n")
    output.flush()


def serve(input: IO[str], output: IO[str], bot: Bot, name: str, version: str) -> None:
    """The protocol loop on any text streams (the tests give it StringIO); returns at shutdown or end of input."""
    for line in input:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as problem:
            log(f"arena: cannot read the referee's line: {problem}")
            continue
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            _send(output, {"type": "hello", "protocol": 1, "name": name, "version": version})
        elif kind == "request":
            _send(output, {"id": message["id"], "action": bot.decide(message)})
        elif kind == "start":
            bot.start(message)
        elif kind == "end":
            bot.end(message)
        elif kind == "shutdown":
            return
        # unknown messages are ignored: later protocol versions may add some


def run(bot: Bot, name: str, version: str) -> None:
    serve(sys.stdin, sys.stdout, bot, name, version)
