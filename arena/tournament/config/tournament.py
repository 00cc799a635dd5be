"""Tournament configs: a YAML file read into a `PlaySetup` (config.setup) and built. YAML is one way in.

Everything that can be known before a game starts is checked (unknown keys, types, the game and its
options, the seat count, the schedule, that each bot's program exists), so a typo fails in a second
with a message naming the file, the key path (`entrants[2].command`) and what was expected, instead of
an hour into a run; every mistake is listed at once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.core.faults import FaultPolicy
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.errors import ConfigError
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import probe
from arena.tournament.config.entrants import read_entrants
from arena.tournament.config.reader import Reader, join, kind
from arena.tournament.config.sandbox import read_policy
from arena.tournament.config.setup import (Checked, PlaySetup, ScheduleSetup, assemble, check_entrants, check_game,
                                           check_players, check_schedule)
from arena.tournament.config.tournament_config import LIMITS_KEYS, TIME_CONTROL_KEYS, TournamentConfig
from arena.tournament.schedule.plan import CONFIG_FORMATS, Deals, Fill, Format, Rotations


__all__ = ["LIMITS_KEYS", "TIME_CONTROL_KEYS", "TOP_KEYS", "TournamentConfig", "load", "load_setup", "parse"]

TOP_KEYS = {
    "name", "game", "options", "players", "entrants", "schedule", "seed", "time_control", "limits",
    "fault_policy", "concurrency", "restart_bots", "root", "output", "sandbox", "executor", "stop",
}


def load(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and check a config file; raises ConfigError naming the file and key on any problem."""
    file = Path(path)
    return parse(read_yaml(file), file)


def read_yaml(file: Path) -> Any:
    """A YAML file's document; ConfigError saying where it is not YAML (the line and column)."""
    import yaml  # here: a worker process gets its config pickled, never parses one

    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{file}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the config: {exc}") from None
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml's parser where PyYAML has it
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{file}: {where}not valid YAML: {problem}") from None


def load_setup(path: str | os.PathLike[str]) -> PlaySetup:
    """A config file's `PlaySetup`, checked whole (ConfigError listing every mistake), for a caller to
    compose (`arena match` plays its entrants under its clocks and limits)."""
    file = Path(path)
    r = Reader(file)
    setup, checked = read_setup(r, read_yaml(file), file)
    assemble(r, setup, checked)
    return setup


def parse(data: Any, file: Path) -> TournamentConfig:
    """The config in `data`, every part read and checked; one ConfigError names every mistake at once."""
    r = Reader(file)
    setup, checked = read_setup(r, data, file)
    return assemble(r, setup, checked)


def read_setup(r: Reader, data: Any, file: Path) -> tuple[PlaySetup, Checked]:
    """The file's keys as a `PlaySetup` (each mistake noted in `r`, a fallback in its place), and the
    parts checked as they are read (so the mistakes are listed in this order)."""
    from arena.tournament.config.stop import read_stop

    top: dict[str, Any] | None = r.attempt(lambda: r.mapping(data, "", TOP_KEYS, required={"game", "entrants"}), None)
    if top is None:
        r.done()
    assert top is not None
    config_dir = file.resolve().parent
    root = r.attempt(lambda: _root(r, top, config_dir), config_dir)
    name = r.attempt(lambda: r.string(top["name"], "name"), file.stem) if "name" in top else file.stem
    game = r.attempt(lambda: r.string(top["game"], "game"), "")
    options: dict[str, Any] = r.attempt(lambda: _options(r, top.get("options")), {})
    game_options = check_game(r, game, options)
    sandbox = r.attempt(lambda: read_policy(r, top.get("sandbox"), "sandbox", SandboxPolicy(enabled=probe().sandbox)),
                        SandboxPolicy(enabled=False))
    errors = len(r.errors)
    entrants = read_entrants(r, top["entrants"], sandbox)
    ready, entrants_ok = check_entrants(r, entrants, root, config_dir, sandbox)
    entrants_ok = entrants_ok and len(r.errors) == errors
    spec = game_options[0]
    players = r.attempt(lambda: r.integer(top["players"], "players", minimum=1), None) if "players" in top else None
    seats = check_players(r, players, spec, len(ready)) if "players" not in top or players is not None else 0
    seed = r.attempt(lambda: r.integer(top.get("seed", 0), "seed", minimum=0), 0)
    schedule = r.attempt(lambda: _schedule(r, top.get("schedule")), None)
    scheduled = check_schedule(r, schedule, spec, ready, entrants_ok, seats, seed) if schedule is not None else None
    stop = r.attempt(lambda: read_stop(r, top.get("stop")), None)
    time_control = read_time_control(r, top.get("time_control"))
    limits = read_limits(r, top.get("limits"))
    policy = r.attempt(lambda: r.choice(top.get("fault_policy", "forfeit"), "fault_policy", FaultPolicy),
                       FaultPolicy.FORFEIT)
    concurrency = r.attempt(lambda: r.integer(top.get("concurrency"), "concurrency", minimum=1, allow_null=True), None)
    restart_bots = r.attempt(lambda: r.boolean(top.get("restart_bots", False), "restart_bots"), False)
    cluster = r.attempt(lambda: _cluster(r, top), None)
    no_outputs: tuple[Path | None, Path | None, Path | None, bool] = (None, None, None, False)
    store, replays, report, keep_logs = r.attempt(lambda: _outputs(r, top, root), no_outputs)
    setup = PlaySetup(
        file=file, game=game, entrants=tuple(entrants), name=name, options=options, players=players, seed=seed,
        schedule=schedule or ScheduleSetup(), time_control=time_control, limits=limits, fault_policy=policy,
        sandbox=sandbox, concurrency=concurrency, restart_bots=restart_bots, root=root, store=store,
        replays=replays, report=report, keep_logs=keep_logs, cluster=cluster, stop=stop,
    )
    return setup, Checked(game_options, ready, seats, scheduled)


