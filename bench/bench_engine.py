"""Engine speed: random in-process games per second, for each game and player count, on one core."""

from __future__ import annotations

import time

from arena.games import all_games
from arena.games.base import GameSpec
from arena.rng import Rng
from bench.stats import Figure, repeat


def play_random_games(spec: GameSpec, seats: int, games: int, first_seed: int = 0) -> int:
    """Play `games` random games; returns the number of decisions taken (views are not built)."""
    decisions = 0
    for seed in range(first_seed, first_seed + games):
        state = spec.new_game(seats, None, seed)
        rng = Rng(seed ^ 0xBEEF)
        while True:
            deciding = state.to_move()
            if not deciding:
                break
            actions = {}
            for seat in deciding:
                legal = state.legal_actions(seat)
                actions[seat] = legal[rng.below(len(legal))]
            decisions += len(deciding)
            state.apply(actions)
    return decisions


def games_per_second(spec: GameSpec, seats: int, seconds: float = 1.0) -> float:
    games, start = 0, time.perf_counter()
    while True:
        play_random_games(spec, seats, 10, first_seed=games)
        games += 10
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def run(repeats: int = 5, seconds: float = 1.0) -> list[Figure]:
    figures = []
    for spec in all_games():
        for seats in range(spec.min_seats, spec.max_seats + 1):
            figures.append(
                repeat(f"engine: {spec.name}, {seats} players", "random games/s", lambda: games_per_second(spec, seats, seconds), repeats)
            )
    return figures


if __name__ == "__main__":
    for figure in run(repeats=3, seconds=0.5):
        print(figure.row())
