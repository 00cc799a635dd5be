"""`arena serve CONFIG final`: play (or resume) the competition's final over each participant's active bot."""

from __future__ import annotations

import sys

import click

from arena.cli.compete.serve import serve_command
from arena.errors import ServerError


@serve_command.command("final")
@click.option("--quiet", is_flag=True, help="No progress line.")
@click.pass_context
def final_command(ctx: click.Context, quiet: bool) -> None:
    """Play the final, in the competition's final phase (a round-robin of each participant's active bot, stopping once its order is settled;
    a qualifying gauntlet first when there are more than `final.top`) into DATA/final/final.sqlite, on the
    ladder's executor (`--cluster` before `final` plays it on Dask). Killed or stopped, run it again: it
    resumes. Then `arena serve CONFIG publish`."""
    from arena.ladder.competition.final.final import require_final_phase, run_final
    from arena.sandbox.probe import probe
    from arena.tournament.config.cluster import ClusterSpec

    require_final_phase(ctx.obj)  # PhaseError (exit 2, nothing played) before `arena serve CONFIG phase final`
    parent = ctx.parent.params if ctx.parent is not None else {}
    sandbox = not parent.get("no_sandbox")
    support = probe()
    if sandbox and not support.sandbox:
        raise ServerError(f"the sandbox cannot run on this machine ({support.reason}); the final will not run "
                          "submitted code without it (--no-sandbox only for bots you trust)")
    cluster = ClusterSpec.parse(parent["cluster"]) if parent.get("cluster") else None
    outcome = run_final(ctx.obj, sandbox, cluster=cluster, progress=None if quiet else sys.stderr)
    for line in outcome.lines():
        click.echo(line)
    if outcome.interrupted:
        sys.exit(130)
