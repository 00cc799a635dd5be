"""A play setup's clocks and limits as command-line options, and back: one list of names for `arena play`,
`arena check-bot` (their click options are made from it, arena.cli.play) and the submission check, which
runs both as child processes with its ladder's `PlaySetup` written out here. So a time control and a bot's
limits have one shape from the server's config to the referee: a `TimeControl` and a `Limits`.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.tournament.config.setup import PlaySetup

# (field, option, help): the time control's fields `arena play` and `arena check-bot` take. shutdown_ms is the
# referee's grace at a process's end, the same everywhere, and has no option.
CLOCK_OPTIONS = (
    ("decision_ms", "--decision-ms", "Time limit per decision."),
    ("bank_ms", "--bank-ms", "A total time bank per seat (chess clock)."),
    ("increment_ms", "--increment-ms", "Added to the bank after each decision."),
    ("startup_ms", "--startup-ms", "Allowance for a bot's start-up and handshake."),
    ("game_ms", "--game-ms", "Wall-clock limit of the whole game (0: none)."),
)
LIMIT_OPTIONS = (
    ("cpu_seconds", "--cpu-seconds", "CPU-time limit of each bot process."),
    ("memory_mb", "--memory-mb", "Address-space limit of each bot process (0: none)."),
)
ZERO_IS_NONE = ("game_ms", "memory_mb")  # 0 on the command line: no limit (None); bank_ms and cpu_seconds: left out


def clock_argv(time_control: TimeControl, limits: Limits) -> list[str]:
    """`time_control` and `limits` as the options `time_control_of` and `limits_of` read back unchanged."""
    argv: list[str] = []
    for name, flag, _ in CLOCK_OPTIONS + LIMIT_OPTIONS:
        value = getattr(time_control if any(name == c[0] for c in CLOCK_OPTIONS) else limits, name)
        if value is None and name in ZERO_IS_NONE:
            value = 0
        if value is not None:
            argv += [flag, str(value)]
    return argv


def setup_argv(setup: PlaySetup) -> list[str]:
    """What a setup's games are played under, as `arena play`'s options: clocks, limits, game options, sandbox.
    (`arena check-bot` takes the same but the game options: it plays every configuration of the game.)"""
    options = [x for k, v in setup.options.items() for x in ("--option", f"{k}={_option(v)}")]
    box = [] if setup.sandbox is None else ["--sandbox" if setup.sandbox.enabled else "--no-sandbox"]
    return [*clock_argv(setup.time_control, setup.limits), *options, *box]


def time_control_of(values: Mapping[str, Any]) -> TimeControl:
    """The time control given by CLOCK_OPTIONS' values (a click command's parameters)."""
    given: dict[str, Any] = {name: values[name] or None if name in ZERO_IS_NONE else values[name] for name, _, _ in CLOCK_OPTIONS}
    return TimeControl(**given)


def limits_of(values: Mapping[str, Any]) -> Limits:
    """The limits given by LIMIT_OPTIONS' values (a click command's parameters)."""
    return Limits(cpu_seconds=values["cpu_seconds"], memory_mb=values["memory_mb"] or None)


def _option(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
