"""`arena run CONFIG`: run (or resume) a tournament, then print its standings."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli import main
from arena.tournament.config.cluster import ClusterSpec
from arena.sandbox.probe import probe
from arena.tournament.config import tournament as tconfig
from arena.report import standings as report
from arena.tournament.run import runner


NO_PIN = click.option(
    "--no-pin", is_flag=True,
    help="Let every worker and its bots run on any CPU (default: with one worker per CPU and every bot bounded to "
    "one CPU by its sandbox, each worker and its bots share a CPU of their own: faster hand-offs, and no game's "
    "bots on another's CPU).",
)


@main.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--fresh",
    is_flag=True,
    help="Discard every result in the store and start over (without it, a changed config keeps the stored games it would play again).",
)
@click.option(
    "--concurrency", "-j", type=click.IntRange(min=1), default=None, help="Games played at once (default: the config's, else one per core)."
)
@NO_PIN
@click.option("--restart-bots", is_flag=True, default=None, help="Start fresh bot processes for every game (slow; for benchmarks).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--cluster",
    metavar="ADDRESS",
    default=None,
    help="Play the games on a Dask cluster: a scheduler's address (tcp://host:8786), or local:N to start N workers here "
    "(default: the config's `executor: {dask: ...}`, else local worker processes). Needs pip install 'arena[dask]'.",
)
@click.option(
    "--secret",
    metavar="HEX",
    default=None,
    callback=lambda ctx, param, value: secret_option(value),
    help="The secret that keys a new store's deals (32 or more hex digits; default: random). A store keeps its "
    "secret: give it again with --fresh to replay the same deals (`arena secret STORE` prints it).",
)
@click.option(
    "--key", "key_file", metavar="FILE", type=click.Path(dir_okay=False), default=None,
    help="The organiser's Ed25519 private key (PEM) that signs every replay (REPLAY.sig.json beside it); made, "
    "mode 0600, when missing, its public half beside it as NAME.pub.pem (default: STORE.key.pem beside the store).",
)
@click.option(
    "--watch", is_flag=True,
    help="Follow the games as they are played: prints a link to a local page (127.0.0.1, a random port, a secret in "
    "the address) showing each game's public view live; every hand only once the game is over (or --watch-delay).",
)
@click.option(
    "--watch-delay", metavar="SECONDS", type=click.FloatRange(min=0), default=None,
    help="With --watch: show every hand this many seconds behind the play (default: only once each game is over).",
)
def run_command(
    config: str, fresh: bool, concurrency: int | None, no_pin: bool, restart_bots: bool | None, quiet: bool,
    cluster: str | None, secret: str | None, key_file: str | None, watch: bool = False, watch_delay: float | None = None,
) -> None:
    """Play the tournament CONFIG describes; rerun the same command to resume an interrupted run."""
    cfg = tconfig.load(config)
    plain = [e.name for e in cfg.entrants if not e.sandbox.enabled]
    if plain:  # said before anything runs: these bots run as you, with your files and network
        click.echo(f"arena: WARNING: not sandboxed: {', '.join(plain)} ({probe().reason or 'sandbox: false in the config'})", err=True)
    for warning in cfg.warnings:
        click.echo(f"arena: WARNING: {warning}", err=True)
    live = watching = None
    if watch:
        from arena.live.board import LiveBoard
        from arena.server.live.watch import Watch

        live = LiveBoard(cfg.game, watch_delay)
        watching = Watch(live, cfg.name)
        click.echo(f"watch the games live: {watching.start()}", err=True)
    where = cluster if cluster is not None else cfg.cluster
    executor = None
    if where is not None:
        from arena.tournament.run.dask_pool import DaskExecutor

        executor = DaskExecutor(ClusterSpec.parse(where), live=live)
    try:
        summary = runner.run(
            cfg, concurrency=concurrency, fresh=fresh, restart_bots=restart_bots or None, quiet=quiet, executor=executor,
            secret=secret, pin=not no_pin, key_file=Path(key_file) if key_file is not None else None, live=live,
        )
    finally:
        if watching is not None:
            watching.stop()
    rate = f", {summary.games_per_second:.1f} games/s" if summary.played else ""
    reused = f", {summary.reused} kept from the earlier config" if summary.reused else ""
    click.echo(
        f"{cfg.name}: {summary.stored}/{summary.total} games stored in {summary.store} "
        f"({summary.played} played now in {summary.duration_s:.1f} s{rate}{reused})"
    )
    boxed = sum(1 for e in cfg.entrants if e.sandbox.enabled)
    what = " (no network, own PID namespace, bot folder read-only; `arena validate` lists all)" if boxed else ""
    click.echo(f"sandbox: {boxed} of {len(cfg.entrants)} entrants sandboxed{what}")
    if summary.stop is not None:
        unplayed = summary.total - summary.stop.games
        click.echo(f"{summary.stop.line()} ({unplayed} of {summary.total} scheduled games not played)")
    elif summary.stop_state is not None:
        said = "the stop rule so far" if summary.interrupted else "the stop rule did not stop the run"
        click.echo(f"{said}: {summary.stop_state}")
    click.echo(report.table(summary.standings))
    if summary.bot_faults:
        click.echo(report.bot_faults(summary.bot_faults), err=True)
    if cfg.report is not None:
        from arena.web.report_page import build_report

        written = build_report(summary.store, cfg.report)
        click.echo(f"report: {written.index.resolve().as_uri()}")
    if summary.interrupted:
        click.echo(f"interrupted: run `arena run {config}` again to play the {summary.total - summary.stored} games left", err=True)
        sys.exit(130)


def secret_option(value: str | None) -> str | None:
    """A `--secret` as given: 32 or more hex digits, lower-cased; None when not given."""
    if value is None:
        return None
    text = value.strip().lower()
    if len(text) < 32 or any(c not in "0123456789abcdef" for c in text):
        raise click.BadParameter("give 32 or more hex digits (128 bits), e.g. the output of `arena secret STORE`")
    return text


@main.command("secret")
@click.argument("store", type=click.Path(dir_okay=False))
def secret_command(store: str) -> None:
    """Print the secret of the results store STORE: with it, `arena run --fresh --secret HEX` plays the same
    deals again. Keep it from the bots (anyone who has it and the config can compute every deal)."""
    from pathlib import Path

    from arena.results.store import Store

    with Store.open_existing(Path(store)) as opened:
        click.echo(opened.secret())
