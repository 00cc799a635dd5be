#!/usr/bin/env python3
"""A random bot for any arena game: picks uniformly among the legal actions.

Seed: the first argument, else the ARENA_SEED environment variable, else the operating system's
randomness. With a seed, the same requests always get the same answers.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arenabot  # noqa: E402


def main() -> None:
    seed = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed is not None else None)

    def decide(request: dict) -> object:
        return rng.choice(request["legal"])

    arenabot.run(decide, name="random-py", version="1.0")


if __name__ == "__main__":
    main()
