#!/usr/bin/env python3
"""Attack bot (issue 21, item 3): find the deal's seed from what a bot is told, with the public engine.

It carries a copy of arena's engine beside it (`arena/` in its folder, as any participant can) and,
at its first request, tries what the game id and the public names give away:
- a game id holding the seed (`<game>-<seed>-<hex>`, the old `arena play` and check-bot ids);
- a tournament game id `<name>-r<R>-t<T>-s<S>`: the deal seed is derive_seed(master, "deal", R,
  names at the table in table order), with the master seed found by trying 0..LIMIT-1; the names
  are public (the config's entrants, given as arguments in table order);
- whatever the id, the same brute force over rounds 0..2.
A candidate is right when the engine deals it the hand it holds. It proves a find by writing
`FOUND seed=N` to stderr and exiting (the crash fault keeps stderr's last lines).
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arena.games.registry import get_game  # noqa: E402  (the bot's own copy of the public engine)
from arena.rng import derive_seed  # noqa: E402

LIMIT = 2500


def candidates(start: dict, table: list):
    gid = str(start["game_id"])
    m = re.fullmatch(r"[a-z-]+?-(\d+)-[0-9a-f]{8}", gid)
    if m:
        yield int(m.group(1))
    m = re.search(r"-r(\d+)-t(\d+)-s(\d+)$", gid)
    rounds = [int(m.group(1))] if m else [0, 1, 2]
    for master in range(LIMIT):
        for rnd in rounds:
            yield derive_seed(master, "deal", rnd, *table)


def main() -> None:
    start = None
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "protocol": 1, "name": "seed-guess", "version": "1"}) + "\n")
            out.flush()
        elif kind == "start":
            start = msg
        elif kind == "request":
            if start is not None:
                spec = get_game(start["game"])
                hand = sorted(msg["view"]["hand"])
                for seed in candidates(start, sys.argv[1:]):
                    state = spec.new_game(len(start["players"]), start["options"], seed)
                    if sorted(state.view(start["seat"])["hand"]) == hand:
                        sys.stderr.write(f"FOUND seed={seed}\n")
                        sys.stderr.flush()
                        sys.exit(3)
                start = None
            out.write(json.dumps({"id": msg["id"], "action": msg["legal"][0]}) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
