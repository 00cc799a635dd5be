"""The competition's phases: open -> frozen -> final -> closed, in that order only.

- open: uploads and the ladder.
- frozen (from the deadline): no uploads; the ladder goes on so participants keep watching.
- final: the ladder stops; the final runs, only in this phase (`arena.ladder.competition.final`, another
  module: it asks `Phases.require(Phase.FINAL, ...)` before it plays).
- closed: results published; the server serves every page read-only.

The current phase is the last row of `phase_changes` (none: open); a change is one row (from, to, who,
when) inserted in one transaction after checking, in that transaction, that the phase it starts from is
still the current one, so a SIGKILL leaves the phase as before or as after and two organisers clicking
at once make one change. Times in the config (`phases:`, `arena.ladder.config.PhaseSchedule`) move the phase
forward by themselves, decided against the injected clock whenever the phase is asked for (no timer
thread: the ladder and every request ask), each such change recorded with who = "schedule".
"""

from __future__ import annotations

import enum
import threading
import time
from dataclasses import dataclass
from typing import Callable

from arena.errors import PhaseError, UploadsClosed
from arena.ladder.config import PhaseSchedule
from arena.ladder.db import Database


class Phase(str, enum.Enum):
    OPEN = "open"
    FROZEN = "frozen"
    FINAL = "final"
    CLOSED = "closed"

    @property
    def uploads(self) -> bool:
        return self is Phase.OPEN

    @property
    def ladder(self) -> bool:
        """The ladder plays in this phase (the final and after: it stops)."""
        return self in (Phase.OPEN, Phase.FROZEN)

    @property
    def read_only(self) -> bool:
        return self is Phase.CLOSED


ORDER = (Phase.OPEN, Phase.FROZEN, Phase.FINAL, Phase.CLOSED)
SCHEDULE_WHO = "schedule"

# its table, `phase_changes`, is in arena.ladder.db's schema (from_phase, to_phase, who, at).


@dataclass(frozen=True)
class Change:
    before: Phase
    after: Phase
    who: str
    at: float


@dataclass(frozen=True)
class PhaseState:
    phase: Phase
    since: float | None  # when it began (None: open since the start)
    history: tuple[Change, ...]

    @property
    def uploads_closed(self) -> float | None:
        """When the competition left `open` (uploads have been closed since), None while open."""
        return next((c.at for c in self.history if c.before is Phase.OPEN), None)


def parse_phase(text: str) -> Phase:
    try:
        return Phase(text.strip().lower())
    except ValueError:
        raise PhaseError(f"unknown phase {text[:40]!r}: the phases are {', '.join(p.value for p in ORDER)}") from None


