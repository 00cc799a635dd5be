"""What `arena verify` checks beyond the game's rules: the clock, and a branch against its original.

- `check_clock`: every recorded `elapsed_ms` within the time control of the header. An answer played as
  the bot's took at most its allowance: `decision_ms`, and with a bank what the bank held then (the
  bank re-computed from the recorded times, as the referee charged it); a time-out took at least the
  allowance; no time is negative. (In a branch the bank is not re-computed: the replayed steps charged
  the clocks without recording times; `decision_ms` still bounds every answer.)
- `check_branch`: a branch given with its original: the original verifies and is the file the branch
  names (SHA-256); the branch keeps its game, version, options, seed, game id, seat count, time
  control and policy; and every step before the branch point plays the original's actions.

Each problem is a `ReplayMismatch` naming the branch's (or replay's) line.
"""

from __future__ import annotations

from arena.jsonvalue import JSON
from arena.referee.clock import SeatClock, TimeControl
from arena.referee.faults import FaultKind
from arena.referee.replay.encoding import canonical_bytes
from arena.referee.replay.reader import Replay
from arena.referee.replay.records import Decision, Source, short
from arena.referee.verify import ReplayMismatch, verify_replay

TOLERANCE_MS = 0.5  # recorded times are rounded to the microsecond; the bank adds those roundings up


def check_clock(replay: Replay) -> None:
    """Raise ReplayMismatch at the first recorded time the header's time control rules out."""
    h = replay.header
    control = TimeControl(**h.time_control)  # verify_replay checked it is one
    exact = h.branch is None  # a branch's replayed steps charged the clocks unrecorded
    clocks = [SeatClock.new(control) for _ in h.seats]
    for record in replay.body:
        if not isinstance(record, Decision) or record.source is Source.RECORDED or record.elapsed_ms is None:
            continue
        clock = clocks[record.seat]
        allowance = clock.allowance_ms() if exact else float(control.decision_ms)
        _check_time(replay, record, allowance, control)
        clock.charge(record.elapsed_ms)


def _check_time(replay: Replay, d: Decision, allowance: float, control: TimeControl) -> None:
    elapsed = d.elapsed_ms
    assert elapsed is not None
    at = f"seat {d.seat}, step {d.step}"
    bank = "" if control.bank_ms is None else " (what its bank held)"
    if elapsed < 0:
        raise ReplayMismatch(replay.source, d.line, f"{at}: 'elapsed_ms' {elapsed} is negative")
    if d.source is Source.BOT and elapsed > allowance + TOLERANCE_MS:
        raise ReplayMismatch(replay.source, d.line, f"{at}: 'elapsed_ms' {elapsed}, but an answer played as the bot's "
                                                    f"came within its allowance of {allowance:.3f} ms{bank}")
    if d.fault is FaultKind.TIMEOUT and control.bank_ms is None and elapsed < control.decision_ms - TOLERANCE_MS:
        raise ReplayMismatch(replay.source, d.line, f"{at}: a time-out after {elapsed} ms, before the allowance of "
                                                    f"{control.decision_ms} ms ran out")


def check_branch(branch: Replay, original: Replay) -> None:
    """Raise ReplayMismatch (or the original's own ReplayError) unless `branch` continues `original`."""
    b = branch.header
    if b.branch is None:
        raise ReplayMismatch(branch.source, b.line, "not a branch (no 'branch' in its header), yet an original was given")
    verify_replay(original)
    if original.sha256 != b.branch.of:
        raise ReplayMismatch(branch.source, b.line, f"'branch': a branch of {b.branch.of}, but {original.source} has "
                                                    f"SHA-256 {original.sha256}")
    o = original.header
    same: dict[str, tuple[JSON, JSON]] = {
        "game": (b.game, o.game), "game_version": (b.game_version, o.game_version), "options": (b.options, o.options),
        "seed": (b.seed, o.seed), "game_id": (b.game_id, o.game_id), "seats": (len(b.seats), len(o.seats)),
        "time_control": (b.time_control, o.time_control), "policy": (b.policy.value, o.policy.value),
    }
    for member, (mine, theirs) in same.items():
        if canonical_bytes(mine) != canonical_bytes(theirs):
            raise ReplayMismatch(branch.source, b.line, f"'{member}': {short(mine)} in the branch, {short(theirs)} in "
                                                        "its original: a branch keeps the original's")
    played = {(d.step, d.seat): d.played for d in original.body if isinstance(d, Decision)}
    for d in branch.body:
        if isinstance(d, Decision) and d.step < b.branch.at_step:
            if (d.step, d.seat) not in played or canonical_bytes(played[(d.step, d.seat)]) != canonical_bytes(d.played):
                theirs = short(played.get((d.step, d.seat)))
                raise ReplayMismatch(branch.source, d.line, f"seat {d.seat}, step {d.step}: the recorded action "
                                                            f"{short(d.played)} is not the original's ({theirs})")
