"""The referee: runs one game between bot processes (spawn, pipes, clocks, faults, commitments) and writes
its replay (`arena.replay`). What happens to a game afterwards (verifying, signing, branching it) is
`arena.audit`; the time-control arithmetic is `arena.core.clock`."""

from arena.referee.session import BotProcess, BotSpec
from arena.referee.referee import play_game

__all__ = ["BotProcess", "BotSpec", "play_game"]
