#!/usr/bin/env python3
"""A bot with one deliberate flaw, chosen by its first argument, for check-bot's tests.

Modes: ok (a correct bot), silent (reads, never answers), no-flush-after-first-game, crash-on-unknown-event, ignore-shutdown,
slow-start (sleeps 0.8 s before its hello), illegal-on-spirit (Kodama Duo: a bad answer to the
`spirit` decision only), stdout-noise (a debug line on stdout at each game's start).
Otherwise it plays the first legal action.
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
KNOWN_EVENTS = {
    "round_scored", "reveal", "draw", "drew", "hand", "play", "round_start", "round_end", "game_end", "reshuffle",
    "draw_skipped", "new_deal", "season", "split", "choose", "place", "cannot_place", "discard", "spirit",
    "no_spirit", "kodama_phase", "kodama", "game_over", "pass", "deal",
}
games = 0
OUT = os.fdopen(1, "wb", buffering=65536, closefd=False)  # buffered whatever PYTHONUNBUFFERED says


def say(message):
    OUT.write((json.dumps(message) + "\n").encode())
    if not (MODE == "no-flush-after-first-game" and games >= 1):
        OUT.flush()


def handle_events(events):
    for event in events:
        if event["kind"] not in KNOWN_EVENTS:  # the flaw: a table lookup with no default
            raise KeyError(f"no handler for event kind {event['kind']!r}")


if MODE == "slow-start":
    time.sleep(0.8)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if MODE == "silent":
        continue
    if kind == "hello":
        say({"type": "hello", "protocol": 1, "name": f"broken-{MODE}", "version": "1"})
    elif kind == "start":
        if MODE == "stdout-noise":
            OUT.write(f"\x1b[31mdebug:\x1b[0m starting game {message['game_id']}\n".encode())
            OUT.flush()
    elif kind == "request":
        if MODE == "crash-on-unknown-event":
            handle_events(message["events"])
        action = message["legal"][0]
        if MODE == "illegal-on-spirit" and message["view"].get("decision") == "spirit":
            action = {"spirit": "dragon", "on": ["T1", 0]}
        say({"id": message["id"], "action": action})
    elif kind == "end":
        if MODE == "crash-on-unknown-event":
            handle_events(message["events"])
        games += 1
    elif kind == "shutdown" and MODE != "ignore-shutdown":
        sys.exit(0)
if MODE == "ignore-shutdown":
    time.sleep(30)
