"""`arena verify`: re-simulate a replay and check every commitment, event and the result."""

from __future__ import annotations

import click

from arena.cli import main
from arena.referee.verify import verify_replay


@main.command("verify")
@click.argument("replay", type=click.Path(dir_okay=False))
def verify_command(replay: str) -> None:
    """Check REPLAY against the game's rules; the first mismatch is reported and the exit is non-zero."""
    report = verify_replay(replay)
    click.echo(
        f"ok: {replay}: {report.game} seed {report.seed}, {report.steps} steps, {report.decisions} decisions, "
        f"{report.commitments} commitments checked, {report.faults} faults; result {list(report.points)} points, "
        f"ranks {list(report.ranks)}"
    )
