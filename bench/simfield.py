"""Simulated tournaments with known strengths, for validating the statistics (tests and bench_stoprule).

A game of the model: each seat's performance is its entrant's strength + the deal's luck for that seat
(shared by every game of the deal, as cards are in duplicate play) + independent noise; ranks follow
performance. A planted colluding pair (feeder, partner): whenever both sit at a table the feeder gives
`feed` of its performance to the partner. The true expected average rank is known by construction up
to Monte-Carlo error (`true_average_ranks` uses a large independent sample).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Sequence

from arena.core.scheduled import ScheduledGame
from arena.tournament.schedule.plan import Deals, Rotations, ScheduleSpec, build


@dataclass(frozen=True)
class SimGame:
    index: int
    round: int
    table: int
    rotation: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    seed: int = 0  # the deal's seed: the games of one deal share it


@dataclass(frozen=True)
class Field:
    strengths: tuple[float, ...]
    seats: int
    deal_luck: float = 1.0  # sd of each seat's luck in a deal
    noise: float = 1.0  # sd of each game's own noise
    collusion: tuple[tuple[int, int], ...] = field(default_factory=tuple)  # (feeder, partner)
    feed: float = 0.0
    rotations: Rotations = Rotations.CYCLIC
    deals: Deals = Deals.SPREAD  # as a tournament schedules them by default; SHARED: a table's seatings share one
    # the shape of each game's noise: "normal" (Thurstone), "gumbel" (ranks then follow Plackett-Luce),
    # "t3" (Student t, 3 degrees of freedom: heavy tails), "blowout" (1 game in 10 with 5 times the noise)
    shape: str = "normal"
    seat_effect: float = 0.0  # seat s adds -seat_effect * s to its performance (the first seat is better)

    @property
    def entrants(self) -> int:
        return len(self.strengths)


def _ranks(perf: Sequence[float]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for q in perf if q > p) for p in perf)


def _noise(fld: Field, rng: random.Random) -> float:
    if fld.shape == "gumbel":
        return -fld.noise * math.log(-math.log(1.0 - rng.random()))
    if fld.shape == "t3":
        return fld.noise * rng.gauss(0.0, 1.0) / math.sqrt(sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3)) / 3)
    if fld.shape == "blowout":
        return rng.gauss(0.0, fld.noise * (5.0 if rng.random() < 0.1 else 1.0))
    return rng.gauss(0.0, fld.noise)


def play(fld: Field, game: ScheduledGame, luck: Sequence[float], rng: random.Random) -> SimGame:
    perf = [fld.strengths[e] + luck[s] - fld.seat_effect * s + _noise(fld, rng) for s, e in enumerate(game.seats)]
    where = {e: s for s, e in enumerate(game.seats)}
    for feeder, partner in fld.collusion:
        if feeder in where and partner in where:
            perf[where[feeder]] -= fld.feed
            perf[where[partner]] += fld.feed
    return SimGame(game.index, game.round, game.table, game.rotation, game.seats, _ranks(perf), game.seed)


def tournament(fld: Field, rounds: int, seed: int) -> list[SimGame]:
    """Every game of a round-robin of `rounds` rounds, in schedule order."""
    spec = ScheduleSpec(entrants=fld.entrants, seats=fld.seats, rounds=rounds, rotations=fld.rotations, deals=fld.deals,
                        master_seed=seed)
    rng = random.Random(seed)
    out: list[SimGame] = []
    luck: dict[int, list[float]] = {}  # by deal: every game of it holds the same cards
    for g in build(spec):
        if g.seed not in luck:
            luck[g.seed] = [rng.gauss(0.0, fld.deal_luck) for _ in range(fld.seats)]
        out.append(play(fld, g, luck[g.seed], rng))
    return out


def true_average_ranks(fld: Field, rounds: int = 4000, seed: int = 987654321) -> list[float]:
    """Expected average rank of each entrant under the model on this schedule (Monte Carlo, large)."""
    games = tournament(fld, rounds, seed)
    total = [0.0] * fld.entrants
    seats = [0] * fld.entrants
    for g in games:
        for e, r in zip(g.seats, g.ranks):
            total[e] += r
            seats[e] += 1
    return [t / s for t, s in zip(total, seats)]
