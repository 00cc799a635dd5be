"""`arena verify`: re-simulate a replay and check every commitment, decision, event and the result."""

from __future__ import annotations

import click

from arena.cli import main
from arena.replay import load_replay
from arena.referee.verify import verify_replay
from arena.textsafe import clean


@main.command("verify")
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option("--key", "key", metavar="PUBKEY", default=None,
              help="Also prove the replay is a competition server's: its public key (PEM file); reads REPLAY.sig.json.")
@click.option("--signature", "signature", metavar="FILE", default=None, help="The signature record (default: REPLAY.sig.json).")
def verify_command(replay: str, key: str | None, signature: str | None) -> None:
    """Check REPLAY against the game's rules; the first mismatch is reported and the exit is non-zero."""
    if key is not None:
        from arena.server.signing import check, read_public_key

        signed = check(replay, read_public_key(key), signature)
        r = signed.report
        click.echo(f"ok: {clean(replay, 300)}: signed by the key's server {signed.server!r} (game {signed.game}); "
                   f"{r.game} seed {r.seed}, {r.steps} steps, {r.commitments} commitments checked; result {list(r.points)} "
                   f"points, ranks {list(r.ranks)}; sha256 {r.sha256}")
        return
    report = verify_replay(load_replay(replay))  # a ReplayError is one line on stderr, exit status 2
    branch = f"; a branch of {report.branch_of[:12]}" if report.branch_of else ""
    click.echo(
        f"ok: {clean(replay, 300)}: {report.game} seed {report.seed}, {report.steps} steps, {report.decisions} decisions, "
        f"{report.commitments} commitments checked, {report.faults} faults; result {list(report.points)} points, "
        f"ranks {list(report.ranks)}; sha256 {report.sha256}{branch}"
    )
