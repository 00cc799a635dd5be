#!/usr/bin/env python3
"""Attack bot (issue 21, item 6): behave under check-bot, misbehave in real games.

It looks for what told check-bot's games apart: a game id starting `check-` or holding the seed in
clear (`<game>-<digits>-<hex>`), or players named `seat0`, `seat1`, ... Where it sees one, it plays
legally; everywhere else it takes the game for a real one and exits at its first request (in a real
tournament it would do worse, quietly). check-bot passing it means check-bot was told apart.
"""

import json
import re
import sys


def looks_like_check_bot(start: dict) -> bool:
    gid = str(start.get("game_id", ""))
    names = [str(p) for p in start.get("players", [])]
    return (gid.startswith("check-") or re.fullmatch(r"[a-z-]+?-\d+-[0-9a-f]{8}", gid) is not None
            or all(re.fullmatch(r"seat\d+", n) for n in names)
            or len(set(names)) == 1)  # every seat the same bot: check-bot's referee game


def main() -> None:
    out = sys.stdout
    checked = True
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": "two-faced", "version": "1"}) + "\n")
            out.flush()
        elif kind == "start":
            checked = looks_like_check_bot(msg)
        elif kind == "request":
            if not checked:
                sys.stderr.write("a real game: misbehaving\n")
                sys.exit(3)
            out.write(json.dumps({"id": msg["id"], "action": msg["legal"][0]}) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
