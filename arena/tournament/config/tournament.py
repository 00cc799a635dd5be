"""Tournament configs: YAML in, typed and checked dataclasses out.

Everything that can be known before a game starts is checked here (unknown keys, types, the game and
its options, the seat count, the schedule, that each bot's program exists), so a typo fails in a
second with a message naming the file, the key path (`entrants[2].command`) and what was expected,
instead of an hour into a run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from functools import cached_property
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.errors import ConfigError, GameError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps, placed
from arena.core.faults import FaultPolicy
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import probe
from arena.core.scheduled import ScheduledGame
from arena.tournament.schedule import plan as sched
from arena.tournament.config.reader import Reader as _Reader, join as _join, kind as _kind
from arena.sandbox.view import holds
from arena.tournament.config.sandbox import folders_of, named_files, overlaps, private_paths, read_policy, with_outputs
from arena.tournament.config.entrants import EntrantConfig, read_entrants
from arena.tournament.schedule.plan import (CONFIG_FORMATS, SHARED_DEALS_WARNING, Deals, Fill, Format, Rotations, ScheduleError,
                                           ScheduleSpec)

if TYPE_CHECKING:  # a worker unpickling a config does not read YAML, nor the stop rule unless it has one
    from arena.stats.stoprule import StopRule


# The settings a config may give; every default comes from the referee's own dataclasses, so there is
# one source of truth for them (`TimeControl`, `Limits`), and the fingerprint hashes every field.
TIME_CONTROL_KEYS = ("decision_ms", "bank_ms", "increment_ms", "startup_ms")
LIMITS_KEYS = ("cpu_seconds", "memory_mb", "max_line_bytes")


@dataclass(frozen=True)
class TournamentConfig:
    path: Path
    name: str
    game: str
    options: Mapping[str, Any]  # resolved: defaults filled in
    players: int
    entrants: tuple[EntrantConfig, ...]
    schedule: ScheduleSpec
    seed: int
    time_control: TimeControl
    limits: Limits
    fault_policy: FaultPolicy
    concurrency: int | None  # None: one game per core
    restart_bots: bool
    store: Path
    replays: Path | None
    raw: Mapping[str, JSON] = field(repr=False, default_factory=dict)
    cluster: str | None = None  # `executor: {dask: ...}`: a Dask scheduler's address, or local:N
    report: Path | None = None  # output.report: the HTML report folder `arena run` writes at the end
    keep_logs: bool = False  # output.keep_logs: the bots' stderr lines per step in each replay (needs output.replays)
    stop: StopRule | None = None  # stop: end the round-robin once its ranking is settled (config_stop.py)
    warnings: tuple[str, ...] = ()  # what `validate` and `run` say before anything runs (shared entrant folders)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def game_spec(self) -> GameSpec:
        return get_game(self.game)

    def games(self) -> list[ScheduledGame]:
        return sched.build(self.schedule)

    def rules(self) -> dict[str, JSON]:
        """The settings every game shares that can change its result (all but who sits where, and the deal)."""
        return {
            "game": self.game,
            "game_version": self.game_spec().version,
            "options": dict(self.options),
            "time_control": self.time_control.to_json(),
            "limits": dataclasses.asdict(self.limits),
            "fault_policy": self.fault_policy.value,
        }

    def identity(self) -> dict[str, JSON]:
        """What decides the games played and their results.

        Left out on purpose: concurrency, restart_bots, output paths and the stop rule (how a run goes,
        not what a game is), and the resolved interpreter path (so a store survives a new virtual environment).
        """
        return {
            **self.rules(),
            "players": self.players,
            "entrants": [e.identity() for e in self.entrants],
            "schedule": {
                "format": self.schedule.format.value,
                "rounds": self.schedule.rounds,
                "rotations": self.schedule.rotations.value,
                "deals": self.schedule.deals.value,
                "fill": self.schedule.fill.value,
                "candidates": list(self.schedule.candidates),
            },
            "seed": self.seed,
        }

    def fingerprint(self) -> str:
        return hashlib.sha256(dumps(self.identity())).hexdigest()[:16]

    def game_key(self, game: ScheduledGame, rules: str | None = None) -> str:
        """One game's identity: its rules, deal seed and who sits in each seat. A stored game with the
        same key is the same game, whatever else changed in the config (more rounds, a new entrant).
        `rules` is `rules_key()`, passed in when keying many games."""
        identities = self._encoded_identities
        seats = [placed(identities[e]) for e in game.seats]
        text = dumps({"rules": rules or self.rules_key(), "seed": game.seed, "seats": seats})
        return hashlib.sha256(text).hexdigest()[:32]

    @cached_property
    def _encoded_identities(self) -> tuple[bytes, ...]:
        """Each entrant's identity, encoded once for the keys of all its games (the same bytes)."""
        return tuple(dumps(e.identity()) for e in self.entrants)

    def rules_key(self) -> str:
        return hashlib.sha256(dumps(self.rules())).hexdigest()


