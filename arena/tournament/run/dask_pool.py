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

Bots' files reach the workers by content hash, through Dask itself (`cluster.bundles`): the
coordinator packs each entrant's files as an archive named by its SHA-256 and scatters it to the
cluster; each task names the archives of the bots it seats, a worker that lacks one gets it from the
cluster, checks its hash and unpacks it in its own bounded cache (`cluster.botcache`). No path of the
coordinator's is needed on a worker; its runtimes (python3, node, java) are its own. Before any game
each worker checks its cache and starts every entrant once: a worker whose cache cannot be used plays
nothing (said in one line, the others go on), a worker lacking an entrant's runtime is given none of
that entrant's games (named), and an entrant that starts on no worker stops the run, named.

Games go in batches, so Dask's per-task cost (a submit, the result's gather, the check's) is paid once
per batch: `BATCH` games at first, then as many as a worker plays in about `BATCH_S` (from the games'
measured times, at most `MAX_BATCH`): short games go in large batches (the coordinator's cost per game
falls), long ones in small ones (a new entrant's first game still starts within seconds).
"""

from __future__ import annotations

import sys
from pathlib import Path
import time
import traceback
import uuid
from collections import deque
from typing import Any, Sequence, TextIO

from arena.tournament.config.cluster import ClusterError, ClusterSpec
from arena.tournament.run.cluster.crosscheck import PlayedBatch, claim, kept
from arena.tournament.run.cluster.live_events import live_frame
from arena.tournament.run.cluster.bundles import BotBundle, ClusterSetup, WorkerUnfit, in_place, pack_entrant
from arena.tournament.run.cluster.connect import LOST_AFTER_S, connect, import_distributed
from arena.tournament.run.cluster.probe import probe_workers
from arena.live.tap import LiveSink
from arena.tournament.run.messages import ClosingFaults, Event, GameDone, GameFailed, GameTask, PlayerSetup, WorkerBug, WorkerLost

IN_FLIGHT_PER_WORKER = 2  # batches per worker: one playing, one ready, as the local pool does
BATCH = 8  # games per Dask task at first: its per-task cost paid once per batch
BATCH_S = 2.0  # then as many games as a worker plays in about this long
MAX_BATCH = 32
WORKERS_S = 2.0  # how often the list of workers is asked again
POLL_S = 0.5  # how often a wait checks that the scheduler is still there


class DaskExecutor:
    """`Executor` over a Dask cluster: a scheduler's address, or a LocalCluster started here."""

    def __init__(self, spec: ClusterSpec, batch: int | None = None, notices: TextIO | None = None,
                 shared_path: bool = False, verify: bool = True, live: LiveSink | None = None) -> None:
        """`shared_path`: the bots' files are at the same path on every worker (a network file system):
        they are run from there, not sent (the design before bots travelled by hash). `verify`: each
        result is checked by another worker before it is stored (`cluster.crosscheck`; off only to
        show what the check stops). `live`: where each game's live frames go (`cluster.live_events`). `batch`:
        games per Dask task, fixed; None sizes batches by the games' times (`BATCH_S`)."""
        self.verify = verify
        self.live = live
        self.topic: str | None = None  # the live frames' topic, when `live`
        self.checking: dict[str, dict[int, tuple[GameDone, bytes, str]]] = {}  # check key -> what it checks
        self.spec = spec
        self.shared_path = shared_path
        self.adapt = batch is None
        self.batch = batch if batch is not None else BATCH
        self.game_s: float | None = None  # a game's mean time on a worker (recent games weigh most)
        self.notices = notices
        self.dd = import_distributed()
        self.cluster: Any = None
        self.client: Any = None
        self.setup: ClusterSetup | None = None
        self.setup_data: Any = None  # the setup, scattered to the workers
        self.archives: dict[str, Any] = {}  # hash -> the future of its archive, held while the run lasts
        self.key = f"arena-{uuid.uuid4().hex[:12]}"  # this run's bots on the workers
        self.futures: dict[str, tuple[GameTask, ...]] = {}  # Dask key -> the batch it plays
        self.inflight: dict[str, Any] = {}  # Dask key -> future
        self.pinned: dict[str, frozenset[str]] = {}  # Dask key -> the only workers it may run on
        self.buffer: list[GameTask] = []  # submitted, not yet sent
        self.ready: deque[Event] = deque()  # events of finished batches, not yet read
        self.batches = 0
        self.capacity = IN_FLIGHT_PER_WORKER * self.batch
        self.usable = 1  # workers that play
        self.workers: dict[int, tuple[str, ...]] | None = None  # entrant -> the workers that may seat it (None: any)
        self.excluded: set[str] = set()  # workers that play nothing (their cache cannot be used)
        self.known_workers: set[str] = set()
        self.workers_at = -WORKERS_S - 1.0

    # --- Executor --------------------------------------------------------------------------------

    def start(self, setup: PlayerSetup) -> None:
        self._connect()
        from arena.tournament.run.dask_worker import PLUGIN_NAME, BotCache

        self.client.register_plugin(BotCache(), name=PLUGIN_NAME)
        if self.live is not None:
            self.topic = f"{self.key}-live-{uuid.uuid4().hex}"
            self.client.subscribe_topic(self.topic, self._frame)
        self.setup = self._bundled(setup)
        count = self.worker_count()
        self.check_workers(self.setup)
        self.usable = max(1, count - len(self.excluded))
        self.capacity = IN_FLIGHT_PER_WORKER * self.batch * self.usable

    def grow(self, setup: PlayerSetup, retired: tuple[int, ...] = ()) -> None:
        """The field changed: the new entrants are packed and their archives scattered, and the next
        batches carry the new setup; each worker grows its player when it next plays (no bot restarted)."""
        assert self.setup is not None
        self.setup = self._bundled(setup, self.setup.bundles, self.setup.version + 1, retired)

    def _bundled(self, setup: PlayerSetup, known: tuple[BotBundle, ...] = (), version: int = 0,
                 retired: tuple[int, ...] = ()) -> ClusterSetup:
        """Each entrant packed by hash (those in `known` already are) and its archive scattered to the
        cluster (once per hash)."""
        bundles = list(known)
        for entrant in setup.config.entrants[len(known):]:
            if self.shared_path:
                bundles.append(in_place(entrant))
                continue
            bundle, data = pack_entrant(entrant)
            if bundle.sha256 not in self.archives:
                self.archives[bundle.sha256] = self.client.scatter(data, broadcast=True, hash=False)
            bundles.append(bundle)
        keys = {sha: future.key for sha, future in self.archives.items()}
        cluster_setup = ClusterSetup(setup, tuple(bundles), keys, version, retired)
        # Sent to every worker once (and fetched by a worker that joins later), not pickled per game.
        self.setup_data = self.client.scatter(cluster_setup, broadcast=True, hash=False)
        return cluster_setup

    def _seated(self, tasks: Sequence[GameTask]) -> dict[str, Any]:
        assert self.setup is not None
        hashes = {self.setup.bundles[e].sha256 for task in tasks for e in task.game.seats}
        return {sha: self.archives[sha] for sha in hashes if sha}

    def submit(self, task: GameTask) -> None:
        self.buffer.append(task)  # sent by `next_event`, in as many batches as workers wait for

    def _flush(self, parts: int) -> None:
        """Send the buffered tasks as (at least) `parts` batches, each restricted to the workers that
        may seat all its entrants. Once the runner has fewer games out than the executor could hold (the
        schedule's last ones), they are shared out among all the workers: a last full batch on one worker
        would leave the others idle until it ends."""
        from arena.tournament.run.dask_worker import play_batch

        outstanding = len(self.buffer) + sum(len(tasks) for tasks in self.futures.values())
        if outstanding < self.capacity:
            parts = max(parts, self.usable)
        groups: dict[tuple[str, ...] | None, list[GameTask]] = {}
        for task in self.buffer:
            groups.setdefault(self._allowed(task), []).append(task)
        self.buffer = []
        for allowed, tasks in groups.items():
            size = min(self.batch, -(-len(tasks) // parts))
            for i in range(0, len(tasks), size):
                chunk = tuple(tasks[i:i + size])
                self.batches += 1
                name = f"{self.key}-batch{self.batches}-game{chunk[0].index}-try{chunk[0].attempt}"
                where = {} if allowed is None else {"workers": list(allowed), "allow_other_workers": False}
                future = self.client.submit(play_batch, self.key, self.setup_data, self._seated(chunk), chunk, self.topic,
                                            key=name, pure=False, retries=0, **where)
                self.futures[future.key] = chunk
                self.inflight[future.key] = future
                if allowed is not None:
                    self.pinned[future.key] = frozenset(allowed)

    def _usable(self) -> int:
        self.usable = max(1, len(self._workers() - self.excluded))
        return self.usable

    def _workers(self) -> set[str]:
        """The cluster's workers, asked of the scheduler at most every WORKERS_S (a round trip each time)."""
        now = time.monotonic()
        if now - self.workers_at > WORKERS_S:
            self.known_workers = set(self.client.scheduler_info().get("workers", {}))
            self.workers_at = now
        return self.known_workers

    def _allowed(self, task: GameTask) -> tuple[str, ...] | None:
        if self.workers is None and not self.excluded:
            return None
        everyone = self._workers() - self.excluded
        for entrant in task.game.seats:
            if self.workers is not None and entrant in self.workers:
                everyone &= set(self.workers[entrant])
        if not everyone:
            raise ClusterError(f"no worker of the cluster at {self.spec.describe()} can play game {task.index} "
                               "(each lacks the runtime of one of its entrants, or its cache cannot be used)")
        return tuple(sorted(everyone))

    def next_event(self) -> Event:
        while not self.ready:
            idle = IN_FLIGHT_PER_WORKER * self._usable() - (len(self.inflight) - len(self.checking))
            if self.buffer and (idle > 0 or not self.inflight):  # a worker would wait: send what there is
                self._flush(max(1, idle))
            future = self._next_finished()
            if future is not None:
                self._collect(future)
        return self.ready.popleft()

    def _collect(self, future: Any) -> None:
        tasks = self.futures.pop(future.key)
        del self.inflight[future.key]
        self.pinned.pop(future.key, None)
        try:
            events: Any = future.result()  # on the worker: a PlayedBatch, a WorkerUnfit, or a check's verdicts
        except self.dd.KilledWorker as exc:
            self.workers_at = -WORKERS_S - 1.0  # the list is asked again: no check is sent to the dead worker
            self.ready.append(WorkerLost(worker=_worker_name(exc), detail="it died while playing these games", tasks=tasks))
        except (OSError, self.dd.client.FutureCancelledError) as exc:
            raise ClusterError(f"lost the Dask cluster mid-run ({type(exc).__name__}: {exc}); run again to resume") from None
        except Exception:  # noqa: BLE001 - outside `play_event` (unpickling, the plugin): a bug, reported as the pool does
            self.ready.append(WorkerBug(tasks[0], "".join(traceback.format_exception(*_exc_info(future)))))
        else:
            if future.key in self.checking:
                self._checked(self.checking.pop(future.key), events)
            elif isinstance(events, WorkerUnfit):  # it cannot keep bots: it plays no more, the others go on
                self.excluded.add(events.worker)
                self._say(f"arena: Dask worker {events.worker} plays no more games: {events.detail}")
                self.ready.append(WorkerLost(worker=f"Dask worker {events.worker}", detail=events.detail, tasks=tasks))
            else:
                self._played(events)

    def _played(self, batch: PlayedBatch) -> None:
        """A batch's results: each finished game's replay sent to another worker to be checked (or,
        without `verify`, stored as claimed); the rest reported as they are."""
        claims: dict[int, tuple[GameDone, bytes, str]] = {}
        self._resize([e.stored.played.duration_s for e in batch.events if isinstance(e, GameDone)])
        for event in batch.events:
            replay = batch.replays.get(event.task.index) if isinstance(event, GameDone) else None
            if isinstance(event, GameDone) and replay is not None:
                if self.verify:
                    claims[event.task.index] = (event, replay, batch.worker)
                else:
                    self.ready.append(kept(event, replay, self._replays()))
            else:
                self.ready.append(event)
        if claims:
            self._send_check(claims)

    def _send_check(self, claims: dict[int, tuple[GameDone, bytes, str]]) -> None:
        """Claimed results, each re-simulated by a worker other than the one that played it (any, if none)."""
        from arena.tournament.run.cluster.crosscheck import check_batch

        assert self.setup is not None
        batch_claims = tuple(claim(done, replay, self.setup.setup.secret) for done, replay, _ in claims.values())
        others = sorted(self._workers() - self.excluded - {worker for _, _, worker in claims.values()})
        where: dict[str, Any] = {"workers": others, "allow_other_workers": False} if others else {}
        self.batches += 1
        tasks = tuple(done.task for done, _, _ in claims.values())
        future = self.client.submit(check_batch, batch_claims, key=f"{self.key}-check{self.batches}", pure=False,
                                    retries=0, **where)
        self.futures[future.key] = tasks
        self.inflight[future.key] = future
        self.checking[future.key] = claims
        if others:
            self.pinned[future.key] = frozenset(others)

    def _stranded(self) -> bool:
        """Batches pinned to workers that have all left (one killed, say, and its nanny's new one under
        another address), which Dask would hold for them for ever: a check is sent to the workers there
        now, a batch of games is given back to be played again. True once something is given back."""
        alive = self._workers()
        for key in [k for k, allowed in self.pinned.items() if not allowed & alive]:
            allowed = self.pinned.pop(key)
            self.inflight.pop(key).cancel()
            tasks = self.futures.pop(key)
            claims = self.checking.pop(key, None)
            if claims is not None:
                self._send_check(claims)
            else:
                self.ready.append(WorkerLost(worker="Dask worker " + ", ".join(sorted(allowed)),
                                             detail="it left before playing these games", tasks=tasks))
        return bool(self.ready)

    def _resize(self, times: list[float]) -> None:
        """Batches of about BATCH_S of a worker's play, from the games' times (when not fixed)."""
        if not self.adapt or not times:
            return
        mean = sum(times) / len(times)
        self.game_s = mean if self.game_s is None else 0.7 * self.game_s + 0.3 * mean
        self.batch = max(1, min(MAX_BATCH, round(BATCH_S / max(self.game_s, 1e-3))))
        self.capacity = IN_FLIGHT_PER_WORKER * self.batch * self.usable

    def _replays(self) -> Path | None:
        return self.setup.setup.config.replays if self.setup is not None else None

    def _checked(self, claims: dict[int, tuple[GameDone, bytes, str]], verdicts: list[tuple[int, str | None]]) -> None:
        for index, problem in verdicts:
            done, replay, worker = claims[index]
            if problem is None:
                self.ready.append(kept(done, replay, self._replays()))
                continue
            self.excluded.add(worker)
            self._say(f"arena: Dask worker {worker}: its result of game {index} was refused ({problem}); "
                      "it plays no more games, and the game is played again elsewhere")
            self.ready.append(WorkerLost(worker=f"Dask worker {worker}", detail=f"its result did not match its replay: {problem}",
                                         tasks=(done.task,)))


    def workers_status(self) -> list[dict[str, Any]]:
        """Each worker: its address, games it finished in the last minute, its bot cache (folder, archives,
        bytes, limit, fetched, refused), and whether it plays (for the admin page and `arena ladder status`)."""
        from arena.tournament.run.dask_worker import status_task

        if self.client is None:
            return []
        answers: dict[str, dict[str, Any]] = self.client.run(status_task)
        return [{"worker": address, "games_per_minute": a.get("games_per_minute", 0), "cache": a.get("cache", {}),
                 "plays": address not in self.excluded} for address, a in sorted(answers.items())]

    def _say(self, line: str) -> None:
        print(line, file=self.notices if self.notices is not None else sys.stderr, flush=True)

    def close(self, interrupted: bool) -> list[Event]:
        events: list[Event] = list(self.ready)
        self.ready.clear()
        self.buffer.clear()
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
        frame = live_frame(event)
        if frame is not None and self.live is not None:
            try:
                self.live.frame(frame)
            except Exception:  # noqa: BLE001 - a frame the board cannot take is only a frame lost
                pass

    # --- the cluster ------------------------------------------------------------------------------

    def _connect(self) -> None:
        try:
            self.cluster, self.client = connect(self.spec, self.dd)
        except (OSError, self.dd.TimeoutError) as exc:
            self.close(True)
            raise ClusterError(f"cannot reach the Dask scheduler at {self.spec.address}: {exc}") from None

    def worker_count(self) -> int:
        workers = self.client.scheduler_info().get("workers", {})
        if not workers:
            raise ClusterError(f"the Dask cluster at {self.spec.describe()} has no workers")
        return len(workers)

    def check_workers(self, setup: ClusterSetup) -> None:
        """Each worker checks its cache and starts every entrant once, before any game (`cluster.probe`)."""
        from arena.tournament.run.dask_worker import probe_task

        excluded, self.workers = probe_workers(self.client, probe_task, self.key, self.setup_data,
                                               {b.sha256: self.archives[b.sha256] for b in setup.bundles if b.sha256},
                                               [e.name for e in setup.setup.config.entrants], self._say)
        self.excluded |= excluded

    def _next_finished(self) -> Any:
        """The next finished future, or None once games are given back (`_stranded`); a scheduler out of
        reach for LOST_AFTER_S ends the run."""
        away_since: float | None = None
        while True:
            try:
                done, _ = self.dd.wait(list(self.inflight.values()), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except self.dd.TimeoutError:
                done = set()
            except OSError:
                done = set()
            if done:
                return min(done, key=lambda f: self.futures[f.key][0].index)
            if self.client.status == "running":
                away_since = None
                if self.pinned and self._stranded():
                    return None
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
