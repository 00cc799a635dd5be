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
recorded time must fit the header's clock (`verify_clock.py`).
`resimulate` yields each step (state, views sent, decisions, events) as it is checked; `verify_replay`
runs it to the end. The first disagreement is a `ReplayMismatch` naming its line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, TypeVar

from arena.errors import ArenaError, IllegalAction, ReplayError
from arena.games.base import GameSpec, GameState
from arena.games.registry import get_game
from arena.protocol import PROTOCOL_VERSION
from arena.core.faults import FaultKind
from arena.referee.referee import apply_policy
from arena.replay.encoding import JSON, canonical_bytes, check_commitment
from arena.replay.reader import Replay, load_replay
from arena.replay.records import Commit, Decision, Events, FaultRecord, Source, short
from arena.referee.verify_clock import check_clock
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


class _Walk:
    def __init__(self, replay: Replay, detail: bool) -> None:
        self.replay = replay
        self.detail = detail
        self.header = replay.header
        branch = self.header.branch
        self.at_step = branch.at_step if branch is not None else 0
        self.spec, self.state = self._start()
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

    # --- the header -------------------------------------------------------------------------------

    def _start(self) -> tuple[GameSpec, GameState]:
        h = self.header
        at = h.line
        if h.protocol != PROTOCOL_VERSION:
            raise self.fail(at, f"'protocol': {h.protocol}, this arena speaks protocol {PROTOCOL_VERSION}")
        try:
            spec = get_game(h.game)
            spec.check_seats(len(h.seats))
        except ArenaError as exc:
            raise self.fail(at, str(exc)) from None
        if h.game_version != spec.version:
            raise self.fail(at, f"recorded with {spec.name} version {short(h.game_version)}, this arena has version "
                                f"{spec.version!r}: the game cannot be re-simulated")
        for index, seat in enumerate(h.seats):
            if seat.seat != index:
                raise self.fail(at, f"'seats': entry {index} is for seat {seat.seat}: seats are listed in seat order")
        try:
            resolved = spec.resolve_options(h.options)
        except ArenaError as exc:
            raise self.fail(at, f"'options': {exc}") from None
        if canonical_bytes(resolved) != canonical_bytes(h.options):
            raise self.fail(at, f"'options': {short(h.options)} must list every option of {spec.name} with its value: "
                                f"{short(resolved)}")
        try:
            h.control()
        except ArenaError as exc:
            raise self.fail(at, f"'time_control' is not a time control of replay format {h.format}: {exc}") from None
        state = self.game(at, f"the seed {h.seed}", lambda: spec.new_game(len(h.seats), resolved, h.seed))
        return spec, state

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

    def _commit(self, c: Commit) -> None:
        if c.seat not in self.deciding:
            raise self.fail(c.line, f"a commitment of seat {c.seat}, which does not decide at step {c.step} "
                                    f"(deciding: {list(self.deciding)})")
        if c.seat in self.commits:
            raise self.fail(c.line, f"a second commitment of seat {c.seat} at step {c.step}")
        if self.decisions or any(f.kind is FaultKind.ILLEGAL_ACTION for f in self.faults):
            raise self.fail(c.line, "a commitment written after the step's answers were judged (its decisions or "
                                    "an illegal_action fault)")
        if c.step < self.at_step:
            raise self.fail(c.line, f"a commitment at step {c.step}, which was recorded from the original game")
        out = self.fatal.get(c.seat)
        if out is not None and out.step < c.step:
            raise self.fail(c.line, f"a commitment of seat {c.seat}, whose bot was out of the game since step {out.step} "
                                    f"({out.kind.value}, line {out.line})")
        self.commits[c.seat] = c

    def _illegal(self, seat: int, action: JSON, line: int) -> str | None:
        """Why the game refuses `action` of `seat` now, or None when it is legal."""
        try:
            self.game(line, f"the action {short(action)}", lambda: self.state.check(seat, action))
        except IllegalAction as exc:
            return exc.reason
        return None

    def _decision(self, d: Decision) -> None:
        if len(self.decisions) >= len(self.deciding):
            raise self.fail(d.line, f"a decision of seat {d.seat}, but every deciding seat of step {d.step} has one")
        expected = self.deciding[len(self.decisions)]
        if d.seat != expected:
            raise self.fail(d.line, f"a decision of seat {d.seat} where seat {expected}'s was expected "
                                    f"(decisions come in seat order, one per deciding seat: {list(self.deciding)})")
        self.decisions.append(d)
        at = f"seat {d.seat}, step {d.step}"
        if d.step < self.at_step:
            if d.source is not Source.RECORDED:
                raise self.fail(d.line, f"'source': {d.source.value} at step {d.step}, before the branch point "
                                        f"(step {self.at_step}): decisions there are 'recorded'")
            reason = self._illegal(d.seat, d.played, d.line)
            if reason is not None:
                raise self.fail(d.line, f"{at}: the recorded action {short(d.played)} is illegal: {reason}")
            return
        if d.source is Source.RECORDED:
            raise self.fail(d.line, "'source': 'recorded' is only for the steps of a branch before its branch point")
        if d.request_id is not None:
            previous = self.last_id.get(d.seat)
            if previous is not None and d.request_id <= previous:
                raise self.fail(d.line, f"'id': request {d.request_id} of seat {d.seat} after its request {previous}")
            self.last_id[d.seat] = d.request_id
        commit = self.commits.get(d.seat)
        if commit is not None:
            if d.salt is None:  # so a fallback for want of an answer, and the reader requires its fault
                assert d.fault is not None
                raise self.fail(d.line, f"{at}: the bot answered (commitment on line {commit.line}), but the decision "
                                        f"says {d.fault.value}")
            if commit.request_id != d.request_id:
                raise self.fail(d.line, f"'id': request {d.request_id}, but the commitment (line {commit.line}) is for "
                                        f"request {commit.request_id}")
            if not check_commitment(commit.commitment, d.salt, d.step, d.seat, d.answer_given):
                raise self.fail(d.line, f"{at}: the answer {short(d.answer_given)} with this salt does not open the "
                                        f"commitment on line {commit.line}")
        elif d.salt is not None:
            raise self.fail(d.line, f"{at}: an answer without its commitment (every answer is committed when it arrives)")
        out = self.fatal.get(d.seat)
        if d.source is Source.BOT:
            self._check_bot(d, at, out, commit)
        else:
            self._check_fallback(d, at, out, commit)

    def _check_bot(self, d: Decision, at: str, out: FaultRecord | None, commit: Commit | None) -> None:
        assert commit is not None  # a bot decision has a salt, so it has its commitment
        if out is not None and (out.step < d.step or out.line < commit.line):
            raise self.fail(d.line, f"{at}: played as the bot's answer, but its bot was out of the game before it "
                                    f"answered ({out.kind.value}, line {out.line})")
        for f in self.faults:
            if f.seat == d.seat and f.request_id == d.request_id and (f.kind.unanswered or f.kind is FaultKind.ILLEGAL_ACTION):
                raise self.fail(d.line, f"{at}: played as the bot's answer, but a {f.kind.value} fault (line {f.line}) "
                                        f"says request {d.request_id} got no usable answer")
        reason = self._illegal(d.seat, d.played, d.line)
        if reason is not None:
            raise self.fail(d.line, f"{at}: the bot's answer {short(d.played)} is illegal ({reason}), yet it was played")

    def _check_fallback(self, d: Decision, at: str, out: FaultRecord | None, commit: Commit | None) -> None:
        fallback = self.game(d.line, "fallback()", lambda: self.state.fallback(d.seat))
        if canonical_bytes(d.played) != canonical_bytes(fallback):
            raise self.fail(d.line, f"{at}: played {short(d.played)}, but the game's fallback is {short(fallback)}")
        if out is not None and out.step < d.step and d.request_id is not None:
            raise self.fail(d.line, f"'id': request {d.request_id}, but seat {d.seat}'s bot was out of the game since "
                                    f"step {out.step} (line {out.line}): it was sent nothing")
        cause: FaultRecord | None
        if commit is not None:
            reason = self._illegal(d.seat, d.answer, d.line)
            if reason is None:
                raise self.fail(d.line, f"{at}: the answer {short(d.answer)} is legal, yet the fallback was played")
            cause = self._one(d, lambda kind: kind is FaultKind.ILLEGAL_ACTION)
        elif out is not None:
            cause = out
        else:
            cause = self._one(d, lambda kind: kind.unanswered)
        if cause is None:
            raise self.fail(d.line, f"{at}: a fallback, but no fault of seat {d.seat} for request {d.request_id} explains it")
        assert d.fault is not None  # the reader requires a fallback's fault
        if d.fault is not cause.kind:
            raise self.fail(d.line, f"'fault': {d.fault.value}, but the fault that explains this "
                                    f"fallback is {cause.kind.value} (line {cause.line})")

    def _one(self, d: Decision, kinds: Callable[[FaultKind], bool]) -> FaultRecord | None:
        found = [f for f in self.faults if f.seat == d.seat and f.step == d.step and f.request_id == d.request_id
                 and kinds(f.kind)]
        if len(found) > 1:
            raise self.fail(found[1].line, f"a second fault for request {d.request_id} of seat {d.seat} (first: line "
                                           f"{found[0].line}): a request gets one answer")
        return found[0] if found else None

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