# --- reading -----------------------------------------------------------------------------------------

TOP_KEYS = {
    "name", "game", "options", "players", "entrants", "schedule", "seed", "time_control", "limits",
    "fault_policy", "concurrency", "restart_bots", "root", "output", "sandbox", "executor", "stop",
}


def load(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and check a config file; raises ConfigError naming the file and key on any problem."""
    import yaml  # here: a worker process gets its config pickled, never parses one

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{file}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the config: {exc}") from None
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml's parser where PyYAML has it
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{file}: {where}not valid YAML: {problem}") from None
    return parse(data, file)


def parse(data: Any, file: Path) -> TournamentConfig:
    """The config in `data`, every part read and checked; one ConfigError names every mistake at once."""
    from arena.tournament.config.stop import read_stop

    r = _Reader(file)
    top: dict[str, Any] | None = r.attempt(lambda: r.mapping(data, "", TOP_KEYS, required={"game", "entrants"}), None)
    if top is None:
        r.done()
    assert top is not None
    config_dir = file.resolve().parent
    root = r.attempt(lambda: _root(r, top, config_dir), config_dir)
    name = r.attempt(lambda: r.string(top["name"], "name"), file.stem) if "name" in top else file.stem
    no_game: tuple[GameSpec | None, dict[str, Any]] = (None, {})
    spec, options = r.attempt(lambda: _game(r, top), no_game)
    sandbox = r.attempt(lambda: read_policy(r, top.get("sandbox"), "sandbox", SandboxPolicy(enabled=probe().sandbox)),
                        SandboxPolicy(enabled=False))
    errors = len(r.errors)
    entrants = read_entrants(r, top["entrants"], root, config_dir, sandbox)
    entrants_ok = len(r.errors) == errors
    n = len(entrants)
    players = 0
    if spec is not None:
        players = r.attempt(lambda: _players(r, top, spec, n), 0)
    seed = r.attempt(lambda: r.integer(top.get("seed", 0), "seed", minimum=0), 0)
    schedule_spec: ScheduleSpec | None = None
    if spec is not None and entrants_ok and players:  # else the schedule's own complaint would be a consequence
        schedule_spec = r.attempt(lambda: _schedule(r, top.get("schedule"), entrants, players, seed), None)
    stop = r.attempt(lambda: read_stop(r, top.get("stop")), None)
    time_control = r.attempt(lambda: r.section(
        top.get("time_control"),
        "time_control",
        TimeControl,
        {
            "decision_ms": lambda v, w: r.integer(v, w, minimum=1),
            "bank_ms": lambda v, w: r.integer(v, w, minimum=0, allow_null=True),
            "increment_ms": lambda v, w: r.integer(v, w, minimum=0),
            "startup_ms": lambda v, w: r.integer(v, w, minimum=1),
            "shutdown_ms": lambda v, w: r.integer(v, w, minimum=0),
            "game_ms": lambda v, w: r.integer(v, w, minimum=1, allow_null=True),
        },
    ), TimeControl())
    limits = r.attempt(lambda: r.section(
        top.get("limits"),
        "limits",
        Limits,
        {
            "cpu_seconds": lambda v, w: r.integer(v, w, minimum=1, allow_null=True),
            "memory_mb": lambda v, w: r.integer(v, w, minimum=1, allow_null=True),
            "max_line_bytes": lambda v, w: r.integer(v, w, minimum=1024),
        },
    ), Limits())
    policy = r.attempt(lambda: r.choice(top.get("fault_policy", "forfeit"), "fault_policy", FaultPolicy),
                       FaultPolicy.FORFEIT)
    concurrency = r.attempt(lambda: r.integer(top.get("concurrency"), "concurrency", minimum=1, allow_null=True), None)
    restart_bots = r.attempt(lambda: r.boolean(top.get("restart_bots", False), "restart_bots"), False)
    cluster = r.attempt(lambda: _cluster(r, top), None)
    no_outputs: tuple[Path, Path | None, Path | None] = (root / "out" / f"{name}.sqlite", None, None)
    store, replays, report = r.attempt(lambda: _outputs(r, top, root, name), no_outputs)
    keep_logs = r.attempt(lambda: _keep_logs(r, top, replays), False)
    no_views: tuple[list[EntrantConfig], list[str]] = (entrants, [])
    entrants, warnings = r.attempt(lambda: _sandbox_views(r, entrants, root, file, store, replays, report), no_views)
    r.done()
    assert spec is not None and schedule_spec is not None  # else a mistake was noted and `done` raised
    if schedule_spec.deals is Deals.SHARED and schedule_spec.rotations is not Rotations.NONE:
        warnings.append(f"schedule.deals: {SHARED_DEALS_WARNING}")

    return TournamentConfig(
        path=file,
        name=name,
        game=spec.name,
        options=options,
        players=players,
        entrants=tuple(entrants),
        schedule=schedule_spec,
        seed=seed,
        time_control=time_control,
        limits=limits,
        fault_policy=policy,
        concurrency=concurrency,
        restart_bots=restart_bots,
        store=store.resolve(),
        replays=replays.resolve() if replays is not None else None,
        raw=top,
        cluster=cluster,
        report=report.resolve() if report is not None else None,
        keep_logs=keep_logs,
        stop=stop,
        warnings=tuple(warnings),
    )


def _root(r: _Reader, top: dict[str, Any], config_dir: Path) -> Path:
    if "root" not in top:
        return config_dir
    root = (config_dir / r.string(top["root"], "root")).resolve()
    if not root.is_dir():
        r.fail("root", f"folder {str(root)!r} does not exist")
    return root


def _game(r: _Reader, top: dict[str, Any]) -> tuple[GameSpec | None, dict[str, Any]]:
    game_name = r.string(top["game"], "game")
    try:
        spec = get_game(game_name)
    except GameError as exc:
        r.fail("game", str(exc))
    options_raw = top.get("options") or {}
    if not isinstance(options_raw, dict):
        r.fail("options", f"expected a mapping of game options, got {_kind(options_raw)}")
    for key in options_raw:
        if not isinstance(key, str):
            r.fail("options", f"option names are words, got {_kind(key)}")
    try:
        options = spec.resolve_options(options_raw)
    except GameError as exc:
        bad = next((k for k in options_raw if k not in {o.name for o in spec.options}), None)
        r.fail(_join("options", bad) if bad else "options", str(exc))
    return spec, dict(options)


def _players(r: _Reader, top: dict[str, Any], spec: GameSpec, entrants: int) -> int:
    if "players" not in top:
        return max(spec.min_seats, min(entrants, spec.max_seats))
    players: int = r.integer(top["players"], "players", minimum=1)
    try:
        spec.check_seats(players)
    except GameError as exc:
        r.fail("players", str(exc))
    return players


def _cluster(r: _Reader, top: dict[str, Any]) -> str | None:
    executor = r.mapping(top.get("executor") or {}, "executor", {"dask"})
    cluster = None if executor.get("dask") is None else r.string(executor["dask"], "executor.dask")
    if cluster is not None:
        try:
            ClusterSpec.parse(cluster)
        except ClusterError as exc:
            r.fail("executor.dask", str(exc).replace("--cluster ", "", 1))
    return cluster


def _outputs(r: _Reader, top: dict[str, Any], root: Path, name: str) -> tuple[Path, Path | None, Path | None]:
    output = r.mapping(top.get("output") or {}, "output", {"store", "replays", "report", "keep_logs"})
    store = root / (r.string(output["store"], "output.store") if "store" in output else f"out/{name}.sqlite")
    replays_raw = output.get("replays")
    replays = None if replays_raw is None else root / r.string(replays_raw, "output.replays")
    report_raw = output.get("report")
    report = None if report_raw is None else root / r.string(report_raw, "output.report")
    return store, replays, report


def _keep_logs(r: _Reader, top: dict[str, Any], replays: Path | None) -> bool:
    output = top.get("output") or {}
    keep = r.boolean(output.get("keep_logs", False) if isinstance(output, dict) else False, "output.keep_logs")
    if keep and replays is None:
        r.fail("output.keep_logs", "the logs are kept in the replays: set output.replays to a folder too")
    return keep


def _sandbox_views(r: _Reader, entrants: list[EntrantConfig], root: Path, file: Path, store: Path, replays: Path | None,
                   report: Path | None) -> tuple[list[EntrantConfig], list[str]]:
    """Each entrant's sandbox with arena's outputs masked and the others' folders private; entrants
    whose folders overlap refused, or warned about when they all opted in (config.sandbox.overlaps)."""
    warnings = overlaps(r, [(e.name, e.command, e.cwd, e.sandbox) for e in entrants])
    folders = [folders_of(e.command, e.cwd, e.sandbox) for e in entrants]
    out = []
    for i, e in enumerate(entrants):
        mine = set(named_files(e.command, e.cwd))
        others = tuple(f for j, o in enumerate(entrants) if j != i and o.sandbox.shared_folder
                       for f in named_files(o.command, o.cwd) if f not in mine and any(holds(d, f) for d in folders[i]))
        private = private_paths(root, file, i, folders)
        policy = with_outputs(e.sandbox, e.name, store, replays, report, file, private, tuple(dict.fromkeys(others)))
        out.append(replace(e, sandbox=policy))
    return out, warnings


def _schedule(r: _Reader, value: Any, entrants: list[EntrantConfig], players: int, seed: int) -> ScheduleSpec:
    where = "schedule"
    data = r.mapping(value or {}, where, {"format", "rounds", "rotations", "deals", "fill", "candidates"})
    fmt = r.choice(data.get("format", "round-robin"), _join(where, "format"), Format, CONFIG_FORMATS)
    rounds = r.integer(data.get("rounds", 1), _join(where, "rounds"), minimum=1)
    rotations = r.choice(data.get("rotations", "cyclic"), _join(where, "rotations"), Rotations)
    deals = r.choice(data.get("deals", "spread"), _join(where, "deals"), Deals)
    fill = r.choice(data.get("fill", "error"), _join(where, "fill"), Fill)
    names = [e.name for e in entrants]
    candidates: list[int] = []
    if "candidates" in data:
        for j, cand in enumerate(r.listing(data["candidates"], _join(where, "candidates"))):
            cw = _join(_join(where, "candidates"), j)
            cand = r.string(cand, cw)
            if cand not in names:
                r.fail(cw, f"no entrant named {cand!r} (entrants: {', '.join(names)})")
            candidates.append(names.index(cand))
    spec = ScheduleSpec(
        entrants=len(entrants),
        seats=players,
        rounds=rounds,
        format=fmt,
        rotations=rotations,
        deals=deals,
        fill=fill,
        candidates=tuple(candidates),
        master_seed=seed,
        labels=tuple(names),
    )
    try:
        sched.validate(spec)
    except ScheduleError as exc:
        r.fail(where, str(exc))
    return spec
