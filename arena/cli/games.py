"""`arena games`: the registered games, their player ranges and options."""

from __future__ import annotations

import click

from arena.cli import main
from arena.games import all_games
from arena.jsonvalue import dumps_str


@main.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the games as JSON.")
def games_command(as_json: bool) -> None:
    """List the games arena can referee, with their options."""
    specs = all_games()
    if as_json:
        click.echo(dumps_str([spec.describe() for spec in specs]))
        return
    for spec in specs:
        click.echo(f"{spec.name} {spec.version}  ({spec.min_seats}-{spec.max_seats} players, {spec.mode.value})")
        click.echo(f"  {spec.description}")
        for opt in spec.options:
            extra = f"; one of {', '.join(map(str, opt.choices))}" if opt.choices else ""
            click.echo(f"  --option {opt.name}=<{opt.type.__name__}>  default {opt.default!r}{extra}: {opt.description}")
        click.echo()
