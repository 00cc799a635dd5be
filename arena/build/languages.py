"""The languages a bot folder may be written in: each a build command (or none) and a run command.

The build runs in the bot's folder, in the sandbox (arena.build.runner), with the system's PATH
(/usr/local/bin:/usr/bin:/bin: a toolchain in a home folder is not seen); the run command is what
the manifest's `command` defaults to. `tools` are the programs the language needs: a language is
offered only where every one is installed in the system folders.

A server's config may replace or add languages (`build.languages`, see docs/server.md); the defaults
cover the starter kits (starters/).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any

from arena.errors import ConfigError

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Language:
    name: str
    run: str  # the command that runs the built bot, relative to its folder (./bot, java -jar bot.jar)
    build: str | None = None  # a shell command run in the folder; None: nothing to build
    tools: tuple[str, ...] = ()  # programs that must be installed (the build's and the run's)

    def missing(self, path: str = SYSTEM_PATH) -> tuple[str, ...]:
        """The tools not installed in the system folders."""
        return tuple(t for t in self.tools if shutil.which(t, path=path) is None)

    @property
    def runtime(self) -> str | None:
        """The program the run command starts when it is an installed runtime (java, node), not the bot's own file."""
        program = self.run.split()[0]
        return None if "/" in program else program

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "build": self.build, "run": self.run, "tools": list(self.tools)}


DEFAULTS: tuple[Language, ...] = (
    Language("python", "python3 random_bot.py", None, ("python3",)),
    Language("js", "node random_bot.js", None, ("node",)),
    Language("c", "./bot", "make bot", ("make", "cc")),
    Language("cpp", "./bot", "make bot", ("make", "c++")),
    Language("rust", "./target/release/bot", "cargo build --release --offline", ("cargo", "rustc", "cc")),
    Language("go", "./bot", "go build -o bot .", ("go",)),
    Language("java", "java -XX:+UseSerialGC -Xmx64m -jar bot.jar",
             "mkdir -p classes && javac -d classes $(find src -name '*.java') && jar cfe bot.jar Main -C classes .",
             ("javac", "jar", "java")),
)
NAMES = tuple(lang.name for lang in DEFAULTS)


def by_name(languages: tuple[Language, ...]) -> dict[str, Language]:
    return {lang.name: lang for lang in languages}


def installed(languages: tuple[Language, ...] = DEFAULTS, path: str = SYSTEM_PATH) -> tuple[Language, ...]:
    """The languages whose tools this machine has."""
    return tuple(lang for lang in languages if not lang.missing(path))


def find(name: str, languages: tuple[Language, ...], where: str = "manifest.json") -> Language:
    """The language `name`, or an error listing the ones offered."""
    found = by_name(languages).get(name)
    if found is None:
        offered = ", ".join(lang.name for lang in languages) or "none"
        raise ConfigError(f"{where}: language {name!r} is not one offered here ({offered}); "
                          "or leave `language` out and give a `command` that runs a program in the folder")
    return found


def parse(data: Any, where: str) -> tuple[Language, ...]:
    """Languages from a config: a list of default names (`[rust, java]`), or a mapping name ->
    {build, run, tools} (a default's keys may be left out: they keep the default's)."""
    if data is None:
        return installed()
    defaults = by_name(DEFAULTS)
    if isinstance(data, list):
        out = []
        for name in data:
            if not isinstance(name, str) or name not in defaults:
                raise ConfigError(f"{where}: {name!r} is not a default language ({', '.join(NAMES)}); "
                                  "give a mapping with its build and run commands instead")
            out.append(defaults[name])
        return tuple(out)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a list of language names or a mapping name -> {{build, run, tools}}")
    out = []
    for name, spec in data.items():
        base = defaults.get(str(name))
        if spec is None and base is not None:
            out.append(base)
            continue
        if not isinstance(spec, dict) or set(spec) - {"build", "run", "tools"}:
            raise ConfigError(f"{where}.{name}: expected a mapping with build, run and tools")
        run = spec.get("run", base.run if base else None)
        if not isinstance(run, str) or not run.strip():
            raise ConfigError(f"{where}.{name}.run: the command that runs the built bot, e.g. ./bot")
        build = spec.get("build", base.build if base else None)
        if build is not None and not isinstance(build, str):
            raise ConfigError(f"{where}.{name}.build: a shell command, or null for none")
        tools = spec.get("tools", list(base.tools) if base else [run.split()[0]] if "/" not in run.split()[0] else [])
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise ConfigError(f"{where}.{name}.tools: a list of program names")
        out.append(Language(str(name), run, build, tuple(tools)))
    return tuple(out)


def describe(languages: tuple[Language, ...]) -> list[str]:
    """One line per language: its name, build and run commands."""
    return [f"{lang.name}: build `{lang.build or '(nothing)'}`, run `{lang.run}`" for lang in languages]
