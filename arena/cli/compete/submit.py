"""`arena submit PATH` and `arena ladder status`: a participant's commands against `arena serve`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from arena.cli import main
from arena.errors import ClientError
from arena.textsafe import clean

SERVER_HELP = "The server's address (else $ARENA_SERVER, else ~/.config/arena/client.json, else http://127.0.0.1:8750)."
EXIT_UPLOADS_CLOSED = 3  # `arena submit` after the competition's deadline: nothing uploaded
TOKEN_HELP = "Your participant token (else $ARENA_TOKEN, else ~/.config/arena/client.json)."


@main.command("submit")
@click.argument("path", type=click.Path(path_type=Path), required=False)
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--token", default=None, help=TOKEN_HELP)
@click.option("--check-timeout", type=click.FloatRange(1, 3600), default=600, show_default=True,
              help="Seconds to wait for the check's verdict.")
@click.option("--games", "first_games", type=click.IntRange(0, 1000), default=3, show_default=True,
              help="After joining, wait for this many ladder games and print where the bot stands (0: do not wait).")
@click.option("--games-timeout", type=click.FloatRange(0, 3600), default=120, show_default=True,
              help="Seconds to wait for those games.")
@click.option("--follow", "follow", type=click.IntRange(1), default=None, metavar="N",
              help="Upload nothing: follow submission N (one you uploaded before) to its verdict.")
@click.option("--retry-timeout", type=click.FloatRange(0, 3600), default=120, show_default=True,
              help="Seconds to go on trying while the server does not answer (a restart) before giving up.")
@click.option("--challenge", "challenge", default=None, metavar="BOT",
              help="Once the bot joined, challenge BOT with it (as `arena challenge BOT`; the exit status is its verdict's).")
def submit_command(path: Path | None, server: str | None, token: str | None, check_timeout: float, first_games: int,
                   games_timeout: float, follow: int | None, retry_timeout: float, challenge: str | None = None) -> None:
    """Upload a bot (a folder with manifest.json, or a .zip/.tar.gz of one), follow its check, print the
    verdict (and the bot's stderr when refused) and where it stands after its first games.
    Exit status 0 only when the bot joined the ladder; 1 when refused; 3 when uploads are closed (the
    competition's deadline has passed: it prints "uploads closed since <time>"); 2 for any other error."""
    from arena.server.client import Client, pack, settings, standing

    config = settings(server, token)
    if config.warning:
        click.echo(f"arena: warning: {config.warning}", err=True)
    if (path is None) == (follow is None):
        raise click.UsageError("give PATH to upload a bot, or --follow N to follow submission N")
    data = b""
    if path is not None and path.is_dir():
        from arena.build.pack import pack_bot_folder

        packed = pack_bot_folder(str(path))
        data = packed.data
        click.echo(f"packed {path}: {packed.files} files, {packed.bytes} bytes ({len(data)} bytes compressed)", err=True)
    elif path is not None:
        data = pack(path)
    client = Client(config, retry_s=retry_timeout, on_retry=lambda m: click.echo(f"arena: {m}", err=True))
    try:
        if follow is None:
            code, body = client.submit(data)
            sub = body.get("submission")
            if code == 403 and str(body.get("error", "")).startswith("uploads closed since"):
                click.echo(clean(body.get("error"), 300))  # "uploads closed since <time>: ..."
                sys.exit(EXIT_UPLOADS_CLOSED)
            if code == 403:
                raise ClientError(f"{config.server}: {clean(body.get('error', 'HTTP 403'), 500)}")
            if code == 422:
                click.echo(f"refused: {body.get('error')}")
                sys.exit(1)
            click.echo(f"submission {sub}: uploaded {len(data)} bytes to {config.server} "
                       f"(follow it later with `arena submit --follow {sub}`)", err=True)
        else:
            sub = follow
        verdict = client.follow(int(str(sub)), lambda s: click.echo(f"submission {sub}: {s}", err=True), check_timeout)
        if verdict["status"] != "passed":
            click.echo(f"refused: {verdict.get('reason')}")
            click.echo("--- the check's report, with your bot's stderr ---")
            click.echo(str(verdict.get("report", "")).rstrip())
            sys.exit(1)
        bot = int(verdict["bot"])
        click.echo(f"passed: {verdict.get('reason')}")
        click.echo(f"bot {bot} joined the ladder: {config.server}/bots/{bot}")
        deadline = time.monotonic() + games_timeout
        while first_games and client.bot(bot).get("games", 0) < first_games and time.monotonic() < deadline:
            time.sleep(1.0)
        click.echo(f"bot {bot}: {standing(client.leaderboard(), bot)}")
        if challenge is not None:
            from arena.cli.compete.follow import follow_challenge

            sys.exit(follow_challenge(client, challenge, check_timeout))
    finally:
        client.close()


@main.group("ladder")
def ladder_group() -> None:
    """Look at a competition server's ladder."""


@ladder_group.command("status")
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the server's facts and its leaderboard as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the leaderboard as CSV.")
def status_command(server: str | None, as_json: bool, as_csv: bool) -> None:
    """Print the leaderboard of the server's ladder."""
    from arena.server.client import Client, leaderboard_csv, leaderboard_text, settings

    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    client = Client(settings(server, None))
    try:
        if as_json or as_csv:
            board = client.leaderboard()
            click.echo(json.dumps({"server": client.info(), "leaderboard": board}, indent=1) if as_json
                       else leaderboard_csv(board), nl=as_json)
            return
        info = client.info()
        state = "paused" if info.get("paused") else "running"
        click.echo(f"{info.get('name')} ({info.get('game')}): {info.get('games')} games, the ladder is {state}")
        click.echo(leaderboard_text(client.leaderboard()))
        for w in info.get("workers") or []:
            cache = w.get("cache") or {}
            kept = f"{cache.get('archives', 0)} bots, {int(cache.get('bytes', 0)) >> 10} KiB of {int(cache.get('limit', 0)) >> 20} MiB" if cache else "none"
            click.echo(f"{clean(w.get('worker'), 40)}: {w.get('games_per_minute', 0)} games/min, cache {kept}"
                       + ("" if w.get("plays", True) else " (plays nothing)"))
        click.echo(f"runtimes: {', '.join(clean(r, 40) for r in info.get('runtimes') or []) or 'none'}")
        languages = [lang for lang in info.get("languages") or [] if isinstance(lang, dict)]
        click.echo("languages built from source: " + ("; ".join(
            f"{clean(lang.get('name'), 40)} (build `{clean(lang.get('build') or 'nothing', 200)}`, run `{clean(lang.get('run'), 200)}`)"
            for lang in languages) or "none"))
        if info.get("phase"):
            click.echo(clean(info.get("phase"), 200))  # the competition's phase and deadline
    finally:
        client.close()


@ladder_group.command("export")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "yaml"]), required=True,
              help="csv/json: the leaderboard of the active bots; yaml: a tournament config of the participants' "
                   "active bots (the organiser's: needs the admin token), to replay the field offline with `arena run`.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The file to write (default: print it).")
@click.option("--server", default=None, help=SERVER_HELP)
@click.option("--token", default=None, help="For yaml: the organiser's admin token (else $ARENA_TOKEN or the config file).")
def export_command(fmt: str, output: Path | None, server: str | None, token: str | None) -> None:
    """Export the server's ladder: its leaderboard (csv, json) or its field as a tournament config (yaml)."""
    from arena.server.client import Client, leaderboard_csv, settings

    client = Client(settings(server, token if fmt == "yaml" else None))
    try:
        if fmt == "yaml":
            text = str(client.call("GET", "/api/v1/admin/field")[1].get("yaml", ""))
        elif fmt == "json":
            text = json.dumps({"server": client.info(), "leaderboard": client.leaderboard()}, indent=1) + "\n"
        else:
            text = leaderboard_csv(client.leaderboard())
    finally:
        client.close()
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    click.echo(f"wrote {output}" + (f" (replay the field with `arena run {output}`)" if fmt == "yaml" else ""), err=True)
