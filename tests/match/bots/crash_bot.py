#!/usr/bin/env python3
"""A bot that answers its handshake, then exits (status 3) at the first request of every game."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "protocol": 1, "name": "crash", "version": "1"}) + "\n")
        sys.stdout.flush()
    elif msg.get("type") == "request":
        sys.stderr.write("crash_bot: giving up\n")
        sys.exit(3)
    elif msg.get("type") == "shutdown":
        break
