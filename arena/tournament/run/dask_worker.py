"""What runs on a Dask worker: the plugin that keeps bots alive across games, and the tasks it runs.

One `GamePlayer` per tournament lives in the plugin, so an entrant's bot processes stay alive across
the games this worker plays and are closed when the worker leaves (the plugin's teardown) or when the
coordinator ends the run (`close_task`). Every game is played on one long-lived thread the plugin
owns: a bot's parent thread never changes (a sandbox that dies with its parent is tied to the thread
that started it) and a worker plays one game at a time whatever its thread count.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
from pathlib import Path
from typing import Callable, TypeVar

from distributed import Worker, WorkerPlugin, get_worker

from arena.errors import BotStartError
from arena.referee.session import BotProcess, BotSpec
from arena.core.faults import Fault
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.messages import GameDone, GameFailed, GameTask, WorkerBug
from arena.tournament.run.player import GamePlayer, PlayerSetup, play_event
from arena.live.frame import LiveFrame
from arena.live.tap import LiveTap

PLUGIN_NAME = "arena-bots"
T = TypeVar("T")


class BotCache(WorkerPlugin):
    """A worker plugin: one GamePlayer (and its bot processes) per tournament key."""

    name = PLUGIN_NAME

    def __init__(self) -> None:
        self.players: dict[str, GamePlayer] = {}
        self.thread: concurrent.futures.ThreadPoolExecutor | None = None

    def setup(self, worker: Worker) -> None:
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-bots")

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

    def player(self, key: str, setup: PlayerSetup, live: str | None = None) -> GamePlayer:
        player = self.players.get(key)
        if player is None:
            player = self.players[key] = GamePlayer(setup)
        if live is not None and player.live is None:
            player.live = LiveTap(EventSink(get_worker(), live))
        return player

    def close(self, key: str) -> list[tuple[str, Fault]]:
        player = self.players.pop(key, None)
        if player is None:
            return []
        self.on_thread(player.close)
        if player.live is not None:
            player.live.close()
        return list(player.bot_faults)


class EventSink:
    """A worker's live frames (`arena.live`), sent to the coordinator as events of the run's own topic
    through the scheduler (`Worker.log_event`: queued on the worker's batched stream, never waited for;
    the coordinator subscribed to the topic). The bots never see them: they are not on any bot's pipe."""

    def __init__(self, worker: Worker, topic: str) -> None:
        self.worker, self.topic = worker, topic

    def frame(self, frame: LiveFrame) -> None:
        self.worker.log_event(self.topic, {"game": frame.game, "step": frame.step, "over": frame.over, "data": frame.data})


def live_frame(event: object) -> LiveFrame | None:
    """The frame in a live topic's event (`(timestamp, message)` as the scheduler passes it on); None if it is not one."""
    message = event[1] if isinstance(event, tuple) and len(event) == 2 else None
    if not isinstance(message, dict):
        return None
    try:
        return LiveFrame(int(message["game"]), int(message["step"]), bool(message["over"]), bytes(message["data"]))
    except (KeyError, TypeError, ValueError):
        return None


def _cache(worker: Worker | None = None) -> BotCache:
    plugin = (worker or get_worker()).plugins[PLUGIN_NAME]
    if not isinstance(plugin, BotCache):
        raise RuntimeError("the arena plugin is missing on this worker")
    return plugin


def play_task(key: str, setup: PlayerSetup, task: GameTask, live: str | None = None) -> GameDone | GameFailed | WorkerBug:
    """A Dask task: play one scheduled game with this worker's long-lived bots; what became of it is
    `play_event`'s, as in the local pool (a lost worker is the scheduler's to report). `live`: the topic
    its live frames go to (`EventSink`)."""
    cache = _cache()
    player = cache.player(key, setup, live)
    return cache.on_thread(lambda: play_event(player, task))


def close_task(key: str, dask_worker: Worker) -> list[tuple[str, Fault]]:
    """Run on every worker at the end (`Client.run` passes the worker): close the tournament's bots and
    return the faults seen closing them."""
    return _cache(dask_worker).close(key)


def command_digest(command: tuple[str, ...], cwd: str) -> str:
    """A hash of the files an entrant's command names (its program, its scripts), found from its working
    folder: every worker must run the same bot. Arguments that are not files are hashed as text."""
    digest = hashlib.sha256()
    for arg in command:
        path = Path(cwd) / arg
        digest.update(arg.encode("utf-8", "surrogateescape") + b"\0")
        if path.is_file():
            try:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
        elif os.sep in arg:
            digest.update(b"missing")
    return digest.hexdigest()


def probe_task(config: TournamentConfig, digests: dict[str, str]) -> dict[str, str]:
    """Run on every worker before the first game: entrant name -> what is wrong, for each that fails."""
    problems: dict[str, str] = {}
    for entrant in config.entrants:
        if not Path(entrant.cwd).is_dir():
            problems[entrant.name] = f"its folder {entrant.cwd} is missing on this worker"
            continue
        if command_digest(entrant.command, entrant.cwd) != digests[entrant.name]:
            problems[entrant.name] = (
                f"its program or scripts differ from the coordinator's (or are missing) on this worker: {' '.join(entrant.command)}"
            )
            continue
        spec = BotSpec(entrant.name, entrant.command, entrant.cwd, dict(entrant.env))
        try:
            bot = BotProcess.start(spec, config.time_control, config.limits)
        except BotStartError as exc:
            problems[entrant.name] = f"it does not start here: {exc}"
            continue
        bot.close()
    return problems
