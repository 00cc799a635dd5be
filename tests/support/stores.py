"""Fixed results stores for the standings tests: the same games on every run, written through the real store."""

from __future__ import annotations

import random
from pathlib import Path

from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame


def game(i: int, seats: tuple[int, ...], ranks: tuple[int, ...], seed: int, table: int = 0) -> StoredGame:
    n = len(seats)
    return StoredGame(
        ScheduledGame(index=i, round=i // 8, table=table, rotation=i % n, seats=seats, seed=seed),
        Played(points=tuple(float(10 * (n - r)) for r in ranks), tiebreaks=((),) * n, ranks=ranks, game_ranks=ranks,
               faults=(), versions=("1",) * n, decisions=10, duration_s=0.01),
        game_id=f"g{i}", replay_path=None,
    )


def _ranks(perf: list[float]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for q in perf if q > p) for p in perf)


def fixed_games(shape: str) -> tuple[int, list[StoredGame]]:
    """(entrants, games) of a fixed store: `rotations` (4 seats, a deal under its 4 rotations, ties),
    `tables` (6 entrants at 3-seat tables, a late joiner with few deals), `fill` (an entrant in two seats)."""
    rnd = random.Random(shape)
    out: list[StoredGame] = []
    if shape == "rotations":
        for i in range(400):
            seats = tuple((i + s) % 4 for s in range(4))
            out.append(game(i, seats, _ranks([round(rnd.gauss(e, 2.0)) for e in seats]), seed=i // 4))
        return 4, out
    if shape == "tables":
        tables = [(0, 1, 2), (0, 3, 4), (1, 3, 4), (2, 3, 4), (0, 1, 5)]
        i = 0
        for deal in range(90):
            t = deal % len(tables) if deal < 80 else 4  # entrant 5 plays only a few deals
            members = tables[t]
            for r in range(3):
                seats = tuple(members[(r + s) % 3] for s in range(3))
                out.append(game(i, seats, _ranks([rnd.gauss(0.4 * e, 1.0) for e in seats]), seed=deal, table=t))
                i += 1
        return 6, out
    for i in range(240):  # fill: 3 entrants, 4 seats, entrant i % 3 twice
        e = i % 3
        seats = (e, (e + 1) % 3, e, (e + 2) % 3)
        out.append(game(i, seats, _ranks([rnd.gauss(0.5 * x, 1.0) for x in seats]), seed=i // 2))
    return 3, out


def build(path: Path, shape: str) -> Path:
    entrants, games = fixed_games(shape)
    with Store.create_or_resume(path, name=shape, game="kododo", fingerprint="golden", identity={},
                                entrants=[(f"bot{k}", [f"bot{k}"]) for k in range(entrants)], total_games=len(games)) as store:
        store.record_many(games)
    return path
