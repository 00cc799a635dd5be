"""The final: each participant's active bot in a round-robin that stops once its order is settled.

Built in code as any tournament is (`PlaySetup`), from the server config's game, seats, clocks, limits
and sandbox, and played by the tournament runner (`arena.tournament.run.runner.run`) on the ladder's
executor (a local pool of `final.workers`, else the ladder's workers; a Dask cluster with `--cluster`)
into an ordinary results store, `DATA/final/final.sqlite`: `arena standings`, `arena report` and
`arena verify --store` read it as they read any tournament's. The runner resumes it after any kill
(a stored game is never played or stored twice), its schedule spreads each deal over entrant-disjoint
tables (`deals: spread`: no entrant meets a deal twice), its `stop:` rule ends it after the first
round at which every adjacent pair of the ranking is ordered at `final.confidence` (or at
`final.rounds`), and it signs every replay with the server's key (`DATA/signing-key.pem`), whose
public half it writes beside the store (`final.sqlite.pub.pem`) for `arena verify --store`.

With more entrants than `final.top`, a qualifying gauntlet comes first (`DATA/final/qualifying.sqlite`):
each entrant against the house bots, `final.qualifying_rounds` rounds, every seat in turn; the top
`final.top` by mu - 3 sigma play the round-robin. The gauntlet's cost grows with the entrants, not
with their tables (a round-robin of 30 four-seat bots is 27,405 tables a round).
"""

from __future__ import annotations

import hashlib
import hmac
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

from arena.audit.signing import load_or_create_key, organiser_key_path, public_key_path, public_pem
from arena.errors import ServerError
from arena.jsonvalue import loads
from arena.ladder.competition.phases import Phase, Phases
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database, borrowed
from arena.ladder.ladder import server_secret
from arena.ladder.states import BotState
from arena.results.store import SERVER_FINAL_STORE, Store
from arena.sandbox.policy import SandboxPolicy
from arena.stats.standings import store_standings
from arena.stats.stoprule import StopRule
from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.config.entrants import EntrantSetup
from arena.tournament.config.setup import PlaySetup, ScheduleSetup
from arena.tournament.config.tournament_config import TournamentConfig
from arena.tournament.run.executor import Executor
from arena.tournament.run.local_pool import LocalPool
from arena.tournament.run.messages import Event, GameTask
from arena.tournament.run.player import PlayerSetup
from arena.tournament.run.runner import RunSummary, run
from arena.tournament.schedule.plan import Deals, Fill, Format

ExecutorFactory = Callable[[], Executor]


@dataclass(frozen=True)
class Entrant:
    """A participant's active bot, as the final plays it (under the participant's name)."""

    bot: int
    participant: str
    name: str
    version: str
    command: tuple[str, ...]
    folder: str


def final_folder(config: ServerConfig) -> Path:
    return config.data / SERVER_FINAL_STORE.parent


def final_store(config: ServerConfig) -> Path:
    return config.data / SERVER_FINAL_STORE


def qualifying_store(config: ServerConfig) -> Path:
    return final_folder(config) / "qualifying.sqlite"


def entrants(db: Database) -> list[Entrant]:
    """Each participant's active bot (the version it chose), house bots apart, by participant name."""
    rows = db.all("SELECT b.id, b.name, b.version, b.command, b.folder, p.name AS participant FROM bots b "
                  "JOIN participants p ON p.id = b.participant_id WHERE b.status = ? AND p.is_house = 0 "
                  "ORDER BY p.name, b.id", BotState.ACTIVE)
    seen: set[str] = set()
    out = []
    for r in rows:
        if r["participant"] in seen:
            continue  # one bot each: the newest active one is not chosen over the first (ids only grow)
        seen.add(str(r["participant"]))
        out.append(Entrant(int(r["id"]), str(r["participant"]), str(r["name"]), str(r["version"]),
                           tuple(str(a) for a in loads(r["command"])), str(r["folder"])))
    return out


def _bot_seed(secret: str, label: str) -> str:
    """ARENA_SEED of a final's bot: 63 bits keyed with the server's secret, the same on every rerun (the
    entrant's identity, hence the store's fingerprint, must not change when the final is resumed)."""
    digest = hmac.new(secret.encode(), f"final:{label}".encode(), hashlib.sha256).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1)


