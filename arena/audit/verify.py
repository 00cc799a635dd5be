"""Re-simulate a replay from its header and decisions, and check every record against the game.

Trust nothing in the file. Each decision is checked by the rules of its source, and the record's own
members never choose which checks run: whether a seat answered is the commitment record's presence
(every answer is committed the moment it arrives), whether its bot was out is the fault records', and
the game says what is legal and what the fallback is.

- `bot`: its commitment opens with the salt; the action is legal; the bot was not out of the game and
  no fault says this request went unanswered.
- `fallback`: the action is the game's fallback, and `fault` names exactly the fault that explains it:
  `illegal_action` when the bot answered (its answer opens the commitment and the game refuses it),
  else the fault that took the bot out of the game, else the one fault recorded for that request.
- `recorded`: only in the steps of a branch before `branch.at_step`; the action is legal.

Then each step's events must be the game's, steps must follow one another, every fault must be in
its step, the result must be the game's outcome under the recorded faults and fault policy, and every
recorded time must fit the header's clock. The header's checks are in `verify_header.py`, the
answers' (commitments and decisions, by source) in `verify_answers.py`, the clock's in `verify_clock.py`.
`resimulate` yields each step (state, views sent, decisions, events) as it is checked; `verify_replay`
runs it to the end. The first disagreement is a `ReplayMismatch` naming its line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, TypeVar

from arena.errors import IllegalAction, ReplayError
from arena.games.base import GameState
from arena.core.faults import FaultKind
from arena.core.result import apply_policy
from arena.audit.verify_answers import AnswerChecks
from arena.audit.verify_clock import check_clock
from arena.audit.verify_header import check_header
from arena.replay.encoding import JSON, canonical_bytes
from arena.replay.reader import Replay, load_replay
from arena.replay.records import Commit, Decision, Events, FaultRecord, Source, short
from arena.textsafe import clean

T = TypeVar("T")
_GAME_ERRORS = (ArithmeticError, AttributeError, KeyError, IndexError, LookupError, TypeError, ValueError, RecursionError)


class ReplayMismatch(ReplayError):
    """A replay that reads well but does not agree with the game; `line` names the first such record."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        self.line = line
        super().__init__(f"{source}: line {line}: {problem}")


@dataclass(frozen=True)
class SimStep:
    """One step as re-simulated. `state` is a copy of the state before the step (with `detail`),
    so `state.view(k)` draws any seat's perspective; `views` holds what each deciding seat was (or,
    for a seat whose bot was out, would have been) sent, and `asked` the seats actually sent a request."""

    step: int
    deciding: tuple[int, ...]
    asked: tuple[int, ...]
    state: GameState | None
    views: Mapping[int, JSON]
    legal: Mapping[int, list[JSON]]
    commits: tuple[Commit, ...]
    faults: tuple[FaultRecord, ...]  # recorded during this step (the first step also holds those before it)
    decisions: tuple[Decision, ...]
    events: tuple[dict[str, JSON], ...]


@dataclass(frozen=True)
class VerifyReport:
    game: str
    seed: int
    steps: int
    decisions: int
    commitments: int
    faults: int
    points: tuple[int, ...]
    ranks: tuple[int, ...]
    sha256: str = ""
    branch_of: str | None = None


def verify_replay(replay: Replay | str | os.PathLike[str]) -> VerifyReport:
    """Check a replay (or the replay at a path) to its end; raises ReplayError at the first problem."""
    if not isinstance(replay, Replay):
        replay = load_replay(replay)
    steps = decisions = commitments = 0
    for step in resimulate(replay, detail=False):
        steps += 1
        decisions += len(step.decisions)
        commitments += len(step.commits)
    check_clock(replay, lambda line, problem: ReplayMismatch(replay.source, line, problem))
    header, result = replay.header, replay.result
    return VerifyReport(header.game, header.seed, steps, decisions, commitments, len(result.faults), result.points,
                        result.ranks, replay.sha256, header.branch.of if header.branch else None)


