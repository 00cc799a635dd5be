"""Deal blocks as compact arrays, and the stratified bootstrap over them in bounded memory. Pure: no I/O.

Why in chunks: the bootstrap draws, table by table, `resamples x blocks` block numbers; drawn at once
(`Generator.integers(0, m, size=(resamples, m))`) with a resamples x blocks count matrix, that is
16 GB at a million games. numpy draws a range below 2**32 from 32-bit values of the bit generator,
which keeps the unused half of a 64-bit output in its own state, so consecutive calls continue one
stream: the same draws taken a chunk of rows at a time are the numbers of the single call
(`tests/stats/test_resample.py` checks it), and the intervals stay those of the plain
implementation (`tests/stats/test_standings_golden.py`) while the memory is one chunk. Counts
are summed with `bincount` and one matrix product per chunk: exact, since every sum is of small
integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from arena.stats.columns import rows_or_matrix
from arena.stats.intervals import DealGame

Matrix = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
CHUNK = 1 << 21  # draws per chunk (16 MB of int64)


@dataclass(frozen=True)
class Blocks:
    """The games grouped into deal blocks, with per-block rank sums and seat counts per entrant.

    A deal is its seed (`intervals.deal_of`); blocks are in the schedule order of their first game;
    strata number the tables (sorted sets of entrants) each block was played at (`_strata`)."""

    entrants: int
    strata: Ints  # the table of each block: resampled within it
    rank_sum: Matrix  # blocks x entrants
    seat_count: Matrix  # blocks x entrants
    game_block: Ints  # the block of each game, games in schedule order
    game_seats: Ints  # games x seats, -1 past a game's last seat
    game_ranks: Ints  # games x seats

    @property
    def size(self) -> int:
        return len(self.strata)

    @property
    def games_count(self) -> int:
        return len(self.game_block)

    @property
    def max_seats(self) -> int:
        return int((self.game_seats >= 0).sum(axis=1).max()) if self.games_count else 1

    @cached_property
    def games(self) -> tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]:
        """Per block: (seats, ranks) of its games in schedule order (for re-rating: small stores only)."""
        per: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = [[] for _ in range(self.size)]
        for b, seats, ranks in zip(self.game_block.tolist(), self.game_seats.tolist(), self.game_ranks.tolist()):
            n = sum(1 for s in seats if s >= 0)
            per[b].append((tuple(seats[:n]), tuple(ranks[:n])))
        return tuple(tuple(g) for g in per)


def blocks_from_arrays(index: Ints, seed: Ints, seats: Ints, ranks: Ints, entrants: int) -> Blocks:
    """Deal blocks of games given as arrays (seats and ranks: games x seats, -1 past a game's last seat)."""
    order = np.argsort(index, kind="stable")
    seed, seats, ranks = seed[order], seats[order], ranks[order]
    games, width = seats.shape if seats.ndim == 2 else (0, 0)
    if games == 0:
        empty = np.zeros((0, entrants))
        none = np.zeros(0, dtype=np.int64)
        return Blocks(entrants, none, empty, empty.copy(), none, np.zeros((0, 1), dtype=np.int64), np.zeros((0, 1), dtype=np.int64))
    table = np.sort(seats, axis=1)  # the entrants at the table, -1 (absent seats) first
    _, first, inverse = np.unique(seed, return_index=True, return_inverse=True)  # a deal is its seed
    inverse = inverse.reshape(-1)
    rank_of_key = np.empty(len(first), dtype=np.int64)
    rank_of_key[np.argsort(first, kind="stable")] = np.arange(len(first))
    game_block = rank_of_key[inverse]  # blocks numbered in the order of their first game
    nblocks = len(first)
    strata = _strata(table, game_block, np.sort(first))
    valid = seats >= 0
    cell = (game_block[:, None] * entrants + np.where(valid, seats, 0))[valid]
    size = nblocks * entrants
    rank_sum = np.bincount(cell, weights=ranks[valid].astype(np.float64), minlength=size).astype(np.float64).reshape(nblocks, entrants)
    seat_count = np.bincount(cell, minlength=size).astype(np.float64).reshape(nblocks, entrants)
    return Blocks(entrants, strata, rank_sum, seat_count, game_block, seats.astype(np.int64), ranks.astype(np.int64))


def _strata(table: Ints, game_block: Ints, block_first: Ints) -> Ints:
    """The stratum of each block: the tables (sorted sets of entrants) its games were played at, numbered
    in the order Python sorts them. One table for a shared deal; a spread deal's several tables, which
    the same place in every round of the schedule plays again, so blocks are resampled among their like."""
    tables, table_of_game = np.unique(table, axis=0, return_inverse=True)
    table_of_game = table_of_game.reshape(-1)
    names = [tuple(int(e) for e in row if e >= 0) for row in tables]
    single = table_of_game == table_of_game[block_first][game_block]
    if single.all():  # every deal at one table, so every table is some block's (vectorised: a million games)
        place = np.empty(len(names), dtype=np.int64)
        place[sorted(range(len(names)), key=lambda t: names[t])] = np.arange(len(names))
        return place[table_of_game[block_first]]
    sets: list[set[tuple[int, ...]]] = [set() for _ in range(len(block_first))]
    for b, t in zip(game_block.tolist(), table_of_game.tolist()):
        sets[b].add(names[t])
    keys = [tuple(sorted(s)) for s in sets]
    number = {k: i for i, k in enumerate(sorted(set(keys)))}
    return np.asarray([number[k] for k in keys], dtype=np.int64)


def game_arrays(games: Sequence[DealGame]) -> tuple[Ints, Ints, Ints, Ints]:
    """(index, seed, seats, ranks) arrays of game records, seats and ranks padded with -1."""
    width = max((len(g.seats) for g in games), default=1)
    seats = np.full((len(games), width), -1, dtype=np.int64)
    ranks = np.full((len(games), width), -1, dtype=np.int64)
    for i, g in enumerate(games):
        seats[i, : len(g.seats)] = g.seats
        ranks[i, : len(g.ranks)] = g.ranks
    index = np.asarray([g.index for g in games], dtype=np.int64)
    return index, np.asarray([g.seed for g in games], dtype=np.int64), seats, ranks


def _width(rows: Any) -> int:
    return int(rows.shape[1]) if isinstance(rows, np.ndarray) else max((len(r) for r in rows), default=1)


def _padded(rows: Any, width: int) -> Ints:
    if isinstance(rows, np.ndarray) and rows.shape[1] == width:
        return rows.astype(np.int64, copy=False)
    if all(len(r) == width for r in rows):
        return np.asarray(rows, dtype=np.int64).reshape(len(rows), width)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def blocks_from_rows(chunks: Iterable[tuple[Sequence[int], Sequence[int], Sequence[str], Sequence[str]]], entrants: int) -> Blocks:
    """Deal blocks of games given in chunks of (indices, seeds, seats, ranks), seats and ranks the store's JSON
    lists (`arena.results.derived.deal_rows`)."""
    parts = [(np.asarray(i, dtype=np.int64), np.asarray(s, dtype=np.int64), rows_or_matrix(seats), rows_or_matrix(ranks))
             for i, s, seats, ranks in chunks]
    width = max((_width(seats) for _, _, seats, _ in parts), default=1)
    if not parts:
        none = np.zeros(0, dtype=np.int64)
        return blocks_from_arrays(none, none, np.zeros((0, width), dtype=np.int64), np.zeros((0, width), dtype=np.int64), entrants)
    return blocks_from_arrays(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([_padded(p[2], width) for p in parts]),
        np.concatenate([_padded(p[3], width) for p in parts]),
        entrants,
    )


def deal_blocks(games: Sequence[DealGame], entrants: int) -> Blocks:
    """Group games by deal, blocks in the schedule order of their first game."""
    return blocks_from_arrays(*game_arrays(games), entrants)


def bootstrap(blocks: Blocks, resamples: int, seed: int, keep: int = 0) -> tuple[Matrix, Matrix, Ints]:
    """Rank sums and seats played (resamples x entrants) of every resample, and how often each block
    is drawn in the first `keep` resamples (keep x blocks). Each resample draws, within every table, as
    many blocks as the table has, with replacement: tables in order, each all resamples at once, as
    one `Generator(PCG64(seed)).integers` call per table would."""
    rng = np.random.Generator(np.random.PCG64(seed))
    rank_sums = np.zeros((resamples, blocks.entrants))
    seats = np.zeros((resamples, blocks.entrants))
    kept = np.zeros((keep, blocks.size), dtype=np.int64)
    with threadpool_limits(limits=1, user_api="blas"):
        _draw_tables(blocks, resamples, keep, rng, rank_sums, seats, kept)
    return rank_sums, seats, kept


def _draw_tables(blocks: Blocks, resamples: int, keep: int, rng: np.random.Generator, rank_sums: Matrix, seats: Matrix,
                 kept: Ints) -> None:
    for table in np.unique(blocks.strata).tolist():
        members = np.flatnonzero(blocks.strata == table)
        m = len(members)
        rows = max(1, CHUNK // m)
        # Whole numbers in doubles: every product and sum below is an integer under 2^53, so exact in any
        # order. The product runs in BLAS on one thread: several would spin on the other cores for a
        # product this thin, and numpy's own integer loop (no BLAS) is several times slower.
        local = np.stack([blocks.rank_sum[members], blocks.seat_count[members]], axis=2).astype(np.float64)
        for r0 in range(0, resamples, rows):
            r1 = min(resamples, r0 + rows)
            picks = rng.integers(0, m, size=(r1 - r0, m))
            picks += (np.arange(r1 - r0, dtype=np.int64) * m)[:, None]
            counts = np.bincount(picks.ravel(), minlength=(r1 - r0) * m).reshape(r1 - r0, m)
            sums = counts.astype(np.float64) @ local.reshape(m, -1)
            sums = sums.reshape(r1 - r0, blocks.entrants, 2)
            rank_sums[r0:r1] += sums[:, :, 0]
            seats[r0:r1] += sums[:, :, 1]
            if r0 < keep:
                kept[r0 : min(r1, keep), members] = counts[: min(r1, keep) - r0]


def resample_counts(blocks: Blocks, resamples: int, seed: int) -> Ints:
    """resamples x blocks: how often each block is drawn (small stores and tests: one row per resample)."""
    return bootstrap(blocks, resamples, seed, keep=resamples)[2]
