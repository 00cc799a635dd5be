#!/usr/bin/env python3
"""Attack bot (issue 21, item 2): remember a deal from one game and use it in a later one.

Under duplicate deals a table replays one deal in every seat rotation. This bot remembers the hand it
was dealt and the seat it held; when a later game puts it in another seat, it claims that the seat it
left now holds the hand it remembers (true exactly when the later game replays the same deal). Its
memory lives in the process and, when the scratch folder is kept, in $ARENA_SCRATCH, so a restart of
its process does not forget. It proves a claim by writing `CLAIM seat=S hand=[...]` to stderr and
exiting: the crash fault keeps the last lines of stderr, and the test checks the claim against the
real deal of the game.
"""

import json
import os
import sys

SCRATCH = os.environ.get("ARENA_SCRATCH")
MEMORY = os.path.join(SCRATCH, "deal-memory.json") if SCRATCH else None


def load() -> dict:
    if MEMORY and os.path.exists(MEMORY):
        with open(MEMORY, encoding="utf-8") as f:
            return json.load(f)
    return {}


def save(memory: dict) -> None:
    if MEMORY:
        with open(MEMORY, "w", encoding="utf-8") as f:
            json.dump(memory, f)


def main() -> None:
    memory = load()
    first = False
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": "deal-memory", "version": "1"}) + "\n")
            out.flush()
        elif kind == "start":
            first = True
        elif kind == "request":
            if first:
                first = False
                seat, hand = msg["seat"], sorted(msg["view"]["hand"])
                last = memory.get("last")
                memory["last"] = {"seat": seat, "hand": hand}
                save(memory)
                if last is not None and last["seat"] != seat:
                    sys.stderr.write(f"CLAIM seat={last['seat']} hand={json.dumps(last['hand'])}\n")
                    sys.stderr.flush()
                    sys.exit(3)
            out.write(json.dumps({"id": msg["id"], "action": msg["legal"][0]}) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
