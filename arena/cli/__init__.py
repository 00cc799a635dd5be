"""The `arena` command: parses, calls the library, prints. Owns no logic of its own.

Every `ArenaError` becomes one line on stderr and exit status 2, never a traceback: the messages are
written for the user to act on. What the system refuses (a full disk, a folder without permission)
is one line naming the file, also status 2. A closed pipe on stdout (`arena ... | head`) ends it
quietly with status 141, as a Unix tool killed by SIGPIPE. Anything else is a bug in arena: one line, status 70,
and the traceback in a file to attach to a report (`ARENA_DEBUG=1` shows it instead).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import tempfile
import traceback
from typing import Any

import click

from arena import __version__
from arena.errors import ArenaError


class ArenaGroup(click.Group):
    """The single boundary where domain errors become short CLI errors. Commands are imported when
    used: `arena standings` does not pay for importing the referee, the sandbox and the web pages."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            _load(_MODULES.get(cmd_name, ""))
        if cmd_name not in self.commands:  # a command not in the map: load them all
            _register_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register_commands()
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.echo(f"arena: error: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:
            if isinstance(exc, BrokenPipeError) and stdout_closed():
                closed_pipe()
            if os.environ.get("ARENA_DEBUG"):
                raise
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"arena: error: {where}{exc.strerror or exc}", err=True)
            sys.exit(2)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug: one line here, the traceback in a file
            if os.environ.get("ARENA_DEBUG"):
                raise
            click.echo(f"arena: internal error (a bug in arena): {type(exc).__name__}: {exc}{_saved()}", err=True)
            sys.exit(70)


def stdout_closed() -> bool:
    """Whether nobody reads our stdout any more (a pipe whose reading end is closed polls as an error)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def closed_pipe() -> None:
    """The reader of our output went away (`arena ... | head`): stop quietly, as a Unix tool does.

    Status 141 (128 + SIGPIPE) is what a shell reports for a tool killed by SIGPIPE; exiting with it,
    rather than dying of the signal, lets the `finally` blocks and exit handlers run (bots closed).
    stdout is pointed at /dev/null first so the interpreter's last flush cannot fail again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(128 + signal.SIGPIPE)


def _saved() -> str:
    try:
        fd, path = tempfile.mkstemp(prefix="arena-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(traceback.format_exc())
    except OSError:
        return ""
    return f" (traceback in {path}; please report it)"


@click.group(cls=ArenaGroup)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run bot competitions: referee games between programs in any language, play tournaments, rate them."""
    os.umask(0o077)  # replays, stores, logs: readable by the organiser only (see protocol.md, "What a bot can see")


# Each command lives in its own module; importing it attaches it to `main`.
_MODULES = {"games": "games", "play": "play", "verify": "verify", "run": "run", "standings": "standings",
            "validate": "validate", "report": "report", "view": "report", "check-bot": "check_bot", "replay": "replay",
            "match": "match", "serve": "compete.serve", "submit": "compete.submit", "ladder": "compete.challenge",
            "check-game": "games", "new-game": "games", "build": "build", "new-bot": "build",
            "challenge": "compete.challenge"}


def _load(name: str) -> None:
    import importlib

    if not name:
        return
    try:
        importlib.import_module(f"arena.cli.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"arena.cli.{name}":
            raise


def _register_commands() -> None:
    for name in ("games", "play", "verify", "run", "standings", "validate", "demo", "report", "check_bot", "replay", "match", "compete.serve", "compete.submit", "build",
                 "compete.challenge"):
        _load(name)
