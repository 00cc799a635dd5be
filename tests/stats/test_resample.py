"""The chunked bootstrap draws numpy's numbers of one call per table: what keeps its intervals those of
before (numpy continues one 32-bit stream across `Generator.integers` calls; checked here, since the
chunking relies on it)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.stats import resample
from arena.stats.resample import blocks_from_arrays, bootstrap


@pytest.mark.parametrize("high", [1, 2, 3, 7, 1000, 2**31 + 1, 3_000_000_000])  # the last two reject often
@pytest.mark.parametrize("chunks", [[1001], [1, 2, 998], [333, 333, 335], [7] * 143])
def test_integers_in_chunks_are_one_calls_numbers(high: int, chunks: list[int]) -> None:
    one = np.random.Generator(np.random.PCG64(11))
    expected = np.concatenate([one.integers(0, high, size=sum(chunks)), one.integers(0, 1000, size=9)])
    split = np.random.Generator(np.random.PCG64(11))
    got = np.concatenate([split.integers(0, high, size=n) for n in chunks] + [split.integers(0, 1000, size=9)])
    assert (got == expected).all()


@pytest.mark.parametrize("chunk", [resample.CHUNK, 7, 50])
def test_bootstrap_counts_are_numpys_per_table_draws(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(resample, "CHUNK", chunk)
    # the plain implementation the chunks replace: one integers call per table, in table order
    rnd = np.random.default_rng(3)
    games = 90
    seats = np.array([[t, t + 1, t + 2] for t in rnd.integers(0, 3, size=games)])
    blocks = blocks_from_arrays(np.arange(games), np.arange(games) // 3, seats, rnd.integers(1, 4, size=(games, 3)), 5)
    rng = np.random.Generator(np.random.PCG64(4))
    counts = np.zeros((40, blocks.size), dtype=np.int64)
    rows = np.arange(40)[:, None]
    for table in sorted(set(blocks.strata.tolist())):
        members = np.flatnonzero(blocks.strata == table)
        picks = members[rng.integers(0, len(members), size=(40, len(members)))]
        np.add.at(counts, (np.broadcast_to(rows, picks.shape), picks), 1)
    rank_sums, seat_sums, kept = bootstrap(blocks, 40, 4, keep=40)
    assert (kept == counts).all()
    assert (rank_sums == counts.astype(float) @ blocks.rank_sum).all()
    assert (seat_sums == counts.astype(float) @ blocks.seat_count).all()
