"""The closed set of things a bot can do wrong, and what the referee does about them.

A closed enum (not free text) so that results, replays, standings and tests can count and compare
faults; the free-text `detail` is for the human reading the log.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from arena.jsonvalue import JSON
from arena.textsafe import DETAIL_CHARS, LINE_CHARS, clean

_MARK = 40  # room for the cut marker of a line already cleaned to LINE_CHARS (cleaning is then a no-op)
STDERR_TAIL_LINES = 20  # at most this many stderr lines are kept with a fault, each at most LINE_CHARS


class FaultKind(enum.Enum):
    TIMEOUT = "timeout"  # no answer within the decision's allowance
    CRASH = "crash"  # the process exited or closed its stdout mid-game
    MALFORMED_JSON = "malformed_json"  # a line that is not JSON, or not an answer object
    INVALID_UTF8 = "invalid_utf8"  # a line that is not UTF-8
    LINE_TOO_LONG = "line_too_long"  # a line over Limits.max_line_bytes (the rest of it is discarded)
    FLOOD = "flood"  # too many unasked stdout lines or too many stderr bytes in one game
    ILLEGAL_ACTION = "illegal_action"  # the game refused the action (`GameState.check`)
    UNEXPECTED_ANSWER = "unexpected_answer"  # an answer sent early, twice, or to an id never asked
    NO_EXIT = "no_exit"  # still running after the shutdown grace period
    ORPHANS = "orphans"  # the bot exited but left processes in its process group
    START_FAILED = "start_failed"  # the bot could not be (re)started for a game
    LIMIT = "limit"  # a sandbox limit (memory, processes, disk, cpu) ended the bot; detail names which
    GAME_TIME = "game_time"  # the game reached its wall-clock limit (TimeControl.game_ms) with this seat in it

    @property
    def fatal(self) -> bool:
        """Fatal faults end the seat's part in the game: fallback actions from then on. The bot is
        also killed for crash, flood, start_failed and limit; after `game_time` it is simply asked nothing more."""
        return self in (FaultKind.CRASH, FaultKind.FLOOD, FaultKind.START_FAILED, FaultKind.LIMIT, FaultKind.GAME_TIME)


class FaultPolicy(enum.Enum):
    """What a fault does to the ranking. The game itself always goes on with fallback actions."""

    FORFEIT = "forfeit"  # every seat with a fault is ranked last, sharing last place
    CONTINUE = "continue"  # seats keep the rank the rules gave them


@dataclass(frozen=True)
class Fault:
    seat: int  # -1 when the bot held no seat (a fault found while closing it between games)
    kind: FaultKind
    step: int  # the game step (0-based), -1 outside any step (start, end, close)
    request_id: int | None
    detail: str
    stderr_tail: tuple[str, ...] = ()

    @classmethod
    def bounded(
        cls, seat: int, kind: FaultKind, step: int, request_id: int | None, detail: str, stderr_tail: tuple[str, ...] = ()
    ) -> "Fault":
        """A fault whose bot-controlled text is made safe: the detail cleaned and cut to DETAIL_CHARS,
        at most STDERR_TAIL_LINES stderr lines, each cleaned and cut to LINE_CHARS."""
        tail = tuple(clean(line, LINE_CHARS + _MARK) for line in stderr_tail[-STDERR_TAIL_LINES:])
        return cls(seat, kind, step, request_id, clean(detail, DETAIL_CHARS), tail)

    def to_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "kind": self.kind.value,
            "step": self.step,
            "request_id": self.request_id,
            "detail": self.detail,
            "stderr_tail": list(self.stderr_tail),
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> "Fault":
        return cls(
            seat=int(data["seat"]),
            kind=FaultKind(data["kind"]),
            step=int(data["step"]),
            request_id=data.get("request_id"),
            detail=str(data.get("detail", "")),
            stderr_tail=tuple(data.get("stderr_tail", ())),
        )
