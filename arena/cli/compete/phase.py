"""`arena serve CONFIG phase [show|frozen|final|closed]`: the competition's phase, shown or moved one step.

It works on the data folder beside a running server (the server sees the change at its next look: the
ladder within a second, every page at once)."""

from __future__ import annotations

import getpass

import click

from arena.cli.compete.serve import serve_command
from arena.ladder.config import ServerConfig


@serve_command.command("phase")
@click.argument("to", required=False, default="show", type=click.Choice(["show", "frozen", "final", "closed"]))
@click.pass_obj
def phase_command(config: ServerConfig, to: str) -> None:
    """Show the competition's phase and its history, or move it to the next one (open -> frozen -> final ->
    closed). Out of order (final before frozen): exit status 2, nothing changed."""
    from arena.ladder.competition.phases import Phases
    from arena.ladder.db import Database

    config.data.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = Database(config.database)
    try:
        phases = Phases(db, config.phases)
        who = f"organiser (CLI, {getpass.getuser()})"
        if to == "closed":  # closed means published: the final's results first (ServerError, nothing changed, without them)
            from arena.ladder.competition.final.published import close_with_results

            close_with_results(config, db, phases, who)
        elif to != "show":
            phases.advance(to, who)
        found = phases.current()
    finally:
        db.close()
    schedule = config.phases
    since = f" since {schedule.show(found.since)}" if found.since else " since the start"
    click.echo(f"{config.name}: {found.phase.value}{since}")
    click.echo(f"deadline: {schedule.show(schedule.deadline) if schedule.deadline else 'none set'}")
    for change in found.history:
        click.echo(f"  {change.before.value} -> {change.after.value} by {change.who}, {schedule.show(change.at)}")
