"""A fake pipe for check-bot's protocol side: an in-memory bot and a clock that moves only when asked.

`reply(message)` is the bot: the lines it writes on reading `message` (bytes, without newline), or
`EXIT` to exit. Each reply arrives `think_s` after the message was sent. No process, no sleeping.
"""

from __future__ import annotations

import collections
import json
from typing import Any, Callable, Mapping

from arena.checkbot.session import Line, decode_line
from arena.jsonvalue import JSON

EXIT = b"\x00exit"  # not a line: the bot exits
Reply = Callable[[dict[str, Any]], list[bytes]]


class FakePipe:
    def __init__(self, reply: Reply, think_s: float = 0.001) -> None:
        self.reply = reply
        self.think_s = think_s
        self.t = 0.0
        self.started_at = 0.0
        self.sent: list[dict[str, Any]] = []
        self.lines: collections.deque[Line] = collections.deque()
        self.code: int | None = None
        self.exit_at = 0.0
        self.stdin_closed = False

    def clock(self) -> float:
        return self.t

    def send(self, message: Mapping[str, JSON], timeout: float = 5.0) -> bool:
        if self.code is not None or self.stdin_closed:
            return False
        self.sent.append(dict(message))
        at = self.t + self.think_s
        for raw in self.reply(dict(message)):
            if raw == EXIT:
                self.code, self.exit_at = 0, at
            else:
                self.lines.append(decode_line(raw, at))
        return True

    def next_line(self, deadline: float) -> Line:
        if self.lines and self.lines[0].at <= deadline:
            line = self.lines.popleft()
            self.t = max(self.t, line.at)
            return line
        if not self.lines and self.code is not None:
            return Line(self.t, eof=True)
        self.t = max(self.t, deadline)
        return Line(self.t, timeout=True)

    def drain(self, seconds: float = 0.0) -> list[Line]:
        self.t += seconds
        out = [line for line in self.lines if line.at <= self.t]
        for _ in out:
            self.lines.popleft()
        return out

    def wait_exit(self, seconds: float) -> int | None:
        if self.code is not None:
            self.t = max(self.t, self.exit_at)
        else:
            self.t += seconds
        return self.code

    def exit_code(self) -> int | None:
        return self.code if self.code is not None and self.exit_at <= self.t else None

    def close_stdin(self) -> None:
        self.stdin_closed = True

    def stderr_tail(self) -> tuple[str, ...]:
        return ()


def line(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def polite(action: Callable[[dict[str, Any]], Any] = lambda request: request["legal"][0]) -> Reply:
    """A bot that says hello, answers every request with `action(request)` and exits on shutdown."""

    def reply(message: dict[str, Any]) -> list[bytes]:
        kind = message.get("type")
        if kind == "hello":
            return [line({"type": "hello", "protocol": 1, "name": "fake", "version": "1"})]
        if kind == "request":
            return [line({"id": message["id"], "action": action(message)})]
        if kind == "shutdown":
            return [EXIT]
        return []

    return reply
