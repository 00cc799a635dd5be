"""Who plays next: the ladder's choice of tables. Pure (a random generator in, tables out).

After Halite (its manager picked a seed player, new bots first, then opponents near the seed's rank
with a random spread) and the AI Challenge (opponents close in skill, a bot with few games preferred):
- the seed of a table is a bot under `min_games` (the fewest games first), else a bot drawn with
  weight sigma (the less certain a rating, the more games it needs);
- the other seats are drawn without replacement with weight exp(-|mu - mu_seed| / closeness), so
  tables are mostly close in rating but any pairing can happen;
- the seats are shuffled;
- with `duplicate`, one deal goes to up to `players` tables of *different* bots (each table chosen as
  above from the bots not yet given the deal), as duplicate bridge
  deals a board to every table: the bots that held the same cards are compared with each other, and
  no bot meets a deal twice (a bot that met a deal in another seat could learn it through host state
  no sandbox separates: the page cache, machine-wide counters). With too few bots for a second table
  the deal is played once.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    bot: int
    mu: float
    sigma: float
    games: int  # finished and in flight


@dataclass(frozen=True)
class Table:
    seats: tuple[int, ...]  # bot ids in seat order
    seed: int


def seed_player(candidates: list[Candidate], min_games: int, rng: random.Random) -> Candidate:
    new = [c for c in candidates if c.games < min_games]
    if new:
        fewest = min(c.games for c in new)
        return rng.choice([c for c in new if c.games == fewest])
    return rng.choices(candidates, weights=[max(c.sigma, 1e-6) for c in candidates])[0]


def _table(pool: list[Candidate], players: int, min_games: int, closeness: float, rng: random.Random) -> list[Candidate]:
    """One table: a seed player and `players - 1` opponents near its rating, drawn from `pool`."""
    seed = seed_player(pool, min_games, rng)
    rest = [c for c in pool if c.bot != seed.bot]
    chosen = [seed]
    for _ in range(players - 1):
        weights = [math.exp(-abs(c.mu - seed.mu) / max(closeness, 1e-6)) + 1e-9 for c in rest]
        pick = rng.choices(range(len(rest)), weights=weights)[0]
        chosen.append(rest.pop(pick))
    rng.shuffle(chosen)
    return chosen


def next_tables(candidates: list[Candidate], players: int, min_games: int, closeness: float, duplicate: bool,
                rng: random.Random) -> list[Table]:
    """The games of one deal: one table, or with `duplicate` up to `players` tables of different bots
    (each shuffled, so the same cards go to different bots); none with too few bots."""
    if len(candidates) < players:
        return []
    deal = rng.getrandbits(63)
    pool = list(candidates)
    tables: list[Table] = []
    while len(pool) >= players and len(tables) < (players if duplicate else 1):
        chosen = _table(pool, players, min_games, closeness, rng)
        seats = tuple(c.bot for c in chosen)
        tables.append(Table(seats, deal))
        taken = set(seats)
        pool = [c for c in pool if c.bot not in taken]
    return tables
