#!/usr/bin/env python3
"""Goofspiel's heuristic bot: bids the card whose rank in its hand matches the prize's rank among the
prizes left (a big prize gets a big card, a small prize a small one), one higher when that card would
tie the best the others can still bid."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import botio  # noqa: E402


def decide(request: dict) -> int:
    view, legal = request["view"], sorted(request["legal"])
    prize, seat = view["prize"], view["seat"]
    played = {r["prize"] for r in view["history"]}
    left = sorted(p for p in range(1, view["rounds"] + 1) if p not in played)  # the prizes still to win
    rank = left.index(prize) if prize in left else len(left) - 1
    bid = legal[min(len(legal) - 1, rank * len(legal) // max(1, len(left)))]
    best_other = max((max(h) for s, h in enumerate(view["hands"]) if s != seat and h), default=0)
    if bid == best_other and bid != legal[-1]:
        bid = legal[legal.index(bid) + 1]
    return bid


botio.run(decide, "goofspiel-heuristic")
