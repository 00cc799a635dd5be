"""`arena serve CONFIG accounts import|list|reset|revoke`: a class's accounts and their tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import click
import contextlib

from arena.cli.compete.serve import serve_command
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database
from arena.textsafe import clean


@contextlib.contextmanager
def _store(config: ServerConfig) -> Iterator[Database]:
    config.data.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = Database(config.database)
    try:
        yield db
    finally:
        db.close()


@serve_command.group("accounts")
def accounts_group() -> None:
    """People's accounts: import a class from a CSV, list them, reset or revoke a token."""


@accounts_group.command("import")
@click.argument("csv_file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--sheet", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the token sheet (default: beside the CSV, NAME-tokens.csv). Written once, mode 0600.")
@click.pass_obj
def import_command(config: ServerConfig, csv_file: Path, sheet: Path | None) -> None:
    """Import the people of CSV_FILE (a header row: name,display name,email,team; email and team optional;
    people with the same team share one participant) and write their tokens to a sheet, once. All or nothing:
    every mistake is listed and nothing is written."""
    from arena.ladder.competition.roster import import_csv

    target = sheet if sheet is not None else csv_file.with_name(f"{csv_file.stem}-tokens.csv")
    with _store(config) as db:
        issued, written = import_csv(db, csv_file, target)
    if issued is None:
        click.echo(f"the import of {csv_file} cut short after it was stored is finished: its tokens are in {written}")
        return
    teams = {p.team for p in issued if p.team}
    click.echo(f"imported {len(issued)} people ({len(teams)} teams); their tokens (shown nowhere else) are in {written} "
               "(mode 0600): give each person their own line")


@accounts_group.command("list")
@click.pass_obj
def list_command(config: ServerConfig) -> None:
    """Every account: name, display name, participant, whether its token is revoked."""
    from arena.ladder.competition.roster import accounts

    with _store(config) as db:
        rows = accounts(db)
    for a in rows:
        state = "revoked" if a["revoked"] else "active"
        click.echo(f"{clean(a['name'], 40):<20} {clean(a['display_name'], 60):<30} {clean(a['participant'], 40):<20} {state}")
    click.echo(f"{len(rows)} accounts")


@accounts_group.command("reset")
@click.argument("name")
@click.pass_obj
def reset_command(config: ServerConfig, name: str) -> None:
    """Give NAME a new token (printed, shown once); the old one stops working at once."""
    from arena.ladder.competition.roster import reset_token

    with _store(config) as db:
        token = reset_token(db, name)
    click.echo(f"new token of {clean(name, 40)} (shown once; the old one no longer works):")
    click.echo(token)


@accounts_group.command("revoke")
@click.argument("name")
@click.pass_obj
def revoke_command(config: ServerConfig, name: str) -> None:
    """Revoke NAME's token: it stops working at once (`accounts reset NAME` gives a new one)."""
    from arena.ladder.competition.roster import revoke_token

    with _store(config) as db:
        revoke_token(db, name)
    click.echo(f"the token of {clean(name, 40)} is revoked")
