#!/usr/bin/env python3
"""A random bot for any arena game: picks uniformly among the legal actions.

Seed: the first argument, else the ARENA_SEED environment variable, else the operating system's
randomness; mixed with the game id and the seat at each game's start, so that with a seed the same
game always gets the same answers.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arenabot  # noqa: E402


def main() -> None:
    seed = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ARENA_SEED")
    base = int(seed) if seed is not None else random.SystemRandom().getrandbits(64)
    rng = random.Random(base)

    def on_start(message: dict) -> None:
        # One stream per game: moves then depend on nothing played elsewhere, so a tournament's
        # results do not depend on how games were shared out between processes.
        rng.seed(f"{base}/{message.get('game_id')}/{message.get('seat')}")

    def decide(request: dict) -> object:
        return rng.choice(request["legal"])

    arenabot.run(decide, name="random-py", version="1.0", on_start=on_start)


if __name__ == "__main__":
    main()
