"""Who plays next: the ladder's choice of tables. Pure (a random generator in, tables out).

After Halite (its manager picked a seed player, new bots first, then opponents near the seed's rank
with a random spread) and the AI Challenge (opponents close in skill, a bot with few games preferred):
- the seed of a table is a bot under `min_games` (the fewest games first), else a bot drawn with
  weight sigma (the less certain a rating, the more games it needs);
- the other seats are drawn without replacement with weight exp(-|mu - mu_seed| / closeness), so
  tables are mostly close in rating but any pairing can happen;
- the seats are shuffled, and with `duplicate` the table plays every cyclic rotation of one deal (each
  bot plays each seat of the same cards), which cancels the luck of the deal between them.
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


def next_tables(candidates: list[Candidate], players: int, min_games: int, closeness: float, duplicate: bool,
                rng: random.Random) -> list[Table]:
    """The games of one table (one, or one per rotation with `duplicate`); none with too few bots."""
    if len(candidates) < players:
        return []
    seed = seed_player(candidates, min_games, rng)
    pool = [c for c in candidates if c.bot != seed.bot]
    chosen = [seed]
    for _ in range(players - 1):
        weights = [math.exp(-abs(c.mu - seed.mu) / max(closeness, 1e-6)) + 1e-9 for c in pool]
        pick = rng.choices(range(len(pool)), weights=weights)[0]
        chosen.append(pool.pop(pick))
    rng.shuffle(chosen)
    seats = tuple(c.bot for c in chosen)
    deal = rng.getrandbits(63)
    if not duplicate:
        return [Table(seats, deal)]
    return [Table(seats[r:] + seats[:r], deal) for r in range(players)]
