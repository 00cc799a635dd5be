"""The referee: bot processes, clocks, faults, commitments, games, replays and their verification."""

from arena.referee.bot import BotProcess, BotSpec, Limits
from arena.referee.clock import TimeControl
from arena.referee.faults import Fault, FaultKind, FaultPolicy
from arena.referee.referee import GameResult, play_game

__all__ = ["BotProcess", "BotSpec", "Fault", "FaultKind", "FaultPolicy", "GameResult", "Limits", "TimeControl", "play_game"]
