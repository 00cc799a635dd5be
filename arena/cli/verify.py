"""`arena verify`: re-simulate a replay and check every commitment, decision, event and the result."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.replay import load_replay
from arena.replay.reader import Replay
from arena.audit.verify import verify_replay
from arena.audit.verify_branch import check_branch
from arena.textsafe import clean


@main.command("verify")
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option("--key", "key", metavar="PUBKEY", default=None,
              help="Also prove the replay is one a competition server or a tournament's organiser (`arena run`) stored: "
                   "their public key (PEM file); reads REPLAY.sig.json. REPLAY may also be a competition's signed results "
                   "file (results.json of `arena serve CONFIG publish`): its signature and every replay it lists are checked.")
@click.option("--signature", "signature", metavar="FILE", default=None, help="The signature record (default: REPLAY.sig.json).")
@click.option("--original", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="The replay REPLAY is a branch of: checked too, and the branch against it.")
@click.option("--store", metavar="STORE", type=click.Path(dir_okay=False), default=None,
              help="The results store of the tournament REPLAY is from: who sat where and the result must be its; "
                   "REPLAY.sig.json, when there, must be signed by --key or the store's key (STORE.pub.pem).")
def verify_command(replay: str, key: str | None, signature: str | None, original: str | None, store: str | None) -> None:
    """Check REPLAY against the game's rules and its clock; the first mismatch is reported and the exit is
    non-zero. A branch (`arena replay`) is checked against its original when --original gives it."""
    if key is not None and store is None:
        from arena.audit.results_file import check_results, is_results_file
        from arena.audit.signing import check, read_public_key

        if is_results_file(replay):  # a competition's signed results file (`arena serve CONFIG publish`)
            click.echo(check_results(replay, read_public_key(key)).line(replay))
            return

        signed = check(replay, read_public_key(key), signature)
        r = signed.report
        click.echo(f"ok: {clean(replay, 300)}: signed by {signed.signer()}; "
                   f"{r.game} seed {r.seed}, {r.steps} steps, {r.commitments} commitments checked; result {list(r.points)} "
                   f"points, ranks {list(r.ranks)}; sha256 {r.sha256}")
        return
    loaded = load_replay(replay)
    report = verify_replay(loaded)  # a ReplayError is one line on stderr, exit status 2
    if original is not None:
        check_branch(loaded, load_replay(original))
    stored = ""
    if store is not None:
        stored = _against_store(loaded, replay, Path(store), key, signature)
    branch = ""
    if report.branch_of:
        checked = "checked against it" if original is not None else "unverified: give --original FILE to check it"
        branch = f"; a branch of {report.branch_of[:12]} ({checked})"
    click.echo(
        f"ok: {clean(replay, 300)}: {report.game} seed {report.seed}, {report.steps} steps, {report.decisions} decisions, "
        f"{report.commitments} commitments checked, {report.faults} faults; result {list(report.points)} points, "
        f"ranks {list(report.ranks)}; sha256 {report.sha256}{branch}{stored}"
    )


def _against_store(loaded: Replay, replay: str, store: Path, key: str | None, signature: str | None) -> str:
    """What `--store` adds to the ok line: the stored game, and the signature checked where there is one."""
    from arena.audit.signing import SUFFIX, check, organiser_key_path, public_key_path, read_public_key
    from arena.audit.verify_store import check_against_store
    from arena.results.store import Store

    with Store.open_existing(store) as opened:
        game = check_against_store(loaded, opened)
    line = f"; game {game.index} of {clean(store, 300)}, seats and result as stored"
    record = Path(signature) if signature is not None else Path(replay + SUFFIX)
    public = key if key is not None else str(public_key_path(organiser_key_path(store)))
    if key is None and not record.exists():
        return line + "; unsigned (no " + clean(record.name, 200) + ")"
    if key is None and not Path(public).exists():
        return line + f"; signature not checked (no {clean(public, 300)}: give --key)"
    check(replay, read_public_key(public), signature)
    return line + f"; signed by {clean(public, 300)}'s key"
