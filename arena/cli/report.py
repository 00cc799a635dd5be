"""`arena report STORE` and `arena view REPLAY`: write the HTML tournament report, or one replay's viewer page,
and say where to open it."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.web.report_page import build_report
from arena.web.viewer import write_viewer


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


@main.command("view")
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="The page to write (default: REPLAY with .html).")
@click.option("--seat", type=click.IntRange(min=0), default=None, help="Only what this seat saw: the page holds no other seat's hidden cards.")
def view_command(replay: str, output: str | None, seat: int | None) -> None:
    """Write a self-contained HTML viewer of a replay (opens from disk, no network)."""
    if output is None:
        suffix = f".seat{seat}.html" if seat is not None else ".html"
        output = str(Path(replay).with_suffix(suffix))
    path = write_viewer(replay, output, seat).resolve()
    click.echo(f"wrote {path}")
    click.echo(f"open {path.as_uri()}")
