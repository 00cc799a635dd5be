"""`arena serve CONFIG backup FILE` and `arena serve CONFIG restore FILE [--force]`."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.compete.serve import serve_command
from arena.ladder.config import ServerConfig


@serve_command.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_obj
def backup_command(config: ServerConfig, file: Path) -> None:
    """Write the data folder (the store by SQLite's online backup, uploads, replays, the signing key) to FILE,
    a .tar.gz written once; safe while the server runs."""
    from arena.ladder.competition.backup import backup

    done = backup(config.data, config.database, file)
    click.echo(f"backup of {config.data}: {done.path} ({done.files} files, {done.bytes} bytes)")


@serve_command.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--force", is_flag=True, help="Replace the data folder's contents when it is not empty.")
@click.pass_obj
def restore_command(config: ServerConfig, file: Path, force: bool) -> None:
    """Restore the backup FILE into the config's data folder: refused while a server runs on it, and over a
    folder that is not empty unless --force."""
    from arena.ladder.competition.backup import restore

    done = restore(config.data, config.database, file, force)
    click.echo(f"restored {file} into {done.path} ({done.files} files); start the server with `arena serve CONFIG`")
