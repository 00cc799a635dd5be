"""The replay's records, typed: each is parsed strictly from its JSON line and serialised back.

One module for the writer, the reader and `arena verify` (and `schema.json` beside it says the same for
other tools). Parsing refuses unknown members, missing members, wrong types and the combinations of
members that cannot happen (a bot answer without its salt, a fallback without the fault that caused
it); what it cannot know without re-playing the game (is this the game's fallback? does the salt open
the commitment?) is for `arena.audit.verify`. Errors are `ReplayRecordError`, naming line and member.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Union

from arena.core.faults import Fault, FaultKind, FaultPolicy
from arena.core.time_control import REPLAY_V2_KEYS, TimeControl
from arena.replay.encoding import JSON
from arena.textsafe import LINE_CHARS, clean, seat_label
from arena.replay.members import HEX32 as _HEX32, HEX64 as _HEX64, Members as _Members, ReplayRecordError, nested as _nested, short

__all__ = ["ReplayRecordError", "short"]

FORMAT = 3  # format 3 stores the whole time control (`TimeControl.to_json`) in the header
READABLE_FORMATS = (2, 3)  # format 2 (a time control without shutdown_ms and game_ms) is still read and verified




class Source(enum.Enum):
    BOT = "bot"  # the bot's answer, legal, played as given
    FALLBACK = "fallback"  # the game's fallback, because of the fault named in the record
    RECORDED = "recorded"  # copied from the original game, in the steps before a branch


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str  # as the bot introduced itself
    version: str
    entrant: str  # as the operator named it
    command: tuple[str, ...]
    cwd: str | None

    def to_json(self) -> dict[str, JSON]:
        return {"seat": self.seat, "name": self.name, "version": self.version, "entrant": self.entrant,
                "command": list(self.command), "cwd": self.cwd}

    @property
    def label(self) -> str:
        """The entrant with the bot's own name and version beside it, cleaned for a page or terminal."""
        return seat_label(self.entrant, self.name, self.version)

    @classmethod
    def parse(cls, data: JSON, line: int) -> "SeatInfo":
        m = _nested(data, line, "seats")
        out = cls(m.req("seat"), m.text("name"), m.text("version"), m.text("entrant"), m.texts("command"), m.opt_text("cwd"))
        m.done()
        return out


@dataclass(frozen=True)
class Branch:
    """This game continues another replay (`of`: its SHA-256) from its step `at_step`."""

    of: str
    at_step: int

    def to_json(self) -> dict[str, JSON]:
        return {"of": self.of, "at_step": self.at_step}


@dataclass(frozen=True)
class Header:
    protocol: int
    game: str
    game_version: str
    game_id: str
    options: dict[str, JSON]
    seed: int
    seats: tuple[SeatInfo, ...]
    time_control: dict[str, JSON]
    policy: FaultPolicy
    branch: Branch | None = None
    line: int = field(default=1, compare=False)
    format: int = FORMAT

    def control(self) -> TimeControl:
        """The recorded time control; a format-2 header lacks shutdown_ms and game_ms (their defaults
        then). Raises ArenaError when `time_control` is not exactly `TimeControl.to_json`'s form."""
        return TimeControl.from_json(self.time_control, None if self.format >= 3 else REPLAY_V2_KEYS)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "type": "header", "format": self.format, "protocol": self.protocol, "game": self.game,
            "game_version": self.game_version, "game_id": self.game_id, "options": self.options, "seed": self.seed,
            "seats": [s.to_json() for s in self.seats], "time_control": self.time_control, "policy": self.policy.value,
        }
        if self.branch is not None:
            out["branch"] = self.branch.to_json()
        return out

    @classmethod
    def parse(cls, m: _Members) -> "Header":
        fmt = m.value("format")
        if fmt not in READABLE_FORMATS or isinstance(fmt, bool):
            raise m.fail("format", f"replay format {short(fmt)}: this arena reads formats "
                                   f"{', '.join(map(str, READABLE_FORMATS))} (record the game again)")
        branch = None
        if m.has("branch"):
            b = _nested(m.value("branch"), m.line, "branch")
            branch = Branch(b.text("of", _HEX64), b.req("at_step"))
            b.done()
        seats = tuple(SeatInfo.parse(s, m.line) for s in m.array("seats"))
        return cls(m.req("protocol"), m.text("game"), m.text("game_version"), m.text("game_id"), m.mapping("options"),
                   m.req("seed", None), seats, m.mapping("time_control"), m.choice("policy", FaultPolicy), branch, m.line, int(fmt))