class Phases:
    """The competition's phase in the server's store, moved by the organiser or the config's times."""

    def __init__(self, db: Database, schedule: PhaseSchedule, clock: Callable[[], float] = time.time) -> None:
        self.db, self.schedule, self.clock = db, schedule, clock
        self._listeners: list[Callable[[Change], None]] = []
        self._lock = threading.Lock()

    # --- the hook: what another part (the final, the ladder) hears -------------------------------------

    def on_enter(self, phase: Phase, listener: Callable[[Change], None]) -> None:
        """Call `listener(change)` after each change into `phase` this process commits (by hand or by the
        schedule); a change made by another process (the CLI) is seen by `current()`, not here."""
        self._listeners.append(lambda change: listener(change) if change.after is phase else None)

    # --- reading ----------------------------------------------------------------------------------------

    def stored(self) -> PhaseState:
        """The phase as stored, without applying the schedule."""
        rows = self.db.all("SELECT from_phase, to_phase, who, at FROM phase_changes ORDER BY id")
        history = tuple(Change(Phase(r["from_phase"]), Phase(r["to_phase"]), str(r["who"]), float(r["at"])) for r in rows)
        if not history:
            return PhaseState(Phase.OPEN, None, ())
        return PhaseState(history[-1].after, history[-1].at, history)

    def current(self) -> PhaseState:
        """The phase now: the stored one, moved forward first by every config time that has passed."""
        state = self.stored()
        due = self._due(state.phase)
        while due is not None:
            try:  # recorded at the config's time, not when first asked: "frozen since the deadline"
                self._change(state.phase, due[0], SCHEDULE_WHO, due[1])
            except PhaseError:
                pass  # another process (or thread) made this change meanwhile
            state = self.stored()
            due = self._due(state.phase)
        return state

    @property
    def phase(self) -> Phase:
        return self.current().phase

    def _due(self, phase: Phase) -> tuple[Phase, float] | None:
        """The next phase and its time when the config's time for it has passed."""
        when = {Phase.OPEN: self.schedule.deadline, Phase.FROZEN: self.schedule.final,
                Phase.FINAL: self.schedule.closed}.get(phase)
        if when is None or self.clock() < when.timestamp():
            return None
        return ORDER[ORDER.index(phase) + 1], when.timestamp()

    # --- changing ---------------------------------------------------------------------------------------

    def advance(self, to: Phase | str, who: str) -> Change:
        """The organiser moves the competition to `to`, the phase right after the current one; PhaseError
        (nothing changed) for any other."""
        target = to if isinstance(to, Phase) else parse_phase(to)
        state = self.current()
        return self._change(state.phase, target, who)

    def _change(self, before: Phase, after: Phase, who: str, at: float | None = None) -> Change:
        expected = ORDER[ORDER.index(before) + 1] if before is not Phase.CLOSED else None
        if after is before:
            raise PhaseError(f"the competition is already {after.value}: nothing changed")
        if after is not expected:
            if expected is None:
                raise PhaseError(f"the competition is closed, its last phase: it cannot become {after.value}")
            raise PhaseError(f"the competition is {before.value}: it can only become {expected.value} next, "
                             f"not {after.value} (the phases go {' -> '.join(p.value for p in ORDER)}); "
                             f"move it to {expected.value} first")
        at = float(self.clock()) if at is None else at
        with self._lock, self.db.write() as conn:
            row = conn.execute("SELECT to_phase FROM phase_changes ORDER BY id DESC LIMIT 1").fetchone()
            stored = Phase(row["to_phase"]) if row is not None else Phase.OPEN
            if stored is not before:  # another process (or the schedule) moved it meanwhile: check again
                raise PhaseError(f"the competition became {stored.value} meanwhile: nothing changed; look again "
                                 "(`arena serve CONFIG phase show`)")
            conn.execute("INSERT INTO phase_changes(from_phase, to_phase, who, at) VALUES(?, ?, ?, ?)",
                         (before.value, after.value, who[:80], at))
        change = Change(before, after, who[:80], at)
        for listener in self._listeners:
            listener(change)
        return change

    # --- what each phase allows -------------------------------------------------------------------------

    def require(self, phase: Phase, what: str) -> PhaseState:
        """The phase now, when it is `phase`; else PhaseError saying how to get there (`what` runs only in it:
        e.g. the final, which runs in the final phase)."""
        state = self.current()
        if state.phase is not phase:
            raise PhaseError(f"{what} runs in the {phase.value} phase, and the competition is {state.phase.value}: "
                             f"move it there first (`arena serve CONFIG phase {phase.value}`, one step at a time)")
        return state

    def check_upload(self) -> None:
        """UploadsClosed unless the competition is open."""
        state = self.current()
        if state.phase.uploads:
            return
        since = self.schedule.show(state.uploads_closed)
        raise UploadsClosed(f"uploads closed since {since}: the competition is {state.phase.value} "
                            "(past its deadline: your last accepted bot is the one that plays)", since)

    def banner(self) -> tuple[PhaseState, str]:
        """(the phase, one line for every page: the phase and the deadline in the competition's zone)."""
        state = self.current()
        deadline = self.schedule.deadline
        parts = [f"phase: {state.phase.value}"]
        if state.phase is Phase.OPEN:
            parts.append(f"deadline {self.schedule.show(deadline)}" if deadline else "no deadline set")
        else:
            parts.append(f"uploads closed since {self.schedule.show(state.uploads_closed)}")
        return state, "; ".join(parts)
