"""Collecting one step's decisions: judging each bot line, deadlines, commitments and faults.

Every line is judged by its arrival time (stamped by the transport when it was read) against its
seat's `Deadline`, which starts when the request was written. So a seat's time never depends on what
the other bots send, or on how long the referee takes to judge their lines.

What a line can be (protocol.md, "answer"): the answer to the pending request if it arrived in time;
late (an answer to a request that timed out: ignored); a bad line (not UTF-8, not JSON, over the byte
budget, or an answer outside the protocol's bounds), which stands for the pending request's answer if
one is pending and is otherwise a fault of its own; or an unexpected answer (a second one, one to an id
never asked, or one read before its request was written), which is ignored and recorded.

In a branch's recorded steps (`scripted`, see `arena.referee.script`) answers are read and settled as
usual but count for nothing: they are not committed, and the faults about them are dropped. A fault
that concerns the bot itself (it crashed, flooded, left orphans) is held and recorded at the branch
point, the first step where the bot's answers count.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

from arena.jsonvalue import JSON, loads
from arena.protocol import ProtocolViolation, parse_answer
from arena.core.clock import Clock, Deadline, SeatClock
from arena.core.faults import Fault, FaultKind
from arena.replay import ReplayWriter
from arena.referee.request_ids import Classification
from arena.referee.stderr_log import StderrLog, StepLog
from arena.referee.transport import Arrival, ArrivalKind, BotHandle, Transport



class SeatInPlay:
    """The referee's side of one seat during one game."""

    __slots__ = (
        "index", "bot", "clock", "events", "out", "waiting", "rid", "deadline", "game_cut",
        "answered", "action", "elapsed_ms", "salt", "log",
    )

    def __init__(self, index: int, bot: BotHandle, clock: SeatClock, log: StderrLog | None = None) -> None:
        self.index = index
        self.log = log  # the bot's stderr lines by step, when the game keeps them
        self.bot = bot
        self.clock = clock
        self.events: list[JSON] = []  # events for this seat not yet sent
        self.out = False  # the bot is dead: fallbacks for the rest of the game
        self.waiting = False  # its request was written and is not settled yet
        self.rid: int | None = None
        self.deadline = Deadline(0.0, 0.0)
        self.game_cut = False  # the game's wall-clock limit cut this decision's allowance
        self.answered = False
        self.action: JSON = None
        self.elapsed_ms: float | None = None
        self.salt: str | None = None

    def reset(self) -> None:
        self.answered = False
        self.action = None
        self.elapsed_ms = None
        self.salt = None
        self.rid = None
        self.game_cut = False


LogSink = Callable[[StepLog], None]


