"""The coordinator's side of the Dask executor: sends games to the cluster, yields each result once."""

from __future__ import annotations

from typing import Any, Iterable

from arena.cluster.spec import ClusterError, ClusterSpec
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import ScheduledGame
from arena.tournament.store import StoredGame

IN_FLIGHT_PER_WORKER = 2  # one game playing, one ready, as the local pool does


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "the Dask executor needs the optional extra: pip install 'arena[dask]' (or pip install distributed)"
        ) from None
    return distributed



class DaskExecutor:
    """Sends games to a Dask cluster and yields each StoredGame once, as it returns."""

    def __init__(self, spec: ClusterSpec, config: TournamentConfig) -> None:
        self.spec = spec
        self.config = config
        self.key = f"{config.name}:{config.fingerprint()}"
        self.cluster: Any = None
        self.client: Any = None
        self.bot_faults: list[tuple[str, Any]] = []

    def __enter__(self) -> "DaskExecutor":
        distributed = _import_distributed()
        try:
            if self.spec.local_workers is not None:
                self.cluster = distributed.LocalCluster(
                    n_workers=self.spec.local_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(self.spec.address, timeout="10s")
        except OSError as exc:
            self.close()
            raise ClusterError(f"cannot reach the Dask scheduler at {self.spec.address}: {exc}") from None
        from arena.cluster.worker import PLUGIN_NAME, BotCache

        self.client.register_plugin(BotCache(), name=PLUGIN_NAME)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workers(self) -> int:
        assert self.client is not None
        return max(1, len(self.client.scheduler_info()["workers"]))

    def check_workers(self) -> None:
        """Every entrant must start on every worker, from the same files, before any game is played."""
        from arena.cluster.worker import folder_digest, probe_task

        assert self.client is not None
        folders = {e.name: folder_digest(e.cwd) for e in self.config.entrants}
        answers: dict[str, dict[str, str]] = self.client.run(probe_task, self.config, folders)
        lines = [f"worker {worker}: entrant {name!r}: {problem}" for worker, problems in sorted(answers.items()) for name, problem in problems.items()]
        if lines:
            raise ClusterError("entrants cannot play on every worker:\n  " + "\n  ".join(lines))

    def play(self, games: Iterable[ScheduledGame]) -> Iterable[StoredGame]:
        """Yield each game's result once, in the order they finish; at most a few games in flight per worker."""
        distributed = _import_distributed()
        assert self.client is not None
        todo = iter(games)
        window = IN_FLIGHT_PER_WORKER * self.workers
        pending = distributed.as_completed()
        for game in _take(todo, window):
            pending.add(self._submit(game))
        try:
            for future in pending:
                stored: StoredGame = future.result()
                yield stored
                for game in _take(todo, 1):
                    pending.add(self._submit(game))
        except (OSError, distributed.client.FutureCancelledError) as exc:
            raise ClusterError(f"lost the Dask cluster mid-run ({type(exc).__name__}); run again to resume") from None

    def _submit(self, game: ScheduledGame) -> Any:
        assert self.client is not None
        from arena.cluster.worker import play_task

        return self.client.submit(play_task, self.key, self.config, game, pure=False, key=f"arena-{self.key}-{game.index}")

    def close(self) -> None:
        if self.client is not None:
            try:
                from arena.cluster.worker import close_task

                for faults in self.client.run(close_task, self.key).values():
                    self.bot_faults.extend(faults)
            except Exception:  # noqa: BLE001 - a lost cluster has no bots of ours to close
                pass
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


def _take(it: Iterable[ScheduledGame], n: int) -> list[ScheduledGame]:
    out = []
    for game in it:
        out.append(game)
        if len(out) >= n:
            break
    return out
