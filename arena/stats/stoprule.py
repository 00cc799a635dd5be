"""Stop a round-robin once its ranking is settled. Pure and deterministic: no I/O, no randomness.

The test, checked after each whole round r >= min_rounds (whole rounds keep the duplicate balance):
rank the entrants by average rank over rounds 0..r-1; for each adjacent pair (a ahead of b), or only
the pairs that decide the top k places, take the per-round difference of their average ranks (a
round is a replicate of the whole design: every table, every seating, fresh deals, spread over the
tables as the schedule spreads them), and a Student t
test of "no difference" on those r values, its p-value never below 2^(1 - r): the smallest p-value r
rounds can give when nothing is assumed about the shape of the differences (a sign-flip test: under
"no difference" each round's difference is as likely to have either sign), so a pair whose few
differences happen to be all equal is not taken as certain. A pair equal in every one of r rounds
(two bots that always crash share the last place) is settled as a tie once 2^(1 - r) is within the
level: were they not tied, some round would have told them apart. Stop when every pair is ordered, or
tied, at the rule's level.

Why the level is split: looking after every round and stopping at the first look that passes makes
a fixed-level test wrong far more often than its level. The rule spends 1 - confidence over the
looks it may make (Bonferroni: each of the L = max_rounds - min_rounds + 1 looks gets (1 - confidence)
/ L, two-sided), so the chance that it ever declares a pair's order wrongly, or declares an order
between two equal entrants, is at most 1 - confidence. Conservative; the simulation in
bench/bench_stoprule.py measures both its error rate and the games it saves.

Deterministic in the stored games of the first r rounds only: a resumed or concurrent run reaches
the same decision at the same round as an uninterrupted run at concurrency 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from arena.jsonvalue import JSON
from arena.stats import tdist
from arena.stats.intervals import GameLike


@dataclass(frozen=True)
class StopRule:
    """`stop: {confidence: 0.95, min_rounds: 4, top: null}` in a config."""

    confidence: float = 0.95
    min_rounds: int = 4
    top: int | None = None  # settle only the top `top` places; None: every adjacent pair

    def __post_init__(self) -> None:
        if not 0.5 <= self.confidence < 1:
            raise ValueError(f"stop.confidence must be at least 0.5 and below 1, got {self.confidence}")
        if self.min_rounds < 2:
            raise ValueError(f"stop.min_rounds must be at least 2 (a t test needs two rounds), got {self.min_rounds}")
        if self.top is not None and self.top < 1:
            raise ValueError(f"stop.top must be at least 1, got {self.top}")


@dataclass(frozen=True)
class PairTest:
    ahead: int
    behind: int
    difference: float  # behind's average rank minus ahead's (>= 0)
    t: float
    p: float  # two-sided p-value of "no difference" (at least 2^(1 - rounds))
    tied: bool = False  # equal average ranks in every round tested
    rounds: int = 0  # how many rounds had both

    def settled(self, level: float) -> bool:
        """Ordered at `level`, or tied in so many rounds that a difference would have shown."""
        return self.p <= level or (self.tied and self.floor <= level)

    @property
    def floor(self) -> float:
        return min(1.0, 2.0 ** (1 - self.rounds))

    def to_json(self) -> dict[str, JSON]:
        return {"ahead": self.ahead, "behind": self.behind, "difference": self.difference, "t": self.t, "p": self.p,
                "tied": self.tied}


@dataclass(frozen=True)
class StopDecision:
    stop: bool
    rounds: int  # whole rounds the decision used
    level: float  # the p-value each pair must reach at this look
    pairs: tuple[PairTest, ...]  # the pairs tested, best place first
    reason: str

    def progress(self) -> str:
        """A short state for the progress line, e.g. `settled 2/3, weakest p=0.004>0.001`."""
        if not self.pairs:
            return self.reason
        done = sum(1 for p in self.pairs if p.settled(self.level))
        weakest = weakest_pair(self.pairs, self.level)
        state = "STOP" if self.stop else f"weakest p={weakest.p:.2g}>{self.level:.2g}"
        return f"settled {done}/{len(self.pairs)} after {self.rounds} rounds, {state}"


def weakest_pair(pairs: Sequence[PairTest], level: float) -> PairTest:
    """The pair furthest from settled: an unsettled one with the largest p-value, if any."""
    return max(pairs, key=lambda p: (not p.settled(level), p.p))


def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    return tdist.two_sided_p(t, df)


def round_average_ranks(games: Sequence[GameLike], entrants: int, rounds: int) -> list[list[float | None]]:
    """rounds x entrants: each entrant's average rank in each round (None: not seated that round)."""
    total = [[0.0] * entrants for _ in range(rounds)]
    seats = [[0] * entrants for _ in range(rounds)]
    for g in games:
        if g.round < rounds:
            for e, r in zip(g.seats, g.ranks):
                total[g.round][e] += r
                seats[g.round][e] += 1
    return [[t / s if s else None for t, s in zip(tr, sr)] for tr, sr in zip(total, seats)]


