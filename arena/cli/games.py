"""`arena games`, `arena check-game`, `arena new-game`: the installed games, checking one, starting one."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli import main
from arena.games.registry import Catalogue, catalogue, get_game, source
from arena.jsonvalue import dumps_str


@main.command("games")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--json", "as_json", is_flag=True, help="Print the games as JSON.")
@click.option("--protocol", is_flag=True, help="Print each game's protocol.md section (from its spec's documented schemas).")
def games_command(names: tuple[str, ...], as_json: bool, protocol: bool) -> None:
    """List the games arena can referee (built-in and installed plugins), with where each comes from."""
    found = catalogue()
    for problem in found.broken:  # one line each; the other games are listed all the same
        click.echo(f"arena: warning: {problem}", err=True)
    if names:
        found = Catalogue([get_game(name) for name in names], [])
    if protocol:
        from arena.games.docs import protocol_section

        click.echo("\n".join(protocol_section(spec) for spec in found.games), nl=False)
        return
    if as_json:
        click.echo(dumps_str([{**spec.describe(), "source": source(spec.name)} for spec in found.games]))
        return
    for spec in found.games:
        click.echo(f"{spec.name} {spec.version}  ({spec.min_seats}-{spec.max_seats} players, {spec.mode.value})  from {source(spec.name)}")
        click.echo(f"  {spec.description}")
        for opt in spec.options:
            extra = f"; one of {', '.join(map(str, opt.choices))}" if opt.choices else ""
            click.echo(f"  --option {opt.name}=<{opt.type.__name__}>  default {opt.default!r}{extra}: {opt.description}")
        click.echo()


@main.command("check-game")
@click.argument("target", metavar="PACKAGE_OR_NAME")
@click.option("--examples", type=click.IntRange(1, 10_000), default=25, show_default=True,
              help="Games hypothesis plays per search (seats, seed and actions drawn, then shrunk on a failure).")
@click.option("--deep-every", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Run the costly checks (hidden information, refusals, clones) every K steps of long games.")
@click.option("--skip", "skip", multiple=True, metavar="CHECK", help="Leave a check out (repeatable).")
@click.option("--browser", is_flag=True, help="Also draw random games with the game's renderer in Chromium (check 'renderer').")
def check_game_command(target: str, examples: int, deep_every: int, skip: tuple[str, ...], browser: bool) -> None:
    """Check a game against arena's contract: an installed game by name, or a module holding its SPEC.

    Prints each check's verdict (a failure with its step, seed and the smallest failing example) and
    exits 0 only when every check passes."""
    from arena.errors import GameError
    from arena.games.invariants import ALL_CHECKS, check_spec
    from arena.games.registry import find_game

    unknown = [name for name in skip if name not in ALL_CHECKS]
    if unknown:
        raise GameError(f"--skip {unknown[0]}: no such check (checks: {', '.join(ALL_CHECKS)})")
    spec = find_game(target)
    click.echo(f"checking {spec.name} {spec.version} ({spec.min_seats}-{spec.max_seats} players), {examples} games a search")
    verdicts = check_spec(spec, examples=examples, deep_every=deep_every, blind=skip)
    if browser:
        from arena.web.renderer_check import check_renderer

        verdicts.append(check_renderer(spec))
    for verdict in verdicts:
        click.echo(verdict.line())
    failed = [v.check for v in verdicts if not v.passed]
    click.echo(f"{spec.name}: {len(verdicts) - len(failed)} of {len(verdicts)} checks pass" + (f"; failed: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


@main.command("new-game")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the package (default: ./arena-NAME).")
def new_game_command(name: str, folder: Path | None) -> None:
    """Write a pip-installable game package for NAME: spec, state, rules, tests, renderer, random bot."""
    from arena.games.scaffold import write_skeleton

    target = folder or Path(f"arena-{name}")
    written = write_skeleton(name, target)
    click.echo(f"wrote {len(written)} files in {target}/")
    click.echo(f"next: pip install -e {target} && arena check-game {name}")
