"""`arena challenge BOT`, `arena ladder versions` and `arena ladder use VERSION`: a participant's challenges
and its choice of the version that plays, against `arena serve`.

`arena challenge BOT` asks for games of your active bot against BOT (a bot id, or a participant's name
such as `house-py-heuristic`) and follows them to the verdict of `arena match`'s sequential test; its exit
status is `arena match`'s: 0 your bot is better, 1 it is not better by the effect size, 3 undecided (or no
verdict within --timeout: the challenge plays on; its page says how it ends). Loaded for `arena ladder`
too (its `versions` and `use` join the group `arena.cli.compete.submit` makes).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from arena.cli import main
from arena.cli.compete.follow import follow_challenge
from arena.cli.compete.submit import SERVER_HELP, TOKEN_HELP, ladder_group
from arena.errors import ClientError
from arena.textsafe import clean

def _client(server: str | None, token: str | None) -> Any:
    from arena.server.client import Client, settings

    config = settings(server, token)
    if not config.token:
        raise ClientError("no token: pass --token, set ARENA_TOKEN, or put it in ~/.config/arena/client.json")
    return Client(config)


@main.command("challenge")
@click.argument("bot")
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--token", default=None, help=TOKEN_HELP)
@click.option("--timeout", type=click.FloatRange(0, 24 * 3600), default=600, show_default=True,
              help="Seconds to wait for the verdict (the challenge goes on after).")
def challenge_command(bot: str, server: str | None, token: str | None, timeout: float) -> None:
    """Ask for unranked games of your active bot against BOT (a bot id or a participant's name, e.g.
    house-py-heuristic): paired deals until `arena match`'s sequential test decides. Exit status 0 your bot
    is better, 1 not better, 3 undecided or no verdict yet, 4 over your quota of challenges a day."""
    client = _client(server, token)
    try:
        code = follow_challenge(client, bot, timeout)
    finally:
        client.close()
    sys.exit(code)


@ladder_group.command("versions")
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--token", default=None, help=TOKEN_HELP)
def versions_command(server: str | None, token: str | None) -> None:
    """List your bot's versions with their ratings; the active one plays."""
    client = _client(server, token)
    try:
        _code, me = client.call("GET", "/api/v1/me", retry=True)
    finally:
        client.close()
    click.echo(f"{'bot':>6}  {'version':<16} {'status':<10} {'games':>6} {'rating':>8}")
    for b in me.get("bots") or []:
        mark = "  <- plays" if b.get("status") == "active" else ""
        click.echo(f"{int(b['id']):>6}  {clean(b.get('version'), 16):<16} {clean(b.get('status'), 10):<10} "
                   f"{int(b.get('games') or 0):>6} {float(b.get('rating') or 0):>8.2f}{mark}")


@ladder_group.command("use")
@click.argument("version")
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--token", default=None, help=TOKEN_HELP)
def use_command(version: str, server: str | None, token: str | None) -> None:
    """Make VERSION of your bot the one that plays (a rollback): a version label as in your manifest
    (the newest with that label), or a bot id as `#ID` (`arena ladder versions` lists both)."""
    client = _client(server, token)
    try:
        _code, me = client.call("GET", "/api/v1/me", retry=True)
        bots = me.get("bots") or []
        if version.startswith("#") and version[1:].isdigit():
            chosen = [b for b in bots if int(b["id"]) == int(version[1:])]
        else:
            chosen = [b for b in bots if str(b.get("version")) == version]
        if not chosen:
            raise ClientError(f"no version {version!r} of yours: `arena ladder versions` lists them")
        bot = int(chosen[-1]["id"])
        code, body = client.call("POST", f"/api/v1/bots/{bot}/use", (200, 404, 409))
    finally:
        client.close()
    if code != 200:
        click.echo(f"refused: {clean(body.get('error', ''), 500)}")
        sys.exit(1)
    click.echo(clean(body.get("message"), 300))
