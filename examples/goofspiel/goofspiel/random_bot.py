#!/usr/bin/env python3
"""Goofspiel's random bot: bids a random legal card (seeded per game, so replays are repeatable)."""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import botio  # noqa: E402

rng = random.Random()


def on_start(message: dict) -> None:
    rng.seed(f"{message.get('game_id')}/{message.get('seat')}")


botio.run(lambda request: rng.choice(request["legal"]), "goofspiel-random", on_start)
