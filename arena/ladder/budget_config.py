"""The server config's `quotas:` (per participant) and `budget:` (per server) sections, typed.

```yaml
quotas:
  uploads_per_day: 20        # uploads one participant may send in any 24 h (with submissions_per_minute)
  challenges_per_day: 5      # challenges one participant may ask for in any 24 h
  challenge_games: 40        # the most games one challenge plays (deals of two games; fewer when its test decides)
budget:
  games_per_hour: 0          # ladder games started in any hour (0: as fast as the workers go)
  settled_after: 0           # idle when settled: the top `settled_top` unchanged over this many ladder games (0: off)
  settled_top: 5
  settled_games_per_hour: 60 # the ladder's rate once settled (back to full as soon as the order changes)
  challenge_share: 0.1       # at most this share of the games started are challenges while the ladder wants them all
  keep_days: 0               # every game's replay kept this many days (0: all, forever) ...
  keep_sample: 0.1           # ... and this share of the older ones (every 1/share-th game)
  keep_per_bot: 0            # ... and each bot's last N games (0: none beyond the above)
  compress: true             # replays gzip-compressed at rest once their game is stored
  refused_keep_days: 7       # a refused submission's report is kept this long (its files go at its verdict)
  disk_budget_mb: 0          # the data folder's most: over it, uploads and new games are refused (0: no budget)
```
Pure: no I/O, nothing of the server; the config reader checks each value (`checks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Quotas:
    uploads_per_day: int = 50  # uploads one participant may send in any 24 h (with submissions_per_minute)
    challenges_per_day: int = 5  # challenges one participant may ask for in any 24 h
    challenge_games: int = 40  # the most games one challenge plays (deals of two games; fewer when its test decides)

    def __post_init__(self) -> None:
        if self.challenge_games < 2 or self.challenge_games % 2:
            raise ValueError(f"challenge_games must be an even number >= 2 (a deal is two games), got {self.challenge_games}")


@dataclass(frozen=True)
class Budget:
    games_per_hour: int = 0  # ladder games started in any hour (0: as fast as the workers go)
    settled_after: int = 0  # idle when settled: the top `settled_top` unchanged over this many ladder games (0: off)
    settled_top: int = 5  # how many places at the top must keep their order for the ladder to count as settled
    settled_games_per_hour: int = 60  # the ladder's rate once settled (back to full as soon as the order changes)
    challenge_share: float = 0.1  # at most this share of the games started are challenges while the ladder wants them all
    keep_days: float = 0.0  # every game's replay kept this many days (0: all, forever) ...
    keep_sample: float = 0.1  # ... and this share of the older ones (every 1/share-th game)
    keep_per_bot: int = 0  # ... and each bot's last N games (0: none beyond the above)
    compress: bool = True  # replays gzip-compressed at rest once their game is stored
    refused_keep_days: float = 7.0  # a refused submission's report is kept this long (its files go at its verdict)
    disk_budget_mb: int = 0  # the data folder's most: over it, uploads and new games are refused (0: no budget)

    def __post_init__(self) -> None:
        if not 0.0 < self.challenge_share <= 1.0:
            raise ValueError(f"challenge_share must be in (0, 1], got {self.challenge_share}")
        if not 0.0 <= self.keep_sample <= 1.0:
            raise ValueError(f"keep_sample must be in [0, 1], got {self.keep_sample}")
        if self.keep_days < 0 or self.refused_keep_days < 0:
            raise ValueError("keep_days and refused_keep_days must be >= 0")
        if self.settled_after and self.settled_games_per_hour < 1:
            raise ValueError("settled_games_per_hour must be >= 1 when settled_after is set")


Check = Callable[[Any, str], Any]


def quota_checks(integer: Callable[[Any, str, int], int]) -> dict[str, Check]:
    """Each `quotas:` key's check, from the config reader's `integer(value, where, minimum)`."""
    return {"uploads_per_day": lambda v, w: integer(v, w, 1), "challenges_per_day": lambda v, w: integer(v, w, 0),
            "challenge_games": lambda v, w: integer(v, w, 2)}


def budget_checks(integer: Callable[[Any, str, int], int], real: Check, boolean: Check) -> dict[str, Check]:
    """Each `budget:` key's check."""
    whole = ("games_per_hour", "settled_after", "keep_per_bot", "disk_budget_mb")
    return {**{k: (lambda v, w: integer(v, w, 0)) for k in whole},
            "settled_top": lambda v, w: integer(v, w, 1), "settled_games_per_hour": lambda v, w: integer(v, w, 1),
            **{k: real for k in ("challenge_share", "keep_days", "keep_sample", "refused_keep_days")}, "compress": boolean}
