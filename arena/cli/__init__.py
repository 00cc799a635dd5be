"""The `arena` command: parses, calls the library, prints. Owns no logic of its own.

Every `ArenaError` becomes one line on stderr and exit status 2, never a traceback: the messages are
written for the user to act on.
"""

from __future__ import annotations

import os
import sys

import click

from arena import __version__
from arena.errors import ArenaError


class ArenaGroup(click.Group):
    """The single boundary where domain errors become short CLI errors."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.echo(f"arena: error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=ArenaGroup)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run bot competitions: referee games between programs in any language, play tournaments, rate them."""
    os.umask(0o077)  # replays, stores, logs: readable by the organiser only (see protocol.md, "What a bot can see")


def _register_commands() -> None:
    # Each command lives in its own module; importing it attaches it to `main`.
    import importlib

    for name in ("games", "play", "verify", "run", "standings", "validate", "demo"):
        try:
            importlib.import_module(f"arena.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"arena.cli.{name}":
                raise


_register_commands()
