"""`arena check-bot`: a conformance run against one bot; exit status 1 when a check fails."""

from __future__ import annotations

import sys

import click

from arena.checkbot import CheckOptions, evaluate, load, run_check
from arena.checkbot.checks import doubtful, judge
from arena.rng import random_seed
from arena.checkbot.report import failed, render_json, render_text
from arena.cli import main
from arena.cli.build import folder_argv, is_folder
from arena.cli.play import clock_and_limit_options, parse_command
from arena.errors import BotError
from arena.sandbox.launch import missing_script
from arena.sandbox.probe import decide
from arena.tournament.config.command_line import limits_of, time_control_of


@main.command("check-bot", context_settings={"ignore_unknown_options": True})
@click.argument("game")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--bot", "bot", metavar="CMD", default=None, help="The command that runs the bot (or give it after --).")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games on the main process (default: every configuration twice, once with --quick).")
@click.option("--quick", is_flag=True, help="A short run: every configuration once.")
@clock_and_limit_options
@click.option("--seed", type=int, default=None,
              help="Seed of the deals and of the other seats' play (default: random, as a tournament's deals are; "
              "--json reports it).")
@click.option("--sandbox/--no-sandbox", "sandbox", default=None,
              help="Run the bot in arena's sandbox, as a tournament does (default: on where it can run).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (for CI).")
@click.option("--verbose", "-v", is_flag=True, help="Show the evidence of passing checks too.")
def check_bot_command(game: str, command: tuple[str, ...], bot: str | None, games: int | None, quick: bool,
                      seed: int | None, sandbox: bool | None, as_json: bool, verbose: bool, **clocks: int | None) -> None:
    """Check that a bot follows the protocol for GAME: arena check-bot GAME -- CMD [ARGS...], or
    arena check-bot GAME DIR for a bot folder with manifest.json (built first, as the server would).

    The clocks and limits are `arena play`'s (a tournament's defaults); the game under the referee plays
    with all of them, bank and game time included, as the submission check gives a ladder's.

    Handshake and its time, several games on one process at every player count and option, every
    decision and event kind, unknown messages, shutdown, stdout noise, latency and memory growth.
    Exit status 0 when no check fails, 1 when one does, 2 when the command itself is wrong.
    """
    if bot is not None and command:
        raise BotError("give the bot's command once: either --bot CMD or after --, not both")
    argv = parse_command(bot, 0) if bot is not None else tuple(command)
    if not argv:
        raise BotError("no bot command: arena check-bot GAME -- python3 mybot.py  (or --bot 'python3 mybot.py', or a bot folder)")
    sandboxed, warning = decide(sandbox)
    if warning:
        click.echo(f"arena: {warning}", err=True)
    if len(argv) == 1 and is_folder(argv[0]):
        argv = folder_argv(argv[0], sandboxed)
    problem = missing_script(argv, None)
    if problem is not None:  # a wrong command is the user's mistake (status 2), not a failed check
        raise BotError(f"cannot start {' '.join(argv)!r}: {problem}")
    # Progress on a terminal only: a log or a CI job gets the report alone.
    progress = (lambda text: click.echo(f"  .. {text}", err=True)) if sys.stderr.isatty() and not as_json else None
    options = CheckOptions(game=game, command=argv, games=games, quick=quick, time_control=time_control_of(clocks),
                           seed=random_seed() if seed is None else seed, sandbox=sandboxed, limits=limits_of(clocks))
    before = load.measure()
    evidence = run_check(options, progress)
    first = evaluate(evidence)
    first_load = before.worst(load.measure())
    results = first
    if doubtful(first, first_load):  # a verdict a busy machine may have made: once more, to be sure
        if progress is not None:
            progress(f"a check failed while the machine was busy ({first_load.describe()}): running again")
        before = load.measure()
        evidence = run_check(options, progress)
        second = evaluate(evidence)
        second_load = before.worst(load.measure())
        results = judge(first, first_load, second, second_load)
        first_load = second_load
    if as_json:
        click.echo(render_json(evidence, results, first_load))
    else:
        for line in render_text(evidence, results, verbose, first_load):
            click.echo(line)
    sys.exit(1 if failed(results) else 0)
