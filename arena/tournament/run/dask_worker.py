"""What runs on a Dask worker: the plugin that keeps bots alive across games, and the tasks it runs.

One `GamePlayer` per run lives in the plugin, so an entrant's bot processes stay alive across the
games this worker plays and are closed when the worker leaves (the plugin's teardown) or when the
coordinator ends the run (`close_task`). Every game is played on one long-lived thread the plugin
owns: a bot's parent thread never changes (a sandbox that dies with its parent is tied to the thread
that started it) and a worker plays one game at a time whatever its thread count.

Bots come by hash (`cluster.bundles`): each task names the archives of the bots it seats, as Dask data
the coordinator scattered, and the plugin's `ArchiveCache` checks each against its hash and unpacks
it in a folder of this worker's own; no path of the coordinator's is ever read here.
"""

from __future__ import annotations

import concurrent.futures
import functools
import time
from pathlib import Path
from collections import deque
from dataclasses import replace
from typing import Callable, Mapping, TypeVar

from distributed import Worker, WorkerPlugin, get_worker

from arena.errors import BotStartError
from arena.referee.session import BotProcess, BotSpec
from arena.core.faults import Fault
from arena.tournament.run.cluster.probe import CACHE_PROBLEM
from arena.tournament.run.cluster.botcache import ArchiveCache, BundleMismatch, CacheError
from arena.tournament.run.cluster.crosscheck import PlayedBatch
from arena.tournament.run.cluster.bundles import ClusterSetup, WorkerUnfit, placed, runtime_missing
from arena.tournament.config.entrants import EntrantConfig
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.messages import GameDone, GameFailed, GameTask, WorkerBug
from arena.tournament.run.player import GamePlayer, play_event
from arena.tournament.run.cluster.live_events import EventSink
from arena.live.tap import LiveTap

PLUGIN_NAME = "arena-bots"
T = TypeVar("T")


class BotCache(WorkerPlugin):
    """A worker plugin: one GamePlayer (and its bot processes) per run key, bots from its archive cache."""

    name = PLUGIN_NAME

    def __init__(self) -> None:
        self.players: dict[str, GamePlayer] = {}
        self.places: dict[str, dict[int, EntrantConfig]] = {}  # run key -> entrant -> as placed in its unpacked bundle
        self.versions: dict[str, int] = {}  # run key -> the field version its player plays
        self.thread: concurrent.futures.ThreadPoolExecutor | None = None
        self.archives: ArchiveCache | None = None
        self.finished: deque[float] = deque(maxlen=10_000)  # when each game ended here: games per minute

    def setup(self, worker: Worker) -> None:
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-bots")
        self.archives = ArchiveCache()

    def teardown(self, worker: Worker) -> None:
        for key in list(self.players):
            try:
                self.close(key)
            except Exception:  # noqa: BLE001 - closing the others matters more than this one's error
                pass
        if self.thread is not None:
            self.thread.shutdown(wait=True)

    def on_thread(self, fn: Callable[[], T]) -> T:
        if self.thread is None:
            raise RuntimeError("the arena plugin was used before its setup")
        return self.thread.submit(fn).result()

    @property
    def cache(self) -> ArchiveCache:
        if self.archives is None:
            raise RuntimeError("the arena plugin was used before its setup")
        return self.archives

    def player(self, key: str, setup: ClusterSetup, archives: Mapping[str, bytes], seats: set[int],
               live: str | None = None) -> GamePlayer:
        player = self._player(key, setup, archives, seats)
        if live is not None and player.live is None:
            player.live = LiveTap(EventSink(get_worker(), live))
        return player

    def _player(self, key: str, setup: ClusterSetup, archives: Mapping[str, bytes], seats: set[int]) -> GamePlayer:
        """The run's player, its field at `setup`'s version, with the entrants in `seats` placed in their
        unpacked bundles (an entrant is unpacked the first time this worker seats it: a bot that joins a
        running field costs the others nothing, and none of their processes is restarted)."""
        places = self.places.setdefault(key, {})
        player = self.players.get(key)
        known = self.versions.get(key, -1)
        fresh = [i for i in sorted(seats) if i not in places]
        for i in fresh:
            entrant, bundle = setup.setup.config.entrants[i], setup.bundles[i]
            folder = self.cache.unpack(key, bundle.sha256, functools.partial(archives.__getitem__, bundle.sha256)) if bundle.sha256 else ""
            places[i] = placed(entrant, bundle, folder)
        if player is not None and not fresh and known >= setup.version:
            return player
        base = setup.setup.config
        replays = self.cache.run_folder(key) / "replays"  # every game's replay, sent back to be checked (`crosscheck`)
        replays.mkdir(parents=True, exist_ok=True)
        config = replace(base, entrants=tuple(places.get(i, e) for i, e in enumerate(base.entrants)), replays=replays)
        if player is None:
            player = self.players[key] = GamePlayer(replace(setup.setup, config=config))
        else:
            player.grow(config)
        if known < setup.version:
            for gone in setup.retired:
                self.on_thread(functools.partial(player.retire, gone))
        self.versions[key] = max(known, setup.version)
        return player

    def placed(self, key: str, setup: ClusterSetup, archives: Mapping[str, bytes]) -> TournamentConfig:
        """The run's config with every entrant placed in its bundle, unpacked here from its checked archive."""
        config = setup.setup.config
        entrants = []
        for entrant, bundle in zip(config.entrants, setup.bundles):
            if not bundle.sha256:
                entrants.append(entrant)  # a shared path: run from where it is
                continue
            folder = self.cache.unpack(key, bundle.sha256, functools.partial(archives.__getitem__, bundle.sha256))
            entrants.append(placed(entrant, bundle, folder))
        return replace(config, entrants=tuple(entrants))

    def close(self, key: str) -> list[tuple[str, Fault]]:
        self.places.pop(key, None)
        self.versions.pop(key, None)
        player = self.players.pop(key, None)
        if self.archives is not None:
            self.archives.release(key)
        if player is None:
            return []
        self.on_thread(player.close)
        if player.live is not None:
            player.live.close()
        return list(player.bot_faults)


