"""A tournament's entrants: each one's name, command, working folder, environment and sandbox settings,
read and checked from the config (every mistake noted, the others still read) into `EntrantConfig`."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from arena.jsonvalue import JSON
from arena.sandbox.launch import is_script
from arena.sandbox.policy import SandboxPolicy
from arena.tournament.config.reader import Reader as _Reader, join as _join, kind as _kind
from arena.tournament.config.sandbox import read_policy


@dataclass(frozen=True)
class EntrantConfig:
    """One entrant. `command` is ready to run: placeholders substituted, the program checked."""

    name: str
    command: tuple[str, ...]
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)
    raw_command: tuple[str, ...] = ()  # as written, placeholders kept: what the config fingerprint hashes
    raw_cwd: str = "."  # relative to the config's folder when inside it: what the fingerprint hashes
    sandbox: SandboxPolicy = SandboxPolicy()  # the tournament's `sandbox:` overridden by the entrant's

    def identity(self) -> dict[str, JSON]:
        """Everything about this entrant that can change how its bot plays."""
        return {"name": self.name, "command": list(self.raw_command), "cwd": self.raw_cwd, "env": dict(self.env)}



@dataclass(frozen=True)
class EntrantSetup:
    """One entrant as given: its command's words with their placeholders ({python}, {config_dir}) kept."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None  # from the setup's root; None: the root itself, shared (only the bot's files shown)
    env: Mapping[str, str] = field(default_factory=dict)
    sandbox: SandboxPolicy | None = None  # None: the setup's own
    label: str = ""  # how mistakes name it ("entrants[2]", "NEW"); "" names it by its name


def read_entrants(r: _Reader, value: Any, sandbox: SandboxPolicy) -> list[EntrantSetup]:
    """Every entrant as written, each of its keys read (a mistake in one is noted and the others still read)."""
    items: list[Any] = r.attempt(lambda: r.listing(value, "entrants"), [])
    if isinstance(value, list) and not items:
        r.note("entrants", "expected at least one entrant")
    out: list[EntrantSetup] = []
    for i, item in enumerate(items):
        entrant = r.attempt(lambda: _read_entrant(r, i, item, sandbox), None)
        if entrant is not None:
            out.append(entrant)
    return out


def _read_entrant(r: _Reader, i: int, item: Any, sandbox: SandboxPolicy) -> EntrantSetup | None:
    where = _join("entrants", i)
    data = r.mapping(item, where, {"name", "command", "cwd", "env", "sandbox"}, required={"name", "command"})
    name = r.attempt(lambda: r.string(data["name"], _join(where, "name")), "")
    cwd = r.attempt(lambda: None if data.get("cwd") is None else r.string(data["cwd"], _join(where, "cwd")), None)
    env: dict[str, str] = r.attempt(lambda: _env(r, data.get("env"), _join(where, "env")), {})
    command: tuple[str, ...] = r.attempt(lambda: command_words(r, data["command"], _join(where, "command")), ())
    policy = r.attempt(lambda: read_policy(r, data.get("sandbox"), _join(where, "sandbox"), sandbox), sandbox)
    if not name or not command:  # nothing more to check; the other mistakes still let its program be looked for
        return None
    return EntrantSetup(name, command, cwd, env, policy, where)


def check_entrant(r: _Reader, given: EntrantSetup, root: Path, config_dir: Path, sandbox: SandboxPolicy,
                  seen: dict[str, str]) -> EntrantConfig | None:
    """One entrant checked (a unique name, its folder and program there) and made ready to run."""
    where = given.label or f"entrant {given.name!r}"
    before = len(r.errors)
    r.attempt(lambda: _entrant_name(r, given.name, where, seen), "")
    cwd = r.attempt(lambda: _entrant_cwd(r, given.cwd, root, where), root)
    if not given.command or not given.command[0]:
        r.note(_join(where, "command"), "expected a command, got an empty one")
    command = tuple(substitute(arg, config_dir) for arg in given.command)
    if command and command[0]:
        r.attempt(lambda: _check_program(r, command, root, _join(where, "command")), None)
    if len(r.errors) > before:
        return None
    raw_cwd = os.path.relpath(cwd, config_dir) if cwd.is_relative_to(config_dir) else str(cwd)
    policy = replace(given.sandbox or sandbox, show_cwd=given.cwd is not None)  # the shared root is not the bot's folder
    return EntrantConfig(given.name, _anchored(command, root), str(cwd), dict(given.env), given.command, raw_cwd, policy)


def _entrant_name(r: _Reader, name: str, where: str, seen: dict[str, str]) -> str:
    name = r.string(name, _join(where, "name"))
    if name in seen:
        r.fail(_join(where, "name"), f"{name!r} is already the name of {seen[name]}; names must be unique")
    seen[name] = where
    return name


def _entrant_cwd(r: _Reader, value: str | None, root: Path, where: str) -> Path:
    if value is None:
        return root
    cwd = (root / value).resolve()
    if not cwd.is_dir():
        r.fail(_join(where, "cwd"), f"folder {str(cwd)!r} does not exist")
    return cwd


def _env(r: _Reader, value: Any, where: str) -> dict[str, str]:
    env_raw = value or {}
    if not isinstance(env_raw, dict):
        r.fail(where, f"expected a mapping of variable names to strings, got {_kind(env_raw)}")
    env: dict[str, str] = {}
    for key, val in env_raw.items():
        if not isinstance(key, str) or not isinstance(val, (str, int, float)) or isinstance(val, bool):
            r.note(_join(where, str(key)), f"expected a string value, got {_kind(val)}")
        else:
            env[key] = str(val)
    return env


def command_words(r: _Reader, value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as exc:
            r.fail(where, f"cannot split the command into words: {exc}")
    elif isinstance(value, list):
        parts = []
        for j, arg in enumerate(value):
            if isinstance(arg, bool) or not isinstance(arg, (str, int, float)):
                r.fail(_join(where, j), f"expected a string, got {_kind(arg)}")
            parts.append(str(arg))
    else:
        r.fail(where, f"expected a command as a string or a list of strings, got {_kind(value)}")
    if not parts or not parts[0]:
        r.fail(where, "expected a command, got an empty one")
    return tuple(parts)


def substitute(arg: str, config_dir: Path) -> str:
    """`{config_dir}`: the config's folder. `{python}`: the interpreter running arena, absolute (no PATH lookup, no version-manager shim)."""
    return arg.replace("{python}", sys.executable).replace("{config_dir}", str(config_dir))


def _anchored(command: tuple[str, ...], root: Path) -> tuple[str, ...]:
    """The command with its relative paths made absolute from `root`: the program when it is a path,
    and script-file arguments (the words `_check_program` checks). The bot's `cwd` then only sets where
    it runs; it can no longer move what the config pointed at (README: paths resolve from `root`)."""
    program, *args = command
    if (os.sep in program or (os.altsep and os.altsep in program)) and not os.path.isabs(program):
        program = str(root / program)
    return (program, *(str(root / a) if is_script(a) and not os.path.isabs(a) else a for a in args))


def _check_program(r: _Reader, command: tuple[str, ...], cwd: Path, where: str) -> None:
    program = command[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = cwd / program
        if not path.is_file():
            r.fail(_join(where, 0), f"program {program!r} not found (looked in {cwd})")
        if not os.access(path, os.X_OK):
            r.fail(_join(where, 0), f"program {str(path)!r} is not executable (chmod +x it, or run it with an interpreter)")
    elif shutil.which(program) is None:
        r.fail(_join(where, 0), f"program {program!r} not found on PATH")
    for j, arg in enumerate(command[1:], start=1):
        if is_script(arg) and not (cwd / arg).is_file():
            r.fail(_join(where, j), f"file {arg!r} not found (looked in {cwd})")
