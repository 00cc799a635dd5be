"""`arena verify`: re-simulate a replay and check every commitment, decision, event and the result."""

from __future__ import annotations

import click

from arena.cli import main
from arena.replay import load_replay
from arena.audit.verify import verify_replay
from arena.audit.verify_branch import check_branch
from arena.textsafe import clean


@main.command("verify")
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option("--key", "key", metavar="PUBKEY", default=None,
              help="Also prove the replay is a competition server's: its public key (PEM file); reads REPLAY.sig.json.")
@click.option("--signature", "signature", metavar="FILE", default=None, help="The signature record (default: REPLAY.sig.json).")
@click.option("--original", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="The replay REPLAY is a branch of: checked too, and the branch against it.")
@click.option("--store", metavar="STORE", type=click.Path(dir_okay=False), default=None,
              help="The results store of the tournament REPLAY is from: who sat where and the result must be its.")
def verify_command(replay: str, key: str | None, signature: str | None, original: str | None, store: str | None) -> None:
    """Check REPLAY against the game's rules and its clock; the first mismatch is reported and the exit is
    non-zero. A branch (`arena replay`) is checked against its original when --original gives it."""
    if key is not None:
        from arena.audit.signing import check, read_public_key

        signed = check(replay, read_public_key(key), signature)
        r = signed.report
        click.echo(f"ok: {clean(replay, 300)}: signed by the key's server {signed.server!r} (game {signed.game}); "
                   f"{r.game} seed {r.seed}, {r.steps} steps, {r.commitments} commitments checked; result {list(r.points)} "
                   f"points, ranks {list(r.ranks)}; sha256 {r.sha256}")
        return
    loaded = load_replay(replay)
    report = verify_replay(loaded)  # a ReplayError is one line on stderr, exit status 2
    if original is not None:
        check_branch(loaded, load_replay(original))
    stored = ""
    if store is not None:
        from pathlib import Path

        from arena.results.store import Store
        from arena.audit.verify_store import check_against_store

        with Store.open_existing(Path(store)) as opened:
            game = check_against_store(loaded, opened)
        stored = f"; game {game.index} of {clean(store, 300)}, seats and result as stored"
    branch = ""
    if report.branch_of:
        checked = "checked against it" if original is not None else "unverified: give --original FILE to check it"
        branch = f"; a branch of {report.branch_of[:12]} ({checked})"
    click.echo(
        f"ok: {clean(replay, 300)}: {report.game} seed {report.seed}, {report.steps} steps, {report.decisions} decisions, "
        f"{report.commitments} commitments checked, {report.faults} faults; result {list(report.points)} points, "
        f"ranks {list(report.ranks)}; sha256 {report.sha256}{branch}{stored}"
    )
