"""`arena report STORE`: write the HTML tournament report and say where to open it."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.web.report_page import build_report


@main.command("report")
@click.argument("store", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(file_okay=False), default=None, help="The folder to write (default: STORE's name + '-report').")
@click.option("--no-viewers", is_flag=True, help="Do not write a viewer page for each stored replay.")
def report_command(store: str, output: str | None, no_viewers: bool) -> None:
    """Write a static HTML report of a results store: standings, ratings, head to head, seats, faults, games."""
    out = Path(output) if output is not None else Path(store).with_name(Path(store).stem + "-report")
    summary = build_report(store, out, viewers=not no_viewers)
    index = summary.index.resolve()
    click.echo(f"wrote {index} ({summary.games} games, {summary.viewer_pages} viewer pages written, {summary.seconds:.2f} s)")
    for error in summary.viewer_errors:
        click.echo(f"no viewer page for {error}", err=True)
    click.echo(f"open {index.as_uri()}")