def resimulate(replay: Replay, *, detail: bool = True) -> Iterator[SimStep]:
    """Each step of the game, checked as it is re-played (ReplayMismatch at the first disagreement).
    `detail=False` skips the state copies and views (what a viewer needs, not what checking needs)."""
    return _Walk(replay, detail).run()


class _Walk(AnswerChecks):
    def __init__(self, replay: Replay, detail: bool) -> None:
        self.replay = replay
        self.detail = detail
        self.header = replay.header
        branch = self.header.branch
        self.at_step = branch.at_step if branch is not None else 0
        self.spec, options = check_header(self.header, self.fail)
        h = self.header
        self.state = self.game(h.line, f"the seed {h.seed}", lambda: self.spec.new_game(len(h.seats), options, h.seed))
        self.n = len(self.header.seats)
        self.step = 0
        self.all_faults: list[FaultRecord] = []
        self.fatal: dict[int, FaultRecord] = {}
        self.last_id: dict[int, int] = {}
        self.decision_count = 0
        self._new_step(self.header.line)

    def fail(self, line: int, problem: str) -> ReplayMismatch:
        return ReplayMismatch(self.replay.source, line, problem)

    def game(self, line: int, what: str, call: Callable[[], T]) -> T:
        """A call into the game on values from the file: a game that chokes on them is a mismatch."""
        try:
            return call()
        except _GAME_ERRORS as exc:
            raise self.fail(line, f"the game fails on {what}: {type(exc).__name__}: {clean(str(exc), 200)}") from None

    # --- the body ---------------------------------------------------------------------------------

    def _new_step(self, line: int) -> None:
        """The next step, from the state the record on `line` (the header, or the last events) left."""
        state = self.state
        self.deciding = self.game(line, "to_move()", state.to_move)
        self.commits: dict[int, Commit] = {}
        self.decisions: list[Decision] = []
        self.faults: list[FaultRecord] = []  # step 0's also gathers the faults recorded before the game
        # Views are drawn from the copy, which nothing changes later: a view may share lists with its state.
        self.before = before = state.clone() if self.detail else None
        self.views = {s: before.view(s) for s in self.deciding} if before is not None else {}
        self.legal = {s: before.legal_actions(s) for s in self.deciding} if before is not None else {}

    def run(self) -> Iterator[SimStep]:
        for record in self.replay.body:
            kind = type(record).__name__.lower().replace("faultrecord", "fault")
            if not self.deciding:
                raise self.fail(record.line, f"a {kind} record after the game ended (at step {self.step})")
            if isinstance(record, FaultRecord):
                self._fault(record)
                continue
            if record.step != self.step:
                raise self.fail(record.line, f"a {kind} record for step {record.step} where step {self.step} was expected")
            if isinstance(record, Commit):
                self._commit(record)
            elif isinstance(record, Decision):
                self._decision(record)
            else:
                yield self._events(record)
        end = self.replay.result.line
        if self.commits or self.decisions or (self.faults and self.step):
            raise self.fail(end, f"step {self.step} has records but no events record (the replay is cut short)")
        if self.deciding:
            raise self.fail(end, f"the game is not over: seats {list(self.deciding)} decide at step {self.step} "
                                 "(the replay is cut short)")
        if self.at_step > self.step:
            raise self.fail(self.header.line, f"'branch': at_step {self.at_step} is beyond the game's {self.step} steps")
        self._result()
        self._logs()

    def _fault(self, f: FaultRecord) -> None:
        if f.seat >= self.n:
            raise self.fail(f.line, f"a fault of seat {f.seat}, in a game of {self.n} seats")
        if f.step == -1:
            if self.step or self.commits or self.decisions or any(g.step >= 0 for g in self.faults):
                raise self.fail(f.line, "a fault of step -1 (before the game) after the game began")
        elif f.step != self.step:
            raise self.fail(f.line, f"a fault of step {f.step} recorded during step {self.step}")
        elif f.step < self.at_step:
            raise self.fail(f.line, f"a fault at step {f.step}, which was recorded from the original game (no bot took part)")
        if self.decisions:
            raise self.fail(f.line, "a fault written among the step's decisions (faults come before the reveal)")
        if f.kind.fatal:
            if f.seat in self.fatal:
                raise self.fail(f.line, f"a second fault that takes seat {f.seat}'s bot out of the game (first: line "
                                        f"{self.fatal[f.seat].line})")
            self.fatal[f.seat] = f
        self.faults.append(f)
        self.all_faults.append(f)

    def _events(self, e: Events) -> SimStep:
        if len(self.decisions) < len(self.deciding):
            missing = self.deciding[len(self.decisions)]
            raise self.fail(e.line, f"no decision of seat {missing} at step {e.step}")
        by_seat = {d.seat: d for d in self.decisions}
        for f in self.faults:
            if f.step == self.step and f.request_id is not None and (f.kind.unanswered or f.kind is FaultKind.ILLEGAL_ACTION):
                d = by_seat.get(f.seat)
                if d is None or d.request_id != f.request_id or d.source is not Source.FALLBACK:
                    raise self.fail(f.line, f"a {f.kind.value} fault of seat {f.seat} for request {f.request_id}, but "
                                            "that request's decision is not a fallback")
        played = {d.seat: d.played for d in self.decisions}
        try:
            events = self.game(e.line, "apply()", lambda: self.state.apply(played))
        except IllegalAction as exc:
            raise self.fail(e.line, f"the game refuses the step's actions: {short(exc, 200)}") from None
        game_events = [event.to_json() for event in events]
        if canonical_bytes(game_events) != canonical_bytes(list(e.events)):
            raise self.fail(e.line, f"the recorded events differ from the game's: recorded {short(list(e.events), 200)}, "
                                    f"game {short(game_events, 200)}")
        asked = tuple(d.seat for d in self.decisions if d.request_id is not None)
        step = SimStep(self.step, self.deciding, asked, self.before, self.views, self.legal,
                       tuple(self.commits.values()), tuple(self.faults), tuple(self.decisions), tuple(e.events))
        self.decision_count += len(self.decisions)
        self.step += 1
        self._new_step(e.line)
        return step

    def _result(self) -> None:
        r = self.replay.result
        outcome = self.game(r.line, "outcome()", self.state.outcome)
        faulty = {f.seat for f in self.all_faults}
        expected: dict[str, Any] = {
            "points": tuple(outcome.points),
            "tiebreaks": tuple(tuple(t) for t in outcome.tiebreaks),
            "game_ranks": tuple(outcome.ranks),
            "ranks": apply_policy(outcome.ranks, faulty, self.header.policy),
            "faults": tuple(self.all_faults),
            "decisions": self.decision_count,
        }
        for member, value in expected.items():
            recorded = getattr(r, member)
            if recorded != value:
                show: Callable[[Any], object] = _show_faults if member == "faults" else _show
                raise self.fail(r.line, f"'{member}': the result says {short(show(recorded), 200)}, the game and the "
                                        f"recorded faults give {short(show(value), 200)}")


    def _logs(self) -> None:
        """Log records (stderr lines, `--keep-logs`) are not part of the game: one per seat and step at most."""
        seen: set[tuple[int, int]] = set()
        for log in self.replay.logs:
            if log.seat >= self.n or log.step >= self.step or (log.step, log.seat) in seen:
                raise self.fail(log.line, f"a log record for seat {log.seat} at step {log.step}: the game has {self.n} "
                                          f"seats and {self.step} steps, and one log record per seat and step")
            seen.add((log.step, log.seat))


def _show(value: object) -> object:
    """Tuples as lists, so a message quotes values the way the replay writes them."""
    return [_show(v) for v in value] if isinstance(value, tuple) else value


def _show_faults(faults: tuple[FaultRecord, ...]) -> object:
    """A result's faults (a tuple of FaultRecord either side) as what, whose and when."""
    return [f"{f.kind.value} of seat {f.seat} at step {f.step}" for f in faults]
