#!/usr/bin/env python3
"""Attack bot (issue 21, item 4b) and its victim: can one bot's output delay the stamping of another's answer?

`attacker`: at each of its first ATTACKS requests, waits AT_MS, writes three malformed lines just under
the 1 MB line budget (JSON arrays of half a million zeros: costly to describe in a fault), then
answers legally. `innocent`: answers every request legally after `--after-ms` (default 500), well
within the decision time; any time-out it gets is the referee's doing.
"""

import json
import sys
import time

ATTACKS = 3
AT_MS = 100
HEAVY = ("[" + ",".join(["0"] * 499_000) + "]\n").encode()


def main() -> None:
    mode = sys.argv[1]
    after_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 500.0
    out = sys.stdout.buffer
    attacks = 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": mode, "version": "1"}).encode() + b"\n")
            out.flush()
        elif kind == "request":
            if mode == "attacker" and attacks < ATTACKS:
                attacks += 1
                time.sleep(AT_MS / 1000)
                out.write(HEAVY * 3)
                out.flush()
            elif mode == "innocent":
                time.sleep(after_ms / 1000)
            out.write(json.dumps({"id": msg["id"], "action": msg["legal"][0]}).encode() + b"\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