def _cache(worker: Worker | None = None) -> BotCache:
    plugin = (worker or get_worker()).plugins[PLUGIN_NAME]
    if not isinstance(plugin, BotCache):
        raise RuntimeError("the arena plugin is missing on this worker")
    return plugin


def play_batch(key: str, setup: ClusterSetup, archives: Mapping[str, bytes],
               tasks: tuple[GameTask, ...], live: str | None = None) -> PlayedBatch | WorkerUnfit:
    """A Dask task: play a few scheduled games, one after the other, with this worker's long-lived bots;
    what became of each is `play_event`'s, as in the local pool (a lost worker is the scheduler's to report).
    `archives`: hash -> archive bytes of the bots it seats, which Dask brings here when this worker lacks them.
    A worker that cannot keep bots answers `WorkerUnfit` and plays none of them. `live`: the topic its games'
    live frames go to (`cluster.live_events`)."""
    worker = get_worker()
    cache = _cache(worker)
    try:
        player = cache.player(key, setup, archives, {e for task in tasks for e in task.game.seats}, live)
    except (CacheError, BundleMismatch) as exc:
        return WorkerUnfit(worker.address, str(exc))
    except OSError as exc:
        return WorkerUnfit(worker.address, f"cannot keep replays in its bot cache: {exc}")
    events: list[GameDone | GameFailed | WorkerBug] = []
    replays: dict[int, bytes] = {}
    for task in tasks:
        event = cache.on_thread(functools.partial(play_event, player, task))
        if isinstance(event, GameDone) and event.stored.replay_path is not None:
            path = Path(event.stored.replay_path)
            replays[task.index] = path.read_bytes()
            path.unlink(missing_ok=True)
        events.append(event)
        cache.finished.append(time.time())
    return PlayedBatch(worker.address, tuple(events), replays)


def close_task(key: str, dask_worker: Worker) -> list[tuple[str, Fault]]:
    """Run on every worker at the end (`Client.run` passes the worker): close the run's bots and
    return the faults seen closing them."""
    return _cache(dask_worker).close(key)


def status_task(dask_worker: Worker) -> dict[str, object]:
    """Run on every worker for `arena ladder status` and the admin page: games per minute, the cache."""
    plugin = dask_worker.plugins.get(PLUGIN_NAME)
    if not isinstance(plugin, BotCache):
        return {"games_per_minute": 0, "cache": {}}
    since = time.time() - 60.0
    return {"games_per_minute": sum(1 for t in plugin.finished if t >= since), "cache": plugin.cache.status()}


def probe_task(key: str, setup: ClusterSetup, archives: Mapping[str, bytes]) -> dict[str, str]:
    """Run on each worker before the first game: entrant name -> what is wrong here, for each that
    fails (a runtime it lacks is said by name); `CACHE_PROBLEM` -> why this worker cannot keep bots."""
    cache = _cache()
    trouble = cache.cache.problem()
    if trouble is not None:
        return {CACHE_PROBLEM: trouble}
    problems: dict[str, str] = {}
    config = setup.setup.config
    try:
        placed_config = cache.placed(f"{key}-probe", setup, archives)
    except Exception as exc:  # noqa: BLE001 - the cache's trouble (full, refused archive), said in one line
        cache.cache.release(f"{key}-probe")
        return {CACHE_PROBLEM: str(exc)}
    try:
        for entrant, bundle in zip(placed_config.entrants, setup.bundles):
            missing = runtime_missing(bundle)
            if missing is not None:
                problems[entrant.name] = f"runtime missing: {missing} (install it on this worker to play this entrant)"
                continue
            spec = BotSpec(entrant.name, entrant.command, entrant.cwd, dict(entrant.env), sandbox=entrant.sandbox)
            try:
                bot = cache.on_thread(functools.partial(BotProcess.start, spec, config.time_control, config.limits))
            except BotStartError as exc:
                problems[entrant.name] = f"it does not start here: {exc}"
                continue
            cache.on_thread(bot.close)
    finally:
        cache.cache.release(f"{key}-probe")
    return problems
