#!/usr/bin/env python3
"""A test bot whose every answer depends only on its request: a hash of the view picks a legal action.

So a tournament of these bots gives the same results however its games are spread over processes.
`--delay-ms N` sleeps before each answer (to make a run slow enough to interrupt); `--salt S` changes
the hash, so differently salted entrants play differently.
"""

import argparse
import json
import sys
import time
import zlib


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--salt", default="")
    args = parser.parse_args()
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": "det", "version": "1"}) + "\n")
            out.flush()
        elif kind == "request":
            if args.delay_ms:
                time.sleep(args.delay_ms / 1000)
            legal = msg["legal"]
            key = args.salt + json.dumps(msg["view"], sort_keys=True)
            choice = legal[zlib.crc32(key.encode()) % len(legal)]
            out.write(json.dumps({"id": msg["id"], "action": choice}) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
