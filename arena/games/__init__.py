"""Games: the contract (`base`), the registry, and one package per game."""

from arena.games.base import Event, GameSpec, GameState, Mode, Option, Outcome, Seat
from arena.games.registry import all_games, get_game, register

__all__ = ["Event", "GameSpec", "GameState", "Mode", "Option", "Outcome", "Seat", "all_games", "get_game", "register"]
