"""`arena view REPLAY`: write the replay viewer page and say where to open it."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.web.viewer import write_viewer


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
