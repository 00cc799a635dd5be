"""The Dask executor: the coordinator's side. Implements `arena.tournament.run.executor.Executor`.

The coordinator (the `arena run` process, where the store is) submits `GameTask`s; each becomes one
Dask task that a worker plays with its long-lived bots (`arena.tournament.run.dask_worker`). Results come back as
`GameDone` events, which the coordinator commits once each, exactly as with local workers.

A worker that dies mid-game surfaces as `WorkerLost` with that game's task, and the coordinator
submits it again (a new attempt, a new Dask key), so another worker plays it from its seed. For a
LocalCluster we set the scheduler's allowed failures to 0 so that this happens at once; a remote
scheduler may first retry on its own, which changes nothing but the delay. A scheduler that cannot be
reached stops the run with a `ClusterError`; the games already stored stay, and a rerun resumes.

How a cluster plays a tournament (`pip install arena[dask]`):

The coordinator (the `arena run` process) stays where the store is: it schedules, hands games to the
cluster, and commits each result as it comes back, exactly as with local workers, so resume after a
kill, "each game stored once" and standings that do not depend on who played what all hold unchanged.

On each Dask worker a plugin keeps a `GamePlayer` per tournament: the entrants' bot processes stay
alive across the games that worker plays, and are closed when the worker leaves or the run ends. Every
game is played on one long-lived thread that the plugin owns, so a bot's parent thread never changes
(a sandbox's die-with-parent is tied to the thread that started it) and one worker plays one game at a
time whatever its thread count.

Bots' files reach the workers by a shared path: each entrant's command and folder must exist at the
same path on every worker (a network file system, or the same checkout on each machine). Before any
game, the coordinator hashes each entrant's folder and asks every worker to hash its own and to start
each entrant once; a difference or a failed start stops the run with the worker and the entrant named.

A worker that dies mid-game loses only that game's attempt: the scheduler gives the task to another
worker, which plays it again from its seed; the coordinator commits a game only once, when its first
result arrives. A lost scheduler stops the run with one line; a rerun resumes from the store.
"""

from __future__ import annotations

import time
import traceback
import uuid
from typing import Any

from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameFailed, GameTask, PlayerSetup, WorkerBug, WorkerLost
from arena.live.tap import LiveSink

IN_FLIGHT_PER_WORKER = 2  # one game playing, one ready, as the local pool does
POLL_S = 0.5  # how often a wait checks that the scheduler is still there
LOST_AFTER_S = 20.0  # a scheduler out of reach this long ends the run


def import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "the Dask executor needs the optional extra: pip install 'arena[dask]' (or pip install distributed)"
        ) from None
    return distributed


