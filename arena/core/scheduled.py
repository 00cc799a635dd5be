"""One game of a schedule: its place, its seats and its deal seed. Made by `arena.tournament.schedule`,
kept by `arena.results` with the game's outcome; here, below both, so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule. `seats[s]` is the index of the entrant playing seat s."""

    index: int
    round: int
    table: int
    rotation: int
    seats: tuple[int, ...]
    seed: int

    @property
    def game_id(self) -> str:
        return f"r{self.round}-t{self.table}-s{self.rotation}"
