"""The Dask executor sizes its batches by the games' times (issue 39, item 3): short games go in large
batches, so the coordinator pays Dask's per-task cost once for many games; long games in small ones, so
a batch (and a new entrant's wait for its first game) stays about BATCH_S of a worker's play."""

from __future__ import annotations

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
