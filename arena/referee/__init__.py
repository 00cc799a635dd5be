"""The referee: runs one game between bot processes (spawn, pipes, clocks, faults, commitments), writes
its replay (`arena.replay`), and re-simulates a replay to verify it (`verify.py`)."""

from arena.referee.bot import BotProcess, BotSpec
from arena.referee.referee import play_game

__all__ = ["BotProcess", "BotSpec", "play_game"]
