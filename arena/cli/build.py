"""`arena new-bot LANG GAME [DIR]` and `arena build DIR`: a bot folder from a starter kit, built as the server builds it."""

from __future__ import annotations

import os
import sys

import click

from arena.build import folder as bot_folder
from arena.build.kits import new_bot
from arena.build.languages import NAMES
from arena.build.runner import BuildLimits, build
from arena.cli import main
from arena.errors import BuildError
from arena.games.registry import get_game
from arena.sandbox.probe import decide


@main.command("new-bot")
@click.argument("language", type=click.Choice(NAMES))
@click.argument("game")
@click.argument("folder", required=False)
def new_bot_command(language: str, game: str, folder: str | None) -> None:
    """Write a starter bot for GAME in LANGUAGE into FOLDER (default: ./my-GAME-LANGUAGE-bot): the
    protocol helper, a random bot, its tests, a README and manifest.json. Then: arena build FOLDER."""
    spec = get_game(game)
    dest = folder or f"my-{spec.name}-{language}-bot"
    files = new_bot(language, spec.name, dest, max(spec.min_seats, min(4, spec.max_seats)))
    click.echo(f"wrote {len(files)} files to {dest}/ ({', '.join(files)})")
    click.echo(f"next: arena build {dest} && arena check-bot {spec.name} {dest} && arena submit {dest}")


@main.command("build")
@click.argument("folder", type=click.Path(file_okay=False, exists=True))
@click.option("--sandbox/--no-sandbox", "sandbox", default=None,
              help="Build in arena's sandbox, as the server does (default: on where it can run).")
@click.option("--time-s", type=click.FloatRange(min=1), default=BuildLimits.time_s, show_default=True,
              help="Wall-time limit of the build.")
@click.option("--quiet", is_flag=True, help="Print the log only when the build fails.")
def build_command(folder: str, sandbox: bool | None, time_s: float, quiet: bool) -> None:
    """Build the bot in FOLDER with its manifest's language, as the server will: the same command, in
    the same sandbox (no network; time, CPU, memory, process, disk and log limits). Exit status 1 when
    the build fails; the log says why."""
    bot = bot_folder.read(folder)
    sandboxed, warning = decide(sandbox)
    if warning:
        click.echo(f"arena: {warning}", err=True)
    if bot.language is None:
        click.echo(f"{bot.name}: no language in manifest.json, so nothing to build; it runs as {' '.join(bot.command)}")
        bot.argv()
        return
    result = build(bot.path, bot.language, BuildLimits(time_s=time_s), sandbox=sandboxed)
    if not quiet or not result.ok:
        click.echo(result.log.rstrip("\n"))
    if not result.ok:
        click.echo(f"build failed: {result.reason}", err=True)
        sys.exit(1)
    bot.argv()  # a build that made no runnable program is an error naming it
    click.echo(f"built {bot.name} ({bot.language.name}) in {result.seconds:.1f} s; it runs as {' '.join(bot.command)}", err=True)


def folder_argv(path: str, sandboxed: bool) -> tuple[str, ...]:
    """The command of the bot in the folder `path`, built first when its language builds (check-bot, play)."""
    bot = bot_folder.read(path)
    if bot.language is not None and bot.language.build is not None:
        result = build(bot.path, bot.language, sandbox=sandboxed)
        if not result.ok:
            raise BuildError(f"{path}: the build failed: {result.reason}\n{result.tail()}")
        click.echo(f"arena: built {bot.name} ({bot.language.name}) in {result.seconds:.1f} s", err=True)
    return bot.argv()


def is_folder(text: str) -> bool:
    return bot_folder.is_bot_folder(os.path.expanduser(text))
