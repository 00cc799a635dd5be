"""`arena validate CONFIG`: check a tournament config without running anything."""

from __future__ import annotations

import click

from arena.cli import main
from arena.sandbox.probe import probe
from arena.tournament.config import tournament as tconfig
from arena.tournament.schedule import plan as schedule
from arena.tournament.config.stop import describe


@main.command("validate")
@click.argument("config", type=click.Path(dir_okay=False))
def validate_command(config: str) -> None:
    """Check CONFIG (keys, types, game, options, bots' programs, schedule) and summarise it."""
    cfg = tconfig.load(config)
    spec = cfg.schedule
    games = schedule.count(spec)
    click.echo(
        f"{config}: ok: {cfg.name}: {cfg.game}, {cfg.players} players per game, {len(cfg.entrants)} entrants, "
        f"{spec.format.value} ({spec.rotations.value} rotations, {spec.deals.value} deals, {spec.rounds} round{'s' if spec.rounds != 1 else ''}): "
        f"{games} games; results in {cfg.store}"
    )
    tc, lim = cfg.time_control, cfg.limits
    bank = "no bank" if tc.bank_ms is None else f"bank {tc.bank_ms} ms"
    memory = "no memory limit" if lim.memory_mb is None else f"memory {lim.memory_mb} MB"
    cpu = "no CPU limit" if lim.cpu_seconds is None else f"CPU {lim.cpu_seconds} s"
    click.echo(
        f"  clocks: {tc.decision_ms} ms a decision, {bank}, +{tc.increment_ms} ms, start-up {tc.startup_ms} ms; "
        f"limits: {memory}, {cpu}; fingerprint {cfg.fingerprint()}"
    )
    click.echo(f"  {describe(cfg.stop, spec.rounds)}")
    sandboxed = [e.name for e in cfg.entrants if e.sandbox.enabled]
    plain = [e.name for e in cfg.entrants if not e.sandbox.enabled]
    click.echo(f"sandboxed entrants: {', '.join(sandboxed) or 'none'}; unsandboxed: {', '.join(plain) or 'none'}")
    for line in probe().report():
        click.echo(f"  {line}")
    for warning in cfg.warnings:
        click.echo(f"arena: WARNING: {warning}", err=True)
