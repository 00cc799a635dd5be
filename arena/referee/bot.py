"""A bot as a child process: the public names, gathered from the modules that implement them.

- `arena.referee.process`: the one `spawn(argv, cwd, env, limits)` that starts a bot, process-group
  kill and reap;
- `arena.referee.pipe`: non-blocking framed stdout lines with a byte budget, the stderr tail, stdin;
- `arena.referee.session`: the protocol session (handshake, request ids, explicit states, close);
- `arena.core.limits`: `Limits`, the only definition of the resource limits and their defaults.
"""

from __future__ import annotations

from arena.referee.pipe import ERR, IN, OUT, LineReader, StderrTail
from arena.referee.process import describe_exit, group_alive, live_group_members, spawn
from arena.referee.session import BotProcess, BotSpec, Classification, SessionState

__all__ = [
    "ERR",
    "IN",
    "OUT",
    "BotProcess",
    "BotSpec",
    "Classification",
    "LineReader",
    "SessionState",
    "StderrTail",
    "describe_exit",
    "group_alive",
    "live_group_members",
    "spawn",
]
