"""`arena replay`: play a recorded game again from one of its steps, with other bots from there on."""

from __future__ import annotations

import os
import shlex

import click

from arena.cli import main
from arena.cli.play import close_all, print_result, render_log, own_file, seat_labels
from arena.errors import BranchError
from arena.games.registry import get_game
from arena.jsonvalue import dumps_str
from arena.audit.branch import BranchPlan, Play, SeatChoice, plan_branch
from arena.core.faults import Fault
from arena.core.limits import Limits
from arena.referee.referee import play_game
from arena.referee.session import BotProcess
from arena.sandbox.probe import decide
from arena.textsafe import NAME_CHARS, clean


def parse_seat(text: str) -> tuple[int, SeatChoice]:
    """S=CMD or S=recorded."""
    seat, sep, rest = text.partition("=")
    if not sep or not seat.strip().isdigit():
        raise BranchError(f"--seat {clean(text, 200)!r}: write it as SEAT=CMD or SEAT=recorded, e.g. --seat 1='python3 bot.py'")
    if rest.strip() == Play.RECORDED.value:
        return int(seat), Play.RECORDED
    try:
        argv = tuple(shlex.split(rest))
    except ValueError as exc:
        raise BranchError(f"--seat {clean(text, 200)!r}: cannot split the command ({exc}); check its quotes") from None
    if not argv:
        raise BranchError(f"--seat {clean(text, 200)!r}: give the command that plays seat {int(seat)}, or `recorded`")
    return int(seat), argv


def default_output(replay: str, step: int) -> str:
    stem = os.path.basename(replay)
    stem = stem[: -len(".jsonl")] if stem.endswith(".jsonl") else stem
    return f"{stem}.from{step}.jsonl"


@main.command("replay")
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option("--from-step", "from_step", type=int, required=True, metavar="K",
              help="The branch point: steps before K take the recorded actions, step K on is live.")
@click.option("--seat", "seats", multiple=True, metavar="S=CMD",
              help="Who plays seat S from step K: a command, or `recorded` (its recorded actions while legal). "
                   "Other seats: their own commands from the replay.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None,
              help="Write the branch's replay here (default: REPLAY's name with .fromK, in this folder).")
@click.option("--sandbox/--no-sandbox", "sandbox", default=None, help="Run the bots in a bubblewrap sandbox (default: on where it can run).")
@click.option("--keep-logs", is_flag=True, help="Write each seat's stderr lines per step into the branch's replay.")
@click.option("--quiet", is_flag=True, help="Only the result, not the step-by-step log.")
@click.option("--json", "as_json", is_flag=True, help="Print only the result, as JSON.")
def replay_command(replay: str, from_step: int, seats: tuple[str, ...], output: str | None, sandbox: bool | None,
                   keep_logs: bool, quiet: bool, as_json: bool) -> None:
    """Play the game in REPLAY again from step K, with the same seed and options.

    Before step K every bot gets the requests and events it got in the original game, and its answers
    are ignored: the recorded actions are played. From step K, --seat S=CMD plays seat S, and every
    other seat is played live by its own bot (the command and folder in the replay's header). The new
    replay names the original (`branch` in its header) and `arena verify` checks it like any other.

    Example: arena replay game.jsonl --from-step 12 --seat 1='python3 my_bot_v2.py'
    """
    choices: dict[int, SeatChoice] = {}
    for text in seats:
        seat, choice = parse_seat(text)
        if seat in choices:
            raise BranchError(f"--seat {seat} is given twice: give each seat once")
        choices[seat] = choice
    plan = plan_branch(replay, from_step, choices)
    out = output or default_output(replay, from_step)
    if os.path.exists(out) and os.path.samefile(out, replay):
        raise BranchError(f"-o {clean(out, 300)}: that is the original replay; write the branch to another file")
    header = plan.replay.header
    control = header.control()  # verified: the header holds a valid time control, game_ms included
    sandboxed, warning = decide(sandbox)
    if warning:
        click.echo(f"arena: {warning}", err=True)
    if not as_json:
        for line in _describe(plan):
            click.echo(line)
    started: list[BotProcess] = []
    close_faults: list[Fault] = []
    limits = Limits()  # the defaults, as `arena play` without its limit options
    try:
        own_file(out)  # before the bots start, so that the sandbox masks it
        for spec in plan.bot_specs(sandboxed, hide=(out,)):
            started.append(BotProcess.start(spec, control, limits))
        result = play_game(get_game(header.game), started, seed=header.seed, options=header.options,
                           time_control=control, policy=header.policy, replay_path=out, game_id=header.game_id,
                           script=plan.script, keep_logs=keep_logs)
    finally:
        close_all(started, close_faults)
    if as_json:
        data = result.to_json()
        data["close_faults"] = [f.to_json() for f in close_faults]
        data["branch"] = plan.script.branch.to_json()
        data["original"] = {"points": list(plan.replay.result.points), "ranks": list(plan.replay.result.ranks)}
        click.echo(dumps_str(data))
        return
    if not quiet:
        for line in render_log(out):
            click.echo(line)
    print_result(result, close_faults, out, seat_labels(started))
    original = plan.replay.result
    click.echo(f"original game: {list(original.points)} points, ranks {list(original.ranks)}")


def _describe(plan: BranchPlan) -> list[str]:
    at = plan.script.at_step
    replayed = f"steps 0 to {at - 1} replayed, " if at else ""
    lines = [f"branch of {clean(plan.source, 300)} (sha256 {plan.replay.sha256[:12]}) at step {at} of {plan.steps}: "
             f"{replayed}live from step {at}"]
    how = {Play.ORIGINAL: "its own bot", Play.GIVEN: "new command", Play.RECORDED: "recorded actions while legal"}
    for seat in plan.seats:
        lines.append(f"  seat {seat.seat}: {clean(seat.entrant, NAME_CHARS)} ({how[seat.play]}): "
                     f"{clean(' '.join(seat.command), 300)}")
    return lines
