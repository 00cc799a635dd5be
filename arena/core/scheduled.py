"""One game of a schedule: its place, its seats and its deal seed. Made by `arena.tournament.schedule`,
kept by `arena.results` with the game's outcome; here, below both, so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass

from arena.rng import keyed_seed, opaque_game_id


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


def played_game_id(secret: str, game: str, scheduled: ScheduledGame) -> str:
    """The game id bots see: `<game>-<16 hex>`, keyed with the secret, so it names no round or table.
    It is keyed by the game's round, table and rotation, which name one game of a tournament; the two
    games `arena match` plays on one deal share them (and so the id: a filler that seeds itself from the
    game id plays both alike until NEW and OLD differ, which is what pairing them is for)."""
    return opaque_game_id(game, keyed_seed(secret, "game-id", scheduled.round, scheduled.table, scheduled.rotation))


def seat_entrants(names: list[str], seats: tuple[int, ...]) -> list[str]:
    """Who plays each seat, as the replay's header names them (a second copy of an entrant is `name#2`)."""
    copies: dict[int, int] = {}
    out = []
    for entrant in seats:
        copy = copies.get(entrant, 0)
        copies[entrant] = copy + 1
        out.append(names[entrant] if copy == 0 else f"{names[entrant]}#{copy + 1}")
    return out