@dataclass(frozen=True)
class Commit:
    """Written the moment an answer arrives, before any other seat's answer of the step is known."""

    step: int
    seat: int
    request_id: int
    commitment: str
    line: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, JSON]:
        return {"type": "commit", "step": self.step, "seat": self.seat, "id": self.request_id, "commitment": self.commitment}

    @classmethod
    def parse(cls, m: _Members) -> "Commit":
        return cls(m.req("step"), m.req("seat"), m.req("id"), m.text("commitment", _HEX64), m.line)


@dataclass(frozen=True)
class Decision:
    """The action played by one seat at one step, and why; see protocol.md for the three shapes."""

    step: int
    seat: int
    source: Source
    played: JSON  # the action played
    request_id: int | None = None  # None: no request was sent (the bot was out), or a recorded step
    fault: FaultKind | None = None  # a fallback's cause
    answer: JSON = None  # the refused answer of an illegal_action fallback
    salt: str | None = None  # opens the commitment: every answer the bot gave has one
    elapsed_ms: float | None = None
    line: int = field(default=0, compare=False)

    @property
    def answered(self) -> bool:
        return self.salt is not None

    @property
    def answer_given(self) -> JSON:
        """What the bot answered (the action itself for a bot decision)."""
        return self.played if self.source is Source.BOT else self.answer

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "decision", "step": self.step, "seat": self.seat, "source": self.source.value,
                                "played": self.played}
        if self.source is Source.RECORDED:
            return out
        out["id"] = self.request_id
        out["elapsed_ms"] = self.elapsed_ms
        if self.source is Source.FALLBACK:
            out["fault"] = self.fault.value if self.fault is not None else None
            if self.fault is FaultKind.ILLEGAL_ACTION:
                out["answer"] = self.answer
        if self.salt is not None:
            out["salt"] = self.salt
        return out

    @classmethod
    def parse(cls, m: _Members) -> "Decision":
        step, seat = m.req("step"), m.req("seat")
        source: Source = m.choice("source", Source)
        action = m.value("played")
        if source is Source.RECORDED:
            return cls(step, seat, source, action, line=m.line)
        if source is Source.BOT:
            return cls(step, seat, source, action, m.req("id"), None, None, m.text("salt", _HEX32),
                       m.num("elapsed_ms"), m.line)
        fault: FaultKind = m.choice("fault", FaultKind, frozenset(k for k in FaultKind if k.causes_fallback))
        if fault is FaultKind.ILLEGAL_ACTION:  # the bot answered: its answer, committed, and refused
            return cls(step, seat, source, action, m.req("id"), fault, m.value("answer"), m.text("salt", _HEX32),
                       m.num("elapsed_ms"), m.line)
        if fault.unanswered:  # asked, and no usable answer in time
            return cls(step, seat, source, action, m.req("id"), fault, elapsed_ms=m.num("elapsed_ms"), line=m.line)
        # out of the game: maybe never asked this step
        return cls(step, seat, source, action, m.integer("id", nullable=True), fault,
                   elapsed_ms=m.num("elapsed_ms", nullable=True), line=m.line)


@dataclass(frozen=True)
class Events:
    step: int
    events: tuple[dict[str, JSON], ...]  # every event of the step; private ones carry "to"
    line: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, JSON]:
        return {"type": "events", "step": self.step, "events": list(self.events)}

    @classmethod
    def parse(cls, m: _Members) -> "Events":
        step = m.req("step")
        events = m.array("events")
        for event in events:
            if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
                raise m.fail("events", f"each event is an object with a string \"kind\", got {short(event)}")
        return cls(step, tuple(events), m.line)


