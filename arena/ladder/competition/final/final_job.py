"""The final as the running server plays it: one background thread, started by the organiser's button or
API call (or the phase `final`), stopped with the server, and resumed by the next start from its store."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from arena.errors import ArenaError
from arena.ladder.competition.final.final import ExecutorFactory, FinalOutcome, final_store, run_final, summary_json
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database
from arena.textsafe import clean
from arena.tournament.config.cluster import ClusterSpec


class FinalJob:
    """At most one final at a time in this server; `status()` says where it is."""

    def __init__(self, config: ServerConfig, sandbox: bool, db: Database, cluster: ClusterSpec | None = None,
                 executor: ExecutorFactory | None = None) -> None:
        self.config, self.sandbox, self.db, self.cluster, self.executor = config, sandbox, db, cluster, executor
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.outcome: FinalOutcome | None = None
        self.error: str | None = None
        self.started: float | None = None
        self.lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self, before: Callable[[], None] = lambda: None) -> bool:
        """Start (or resume) the final in the background; False when it is running already. `before` runs
        first (the server pauses its ladder: the final gets the machine)."""
        with self.lock:
            if self.running:
                return False
            before()
            self.stopping.clear()
            self.outcome, self.error, self.started = None, None, time.time()
            self.thread = threading.Thread(target=self._run, name="arena-final", daemon=True)
            self.thread.start()
            return True

    def _run(self) -> None:
        try:
            self.outcome = run_final(self.config, self.sandbox, executor=self.executor, cluster=self.cluster,
                                     stopping=self.stopping, db=self.db)
        except ArenaError as exc:
            self.error = clean(exc, 500)
        except Exception as exc:  # noqa: BLE001 - shown to the organiser; the store keeps what was played
            self.error = f"{type(exc).__name__}: {clean(exc, 500)}"

    def stop(self, timeout: float = 60.0) -> None:
        """End the final between two games (its stored games kept: the next start resumes it)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout)

    def wait(self, timeout: float | None = None) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """For the organiser's page and API: not started, running, done, interrupted or failed."""
        if self.running:
            state = "running"
        elif self.error is not None:
            state = "failed"
        elif self.outcome is not None:
            state = "interrupted" if self.outcome.interrupted else "done"
        else:
            state = "stored" if final_store(self.config).is_file() else "not started"
        return {"state": state, "error": self.error, "started_at": self.started, "store": str(final_store(self.config)),
                "outcome": summary_json(self.outcome) if self.outcome is not None else None}
