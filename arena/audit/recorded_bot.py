"""A bot that plays one seat's actions from a replay: `python -m arena.audit.recorded_bot REPLAY SEAT`.

What `arena replay --seat S=recorded` runs for seat S. At each request it answers the action the seat
played at that step of REPLAY, as long as that action is among the legal ones. From the first step
where it has none, or where the recorded action is not legal any more (the game went another way),
it answers the first legal action for the rest of the game: the fallback every arena game plays for a
seat that gives no answer, so the seat plays on as the referee would play it, with no fault.

It is arena's own code, so it runs unsandboxed; it reads only REPLAY, and speaks protocol 1.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

from arena.jsonvalue import JSON, dumps_line, loads
from arena.protocol import PROTOCOL_VERSION
from arena.replay import Decision, load_replay
from arena.replay.encoding import canonical_bytes


class Recorded:
    """The answers of one seat: recorded while they are legal, then the first legal action."""

    def __init__(self, actions: dict[int, JSON]) -> None:
        self.actions = actions
        self.following = True

    def answer(self, step: int, legal: list[JSON]) -> JSON:
        if self.following and step in self.actions:
            wanted = canonical_bytes(self.actions[step])
            for action in legal:
                if canonical_bytes(action) == wanted:
                    return action
        self.following = False
        return legal[0]


def actions_of(path: str, seat: int) -> dict[int, JSON]:
    return {d.step: d.played for d in load_replay(path).body if isinstance(d, Decision) and d.seat == seat}


def serve(actions: dict[int, JSON], name: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    play = Recorded(actions)
    for line in stdin:
        message = loads(line)
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        reply: JSON = None
        if kind == "hello":
            reply = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": "1"}
        elif kind == "start":
            play = Recorded(actions)
        elif kind == "request":
            step, legal = message.get("step"), message.get("legal")
            if isinstance(step, int) and isinstance(legal, list) and legal:
                reply = {"id": message.get("id"), "action": play.answer(step, legal)}
        elif kind == "shutdown":
            return
        if reply is not None:
            stdout.write(dumps_line(reply))
            stdout.flush()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: python -m arena.audit.recorded_bot REPLAY SEAT", file=sys.stderr)
        return 2
    seat = int(argv[1])
    serve(actions_of(argv[0], seat), f"recorded-seat{seat}", sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