class DaskExecutor:
    """`Executor` over a Dask cluster: a scheduler's address, or a LocalCluster started here."""

    def __init__(self, spec: ClusterSpec, live: LiveSink | None = None) -> None:
        """`live`: where each game's live frames go (`arena.live`), sent by the workers as events of this
        run's own topic, which only this client subscribes to."""
        self.spec = spec
        self.live = live
        self.dd = import_distributed()
        self.cluster: Any = None
        self.client: Any = None
        self.setup: PlayerSetup | None = None
        self.setup_data: Any = None  # the setup, scattered to the workers
        self.key = f"arena-{uuid.uuid4().hex[:12]}"  # this run's bots on the workers
        self.futures: dict[str, GameTask] = {}  # Dask key -> task, for the futures in flight
        self.inflight: dict[str, Any] = {}  # Dask key -> future
        self.capacity = IN_FLIGHT_PER_WORKER
        self.topic: str | None = None  # the live frames' topic, when `live`

    # --- Executor --------------------------------------------------------------------------------

    def start(self, setup: PlayerSetup) -> None:
        self.setup = setup
        self._connect()
        from arena.tournament.run.dask_worker import PLUGIN_NAME, BotCache

        self.client.register_plugin(BotCache(), name=PLUGIN_NAME)
        if self.live is not None:
            self.topic = f"{self.key}-live-{uuid.uuid4().hex}"
            self.client.subscribe_topic(self.topic, self._frame)
        self.check_workers(setup)
        self.capacity = IN_FLIGHT_PER_WORKER * self.worker_count()
        # Sent to every worker once (and fetched by a worker that joins later), not pickled per game.
        self.setup_data = self.client.scatter(setup, broadcast=True, hash=False)

    def submit(self, task: GameTask) -> None:
        from arena.tournament.run.dask_worker import play_task

        name = f"{self.key}-game{task.index}-try{task.attempt}"
        future = self.client.submit(play_task, self.key, self.setup_data, task, self.topic, key=name, pure=False, retries=0)
        self.futures[future.key] = task
        self.inflight[future.key] = future

    def next_event(self) -> Event:
        future = self._next_finished()
        task = self.futures.pop(future.key)
        del self.inflight[future.key]
        try:
            event: GameDone | GameFailed | WorkerBug = future.result()  # `play_event` on the worker
            return event
        except self.dd.KilledWorker as exc:
            return WorkerLost(worker=_worker_name(exc), detail="it died while playing this game", tasks=(task,))
        except (OSError, self.dd.client.FutureCancelledError) as exc:
            raise ClusterError(f"lost the Dask cluster mid-run ({type(exc).__name__}: {exc}); run again to resume") from None
        except Exception:  # noqa: BLE001 - outside `play_event` (unpickling, the plugin): a bug, reported as the pool does
            return WorkerBug(task, "".join(traceback.format_exception(*_exc_info(future))))

    def close(self, interrupted: bool) -> list[Event]:
        events: list[Event] = []
        if self.client is not None:
            if self.inflight:
                self.client.cancel(list(self.inflight.values()), force=True)
                self.inflight.clear()
                self.futures.clear()
            from arena.tournament.run.dask_worker import close_task

            try:
                for faults in self.client.run(close_task, self.key).values():
                    if faults:
                        events.append(ClosingFaults(tuple(faults)))
            except (OSError, self.dd.TimeoutError):
                pass  # an unreachable cluster: its workers close their bots when they leave
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        return events

    def _frame(self, event: Any) -> None:
        """A live frame from a worker (on the client's event loop: handed to the board, which only stores it)."""
        from arena.tournament.run.dask_worker import live_frame

        frame = live_frame(event)
        if frame is not None and self.live is not None:
            try:
                self.live.frame(frame)
            except Exception:  # noqa: BLE001 - a frame the board cannot take is only a frame lost
                pass

    # --- the cluster ------------------------------------------------------------------------------

    def _connect(self) -> None:
        try:
            if self.spec.local_workers is not None:
                import dask

                dask.config.set({"distributed.scheduler.allowed-failures": 0})
                self.cluster = self.dd.LocalCluster(
                    n_workers=self.spec.local_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    death_timeout=LOST_AFTER_S,  # workers leave (closing their bots) when we are gone
                )
                self.client = self.dd.Client(self.cluster)
            else:
                self.client = self.dd.Client(self.spec.address, timeout=f"{LOST_AFTER_S}s")
        except (OSError, self.dd.TimeoutError) as exc:
            self.close(True)
            raise ClusterError(f"cannot reach the Dask scheduler at {self.spec.address}: {exc}") from None

    def worker_count(self) -> int:
        workers = self.client.scheduler_info().get("workers", {})
        if not workers:
            raise ClusterError(f"the Dask cluster at {self.spec.describe()} has no workers")
        return len(workers)

    def check_workers(self, setup: PlayerSetup) -> None:
        """Every entrant must start on every worker, from the same program files, before any game."""
        from arena.tournament.run.dask_worker import command_digest, probe_task

        config = setup.config
        digests = {e.name: command_digest(e.command, e.cwd) for e in config.entrants}
        answers: dict[str, dict[str, str]] = self.client.run(probe_task, config, digests)
        lines = [
            f"worker {worker}: entrant {name!r}: {problem}"
            for worker, problems in sorted(answers.items())
            for name, problem in problems.items()
        ]
        if lines:
            raise ClusterError("entrants cannot play on every worker of the cluster:\n  " + "\n  ".join(lines))

    def _next_finished(self) -> Any:
        """The next finished future; a scheduler out of reach for LOST_AFTER_S ends the run."""
        away_since: float | None = None
        while True:
            try:
                done, _ = self.dd.wait(list(self.inflight.values()), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except self.dd.TimeoutError:
                done = set()
            except OSError:
                done = set()
            if done:
                return min(done, key=lambda f: self.futures[f.key].index)
            if self.client.status == "running":
                away_since = None
                continue
            away_since = away_since if away_since is not None else time.monotonic()
            if time.monotonic() - away_since > LOST_AFTER_S:
                raise ClusterError(
                    f"lost the Dask scheduler at {self.spec.describe()}; the games already played are stored, run again to resume"
                )


def _worker_name(exc: Exception) -> str:
    worker = getattr(exc, "last_worker", None)
    address = getattr(worker, "address", None) or str(worker or "a worker")
    return f"Dask worker {address}"


def _exc_info(future: Any) -> tuple[Any, Any, Any]:
    exc = future.exception()
    return type(exc), exc, future.traceback()
