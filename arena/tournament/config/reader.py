"""Typed access to a YAML mapping that reports errors as `file: key.path: what was expected`."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, Sequence, TypeVar

from arena.errors import ArenaError, ConfigError

E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")


class Reader:
    """Typed access to a YAML mapping that reports errors as `file: key.path: what was expected`.

    Every mistake is reported at once: `fail` ends the reading of one part, `attempt` reads a part and
    notes its mistake instead of stopping, and `done` raises one ConfigError listing every mistake noted.
    """

    def __init__(self, file: Path, label: str | None = None) -> None:
        self.file = file
        self.label = str(file) if label is None else label  # what starts each line ("": nothing, a command's arguments)
        self.errors: list[str] = []

    def message(self, where: str, message: str) -> str:
        return ": ".join(part for part in (self.label, where, message) if part)

    def fail(self, where: str, message: str) -> NoReturn:
        raise ConfigError(self.message(where, message))

    def note(self, where: str, message: str) -> None:
        """A mistake that need not stop the reading of its part."""
        self.errors.append(self.message(where, message))

    def attempt(self, read: Callable[[], T], fallback: T) -> T:
        """`read()`, or `fallback` with its mistake noted: the parts after it are still read and checked."""
        try:
            return read()
        except ConfigError as exc:
            self.errors.append(str(exc))
            return fallback

    def done(self) -> None:
        """Raise one ConfigError naming every mistake noted (the first line says how many there are)."""
        if len(self.errors) == 1:
            raise ConfigError(self.errors[0])
        if self.errors:
            where = f" in {self.label}" if self.label else ""
            raise ConfigError(f"{len(self.errors)} mistakes{where}:\n" + "\n".join(self.errors))

    def mapping(self, value: Any, where: str, allowed: set[str], required: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"expected a mapping of keys to values, got {kind(value)}")
        for key in value:
            if not isinstance(key, str):
                self.fail(where, f"keys must be strings, got {key!r}")
            if key not in allowed:
                self.note(join(where, key), f"unknown key (expected one of: {', '.join(sorted(allowed))})")
        missing = [key for key in sorted(required) if key not in value]
        for key in missing[1:]:
            self.note(join(where, key), "missing (required)")
        if missing:
            self.fail(join(where, missing[0]), "missing (required)")
        return value

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"expected a non-empty string, got {kind(value)}")
        return value

    def integer(self, value: Any, where: str, minimum: int | None = None, allow_null: bool = False) -> Any:
        if value is None and allow_null:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            null = " or null" if allow_null else ""
            self.fail(where, f"expected a whole number{null}, got {kind(value)}")
        if minimum is not None and value < minimum:
            self.fail(where, f"expected a number >= {minimum}, got {value}")
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            self.fail(where, f"expected true or false, got {kind(value)}")
        return value

    def choice(self, value: Any, where: str, enum_type: type[E], allowed: Sequence[E] | None = None) -> E:
        """One of the enum's members (or of `allowed`, those a config may name), by value."""
        members = list(enum_type) if allowed is None else list(allowed)
        names = [m.value for m in members]
        for member in members:
            if member.value == value:
                return member
        self.fail(where, f"expected one of {', '.join(names)}, got {value!r}")

    def listing(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, f"expected a list, got {kind(value)}")
        return value

    def section(self, value: Any, where: str, cls: type, checks: Mapping[str, Callable[[Any, str], Any]]) -> Any:
        if value is None:
            return cls()
        data = self.mapping(value, where, set(checks))
        given = {key: checks[key](v, join(where, key)) for key, v in data.items() if key in checks}
        try:
            return cls(**given)  # what is not given keeps the referee's default
        except (ArenaError, ValueError) as exc:
            self.fail(where, str(exc))


def join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
