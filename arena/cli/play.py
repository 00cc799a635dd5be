"""`arena play`: one game between bot commands, a readable log from its replay, and the result."""

from __future__ import annotations

import os
import shlex
import tempfile
from typing import Any, Sequence, TypeVar

import click

from arena.cli import main
from arena.errors import BotError, GameOptionError, ReplayError, SeatCountError
from arena.games.registry import get_game
from arena.jsonvalue import dumps_str, loads
from arena.referee.session import BotProcess, BotSpec
from arena.core.time_control import TimeControl
from arena.core.faults import Fault, FaultPolicy
from arena.core.limits import Limits
from arena.referee.referee import play_game
from arena.referee.stderr_log import StepLog
from arena.core.result import GameResult
from arena.replay import iter_replay
from arena.sandbox.launch import is_script
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import decide
from arena.rng import bot_seed, random_seed
from arena.textsafe import LINE_CHARS, clean, seat_label
from arena.tournament.config.command_line import CLOCK_OPTIONS, LIMIT_OPTIONS, limits_of, time_control_of

TC = TimeControl()  # the defaults, defined once in the referee
LIM = Limits()
Command = TypeVar("Command", bound=Any)


def parse_option(text: str) -> tuple[str, Any]:
    """NAME=VALUE, the value read as JSON when it is (true, 3, "x") and as a plain string otherwise."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise GameOptionError(f"--option {text!r}: write it as NAME=VALUE, e.g. --option long=true")
    try:
        value = loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def entrant_names(commands: list[tuple[str, ...]]) -> list[str]:
    """A name for each seat's bot, from its command: the script's file name (else the program's); the
    path as written where two scripts share a file name; `#seat` after it where only the arguments
    differ. The same command in two seats is the same bot: the same name."""
    def script(argv: tuple[str, ...]) -> str:
        return next((a for a in argv[1:] if is_script(a)), argv[0])

    short = [os.path.basename(script(argv)) for argv in commands]
    names = []
    for argv, name in zip(commands, short):
        other_files = {script(c) for c, n in zip(commands, short) if n == name and c != argv} - {script(argv)}
        names.append(script(argv) if other_files else name)
    for i, (argv, name) in enumerate(zip(commands, names)):
        if any(n == name and c != argv for c, n in zip(commands, names)):
            names[i] = f"{name}#{i}"
    return names


def parse_command(text: str, index: int) -> tuple[str, ...]:
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise BotError(f"--bot {text!r}: cannot split the command ({exc}); check its quotes") from None
    if not argv:
        raise BotError(f"--bot number {index + 1} is empty: give the command that runs the bot")
    return argv


def clock_and_limit_options(command: Command) -> Command:
    """The time control's and a bot's limits' options (config.command_line: one list of names), with the
    referee's defaults: `arena play` and `arena check-bot` take the same, as the submission check gives them."""
    clocks = {name for name, _, _ in CLOCK_OPTIONS}
    for name, flag, text in reversed(CLOCK_OPTIONS + LIMIT_OPTIONS):
        default = getattr(TC if name in clocks else LIM, name)
        command = click.option(flag, type=int, default=default, show_default=default is not None, help=text)(command)
    return command


@main.command("play")
@click.argument("game")
@click.option("--bot", "bots", multiple=True, metavar="CMD",
              help="Command that runs one bot, or a bot folder with manifest.json (once per seat, in seat order).")
@click.option("--seed", type=int, default=None, help="Game seed (default: random, printed).")
@click.option("--replay", "replay", type=click.Path(dir_okay=False), default=None, help="Write the replay (JSON lines) here.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option (see `arena games`).")
@clock_and_limit_options
@click.option("--policy", type=click.Choice([p.value for p in FaultPolicy]), default="forfeit", show_default=True)
@click.option("--sandbox/--no-sandbox", "sandbox", default=None, help="Run each bot in a bubblewrap sandbox (default: on where it can run).")
@click.option("--show-stderr", "show_stderr", multiple=True, metavar="SEAT",
              help="Print this seat's stderr lines beside each step (repeatable, or `all`).")
@click.option("--keep-logs", is_flag=True, help="Write each seat's stderr lines per step into the replay (for `arena view`).")
@click.option("--quiet", is_flag=True, help="Only the result, not the step-by-step log.")
@click.option("--json", "as_json", is_flag=True, help="Print only the result, as JSON.")
@click.option("--human", "human", type=int, default=None, metavar="SEAT",
              help="You play this seat, in your browser (a local page, its link printed); the --bots fill the other seats in order.")
@click.option("--human-ms", type=int, default=300_000, show_default=True,
              help="With --human: the time limit per decision (every seat's: the table has one clock rule).")
@click.option("--tui", is_flag=True, help="With --human: play in this terminal (numbered actions on stdin) instead of a browser.")
def play_command(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    replay: str | None,
    options: tuple[str, ...],
    decision_ms: int,
    bank_ms: int | None,
    increment_ms: int,
    startup_ms: int,
    game_ms: int | None,
    policy: str,
    cpu_seconds: int | None,
    memory_mb: int | None,
    sandbox: bool | None,
    show_stderr: tuple[str, ...],
    keep_logs: bool,
    quiet: bool,
    as_json: bool,
    human: int | None = None,
    human_ms: int = 300_000,
    tui: bool = False,
) -> None:
    """Play one GAME between bots and show what happened.

    Example (`arena games` lists the GAMEs): arena play GAME --bot 'python3 sample_bots/python/random_bot.py' --bot sample_bots/c/random_bot

    Play a seat yourself: arena play GAME --human 0 --bot CMD prints a link to a local page where you
    play seat 0 (--tui: in this terminal); the --bots take the other seats in order.

    A --seed reproduces the game: the game id is a one-way hash of it, and each bot gets ARENA_SEED (a
    one-way hash of the seed and its seat) in its environment, which the sample bots seed themselves
    from. Without --seed the seed is 63 random bits; a small seed you give, a bot can find by trying.
    """
    spec = get_game(game)
    seats = len(bots) + (human is not None)
    spec.check_seats(seats)
    if human is not None and not 0 <= human < seats:
        raise SeatCountError(f"--human {human}: give a seat from 0 to {seats - 1}")
    if tui and human is None:
        raise click.UsageError("--tui plays a human seat: give --human SEAT too")
    if human is not None:
        decision_ms = human_ms  # a person's pace: one clock rule for the table
    shown = stderr_seats(show_stderr, seats)
    resolved = spec.resolve_options(dict(parse_option(o) for o in options))
    commands = [parse_command(text, i) for i, text in enumerate(bots)]
    control = time_control_of({"decision_ms": decision_ms, "bank_ms": bank_ms, "increment_ms": increment_ms,
                               "startup_ms": startup_ms, "game_ms": game_ms})
    limits = limits_of({"cpu_seconds": cpu_seconds, "memory_mb": memory_mb})
    sandboxed, warning = decide(sandbox)
    if warning:
        click.echo(f"arena: {warning}", err=True)
    commands = bot_folders(commands, sandboxed)
    if seed is None:
        seed = random_seed()  # 63 bits: no bot can try them all against its hand
    path = replay
    if path is None:
        fd, path = tempfile.mkstemp(prefix="arena-replay-", suffix=".jsonl")
        os.close(fd)
    else:
        own_file(path)  # made before the bots start, so that the sandbox can mask it from them
    boxed = SandboxPolicy(enabled=sandboxed, hide=(os.path.abspath(path),), private=(os.path.abspath(path),))
    started: list[BotProcess] = []
    close_faults: list[Fault] = []
    logs: list[StepLog] = []
    finished = False
    try:
        names = entrant_names(commands)
        for i in range(seats):
            env = {"ARENA_SEED": str(bot_seed(seed, i))}
            if i == human:
                started.append(human_seat(spec.name, human, control, limits, env, tui))
                continue
            j = i - (human is not None and i > human)
            started.append(BotProcess.start(BotSpec(names[j], commands[j], env=env, sandbox=boxed), control, limits))
        result = play_game(spec, started, seed=seed, options=resolved, time_control=control, policy=FaultPolicy(policy),
                           replay_path=path, keep_logs=keep_logs and replay is not None,
                           on_log=logs.append if shown else None)
        finished = True
    finally:
        try:
            close_all(started, close_faults)
        finally:
            if replay is None and not finished:
                os.unlink(path)
    try:
        log_lines = [] if quiet or as_json else render_log(path, [g for g in logs if g.seat in shown])
    finally:
        if replay is None:
            os.unlink(path)
    for line in log_lines:
        click.echo(line)
    if as_json:
        out = result.to_json()
        out["close_faults"] = [f.to_json() for f in close_faults]
        out["replay_path"] = replay  # None: the temporary replay that fed the log is gone
        click.echo(dumps_str(out))
        return
    print_result(result, close_faults, replay, seat_labels(started))


def human_seat(game: str, seat: int, control: TimeControl, limits: Limits, env: dict[str, str], tui: bool) -> BotProcess:
    """Start the person's seat (arena.human): print its link, or play it in this terminal (`tui`)."""
    import sys
    import threading

    from arena.human.launch import start_human
    from arena.human.tui import run_tui

    seat_process = start_human(game, control, limits, env)
    click.echo(f"arena: you play seat {seat}: open {seat_process.url}", err=True)
    if tui:
        threading.Thread(target=run_tui, args=(seat_process.url, sys.stdin, sys.stdout), name="tui", daemon=True).start()
    return seat_process.bot


def bot_folders(commands: list[tuple[str, ...]], sandboxed: bool) -> list[tuple[str, ...]]:
    """Each `--bot DIR` naming a bot folder (manifest.json) replaced by its command, the folder built
    first when its language builds (once, however many seats it has)."""
    from arena.cli.build import folder_argv, is_folder

    built: dict[str, tuple[str, ...]] = {}
    out = []
    for argv in commands:
        if len(argv) == 1 and is_folder(argv[0]):
            key = os.path.realpath(argv[0])
            if key not in built:
                built[key] = folder_argv(argv[0], sandboxed)
            argv = built[key]
        out.append(argv)
    return out


def seat_labels(bots: list[BotProcess]) -> list[str]:
    """Each seat as the entrant's name, with the bot's own hello name and version beside it."""
    return [seat_label(bot.spec.name, bot.name, bot.version) for bot in bots]


def stderr_seats(values: tuple[str, ...], seats: int) -> frozenset[int]:
    """The seats `--show-stderr` names: numbers, or `all`."""
    shown: set[int] = set()
    for value in values:
        if value.strip().lower() == "all":
            shown.update(range(seats))
        elif value.strip().isdigit() and int(value) < seats:
            shown.add(int(value))
        else:
            raise SeatCountError(f"--show-stderr {clean(value, 40)!r}: give a seat from 0 to {seats - 1}, or `all`")
    return frozenset(shown)


def own_file(path: str) -> None:
    """Create the output file `path` (the organiser's only, 0600) if it is missing: an output must exist
    before the bots start for the sandbox to mask it where it lies in a bot's folder."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError as exc:
        raise ReplayError(f"cannot write the replay {clean(path, 300)}: {exc.strerror or exc}") from exc


def close_all(bots: list[BotProcess], close_faults: list[Fault]) -> None:
    """Close every bot even when a second Ctrl-C cuts one close short: each bot runs in its own
    session, so a bot left unclosed would outlive arena."""
    interrupt: KeyboardInterrupt | None = None
    for index, bot in enumerate(bots):
        try:
            bot.close()
        except KeyboardInterrupt as exc:
            interrupt = exc
            continue
        close_faults.extend(Fault(index, f.kind, f.step, f.request_id, f.detail, f.stderr_tail) for f in bot.close_faults)
    if interrupt is not None:
        raise interrupt


def render_log(path: str, logs: Sequence[StepLog] = ()) -> list[str]:
    """The game as a human reads it, from the replay: so the log shows exactly what was recorded.
    `logs`: the seats' stderr lines to show, each step's after that step's decisions."""
    lines: list[str] = []
    by_step: dict[int, list[StepLog]] = {}
    for log in logs:
        by_step.setdefault(log.step, []).append(log)
    for _, record in iter_replay(path):
        kind = record["type"]
        if kind == "header":
            lines.append(f"{record['game']} {record['game_version']}  seed {record['seed']}  options {dumps_str(record['options'])}")
            for seat in record["seats"]:
                label = seat_label(seat["entrant"], seat["name"], seat["version"])
                lines.append(f"  seat {seat['seat']}: {label}  ({clean(' '.join(seat['command']))})")
        elif kind == "decision":
            mark = {"bot": "", "recorded": "  (recorded)"}.get(record["source"], "  <- fallback")
            elapsed = record.get("elapsed_ms")
            timing = f"{elapsed:8.2f} ms" if elapsed is not None else "       - ms"
            lines.append(f"  step {record['step']:>3} seat {record['seat']}: {timing}  {dumps_str(record['played'])}{mark}")
        elif kind == "events":
            for log in sorted(by_step.get(record["step"], ()), key=lambda g: g.seat):
                lines.extend(f"           seat {log.seat} stderr| {text}" for text in log.lines)  # clean already
                if log.dropped:
                    lines.append(f"           seat {log.seat} stderr| ({log.dropped} more lines dropped: over the log's bounds)")
            for event in record["events"]:
                if "to" not in event:  # private events are the seats' business
                    data = {k: v for k, v in event.items() if k != "kind"}
                    lines.append(f"           {event['kind']}: {dumps_str(data)}")
        elif kind == "fault":
            lines.append(
                f"  FAULT seat {record['seat']} {record['kind']} (step {record['step']}, request {record['request_id']}):"
                f" {clean(record['detail'])}"
            )
            for tail in record.get("stderr_tail", [])[-3:]:
                lines.append(f"        stderr| {clean(tail, LINE_CHARS)}")
    return lines


def print_result(result: GameResult, close_faults: list[Fault], replay: str | None, labels: list[str]) -> None:
    click.echo("")
    click.echo(f"result of {result.game} seed {result.seed} ({result.decisions} decisions, {result.duration_s:.3f} s):")
    order = sorted(range(len(result.players)), key=lambda s: (result.ranks[s], s))
    faulty = {f.seat for f in result.faults}
    for seat in order:
        tiebreak = ",".join(str(t) for t in result.tiebreaks[seat])
        note = "  (faulted)" if seat in faulty else ""
        click.echo(
            f"  rank {result.ranks[seat]}  seat {seat}  {labels[seat]:<20} {result.points[seat]:>4} points"
            f"  tie-break {tiebreak}  game rank {result.game_ranks[seat]}{note}"
        )
    if result.faults:
        click.echo(f"faults ({result.policy.value}): " + ", ".join(f"seat {f.seat} {f.kind.value}" for f in result.faults))
    for fault in close_faults:
        click.echo(f"after the game: seat {fault.seat} {fault.kind.value}: {clean(fault.detail)}")
    if replay:
        click.echo(f"replay: {replay}")
