"""The competition's quotas, budgets, version choice and challenges, as the server holds them.

`Competition` is made by `arena.ladder.service.Server` beside the ladder: it is the ladder's `SideGames`
(the game-rate budget and the disk budget decide whether a deal starts; challenges get their turn), the
`upkeep` part's owner (compression and retention), and what the HTTP edge asks about uploads, versions
and challenges. Each refusal is a specific error whose message says what to do.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.errors import ServerError
from arena.ladder.competition.challenges import Challenge, Challenges
from arena.ladder.competition.pace import Pace
from arena.ladder.competition.quota import DiskMeter, check_uploads, within_day
from arena.ladder.competition.retention import Upkeep, disk_a_day
from arena.ladder.competition.versions import choice_open, choose_version
from arena.ladder.budget_config import Budget, Quotas
from arena.ladder.db import Database
from arena.ladder.results import Finished
from arena.ladder.states import BotState


class Competition:
    def __init__(self, db: Database, data: Path, players: int, quotas: Quotas, budget: Budget,
                 clock: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        """The server config's `data` folder, `players`, `quotas` and `budget` (`arena.ladder.config`)."""
        self.db, self.quotas, self.budget, self.clock = db, quotas, budget, clock
        self.meter = DiskMeter(data, budget.disk_budget_mb, monotonic)
        self.pace = Pace(budget, burst=max(2, players), clock=monotonic)
        self.challenges = Challenges(db, players, quotas.challenge_games)
        self.upkeep = Upkeep(db, budget, self.meter, clock)
        self.ladder_plays: Callable[[], bool] = lambda: True  # the competition's phase: set by the Server

    # --- the ladder's side (`arena.ladder.ladder.SideGames`) -------------------------------------------

    def next_games(self, field: Sequence[int]) -> list[tuple[int, tuple[int, ...], int]] | None:
        if self.meter.over() or not self.pace.may_start():
            return None
        if self.pace.challenge_turn() and self.challenges.waiting():
            games = self.challenges.reserve_next(field)
            if games:
                self.pace.started_games(len(games), challenge=True)
                return games
        return []

    def ladder_started(self, games: int) -> None:
        self.pace.started_games(games)

    def commit(self, done: Finished) -> bool:
        return self.challenges.commit(done)

    def ladder_stored(self) -> None:
        rows = self.db.all("SELECT id FROM bots WHERE status = ? ORDER BY mu - 3 * sigma DESC, id LIMIT ?", BotState.ACTIVE,
                           self.budget.settled_top)
        self.pace.ladder_game([int(r["id"]) for r in rows])

    # --- what the edge asks ------------------------------------------------------------------------------

    def check_upload(self, participant: int, size: int) -> None:
        """Before an upload is unpacked: QuotaExceeded over the day's uploads, DiskBudgetExceeded over the
        disk budget (the archive may unpack to `size` bytes)."""
        check_uploads(self.db, participant, self.quotas.uploads_per_day, self.clock())
        self.meter.check(size)

    def uploaded(self, size: int) -> None:
        self.meter.add(size)

    def choose(self, server: Any, participant: int, bot: int) -> str:
        """Make `bot` the participant's active version (ServerError when it cannot be chosen, or after the freeze)."""
        if not choice_open(server):
            raise ServerError("the competition is frozen: the version that plays can no longer be changed")
        return choose_version(self.db, participant, bot)

    def challenge(self, participant: int, opponent: int) -> Challenge:
        """A new challenge (QuotaExceeded over the day's challenges; ServerError when it cannot be played,
        e.g. once the ladder has stopped for the final: its games would never start)."""
        if not self.ladder_plays():
            raise ServerError("the ladder has stopped for the final: challenges are played only while the competition "
                              "is open or frozen; nothing asked")
        within_day(self.db, "SELECT created FROM challenges WHERE participant_id = ? AND created > ?", participant,
                   self.quotas.challenges_per_day, "challenges", self.clock())
        return self.challenges.create(participant, opponent)

    def disk_a_day(self) -> str:
        """How much disk a day this config will use (`arena serve` prints it at start)."""
        return disk_a_day(self.db, self.budget)

    def health(self) -> dict[str, Any]:
        """For the organiser's page: the disk budget, the game rate in force, the last upkeep sweep."""
        return {"disk_budget": self.meter.describe(), "game_rate": self.pace.describe(),
                "disk_a_day": self.disk_a_day(), "upkeep": self.upkeep.last or "not run yet"}
