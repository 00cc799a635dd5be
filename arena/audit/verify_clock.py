"""`arena verify`'s clock check: every recorded `elapsed_ms` within the header's time control.

An answer played as the bot's took at most its allowance: `decision_ms`, and with a bank what the bank
held then (the bank re-computed from the recorded times, as the referee charged it); a time-out took
at least the allowance; no time is negative. In a branch the bank is not re-computed (the replayed
steps charged the clocks without recording times); `decision_ms` still bounds every answer.
"""

from __future__ import annotations

from typing import Callable

from arena.core.time_control import TimeControl
from arena.core.clock import SeatClock
from arena.core.faults import FaultKind
from arena.replay.reader import Replay
from arena.replay.records import Decision, Source

TOLERANCE_MS = 0.5  # recorded times are rounded to the microsecond; the bank adds those roundings up

Fail = Callable[[int, str], Exception]  # (line, problem) -> the mismatch to raise


def check_clock(replay: Replay, fail: Fail) -> None:
    """Raise `fail(line, problem)` at the first recorded time the header's time control rules out."""
    h = replay.header
    control = TimeControl(**h.time_control)  # verify_replay checked it is one
    exact = h.branch is None  # a branch's replayed steps charged the clocks unrecorded
    clocks = [SeatClock.new(control) for _ in h.seats]
    for record in replay.body:
        if not isinstance(record, Decision) or record.source is Source.RECORDED or record.elapsed_ms is None:
            continue
        clock = clocks[record.seat]
        allowance = clock.allowance_ms() if exact else float(control.decision_ms)
        problem = _problem(record, allowance, control)
        if problem is not None:
            raise fail(record.line, problem)
        clock.charge(record.elapsed_ms)


def _problem(d: Decision, allowance: float, control: TimeControl) -> str | None:
    elapsed = d.elapsed_ms
    assert elapsed is not None
    at = f"seat {d.seat}, step {d.step}"
    bank = "" if control.bank_ms is None else " (what its bank held)"
    if elapsed < 0:
        return f"{at}: 'elapsed_ms' {elapsed} is negative"
    if d.source is Source.BOT and elapsed > allowance + TOLERANCE_MS:
        return f"{at}: 'elapsed_ms' {elapsed}, but an answer played as the bot's came within its allowance of {allowance:.3f} ms{bank}"
    if d.fault is FaultKind.TIMEOUT and control.bank_ms is None and elapsed < control.decision_ms - TOLERANCE_MS:
        return f"{at}: a time-out after {elapsed} ms, before the allowance of {control.decision_ms} ms ran out"
    return None