@dataclass(frozen=True)
class FaultRecord:
    seat: int
    kind: FaultKind
    step: int  # -1: before the first step
    request_id: int | None
    detail: str
    stderr_tail: tuple[str, ...]
    line: int = field(default=0, compare=False)

    @classmethod
    def of(cls, fault: Fault) -> "FaultRecord":
        return cls(fault.seat, fault.kind, fault.step, fault.request_id, fault.detail, tuple(fault.stderr_tail))

    def to_fault(self) -> Fault:
        return Fault(self.seat, self.kind, self.step, self.request_id, self.detail, self.stderr_tail)

    def to_json(self, typed: bool = True) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": "fault"} if typed else {}
        out.update(seat=self.seat, kind=self.kind.value, step=self.step, request_id=self.request_id,
                   detail=self.detail, stderr_tail=list(self.stderr_tail))
        return out

    @classmethod
    def parse(cls, m: _Members) -> "FaultRecord":
        return cls(m.req("seat"), m.choice("kind", FaultKind), m.req("step", -1), m.integer("request_id", None, nullable=True),
                   m.text("detail"), m.texts("stderr_tail"), m.line)


@dataclass(frozen=True)
class Result:
    points: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    game_ranks: tuple[int, ...]
    ranks: tuple[int, ...]  # after the fault policy
    faults: tuple[FaultRecord, ...]  # every fault record of the game, in order
    decisions: int
    duration_s: float
    line: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, JSON]:
        return {"type": "result", "points": list(self.points), "tiebreaks": [list(t) for t in self.tiebreaks],
                "game_ranks": list(self.game_ranks), "ranks": list(self.ranks),
                "faults": [f.to_json(typed=False) for f in self.faults], "decisions": self.decisions,
                "duration_s": self.duration_s}

    @classmethod
    def parse(cls, m: _Members) -> "Result":
        tiebreaks = []
        for item in m.array("tiebreaks"):
            if not isinstance(item, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in item):
                raise m.fail("tiebreaks", f"must be a list of lists of integers, got {short(item)}")
            tiebreaks.append(tuple(item))
        faults = []
        for item in m.array("faults"):
            f = _nested(item, m.line, "faults")
            faults.append(FaultRecord.parse(f))
            f.done()
        duration = m.num("duration_s")
        assert duration is not None
        return cls(m.integers("points"), tuple(tiebreaks), m.integers("game_ranks", 1), m.integers("ranks", 1), tuple(faults),
                   m.req("decisions"), duration, m.line)


@dataclass(frozen=True)
class Log:
    """One seat's stderr lines of one step, written only when the operator asks (`--keep-logs`).

    Not part of the game: nothing is re-simulated from it, and a replay without log records is the same
    game. `dropped` counts the lines over the referee's bounds (per step and per game)."""

    step: int
    seat: int
    lines: tuple[str, ...]
    dropped: int = 0
    line: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, JSON]:
        return {"type": "log", "step": self.step, "seat": self.seat, "lines": list(self.lines), "dropped": self.dropped}

    @classmethod
    def parse(cls, m: _Members) -> "Log":
        lines = m.texts("lines")
        for text in lines:  # as the referee writes them: printable, one line, bounded (textsafe is idempotent)
            if clean(text, LINE_CHARS + 64) != text:
                raise m.fail("lines", f"{short(text)} is not clean text (a control character, an escape or over "
                                      f"{LINE_CHARS} characters)")
        return cls(m.req("step"), m.req("seat"), lines, m.req("dropped"), m.line)


Record = Union[Header, Commit, Decision, Events, FaultRecord, Result, Log]
_PARSERS: dict[str, Any] = {
    "header": Header.parse, "commit": Commit.parse, "decision": Decision.parse, "events": Events.parse,
    "fault": FaultRecord.parse, "result": Result.parse, "log": Log.parse,
}


def parse_record(data: JSON, line: int) -> Record:
    """One record from its decoded JSON; ReplayRecordError for anything the format does not allow."""
    if not isinstance(data, dict):
        raise ReplayRecordError(line, "", f"a replay record is a JSON object, got {short(data)}")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ReplayRecordError(line, "type", f"must be one of {', '.join(map(repr, _PARSERS))}, got {short(kind)}")
    members = _Members(data, line)
    record: Record = parser(members)
    members.done()
    return record
