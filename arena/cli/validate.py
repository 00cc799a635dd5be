"""`arena validate CONFIG`: check a tournament config, or a server's (`arena serve`), without running anything."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli import main
from arena.sandbox.probe import probe
from arena.tournament.config import tournament as tconfig
from arena.tournament.schedule import plan as schedule
from arena.tournament.config.stop import describe

if TYPE_CHECKING:
    from arena.core.limits import Limits
    from arena.core.time_control import TimeControl
    from arena.ladder.config import ServerConfig


@main.command("validate")
@click.argument("config", type=click.Path(dir_okay=False))
def validate_command(config: str) -> None:
    """Check CONFIG (keys, types, game, options, bots' programs, schedule) and summarise it.

    A config with no `entrants:` and a key only a server has (ladder, house_bots, data, port...) is a
    server's (`arena serve CONFIG`): its keys, game, clocks, limits, ladder rules and house bots are
    checked, every mistake listed at once."""
    data = tconfig.read_yaml(Path(config))
    if isinstance(data, dict) and "entrants" not in data:
        from arena.ladder import config as server_config  # only for a server's config

        if set(data) & (server_config.TOP_KEYS - tconfig.TOP_KEYS):
            _validate_server(server_config.parse(data, Path(config)), config)
            return
    cfg = tconfig.parse(data, Path(config))
    spec = cfg.schedule
    games = schedule.count(spec)
    click.echo(
        f"{config}: ok: {cfg.name}: {cfg.game}, {cfg.players} players per game, {len(cfg.entrants)} entrants, "
        f"{spec.format.value} ({spec.rotations.value} rotations, {spec.deals.value} deals, {spec.rounds} round{'s' if spec.rounds != 1 else ''}): "
        f"{games} games; results in {cfg.store}"
    )
    click.echo(f"  {_clocks(cfg.time_control, cfg.limits)}; fingerprint {cfg.fingerprint()}")
    click.echo(f"  {describe(cfg.stop, spec.rounds)}")
    sandboxed = [e.name for e in cfg.entrants if e.sandbox.enabled]
    plain = [e.name for e in cfg.entrants if not e.sandbox.enabled]
    click.echo(f"sandboxed entrants: {', '.join(sandboxed) or 'none'}; unsandboxed: {', '.join(plain) or 'none'}")
    for line in probe().report():
        click.echo(f"  {line}")
    for warning in cfg.warnings:
        click.echo(f"arena: WARNING: {warning}", err=True)


def _validate_server(cfg: ServerConfig, config: str) -> None:
    click.echo(f"{config}: ok: server {cfg.name}: {cfg.game}, {cfg.players} players per game, "
               f"{len(cfg.house_bots)} house bots; data in {cfg.data}")
    click.echo(f"  {_clocks(cfg.time_control, cfg.limits)}; listening on {cfg.host}:{cfg.port}")
    p = cfg.phases  # the competition's calendar (`phases:`)
    click.echo("  phases: " + (f"deadline {p.show(p.deadline)}" if p.deadline else "no deadline (the organiser moves them)")
               + "".join(f", {k} {p.show(getattr(p, k))}" for k in ("final", "closed") if getattr(p, k)))


def _clocks(tc: TimeControl, lim: Limits) -> str:
    bank = "no bank" if tc.bank_ms is None else f"bank {tc.bank_ms} ms"
    memory = "no memory limit" if lim.memory_mb is None else f"memory {lim.memory_mb} MB"
    cpu = "no CPU limit" if lim.cpu_seconds is None else f"CPU {lim.cpu_seconds} s"
    return (f"clocks: {tc.decision_ms} ms a decision, {bank}, +{tc.increment_ms} ms, start-up {tc.startup_ms} ms; "
            f"limits: {memory}, {cpu}")
