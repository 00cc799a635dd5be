"""Following a challenge from the terminal to its verdict (`arena challenge BOT`, `arena submit --challenge BOT`)."""

from __future__ import annotations

import time
from typing import Any

import click

from arena.textsafe import clean

EXIT = {"better": 0, "not-better": 1, "undecided": 3}
VERDICT = {"better": "your bot is better (H1 accepted)", "not-better": "your bot is not better by the effect size (H0 accepted)",
           "undecided": "undecided at the challenge's most games"}


def follow_challenge(client: Any, opponent: str, timeout: float, poll: float = 2.0) -> int:
    """Ask for the challenge, print its progress and its verdict; the exit status."""
    value: Any = int(opponent) if opponent.isdigit() else opponent
    code, body = client.call("POST", "/api/v1/challenges", (201, 409, 429), json={"opponent": value})
    if code != 201:
        click.echo(f"refused: {clean(body.get('error', ''), 500)}")
        return 2 if code == 409 else 4
    cid = int(body["challenge"])
    click.echo(f"challenge {cid}: asked; its page: {client.config.server}/challenges/{cid}", err=True)
    deadline = time.monotonic() + timeout
    shown = -1
    while True:
        _code, ch = client.call("GET", f"/api/v1/challenges/{cid}", retry=True)
        if ch.get("deals") != shown:
            shown = int(ch.get("deals") or 0)
            click.echo(f"challenge {cid}: {len(ch.get('games') or [])} games, LLR {float(ch.get('llr') or 0):.2f} in "
                       f"{ch.get('llr_bounds')}, {clean(ch.get('estimate'), 120)}", err=True)
        verdict = ch.get("verdict")
        if verdict is not None or time.monotonic() >= deadline:
            break
        time.sleep(poll)
    if verdict is None:
        click.echo(f"challenge {cid}: no verdict yet after {timeout:g} s ({len(ch.get('games') or [])} games); it plays on: "
                   f"its page is {client.config.server}/challenges/{cid}")
        return 3
    click.echo(f"challenge {cid}: verdict: {VERDICT.get(str(verdict), clean(verdict, 40))} after {ch.get('deals')} deals "
               f"({len(ch.get('games') or [])} games); test {clean(ch.get('test'), 200)}; {clean(ch.get('estimate'), 120)}")
    return EXIT.get(str(verdict), 3)


