"""A bot folder: a project with `manifest.json` at its top, which says how to build and run it.

    {"name": "my-bot", "version": "1", "language": "rust"}              built, then run as the language says
    {"name": "my-bot", "version": "1", "command": "python3 bot.py"}     run as it is
    {"name": "my-bot", "version": "1", "language": "java", "command": "java -cp classes Main"}

`language` names one of the languages this machine (or the server) offers (arena.build.languages);
`command`, when given, replaces the language's run command. `arena build`, `arena check-bot`,
`arena play --bot DIR` and `arena submit` all read it here; the server reads the same keys.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass

from arena.build.languages import DEFAULTS, Language, find
from arena.errors import BuildError, ConfigError
from arena.textsafe import clean

MANIFEST = "manifest.json"
KEYS = ("name", "version", "command", "language")


@dataclass(frozen=True)
class BotFolder:
    path: str  # absolute
    name: str
    version: str
    language: Language | None
    command: tuple[str, ...]  # as written, relative to the folder

    def argv(self) -> tuple[str, ...]:
        """The command ready to start from anywhere: its program and the files it names made absolute.
        A program the build should have made but did not is an error naming `arena build`."""
        program, *args = self.command
        if "/" in program:
            exe = os.path.normpath(os.path.join(self.path, program))
            if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
                raise BuildError(f"{self.path}: no program {program} yet: build the bot first (arena build {self.path})"
                                 if self.language is not None and self.language.build else
                                 f"{self.path}: {MANIFEST}'s command names {program}, which is not an executable file there")
            program = exe
        out = [program]
        for arg in args:
            candidate = os.path.normpath(os.path.join(self.path, arg))
            if not arg.startswith("-") and not os.path.isabs(arg) and os.path.exists(candidate):
                out.append(candidate)
            elif not arg.startswith("-") and arg.endswith((".jar", ".py", ".js")) and not os.path.isabs(arg):
                raise BuildError(f"{self.path}: no {arg} yet: build the bot first (arena build {self.path})")
            else:
                out.append(arg)
        return tuple(out)


def is_bot_folder(path: str) -> bool:
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST))


def read(path: str, languages: tuple[Language, ...] = DEFAULTS) -> BotFolder:
    """The folder's manifest, checked; errors say which key to fix."""
    folder = os.path.abspath(path)
    file = os.path.join(folder, MANIFEST)
    try:
        with open(file, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise BuildError(f"{folder}: no {MANIFEST}; write one such as "
                         '{"name": "my-bot", "version": "1", "language": "rust"} (or `arena new-bot` makes a folder)') from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BuildError(f"{file}: not valid JSON: {clean(exc, 200)}") from None
    if not isinstance(data, dict):
        raise BuildError(f"{file}: a JSON object with name, version and language or command")
    unknown = sorted(set(map(str, data)) - set(KEYS))
    if unknown:
        raise BuildError(f"{file}: unknown keys {clean(', '.join(unknown), 120)} (allowed: {', '.join(KEYS)})")
    name = data.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 40 or not all(c.isalnum() or c in "-_." for c in name):
        raise BuildError(f"{file}: name must be 1-40 letters, digits, '-', '_' or '.'")
    language = None
    if "language" in data:
        if not isinstance(data["language"], str):
            raise BuildError(f"{file}: language must be a string, e.g. \"rust\"")
        try:
            language = find(data["language"], languages, file)
        except ConfigError as exc:
            raise BuildError(str(exc)) from None
    raw = data.get("command", language.run if language is not None else None)
    if isinstance(raw, str):
        command = tuple(shlex.split(raw))
    elif isinstance(raw, list) and all(isinstance(a, str) for a in raw):
        command = tuple(raw)
    else:
        raise BuildError(f"{file}: give a language (one of {', '.join(lang.name for lang in languages)}) "
                         "or a command such as \"python3 bot.py\"")
    if not command:
        raise BuildError(f"{file}: the command is empty")
    return BotFolder(folder, name, str(data.get("version", "1")), language, command)