def pair_test(per_round: Sequence[Sequence[float | None]], a: int, b: int) -> PairTest:
    """Paired t test over rounds of b's average rank minus a's (positive: a is ahead)."""
    diffs = [row[b] - row[a] for row in per_round if row[a] is not None and row[b] is not None]  # type: ignore[operator]
    n = len(diffs)
    tied = bool(diffs) and all(d == 0 for d in diffs)
    if n < 2:
        return PairTest(a, b, diffs[0] if diffs else 0.0, 0.0, 1.0, tied, n)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        t = 0.0 if mean == 0 else math.copysign(math.inf, mean)
    else:
        t = mean / math.sqrt(var / n)
    p = t_two_sided_p(t, n - 1) if t else 1.0
    return PairTest(a, b, mean, t, max(p, 2.0 ** (1 - n)), tied, n)


def decide(games: Sequence[GameLike], entrants: int, rounds: int, max_rounds: int, rule: StopRule) -> StopDecision:
    """Whether to stop after `rounds` whole rounds (the caller passes only rounds it knows complete)."""
    looks = max(1, max_rounds - rule.min_rounds + 1)
    level = (1 - rule.confidence) / looks
    if rounds < rule.min_rounds:
        return StopDecision(False, rounds, level, (), f"{rounds}/{rule.min_rounds} rounds before the stop test")
    per_round = round_average_ranks(games, entrants, rounds)
    played = [e for e in range(entrants) if any(row[e] is not None for row in per_round)]

    def mean_rank(e: int) -> float:
        vals = [row[e] for row in per_round if row[e] is not None]
        return sum(v for v in vals if v is not None) / len(vals)

    order = sorted(played, key=lambda e: (mean_rank(e), e))
    pairs = list(zip(order, order[1:]))
    if rule.top is not None:
        pairs = pairs[: rule.top]
    tests = tuple(pair_test(per_round, a, b) for a, b in pairs)
    stop = bool(tests) and all(t.settled(level) for t in tests) and rounds < max_rounds
    return StopDecision(stop, rounds, level, tests, "settled" if stop else "not settled")


def stopping_round(games: Sequence[GameLike], entrants: int, max_rounds: int, rule: StopRule) -> int:
    """The first whole round after which the rule stops (max_rounds if it never does): what a run would do."""
    for r in range(rule.min_rounds, max_rounds):
        if decide(games, entrants, r, max_rounds, rule).stop:
            return r
    return max_rounds


def complete_rounds(games: Sequence[GameLike], games_per_round: int) -> int:
    """How many rounds from round 0 on are fully stored (games of later rounds may be stored too)."""
    per_round: dict[int, int] = {}
    for g in games:
        per_round[g.round] = per_round.get(g.round, 0) + 1
    r = 0
    while per_round.get(r, 0) >= games_per_round:
        r += 1
    return r


def first_stop(
    games: Sequence[GameLike], entrants: int, games_per_round: int, max_rounds: int, rule: StopRule
) -> StopDecision | None:
    """The decision at the first whole round where the rule stops, among the rounds stored complete;
    None if it has not stopped yet. What a runner calls after each stored game (and on resume): games
    of rounds after the stopping round, finished by concurrent workers, change nothing."""
    for r in range(rule.min_rounds, min(complete_rounds(games, games_per_round), max_rounds - 1) + 1):
        decision = decide(games, entrants, r, max_rounds, rule)
        if decision.stop:
            return decision
    return None


class StopWatch:
    """The stop rule as a runner uses it: feed every stored game (in any order, resumed ones first);
    `stopped` becomes the decision at the first whole round where the rule stops, and stays.

    A runner then plays no game of round `stopped.rounds` or later, lets games in flight finish (they are
    stored but belong to no standings), records the round in the store, and shows `progress()`.
    """

    def __init__(self, rule: StopRule, entrants: int, games_per_round: int, max_rounds: int) -> None:
        self.rule = rule
        self.entrants = entrants
        self.games_per_round = games_per_round
        self.max_rounds = max_rounds
        self.games: list[GameLike] = []
        self._count: dict[int, int] = {}
        self._complete = 0
        self.last: StopDecision | None = None
        self.stopped: StopDecision | None = None

    def observe(self, game: GameLike) -> StopDecision | None:
        """Take one stored game; returns the stopping decision once the rule has stopped."""
        self.games.append(game)
        self._count[game.round] = self._count.get(game.round, 0) + 1
        while self.stopped is None and self._count.get(self._complete, 0) >= self.games_per_round:
            self._complete += 1
            if self.rule.min_rounds <= self._complete < self.max_rounds:
                self.last = decide(self.games, self.entrants, self._complete, self.max_rounds, self.rule)
                if self.last.stop:
                    self.stopped = self.last
        return self.stopped

    def progress(self) -> str:
        if self.last is None:
            return f"stop test after round {self.rule.min_rounds}"
        return self.last.progress()
