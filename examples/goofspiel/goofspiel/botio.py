#!/usr/bin/env python3
"""The arena protocol for Goofspiel's bots, standard library only: answer hello, then each request."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable


def run(decide: Callable[[dict[str, Any]], Any], name: str, on_start: Callable[[dict[str, Any]], None] | None = None) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply: dict[str, Any] = {"type": "hello", "protocol": 1, "name": name, "version": "1.0"}
        elif kind == "request":
            reply = {"id": message["id"], "action": decide(message)}
        else:
            if kind == "start" and on_start is not None:
                on_start(message)
            if kind == "shutdown":
                return
            continue  # start, end and message types a later protocol adds
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
