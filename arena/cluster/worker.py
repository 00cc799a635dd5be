"""What runs on a Dask worker: the plugin that keeps bots alive across games, and the tasks."""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
from pathlib import Path
from typing import Any, Callable

from distributed import Worker, WorkerPlugin, get_worker

from arena.errors import BotStartError
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import ScheduledGame
from arena.tournament.store import StoredGame

PLUGIN_NAME = "arena-bots"



class BotCache(WorkerPlugin):  # type: ignore[misc]
    """A Dask worker plugin: one GamePlayer (and its bot processes) per tournament, one game at a time."""

    name = PLUGIN_NAME


    def __init__(self) -> None:
        self.players: dict[str, Any] = {}
        self.pool: concurrent.futures.ThreadPoolExecutor | None = None

    def setup(self, worker: Worker) -> None:
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-bots")

    def teardown(self, worker: Worker) -> None:
        self.close_all()
        if self.pool is not None:
            self.pool.shutdown(wait=True)

    def run(self, fn: Callable[[], Any]) -> Any:
        assert self.pool is not None, "BotCache used before setup"
        return self.pool.submit(fn).result()

    def player(self, key: str, config: TournamentConfig) -> Any:
        from arena.tournament.runner import GamePlayer

        player = self.players.get(key)
        if player is None:
            player = self.players[key] = GamePlayer(config)
        return player

    def close(self, key: str) -> list[tuple[str, Any]]:
        player = self.players.pop(key, None)
        if player is None:
            return []
        self.run(player.close)
        return list(player.bot_faults)

    def close_all(self) -> None:
        for key in list(self.players):
            try:
                self.close(key)
            except Exception:  # noqa: BLE001 - closing the rest matters more than this one's error
                pass


def _cache(worker: Worker | None = None) -> BotCache:
    plugin = (worker or get_worker()).plugins[PLUGIN_NAME]
    assert isinstance(plugin, BotCache)
    return plugin


def play_task(key: str, config: TournamentConfig, game: ScheduledGame) -> StoredGame:
    """A Dask task: play one scheduled game with this worker's long-lived bots."""
    cache = _cache()
    player = cache.player(key, config)
    stored: StoredGame = cache.run(lambda: player.play(game))
    return stored


def close_task(key: str, dask_worker: Worker) -> list[tuple[str, Any]]:
    """Run on every worker at the end (by `Client.run`, which passes the worker): close the tournament's
    bots, return the faults seen closing them."""
    return _cache(dask_worker).close(key)


def folder_digest(path: str) -> str:
    """A hash of a folder's file names and contents (bots' files must be the same on every worker)."""
    digest = hashlib.sha256()
    root = Path(path)
    if not root.is_dir():
        return "missing"
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            file = Path(dirpath) / name
            digest.update(str(file.relative_to(root)).encode())
            try:
                digest.update(hashlib.sha256(file.read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
    return digest.hexdigest()


def probe_task(config: TournamentConfig, folders: dict[str, str]) -> dict[str, str]:
    """Run on every worker before the first game: entrant name -> problem, for each entrant that fails."""
    from arena.referee.bot import BotProcess, BotSpec

    problems: dict[str, str] = {}
    for entrant in config.entrants:
        expected = folders[entrant.name]
        found = folder_digest(entrant.cwd)
        if found != expected:
            problems[entrant.name] = (
                f"its folder {entrant.cwd} is missing here" if found == "missing" else f"its folder {entrant.cwd} differs from the coordinator's"
            )
            continue
        try:
            bot = BotProcess.start(BotSpec(entrant.name, entrant.command, entrant.cwd, dict(entrant.env)))
        except BotStartError as exc:
            problems[entrant.name] = f"it does not start: {exc}"
            continue
        bot.close()
    return problems