def read_time_control(r: Reader, value: Any, where: str = "time_control") -> TimeControl:
    """`time_control:` over the referee's defaults (TimeControl); the defaults with the mistake noted."""
    integer = r.integer
    return r.attempt(lambda: r.section(value, where, TimeControl, {
        "decision_ms": lambda v, w: integer(v, w, minimum=1),
        "bank_ms": lambda v, w: integer(v, w, minimum=0, allow_null=True),
        "increment_ms": lambda v, w: integer(v, w, minimum=0),
        "startup_ms": lambda v, w: integer(v, w, minimum=1),
        "shutdown_ms": lambda v, w: integer(v, w, minimum=0),
        "game_ms": lambda v, w: integer(v, w, minimum=1, allow_null=True),
    }), TimeControl())


def read_limits(r: Reader, value: Any, where: str = "limits") -> Limits:
    """`limits:` over the referee's defaults (Limits); the defaults with the mistake noted."""
    integer = r.integer
    return r.attempt(lambda: r.section(value, where, Limits, {
        "cpu_seconds": lambda v, w: integer(v, w, minimum=1, allow_null=True),
        "memory_mb": lambda v, w: integer(v, w, minimum=1, allow_null=True),
        "max_line_bytes": lambda v, w: integer(v, w, minimum=1024),
    }), Limits())


def _root(r: Reader, top: dict[str, Any], config_dir: Path) -> Path:
    if "root" not in top:
        return config_dir
    root = (config_dir / r.string(top["root"], "root")).resolve()
    if not root.is_dir():
        r.fail("root", f"folder {str(root)!r} does not exist")
    return root


def _options(r: Reader, value: Any) -> dict[str, Any]:
    options = value or {}
    if not isinstance(options, dict):
        r.fail("options", f"expected a mapping of game options, got {kind(options)}")
    for key in options:
        if not isinstance(key, str):
            r.fail("options", f"option names are words, got {kind(key)}")
    return options


def _schedule(r: Reader, value: Any) -> ScheduleSetup:
    where = "schedule"
    data = r.mapping(value or {}, where, {"format", "rounds", "rotations", "deals", "fill", "candidates"})
    candidates = [r.string(c, join(join(where, "candidates"), j))
                  for j, c in enumerate(r.listing(data.get("candidates", []), join(where, "candidates")))]
    return ScheduleSetup(
        format=r.choice(data.get("format", "round-robin"), join(where, "format"), Format, CONFIG_FORMATS),
        rounds=r.integer(data.get("rounds", 1), join(where, "rounds"), minimum=1),
        rotations=r.choice(data.get("rotations", "cyclic"), join(where, "rotations"), Rotations),
        deals=r.choice(data.get("deals", "spread"), join(where, "deals"), Deals),
        fill=r.choice(data.get("fill", "error"), join(where, "fill"), Fill),
        candidates=tuple(candidates),
    )


def _cluster(r: Reader, top: dict[str, Any]) -> str | None:
    executor = r.mapping(top.get("executor") or {}, "executor", {"dask"})
    return None if executor.get("dask") is None else r.string(executor["dask"], "executor.dask")


def _outputs(r: Reader, top: dict[str, Any], root: Path) -> tuple[Path | None, Path | None, Path | None, bool]:
    output = r.mapping(top.get("output") or {}, "output", {"store", "replays", "report", "keep_logs"})
    store = None if "store" not in output else root / r.string(output["store"], "output.store")
    replays = None if output.get("replays") is None else root / r.string(output["replays"], "output.replays")
    report = None if output.get("report") is None else root / r.string(output["report"], "output.report")
    keep_logs = r.boolean(output.get("keep_logs", False), "output.keep_logs")
    return store, replays, report, keep_logs
