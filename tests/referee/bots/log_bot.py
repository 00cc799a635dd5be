#!/usr/bin/env python3
"""A bot that writes on its stderr while it plays (argv[1] says what); it plays the first legal action.

Modes:
  step     "step N" (N: the request's step) on stderr before each answer
  escapes  lines full of terminal escapes and control characters, then "step N"
  flood    from its first request on, a thread writes FLOOD_BYTES (default 10 MB) of 100-byte lines as
           fast as stderr takes them, while the bot answers every request at once
  sleep    sleeps SLEEP_S per request and logs its own time per request to BOT_LOG (as bad_bot)
"""

import json
import os
import sys
import threading
import time

MODE = sys.argv[1]
LOG = os.environ.get("BOT_LOG")
err = sys.stderr.buffer
FLOOD = int(os.environ.get("FLOOD_BYTES", str(10_000_000)))
LINE = b"x" * 99 + b"\n"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def flood() -> None:
    block = LINE * 655
    for _ in range(FLOOD // len(block)):
        err.write(block)
    err.flush()


def on_request(request: dict, count: int) -> None:
    step = request["step"]
    received = time.monotonic()
    if MODE == "step":
        err.write(b"step %d\n" % step)
        err.flush()
    elif MODE == "escapes":
        err.write(b"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x08\x00bell\x07 \xe2\x80\xaereversed\n")
        err.write(b"step %d\n" % step)
        err.flush()
    elif MODE == "flood" and count == 1:
        threading.Thread(target=flood, daemon=True).start()
    elif MODE == "sleep":
        time.sleep(float(os.environ.get("SLEEP_S", "0.05")))
        if LOG:
            with open(LOG, "a") as fh:
                fh.write(json.dumps({"id": request["id"], "took_ms": (time.monotonic() - received) * 1000}) + "\n")
    send({"id": request["id"], "action": request["legal"][0]})


def main() -> None:
    count = 0
    for raw in sys.stdin:
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": f"log-{MODE}", "version": "0"})
        elif kind == "request":
            count += 1
            on_request(message, count)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
