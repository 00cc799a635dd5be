"""The recorded steps of a branch: the original game's actions, played again before the branch point.

A branch (`arena replay REPLAY --from-step K`) is a new game with the original's seed and options
whose steps before K are the original's: every bot still gets its request and events, its answer is
read (so its state follows the game) and ignored, and the step plays the recorded actions. From step
K on, the game is live. `play_game(script=...)` takes a `Script`; the replay it writes names the
original by its SHA-256 (`branch` in the header) and marks the steps before K as `recorded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from arena.jsonvalue import JSON
from arena.replay import Branch, Decision, Replay


@dataclass(frozen=True)
class Script:
    of: str  # the SHA-256 of the original replay
    at_step: int  # the first live step
    actions: Mapping[tuple[int, int], JSON]  # (step, seat) -> the action played then, for every step before at_step

    @property
    def branch(self) -> Branch:
        return Branch(self.of, self.at_step)

    def scripted(self, step: int) -> bool:
        return 0 <= step < self.at_step

    @classmethod
    def from_replay(cls, replay: Replay, at_step: int) -> "Script":
        """The actions of `replay`'s steps before `at_step` (the replay is trusted: verify it first)."""
        actions = {(d.step, d.seat): d.played for d in replay.body if isinstance(d, Decision) and d.step < at_step}
        return cls(replay.sha256, at_step, actions)
