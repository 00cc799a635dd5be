"""`arena verify`: re-simulate a replay and check every commitment, decision, event and the result."""

from __future__ import annotations

import click

from arena.cli import main
from arena.replay import load_replay
from arena.referee.verify import verify_replay
from arena.textsafe import clean


@main.command("verify")
@click.argument("replay", type=click.Path(dir_okay=False))
def verify_command(replay: str) -> None:
    """Check REPLAY against the game's rules; the first mismatch is reported and the exit is non-zero."""
    report = verify_replay(load_replay(replay))  # a ReplayError is one line on stderr, exit status 2
    branch = f"; a branch of {report.branch_of[:12]}" if report.branch_of else ""
    click.echo(
        f"ok: {clean(replay, 300)}: {report.game} seed {report.seed}, {report.steps} steps, {report.decisions} decisions, "
        f"{report.commitments} commitments checked, {report.faults} faults; result {list(report.points)} points, "
        f"ranks {list(report.ranks)}; sha256 {report.sha256}{branch}"
    )
