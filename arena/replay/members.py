"""Strict reading of one record's members, for `records`: each member read once, typed, bounded;
whatever was not read is an unknown member. Errors name the line and the member."""

from __future__ import annotations

import enum
import math
import re
from typing import Any

from arena.errors import ReplayError
from arena.replay.encoding import JSON

HEX32 = re.compile(r"[0-9a-f]{32}\Z")
HEX64 = re.compile(r"[0-9a-f]{64}\Z")


class ReplayRecordError(ReplayError):
    """A record that is not what the format allows; `line` and `member` say where."""

    def __init__(self, line: int, member: str, problem: str, where: str = "") -> None:
        self.line = line
        self.member = member
        self.problem = problem
        place = (f"{where}: " if where else "") + f"line {line}" + (f", {member!r}" if member else "")
        super().__init__(f"{place}: {problem}")


def short(value: object, limit: int = 80) -> str:
    """A bounded, printable rendering of a value for an error message."""
    from arena.textsafe import clean

    return clean(repr(value), limit)


class Members:
    """Reads the members of one record, each once; `done()` refuses whatever was not read."""

    def __init__(self, data: dict[str, JSON], line: int, label: str = "") -> None:
        self.data = data
        self.line = line
        self.label = label or f"{data.get('type')} record"
        self.seen: set[str] = {"type"}

    def fail(self, member: str, problem: str) -> ReplayRecordError:
        return ReplayRecordError(self.line, member, problem)

    def has(self, name: str) -> bool:
        return name in self.data

    def value(self, name: str) -> JSON:
        if name not in self.data:
            raise self.fail(name, "missing")
        self.seen.add(name)
        return self.data[name]

    def integer(self, name: str, minimum: int | None = 0, nullable: bool = False) -> int | None:
        value = self.value(name)
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(name, f"must be an integer{' or null' if nullable else ''}, got {short(value)}")
        if minimum is not None and value < minimum:
            raise self.fail(name, f"must be at least {minimum}, got {value}")
        return value

    def req(self, name: str, minimum: int | None = 0) -> int:
        value = self.integer(name, minimum)
        assert value is not None
        return value

    def num(self, name: str, nullable: bool = False) -> float | None:
        value = self.value(name)
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise self.fail(name, f"must be a number of at least 0{' or null' if nullable else ''}, got {short(value)}")
        return float(value)

    def text(self, name: str, pattern: re.Pattern[str] | None = None) -> str:
        value = self.value(name)
        if not isinstance(value, str):
            raise self.fail(name, f"must be a string, got {short(value)}")
        if pattern is not None and not pattern.match(value):
            raise self.fail(name, f"must be lowercase hexadecimal of the right length, got {short(value)}")
        return value

    def opt_text(self, name: str) -> str | None:
        return None if self.value(name) is None else self.text(name)

    def mapping(self, name: str) -> dict[str, JSON]:
        value = self.value(name)
        if not isinstance(value, dict):
            raise self.fail(name, f"must be an object, got {short(value)}")
        return value

    def array(self, name: str) -> list[JSON]:
        value = self.value(name)
        if not isinstance(value, list):
            raise self.fail(name, f"must be a list, got {short(value)}")
        return value

    def integers(self, name: str, minimum: int | None = None) -> tuple[int, ...]:
        values = self.array(name)
        if not all(isinstance(v, int) and not isinstance(v, bool) and (minimum is None or v >= minimum) for v in values):
            raise self.fail(name, f"must be a list of integers, got {short(values)}")
        return tuple(values)

    def texts(self, name: str) -> tuple[str, ...]:
        values = self.array(name)
        if not all(isinstance(v, str) for v in values):
            raise self.fail(name, f"must be a list of strings, got {short(values)}")
        return tuple(values)

    def choice(self, name: str, kind: type[enum.Enum], allowed: frozenset[Any] | None = None) -> Any:
        value = self.value(name)
        choices = [m for m in kind if allowed is None or m in allowed]
        for member in choices:
            if member.value == value:
                return member
        names = ", ".join(repr(m.value) for m in choices)
        raise self.fail(name, f"must be one of {names}, got {short(value)}")

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.seen)
        if unknown:
            raise self.fail(unknown[0], f"unknown member of a {self.label}")


def nested(data: JSON, line: int, member: str) -> Members:
    if not isinstance(data, dict):
        raise ReplayRecordError(line, member, f"must be an object, got {short(data)}")
    reader = Members(data, line, f"{member!r} object")
    reader.seen = set()
    return reader


