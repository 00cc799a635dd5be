#!/usr/bin/env python3
"""A random bot for every arena game: each request lists every legal action; it picks one."""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arena_protocol  # noqa: E402


class RandomBot(arena_protocol.Bot):
    def __init__(self, seed: str | None) -> None:
        self.rng = random.Random(seed)

    def start(self, message: dict) -> None:
        arena_protocol.log(f"random-python: a game of {message['game']} in seat {message['seat']}")

    def decide(self, request: dict) -> object:
        return self.rng.choice(request["legal"])


if __name__ == "__main__":
    arena_protocol.run(RandomBot(os.environ.get("ARENA_SEED")), "random-python", "1.0")
