"""One play setup, built in code: the typed value every way of playing composes (a tournament's YAML,
`arena match`, the ladder), and `build`, which checks it whole and gives the `TournamentConfig` games run on.

YAML is one way in (`tournament.parse` reads a file's keys into a `PlaySetup`, then builds it); the
match and the ladder make a `PlaySetup` directly. Either way every mistake is listed at once, each named
where it is (`entrants[2].command[0]` in a file, `NEW.command[0]` in a match) with what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.core.faults import FaultPolicy
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.errors import GameError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import probe
from arena.sandbox.view import holds
from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.tournament.config.entrants import EntrantConfig, EntrantSetup, check_entrant
from arena.tournament.config.reader import Reader, join
from arena.tournament.config.sandbox import folders_of, named_files, overlaps, private_paths, with_outputs
from arena.tournament.config.tournament_config import TournamentConfig
from arena.tournament.schedule import plan as sched
from arena.tournament.schedule.plan import SHARED_DEALS_WARNING, Deals, Fill, Format, Rotations, ScheduleError, ScheduleSpec

if TYPE_CHECKING:
    from arena.stats.stoprule import StopRule


@dataclass(frozen=True)
class ScheduleSetup:
    format: Format = Format.ROUND_ROBIN
    rounds: int = 1
    rotations: Rotations = Rotations.CYCLIC
    deals: Deals = Deals.SPREAD
    fill: Fill = Fill.ERROR
    candidates: tuple[str, ...] = ()  # entrant names


@dataclass(frozen=True, kw_only=True)
class PlaySetup:
    """What is played, by whom, under which clocks, limits and sandbox, and where the results go."""

    file: Path  # the config it was read from, or the one a setup built in code stands for (never written):
    #             relative paths and {config_dir} resolve from its folder, and no bot is shown it
    game: str
    entrants: tuple[EntrantSetup, ...]
    name: str | None = None  # None: the file's stem
    options: Mapping[str, Any] = field(default_factory=dict)  # as given; the game fills in its defaults
    players: int | None = None  # None: as many as the entrants, within the game's seats
    seed: int = 0
    schedule: ScheduleSetup = ScheduleSetup()
    time_control: TimeControl = TimeControl()
    limits: Limits = Limits()
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT
    sandbox: SandboxPolicy | None = None  # None: on where this machine can run it
    concurrency: int | None = None
    restart_bots: bool = False
    root: Path | None = None  # None: the file's folder
    store: Path | None = None  # None: out/NAME.sqlite under the root
    replays: Path | None = None
    report: Path | None = None
    keep_logs: bool = False
    cluster: str | None = None
    stop: StopRule | None = None
    label: str | None = None  # what starts each mistake's line: None the file, "" nothing (a command's own arguments)

    @property
    def config_dir(self) -> Path:
        return self.file.resolve().parent

    def base_sandbox(self) -> SandboxPolicy:
        return self.sandbox if self.sandbox is not None else SandboxPolicy(enabled=probe().sandbox)

    def reader(self) -> Reader:
        return Reader(self.file, self.label)

    def build(self) -> TournamentConfig:
        """The setup checked whole; raises one ConfigError listing every mistake, each saying what to fix."""
        r = self.reader()
        r.attempt(lambda: r.string(self.game, "game"), "")
        return assemble(r, self)


@dataclass
class Checked:
    """The parts a reader checked in its own order, so its mistakes are listed in the order of the file."""

    game: tuple[GameSpec | None, dict[str, Any]]
    entrants: list[EntrantConfig]
    players: int
    schedule: ScheduleSpec | None


def check_game(r: Reader, game: str, options: Mapping[str, Any]) -> tuple[GameSpec | None, dict[str, Any]]:
    """The game and its options with their defaults filled in; (None, {}) with the mistake noted."""
    no_game: tuple[GameSpec | None, dict[str, Any]] = (None, {})
    return r.attempt(lambda: _game(r, game, options), no_game) if game else no_game


def check_entrants(r: Reader, given: Sequence[EntrantSetup], root: Path, config_dir: Path,
                   base: SandboxPolicy) -> tuple[list[EntrantConfig], bool]:
    """Each entrant checked and made ready to run, and whether none had a mistake."""
    errors = len(r.errors)
    seen: dict[str, str] = {}
    checked = [r.attempt(lambda: check_entrant(r, _labelled(s, i), root, config_dir, base, seen), None)
               for i, s in enumerate(given)]
    return [e for e in checked if e is not None], len(r.errors) == errors


def check_players(r: Reader, players: int | None, spec: GameSpec | None, entrants: int) -> int:
    """The seats at each table (given, or as many as the entrants within the game's); 0 with the mistake noted."""
    return r.attempt(lambda: _players(r, players, spec, entrants), 0) if spec is not None else 0


def check_schedule(r: Reader, given: ScheduleSetup, spec: GameSpec | None, entrants: list[EntrantConfig],
                   entrants_ok: bool, players: int, seed: int) -> ScheduleSpec | None:
    """The games' schedule; None with the mistake noted, or unchecked after a mistake it would follow from."""
    if spec is None or not entrants_ok or not players:
        return None
    return r.attempt(lambda: _schedule(r, given, entrants, players, seed), None)


def assemble(r: Reader, setup: PlaySetup, checked: Checked | None = None) -> TournamentConfig:
    """`setup` checked, after whatever `r` has noted already and the parts a reader `checked` itself."""
    name = setup.name if setup.name is not None else setup.file.stem
    root = setup.root if setup.root is not None else setup.config_dir
    if checked is None:
        game = check_game(r, setup.game, setup.options)
        given, ok = check_entrants(r, setup.entrants, root, setup.config_dir, setup.base_sandbox())
        players = check_players(r, setup.players, game[0], len(given))
        checked = Checked(game, given, players, check_schedule(r, setup.schedule, game[0], given, ok, players, setup.seed))
    spec, options = checked.game
    entrants, players, schedule = checked.entrants, checked.players, checked.schedule
    if setup.cluster is not None:
        r.attempt(lambda: _cluster(r, setup.cluster or ""), None)
    store = setup.store if setup.store is not None else root / "out" / f"{name}.sqlite"
    if setup.keep_logs and setup.replays is None:
        r.note("output.keep_logs", "the logs are kept in the replays: set output.replays to a folder too")
    no_views: tuple[list[EntrantConfig], list[str]] = (entrants, [])
    entrants, warnings = r.attempt(lambda: _sandbox_views(r, entrants, root, setup.file, store, setup.replays,
                                                          setup.report), no_views)
    r.done()
    assert spec is not None and schedule is not None  # else a mistake was noted and `done` raised
    if schedule.deals is Deals.SHARED and schedule.rotations is not Rotations.NONE:
        warnings.append(f"schedule.deals: {SHARED_DEALS_WARNING}")
    return TournamentConfig(
        path=setup.file, name=name, game=spec.name, options=options, players=players, entrants=tuple(entrants),
        schedule=schedule, seed=setup.seed, time_control=setup.time_control, limits=setup.limits,
        fault_policy=setup.fault_policy, concurrency=setup.concurrency, restart_bots=setup.restart_bots,
        store=store.resolve(), replays=setup.replays.resolve() if setup.replays is not None else None,
        cluster=setup.cluster, report=setup.report.resolve() if setup.report is not None else None,
        keep_logs=setup.keep_logs, stop=setup.stop, warnings=tuple(warnings),
    )


def _labelled(entrant: EntrantSetup, i: int) -> EntrantSetup:
    return entrant if entrant.label else replace(entrant, label=join("entrants", i))


def _game(r: Reader, game: str, given: Mapping[str, Any]) -> tuple[GameSpec | None, dict[str, Any]]:
    try:
        spec = get_game(game)
    except GameError as exc:
        r.fail("game", str(exc))
    try:
        options = spec.resolve_options(given)
    except GameError as exc:
        bad = next((k for k in given if k not in {o.name for o in spec.options}), None)
        r.fail(join("options", bad) if bad else "options", str(exc))
    return spec, dict(options)


def _players(r: Reader, players: int | None, spec: GameSpec, entrants: int) -> int:
    if players is None:
        return max(spec.min_seats, min(entrants, spec.max_seats))
    try:
        spec.check_seats(players)
    except GameError as exc:
        r.fail("players", str(exc))
    return players


def _cluster(r: Reader, cluster: str) -> None:
    try:
        ClusterSpec.parse(cluster)
    except ClusterError as exc:
        r.fail("executor.dask", str(exc).replace("--cluster ", "", 1))


def _schedule(r: Reader, given: ScheduleSetup, entrants: list[EntrantConfig], players: int, seed: int) -> ScheduleSpec:
    names = [e.name for e in entrants]
    candidates: list[int] = []
    for j, cand in enumerate(given.candidates):
        if cand not in names:
            r.fail(join("schedule.candidates", j), f"no entrant named {cand!r} (entrants: {', '.join(names)})")
        candidates.append(names.index(cand))
    spec = ScheduleSpec(entrants=len(entrants), seats=players, rounds=given.rounds, format=given.format,
                        rotations=given.rotations, deals=given.deals, fill=given.fill, candidates=tuple(candidates),
                        master_seed=seed, labels=tuple(names))
    try:
        sched.validate(spec)
    except ScheduleError as exc:
        r.fail("schedule", str(exc))
    return spec


def _sandbox_views(r: Reader, entrants: list[EntrantConfig], root: Path, file: Path, store: Path, replays: Path | None,
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

