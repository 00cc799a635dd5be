"""A competition with participants and their active bots written straight into the server's store, and a
fake executor that plays the final's games in no time (each entrant's strength decides, with the deal's
noise): the final's schedule, stop rule, resume and publication are tested without a bot process."""

from __future__ import annotations

import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

from arena.core.result import Played
from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.config import ServerConfig, parse
from arena.ladder.db import Database
from arena.results.stored import StoredGame
from arena.tournament.run.messages import Event, GameDone, GameTask
from arena.tournament.run.player import PlayerSetup

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"
ADMIN = "final-test-admin-token-0123456789"


def competition(tmp: Path, names: list[str], **final: Any) -> ServerConfig:
    """A kododo 4-seat competition in `tmp` whose participants `names` each have one active bot."""
    extra: dict[str, Any] = {"final": {"rounds": 8, "min_rounds": 3, **final}}
    config = parse({"name": "cup", "game": "kododo", "players": 4, "data": str(tmp / "data"), **extra}, tmp / "cup.yaml")
    config.data.mkdir(parents=True, exist_ok=True)
    db = Database(config.database)
    try:
        for name in names:
            who, _token = create_participant(db, name)
            activate_bot(db, who.id, None, f"{name}-bot", "1", ("python3", str(SAMPLES / "python" / "random_bot.py")),
                         str(SAMPLES / "python"))
    finally:
        db.close()
    return config


class FakeExecutor:
    """Plays each game at once: seat s's entrant e scores strength[name] + the deal's noise; no replay."""

    def __init__(self, strength: dict[str, float], noise: float = 1.0, stop_after: int | None = None,
                 stopping: threading.Event | None = None) -> None:
        self.strength, self.noise = strength, noise
        self.capacity = 2
        self.held: list[GameTask] = []
        self.names: list[str] = []
        self.done = 0
        self.stop_after, self.stopping = stop_after, stopping

    def start(self, setup: PlayerSetup) -> None:
        self.names = [e.name for e in setup.config.entrants]

    def submit(self, task: GameTask) -> None:
        self.held.append(task)

    def next_event(self) -> Event:
        task = self.held.pop(0)
        g = task.game
        rng = random.Random(g.seed)
        perf = [self.strength.get(self.names[e], 0.0) + rng.gauss(0, self.noise) for e in g.seats]
        ranks = tuple(1 + sum(1 for q in perf if q > p) for p in perf)
        n = len(ranks)
        played = Played(points=tuple(10 * (n - r) for r in ranks), tiebreaks=((),) * n, ranks=ranks, game_ranks=ranks,
                        faults=(), versions=("1",) * n, decisions=10, duration_s=0.0)
        self.done += 1
        if self.stopping is not None and self.stop_after is not None and self.done >= self.stop_after:
            self.stopping.set()  # as a kill would: the run ends after this game
        return GameDone(task, StoredGame(g, played, game_id=f"g{g.index}", replay_path=None, key=task.key))

    def close(self, interrupted: bool) -> list[Event]:
        self.held.clear()
        return []


def stored_indices(store: Path) -> list[int]:
    """The schedule indices of the games a results store holds now (none while it is not yet made or is locked)."""
    try:
        conn = sqlite3.connect(store, timeout=5)
        try:
            return [int(r[0]) for r in conn.execute("SELECT idx FROM games")]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return []
