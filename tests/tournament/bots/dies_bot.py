#!/usr/bin/env python3
"""The deterministic test bot, except that it exits (status 3) at its first request of one game.

`--die-in ID` names the game by its game id (the id bots see), so the crash happens in the
same game however the tournament's games are spread over workers. Every other game is played as
det_bot.py plays it; the process that replaces the dead one plays on normally.
"""

import argparse
import json
import sys
import zlib


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--die-in", required=True)
    parser.add_argument("--salt", default="")
    args = parser.parse_args()
    out = sys.stdout
    doomed = False
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": "dies", "version": "1"}) + "\n")
            out.flush()
        elif kind == "start":
            doomed = str(msg.get("game_id", "")) == args.die_in
        elif kind == "request":
            if doomed:
                sys.exit(3)
            legal = msg["legal"]
            key = args.salt + json.dumps(msg["view"], sort_keys=True)
            choice = legal[zlib.crc32(key.encode()) % len(legal)]
            out.write(json.dumps({"id": msg["id"], "action": choice}) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
