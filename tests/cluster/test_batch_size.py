"""The Dask executor sizes its batches by the games' times (issue 39, item 3): short games go in large
batches, so the coordinator pays Dask's per-task cost once for many games; long games in small ones, so
a batch (and a new entrant's wait for its first game) stays about BATCH_S of a worker's play."""

from __future__ import annotations

from types import SimpleNamespace

from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run.dask_pool import BATCH, BATCH_S, IN_FLIGHT_PER_WORKER, MAX_BATCH, DaskExecutor


def test_short_games_go_in_large_batches_and_long_ones_in_small() -> None:
    executor = DaskExecutor(ClusterSpec.parse("local:1"))  # never started: no cluster
    executor.usable = 2
    assert executor.batch == BATCH  # until a game's time is known
    executor._resize([0.01] * 8)  # instant bots: 10 ms a game
    assert executor.batch == MAX_BATCH and executor.capacity == IN_FLIGHT_PER_WORKER * MAX_BATCH * 2
    for _ in range(20):
        executor._resize([0.5] * 4)  # bots that think: half a second a game
    assert executor.batch == round(BATCH_S / 0.5)
    for _ in range(20):
        executor._resize([30.0])  # a game longer than a batch's span: one a batch
    assert executor.batch == 1 and executor.capacity == IN_FLIGHT_PER_WORKER * 2


def test_a_fixed_batch_stays_fixed() -> None:
    executor = DaskExecutor(ClusterSpec.parse("local:1"), batch=1)
    executor._resize([0.01] * 8)
    assert executor.batch == 1


class _Client:
    """Records the batches the executor sends (no cluster)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def submit(self, fn: object, run_key: str, setup: object, seated: object, chunk: tuple[object, ...], *rest: object,
               **options: object) -> SimpleNamespace:
        self.sizes.append(len(chunk))
        return SimpleNamespace(key=options["key"])


def _flushed(in_flight: int, buffered: int) -> list[int]:
    """The batch sizes one flush sends: `in_flight` games out in batches of 8, `buffered` new ones, one
    worker slot free (two workers, two batches each)."""
    executor = DaskExecutor(ClusterSpec.parse("local:1"))
    executor.usable, executor.batch = 2, 8
    executor.capacity = IN_FLIGHT_PER_WORKER * 8 * 2
    executor.client = _Client()  # type: ignore[assignment]
    executor._seated = lambda chunk: {}  # type: ignore[method-assign]
    executor.futures = {f"out{i}": tuple(range(8)) for i in range(in_flight // 8)}  # type: ignore[misc]
    executor.buffer = [SimpleNamespace(index=i, attempt=0) for i in range(buffered)]  # type: ignore[misc]
    executor._flush(1)
    return list(executor.client.sizes)


def test_the_schedules_last_games_are_shared_out_among_the_workers() -> None:
    # Steady state: the runner keeps the executor full; a freed slot gets one whole batch.
    assert _flushed(in_flight=24, buffered=8) == [8]
    # The schedule's end: fewer games out than the executor holds. One batch of 8 would keep one
    # worker busy while the other waits; two of 4 go one to each (the tail cost 0.83 -> 0.89 of the
    # local pool's games/s, BENCHMARKS.md "Many machines").
    assert _flushed(in_flight=16, buffered=8) == [4, 4]