def stage_setup(config: ServerConfig, sandbox: bool, field: list[Entrant], secret: str, qualifying: bool = False) -> PlaySetup:
    """The round-robin of `field` (or, `qualifying`, its gauntlet against the house bots) as a PlaySetup."""
    rules = config.final
    folder = final_folder(config)
    people = [EntrantSetup(e.participant, e.command, cwd=e.folder, env={"ARENA_SEED": _bot_seed(secret, str(e.bot))})
              for e in field]
    if qualifying:
        house = [EntrantSetup(f"house.{h.name}", h.command, cwd=str(h.folder(config.path.resolve().parent)),
                              env={"ARENA_SEED": _bot_seed(secret, h.name)}) for h in config.house_bots]
        schedule = ScheduleSetup(format=Format.GAUNTLET, rounds=rules.qualifying_rounds, deals=Deals.SPREAD,
                                 fill=Fill.CYCLE, candidates=tuple(e.participant for e in field))
        return PlaySetup(file=folder / "qualifying.yaml", name=f"{config.name} qualifying", game=config.game,
                         options=dict(config.options), players=config.players, entrants=(*people, *house), root=Path("/"),
                         seed=rules.seed, schedule=schedule, sandbox=SandboxPolicy(enabled=sandbox),
                         time_control=config.time_control, limits=config.limits, store=qualifying_store(config),
                         replays=folder / "qualifying-replays", keep_logs=False)
    return PlaySetup(file=folder / "final.yaml", name=f"{config.name} final", game=config.game, options=dict(config.options),
                     players=config.players, entrants=tuple(people), root=Path("/"), seed=rules.seed,
                     schedule=ScheduleSetup(rounds=rules.rounds, deals=Deals.SPREAD, fill=Fill.CYCLE),
                     sandbox=SandboxPolicy(enabled=sandbox), time_control=config.time_control, limits=config.limits,
                     store=final_store(config), replays=folder / "replays", keep_logs=False,
                     stop=StopRule(confidence=rules.confidence, min_rounds=rules.min_rounds))


def default_executor(config: ServerConfig, cluster: ClusterSpec | None) -> ExecutorFactory:
    """The ladder's executor: a Dask cluster with `--cluster`, else a local pool."""
    def make() -> Executor:
        if cluster is not None:
            from arena.tournament.run.dask_pool import DaskExecutor

            return DaskExecutor(cluster)
        return LocalPool(config.final.workers or config.ladder.workers)
    return make


class Stoppable:
    """An executor the server can stop between two events (`stopping` set): the run then ends as after
    Ctrl-C, its stored games kept for the next run to resume from."""

    def __init__(self, inner: Executor, stopping: threading.Event) -> None:
        self.inner, self.stopping = inner, stopping

    @property
    def capacity(self) -> int:
        return self.inner.capacity

    def start(self, setup: PlayerSetup) -> None:
        self.inner.start(setup)

    def submit(self, task: GameTask) -> None:
        self.inner.submit(task)

    def grow(self, setup: PlayerSetup, retired: tuple[int, ...] = ()) -> None:
        self.inner.grow(setup, retired)

    def next_event(self) -> Event:
        if self.stopping.is_set():
            raise KeyboardInterrupt
        return self.inner.next_event()

    def close(self, interrupted: bool) -> list[Event]:
        return self.inner.close(interrupted)


@dataclass
class FinalOutcome:
    final: RunSummary | None  # None: the qualifying gauntlet was interrupted
    qualifying: RunSummary | None  # None: no more entrants than `final.top`
    entrants: list[Entrant]  # every participant's active bot
    finalists: list[str]  # the participants in the round-robin

    @property
    def interrupted(self) -> bool:
        return self.final is None or self.final.interrupted

    def lines(self) -> list[str]:
        """What `arena serve CONFIG final` prints at its end."""
        out = []
        if self.qualifying is not None:
            out.append(f"qualifying gauntlet: {self.qualifying.stored}/{self.qualifying.total} games; "
                       f"the top {len(self.finalists)} play the final: {', '.join(self.finalists)}")
        f = self.final
        if f is None:
            return [*out, "qualifying gauntlet: interrupted; run the final again to resume it"]
        out.append(f"final: {f.stored}/{f.total} games stored ({f.played} by this run), store {f.store}")
        if f.interrupted:
            out.append("final: interrupted; run it again to resume (no stored game is played again)")
        elif f.stop is not None:
            out.append(f"final: {f.stop.line()}")
        elif f.stop_state:
            out.append(f"final: every scheduled round played; {f.stop_state}")
        return out