class Judge:
    """The input side of one game: reads through the transport, settles requests, records faults, and
    writes to the replay what each step's bots did (their answers, commitments and stderr lines)."""

    def __init__(self, seats: list[SeatInPlay], transport: Transport, clock: Clock, replay: ReplayWriter | None) -> None:
        self.seats = seats
        self.by_bot = {id(seat.bot): seat for seat in seats}
        self.transport = transport
        self.clock = clock
        self.replay = replay
        self.faults: list[Fault] = []
        self.step = -1
        self.secret = False  # several seats decide this step: answers are committed as they arrive
        self.scripted = False  # a branch's recorded step: answers are read, and ignored
        self.held: list[Fault] = []  # faults of the recorded steps, for the branch point

    # --- the game's steps, as the referee plays them -----------------------------------------------

    def begin_step(self, step: int, scripted: bool) -> None:
        """Step `step` begins; `scripted`: a branch's recorded step, whose answers are read and ignored."""
        self.step = step
        self.scripted = scripted

    def asking(self, deciding: tuple[int, ...]) -> None:
        """These seats decide now: several at once means secret answers, committed as they arrive."""
        self.secret = len(deciding) > 1

    def end_game(self) -> None:
        """No step any more: what arrives now belongs to no step."""
        self.scripted = False
        self.step = -1

    # --- recording --------------------------------------------------------------------------------

    def record_decisions(self, deciding: Sequence[int], played: Mapping[int, JSON], from_bot: set[int]) -> None:
        """The step's decisions to the replay: each seat's answer (or none), its salt and time, and what
        was played; in a branch's recorded steps, only what was played."""
        replay = self.replay
        if replay is None:
            return
        for s in deciding:
            seat = self.seats[s]
            if self.scripted:
                replay.recorded(self.step, s, played[s])
                continue
            replay.decision(step=self.step, seat=s, request_id=seat.rid, answered=seat.answered, answer=seat.action,
                            salt=seat.salt, played=played[s], from_bot=s in from_bot, elapsed_ms=seat.elapsed_ms)

    def record_logs(self, keep: bool, on_log: LogSink | None) -> None:
        """Each seat's stderr lines of this step (read since the last barrier), to the replay (`keep`) and the sink."""
        for seat in self.seats:
            log = seat.log.take(self.step) if seat.log is not None else None
            if log is None:
                continue
            if keep and self.replay is not None:
                self.replay.log(log.step, log.seat, log.lines, log.dropped)
            if on_log is not None:
                on_log(log)

    # --- reading ----------------------------------------------------------------------------------

    def poll(self) -> None:
        """Judge what has arrived, without waiting."""
        for arrival in self.transport.wait(0.0).arrivals:
            self.dispatch(arrival)

    def collect(self, asked: list[SeatInPlay]) -> None:
        """Wait for every asked seat's answer or deadline; each bot only against its own deadline."""
        clock = self.clock
        while True:
            waiting = [seat for seat in asked if seat.waiting]
            if not waiting:
                return
            first = min(seat.deadline.at for seat in waiting)
            batch = self.transport.wait(first - clock())
            for arrival in batch.arrivals:
                self.dispatch(arrival)
            # Every pipe without an arrival was empty when the wait returned (`checked_at`, read before
            # anything was judged), so a seat still waiting whose deadline had come by then is late.
            checked = batch.checked_at
            for seat in waiting:
                if seat.waiting and not seat.out and checked >= seat.deadline.at:
                    self.timeout(seat, checked)

    def dispatch(self, arrival: Arrival) -> None:
        seat = self.by_bot[id(arrival.bot)]
        if seat.out:
            return
        bot = seat.bot
        kind = arrival.kind
        if kind is ArrivalKind.LINE:
            self.judge(seat, arrival.line, arrival.at)
        elif kind is ArrivalKind.EOF:
            self.crash(seat, "it closed its stdout")
        elif kind is ArrivalKind.STDERR:
            if seat.log is not None and arrival.line:
                seat.log.feed(arrival.line)
            if bot.game_stderr_bytes > bot.limits.max_stderr_bytes_per_game:
                self.flood(seat, f"more than {bot.limits.max_stderr_bytes_per_game} bytes on stderr in one game")
        elif kind is ArrivalKind.BROKEN:
            self.crash(seat, "its stdin is closed")

    def judge(self, seat: SeatInPlay, line: bytes | None, at: float) -> None:
        """One stdout line: the answer to the pending request, or a fault of its own kind."""
        bot = seat.bot
        if line is None:
            self.bad_line(seat, FaultKind.LINE_TOO_LONG, f"a line over {bot.limits.max_line_bytes} bytes (the rest was discarded)", at)
            return
        try:
            message = loads(line)
        except ValueError:
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.bad_line(seat, FaultKind.INVALID_UTF8, f"a line that is not UTF-8 ({exc.reason} at byte {exc.start})", at)
                return
            self.bad_line(seat, FaultKind.MALFORMED_JSON, f"a line that is not JSON: {line[:100]!r}", at)
            return
        try:
            answer = parse_answer(message)
        except ProtocolViolation as exc:
            self.bad_line(seat, FaultKind.MALFORMED_JSON, str(exc), at)
            return
        rid = answer.request_id
        kind = bot.classify(rid)
        if kind is Classification.ANSWER and not seat.waiting:
            # Pending but not yet written: the line was read before its request was sent.
            self.fault(seat, FaultKind.UNEXPECTED_ANSWER, rid, f"an answer to request {rid}, read before that request was sent: ignored")
            self.unasked(seat)
        elif kind is Classification.ANSWER:
            if seat.deadline.met_by(at):
                self.answer(seat, answer.action, at)
            else:
                self.timeout(seat, at)  # read after the deadline: late, and ignored
        elif kind is Classification.LATE:
            pass  # the answer to a request that already timed out: the timeout was the fault
        else:
            if kind is Classification.DUPLICATE:
                detail = f"a second answer to request {rid}: answers are final, it was ignored"
            else:
                detail = f"an answer to request {rid}, which was not asked (early or made up): ignored"
            self.fault(seat, FaultKind.UNEXPECTED_ANSWER, rid, detail)
            self.unasked(seat)

    # --- settling a request -----------------------------------------------------------------------

    def _settle(self, seat: SeatInPlay, at: float) -> float:
        seat.waiting = False
        seat.bot.settle()
        seat.elapsed_ms = elapsed = seat.deadline.elapsed_ms(at)
        seat.clock.charge(elapsed)
        return elapsed

    def answer(self, seat: SeatInPlay, action: JSON, at: float) -> None:
        elapsed = self._settle(seat, at)
        seat.answered = True
        seat.action = action
        if self.replay is not None and seat.rid is not None and not self.scripted:
            # Committed the moment it arrives, before the barrier: the replay proves the order.
            seat.salt = self.replay.commit(self.step, seat.index, seat.rid, action, flush=self.secret)

    def bad_line(self, seat: SeatInPlay, kind: FaultKind, detail: str, at: float) -> None:
        """An unreadable line is the answer to the pending request, if any (answers are final)."""
        if seat.waiting:
            self._settle(seat, at)
            self.fault(seat, kind, seat.rid, detail)
        else:
            self.fault(seat, kind, None, detail)
            self.unasked(seat)

    def unasked(self, seat: SeatInPlay) -> None:
        bot = seat.bot
        bot.game_unasked_lines += 1
        if bot.game_unasked_lines > bot.limits.max_unasked_lines_per_game:
            self.flood(seat, f"more than {bot.limits.max_unasked_lines_per_game} stdout lines that answer nothing in one game")

    def timeout(self, seat: SeatInPlay, at: float) -> None:
        if seat.bot.exited():  # exited, with its stdout held open by a child
            self.crash(seat, "no answer")
            return
        seat.waiting = False
        seat.bot.expire_pending()
        seat.elapsed_ms = elapsed = seat.deadline.elapsed_ms(at)
        seat.clock.charge(elapsed)
        if seat.game_cut:  # cut by the game's wall-clock limit: the game_time fault says it all
            return
        self.fault(seat, FaultKind.TIMEOUT, seat.rid, f"no answer within {seat.deadline.allowance_ms:.0f} ms")

    # --- faults -----------------------------------------------------------------------------------

    def fault(self, seat: SeatInPlay, kind: FaultKind, rid: int | None, detail: str) -> None:
        fault = Fault.bounded(seat.index, kind, self.step, rid, detail, seat.bot.stderr_tail())
        if self.scripted:
            if not kind.about_answer:  # answers are ignored in a branch's recorded steps, so are faults about them
                self.held.append(fault)
            return
        self.record(fault)

    def record(self, fault: Fault) -> None:
        self.faults.append(fault)
        if self.replay is not None:
            self.replay.fault(fault)

    def release(self) -> None:
        """At a branch point: record the faults held during the recorded steps, as of this step."""
        for fault in self.held:
            detail = f"at step {fault.step}, a recorded step of the branch: {fault.detail}"
            self.record(dataclasses.replace(Fault.bounded(fault.seat, fault.kind, self.step, None, detail),
                                            stderr_tail=fault.stderr_tail))
        self.held = []

    def remove(self, seat: SeatInPlay) -> tuple[int | None, bool]:
        """Take a seat's bot out of the game for good: kill its group; fallbacks from now on."""
        rid = seat.rid if seat.waiting else None
        seat.waiting = False
        seat.out = True
        seat.events = []
        self.transport.unwatch(seat.bot)
        orphans = seat.bot.kill()
        return rid, orphans

    def crash(self, seat: SeatInPlay, why: str) -> None:
        rid, orphans = self.remove(seat)
        limit = seat.bot.limit_detail  # a sandbox limit ended it: say which
        kind, detail = (FaultKind.LIMIT, f"{limit}; {seat.bot.exit_detail}") if limit else (FaultKind.CRASH, seat.bot.exit_detail)
        self.fault(seat, kind, rid, f"{detail} ({why})")
        if orphans:
            self.fault(seat, FaultKind.ORPHANS, None, "it exited and left processes running in its group (killed)")

    def flood(self, seat: SeatInPlay, why: str) -> None:
        rid, _ = self.remove(seat)
        self.fault(seat, FaultKind.FLOOD, rid, f"{why}; the bot was stopped")
