"""`arena verify`'s check of a step's answers, by the rules of each decision's source (see
`arena.audit.verify`): the commitments (one per answering seat, before the reveal, never from a bot
that was out), and each decision: `bot` (its commitment opens, its action is legal, no fault says it
went unanswered), `fallback` (the game's fallback, and exactly the fault that explains it) and
`recorded` (only before a branch point, and legal). The walk over the replay (`verify._Walk`) holds
the step these checks read."""

from __future__ import annotations

from typing import Callable, TypeVar

from arena.core.faults import FaultKind
from arena.errors import IllegalAction
from arena.games.base import GameState
from arena.replay.encoding import JSON, canonical_bytes, check_commitment
from arena.replay.records import Commit, Decision, FaultRecord, Source, short

T = TypeVar("T")


class AnswerChecks:
    """The checks of one step's commitments and decisions, over the walk's state of that step."""

    state: GameState
    at_step: int
    deciding: tuple[int, ...]
    commits: dict[int, Commit]
    decisions: list[Decision]
    faults: list[FaultRecord]  # of this step
    fatal: dict[int, FaultRecord]  # seat -> the fault that took its bot out of the game
    last_id: dict[int, int]  # seat -> its last request id

    def fail(self, line: int, problem: str) -> Exception:
        """The mismatch to raise at `line` (the walk's)."""
        raise NotImplementedError

    def game(self, line: int, what: str, call: Callable[[], T]) -> T:
        """A call into the game on values from the file (the walk's)."""
        raise NotImplementedError

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