def _play(tournament: TournamentConfig, config: ServerConfig, make: ExecutorFactory, stopping: threading.Event | None,
          progress: TextIO | None) -> RunSummary:
    executor = make()
    if stopping is not None:
        executor = Stoppable(executor, stopping)
    return run(tournament, executor=executor, key_file=config.key_file, quiet=progress is None, progress_stream=progress,
               notices=progress if progress is not None else sys.stderr)


def _qualified(store: Path, names: list[str], top: int) -> list[str]:
    """The top `top` of `names` by mu - 3 sigma in the qualifying store (house bots apart)."""
    with Store.open_existing(store) as opened:
        standings = store_standings(opened)
    wanted = set(names)
    return [s.name for s in standings if s.name in wanted][:top]


def publish_key(config: ServerConfig, store: Path) -> None:
    """The server's public key beside a store of the final, where `arena verify --store` looks for it."""
    public = public_key_path(organiser_key_path(store))
    public.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    public.write_text(public_pem(load_or_create_key(config.key_file)), encoding="ascii")


def run_final(config: ServerConfig, sandbox: bool, *, executor: ExecutorFactory | None = None,
              cluster: ClusterSpec | None = None, stopping: threading.Event | None = None,
              progress: TextIO | None = None, db: Database | None = None) -> FinalOutcome:
    """Play the final (its qualifying gauntlet first when there are more entrants than `final.top`), or
    resume it where it stopped; every game stored, signed with the server's key. ServerError when there
    are fewer than two entrants, or too many and no house bot to qualify them against."""
    with borrowed(config.database, db) as database:
        field = entrants(database)
        secret = server_secret(database)
    if len(field) < 2:
        raise ServerError(f"the final needs at least 2 participants with an active bot; there are {len(field)}")
    make = executor if executor is not None else default_executor(config, cluster)
    final_folder(config).mkdir(parents=True, exist_ok=True, mode=0o700)
    publish_key(config, final_store(config))
    qualifying = None
    finalists = field
    if len(field) > config.final.top:
        if not config.house_bots:
            raise ServerError(f"{len(field)} participants, more than final.top ({config.final.top}): the qualifying "
                              f"gauntlet plays them against the house bots, and {config.path} names none "
                              "(add house_bots:, or raise final.top)")
        publish_key(config, qualifying_store(config))
        qualifying = _play(stage_setup(config, sandbox, field, secret, qualifying=True).build(), config, make, stopping,
                           progress)
        if qualifying.interrupted:
            return FinalOutcome(None, qualifying, field, [])
        chosen = set(_qualified(qualifying_store(config), [e.participant for e in field], config.final.top))
        finalists = [e for e in field if e.participant in chosen]
    summary = _play(stage_setup(config, sandbox, finalists, secret).build(), config, make, stopping, progress)
    return FinalOutcome(summary, qualifying, field, [e.participant for e in finalists])


def require_final_phase(config: ServerConfig, db: Database | None = None) -> None:
    """PhaseError (saying how to get there) unless the competition is in its final phase: only then are the
    versions that play fixed (frozen: no upload, no rollback) and the ladder stopped, so the final's field
    cannot change between a run and its resume, nor share the machine with the ladder. What the organiser's
    command, button and API ask before playing it; `run_final` itself plays whatever it is given."""
    with borrowed(config.database, db) as database:
        Phases(database, config.phases).require(Phase.FINAL, "the final")


def final_exists(config: ServerConfig) -> bool:
    return final_store(config).is_file()


def summary_json(outcome: FinalOutcome) -> dict[str, Any]:
    f = outcome.final
    if f is None:
        return {"store": None, "interrupted": True, "finalists": []}
    return {"store": str(f.store), "games": f.stored, "scheduled": f.total, "played_now": f.played,
            "interrupted": outcome.interrupted, "stop": f.stop.line() if f.stop is not None else None,
            "finalists": outcome.finalists}
