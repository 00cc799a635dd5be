"""`arena standings DB`: the leaderboard of a results store, as a table, JSON or CSV."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.tournament import report
from arena.tournament.store import Store


@main.command("standings")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the standings as CSV.")
def standings_command(db: str, as_json: bool, as_csv: bool) -> None:
    """Rank the entrants of a results store by TrueSkill mu - 3 sigma."""
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    with Store.open_existing(Path(db)) as store:
        info = store.info()
        standings = store.standings()
        bot_faults = store.bot_faults()
    if as_json:
        meta = {
            "tournament": info.name,
            "game": info.game,
            "games": info.stored_games,
            "scheduled": info.total_games,
            "bot_faults": [{"entrant": e, "kind": k, "detail": d} for e, k, d in bot_faults],
        }
        click.echo(report.as_json(standings, meta))
    elif as_csv:
        click.echo(report.as_csv(standings), nl=False)
    else:
        click.echo(f"{info.name} ({info.game}): {info.stored_games}/{info.total_games} games")
        click.echo(report.table(standings))
        if bot_faults:
            click.echo(report.bot_faults(bot_faults))
