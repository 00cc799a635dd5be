"""Ratings: time to compute the standings of a store of 100,000 4-player games.

`standings_seconds()` builds (once, in a temporary folder) a store of `games` Kododo-shaped results
(4 entrants of different strengths, every seat rotation, integer points spread so that about one game
in 20 has a tie, as in the Kododo demo's games) and times `Store.standings` from scratch (the rating cache ignored): reading every game from
SQLite, rating it in schedule order with the fast free-for-all TrueSkill, and building the table.
`cached_standings_seconds()` times the same call when the cache is warm and a handful of games arrived
since: what `arena standings` costs during and after a run.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from arena.stats.ratings import RatingModel
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from arena.stats.standings import store_standings
from bench.stats import Figure, repeat

ENTRANTS = [("a", ["a"]), ("b", ["b"]), ("c", ["c"]), ("d", ["d"])]


def synthetic_games(count: int, seed: int = 1, first_index: int = 0) -> list[StoredGame]:
    rnd = random.Random(seed)
    strength = (0.0, 1.0, 2.0, 3.0)  # points ~ N(20 + 6 strength, 30)
    out = []
    for i in range(first_index, first_index + count):
        r = i % 4
        seats = tuple((r + s) % 4 for s in range(4))
        points = tuple(round(rnd.gauss(20 + 6 * strength[e], 30)) for e in seats)
        ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
        out.append(
            StoredGame(
                ScheduledGame(index=i, round=i // 4, table=0, rotation=r, seats=seats, seed=i),
                Played(points=points, tiebreaks=((),) * 4, ranks=ranks, game_ranks=ranks, faults=(), versions=("1",) * 4,
                       decisions=72, duration_s=0.01),
                game_id=f"g{i}", replay_path=None,
            )
        )
    return out


def build_store(path: Path, games: int) -> Path:
    with Store.create_or_resume(
        path, name="bench", game="kododo", fingerprint="bench", identity={}, entrants=ENTRANTS, total_games=games
    ) as store:
        store.record_many(synthetic_games(games))
    return path


def standings_seconds(games: int = 100_000, path: Path | None = None) -> float:
    """Seconds to compute standings from scratch for a store of `games` 4-player games."""
    with tempfile.TemporaryDirectory() as tmp:
        db = path if path is not None and path.exists() else build_store(Path(tmp) / "ratings.sqlite", games)
        with Store.open_existing(db) as store:
            start = time.perf_counter()
            table = store_standings(store, RatingModel(), use_cache=False)
            elapsed = time.perf_counter() - start
        assert len(table) == 4 and sum(s.games for s in table) == 4 * games
        return elapsed


def cached_standings_seconds(games: int = 100_000, new_games: int = 10) -> float:
    """Seconds for standings with a warm cache and `new_games` stored since it was written."""
    with tempfile.TemporaryDirectory() as tmp:
        db = build_store(Path(tmp) / "ratings.sqlite", games)
        with Store.open_existing(db) as store:
            store_standings(store)  # warms the cache
            store.record_many(synthetic_games(new_games, seed=2, first_index=games))
            start = time.perf_counter()
            store_standings(store)
            return time.perf_counter() - start


def chain_figures(repeats: int = 3, calls: int = 20_000) -> list[Figure]:
    """One TrueSkill chain (no tie) as every rater calls it (chains.py, compiled by mypyc unless ARENA_PURE=1)
    and as numba compiles it, for 2 to 6 players (us per call, in-process). `kernel.PLAIN_COST` and
    `kernel.COMPILE_FROM` were set from the interpreted chain's figures."""
    from arena.stats.kernel import FastRater, chain, compiled_chain

    rater = FastRater(RatingModel())
    args = (rater._beta2, rater._tau2, rater._margin)
    out = []
    for n in range(2, 7):
        rnd = random.Random(n)
        cases = [(tuple((rnd.uniform(15, 35), rnd.uniform(1, 8.3)) for _ in range(n)), (False,) * (n - 1)) for _ in range(calls)]
        plain = chain(n)  # chains.py as installed: mypyc-compiled, or Python under ARENA_PURE=1
        for kind, f in (("chains.py, mypyc" if not hasattr(plain, "__code__") else "chains.py, plain Python", plain),
                        ("numba", compiled_chain(n))):
            f(*cases[0], *args)  # compiled: loaded (or compiled) before timing

            def timed() -> float:
                started = time.process_time()
                for priors, draws in cases:
                    f(priors, draws, *args)
                return (time.process_time() - started) / calls * 1e6

            out.append(repeat(f"ratings: one TrueSkill chain, {n} players, {kind}", "us/call", timed, repeats))
    return out


def run(repeats: int = 3, games: int = 100_000) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        db = build_store(Path(tmp) / "ratings.sqlite", games)
        cold = repeat(f"ratings: library call store_standings(), in-process, from scratch, {games:,} 4-player games", "s", lambda: standings_seconds(games, db), repeats)
    warm = repeat(f"ratings: library call store_standings(), in-process, with the cache, {games:,} games + 10 new", "s", lambda: cached_standings_seconds(games), 1)
    return [cold, warm, *chain_figures(repeats)]


if __name__ == "__main__":
    for figure in run():
        print(figure.row())
