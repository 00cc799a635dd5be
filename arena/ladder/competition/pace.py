"""The server's game-rate budget: how many games may start now, and whether the ladder has settled.

A token bucket: tokens accrue at the rate in force (games an hour) up to `burst`; a deal of n games may
start while a token is left and takes n (the bucket may go below zero, so over any long span the games
started are the rate's, give or take one burst). The rate in force is `budget.games_per_hour` (0: no
limit), or, once the ladder is *settled*, `budget.settled_games_per_hour`: settled means the leaderboard's
top `settled_top` (its order by mu - 3 sigma) has not changed over the last `settled_after` ladder games.
The first game that changes it brings the full rate back. Pure apart from the injected clock.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

from arena.ladder.budget_config import Budget


class Pace:
    def __init__(self, budget: Budget, burst: int = 2, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget, self.burst, self.clock = budget, max(1, burst), clock
        self.tokens = float(self.burst)
        self.at = clock()
        self.top: tuple[int, ...] = ()
        self.unchanged = 0  # ladder games in a row that left the top order as it was
        self.started = 0  # games started since the server started (ladder and challenges)
        self.challenge_started = 0

    @property
    def settled(self) -> bool:
        return bool(self.budget.settled_after) and self.unchanged >= self.budget.settled_after

    def rate(self) -> int:
        """Games an hour in force now (0: no limit)."""
        full = self.budget.games_per_hour
        if self.settled:
            slow = self.budget.settled_games_per_hour
            return min(full, slow) if full else slow
        return full

    def _refill(self) -> None:
        now = self.clock()
        rate = self.rate()
        if rate:
            self.tokens = min(float(self.burst), self.tokens + (now - self.at) * rate / 3600.0)
        self.at = now

    def may_start(self) -> bool:
        """May a deal start now?"""
        if not self.rate():
            return True
        self._refill()
        return self.tokens >= 1.0

    def wait_s(self) -> float:
        """Seconds until a deal may start (0 now)."""
        rate = self.rate()
        if not rate or self.may_start():
            return 0.0
        return (1.0 - self.tokens) * 3600.0 / rate

    def started_games(self, n: int, challenge: bool = False) -> None:
        """A deal of `n` games started: its tokens taken."""
        self._refill()
        if self.rate():
            self.tokens -= n
        self.started += n
        if challenge:
            self.challenge_started += n

    def challenge_turn(self) -> bool:
        """May a challenge's deal go before the ladder's? While the ladder is unsettled, only while challenges
        have had under `challenge_share` of the games started; once settled, always."""
        return self.settled or self.challenge_started < self.budget.challenge_share * max(1, self.started)

    def ladder_game(self, top: Sequence[int]) -> None:
        """A ladder game was stored; `top` is the leaderboard's top bots after it, best first."""
        order = tuple(top[: self.budget.settled_top])
        self._refill()  # the time so far at the rate that was in force
        if order == self.top:
            self.unchanged += 1
        else:
            self.top, self.unchanged = order, 0

    def describe(self) -> str:
        rate = self.rate()
        state = (f"settled (top {self.budget.settled_top} unchanged over {self.unchanged} games)" if self.settled
                 else f"top order unchanged over {self.unchanged} games")
        limit = f"{rate} games an hour" if rate else "no game-rate limit"
        return f"{limit}; {state}"
