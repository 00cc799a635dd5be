"""What a sandboxed bot may do: the typed policy read from a config or the command line.

The defaults are the safe ones for untrusted code: no network, the bot's folder read-only, a small
private scratch folder emptied at every start, and bounded processes, file sizes and open files.
Memory and CPU time stay in the referee's `Limits` (they apply with or without the sandbox).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from arena.errors import ConfigError

SCRATCH_PATH = "/scratch"  # where the writable scratch folder appears inside the sandbox


class Scratch(enum.Enum):
    FRESH = "fresh"  # a size-bounded tmpfs, new at every start of the bot: nothing survives a match
    KEEP = "keep"  # a per-entrant folder on disk, kept between matches (bounded per file only)


@dataclass(frozen=True)
class SandboxPolicy:
    """One bot's sandbox. `enabled=False` runs the bot as a plain child process (trusted bots only)."""

    enabled: bool = True
    scratch: Scratch = Scratch.FRESH
    scratch_mb: int = 64  # size of the FRESH tmpfs
    keep_dir: str | None = None  # the folder kept for Scratch.KEEP (set by whoever knows the entrant)
    writable_folder: bool = False  # bind the bot's own folder read-write instead of read-only
    processes: int = 64  # processes and threads the bot may run at once
    file_size_mb: int = 64  # largest file it may write (RLIMIT_FSIZE)
    open_files: int = 256  # RLIMIT_NOFILE
    extra_ro: tuple[str, ...] = ()  # more host paths shown read-only (e.g. a runtime under /opt)
    cpus: float | None = 1.0  # CPU share of all the bot's processes together, in CPUs (None: unbounded)
    shared_folder: bool = False  # this entrant may share its folder with other entrants that say so too
    # Set by whoever starts the bot, not read from YAML:
    show_cwd: bool = True  # False: cwd is a shared root (no entrant `cwd:`), show only the bot's own files' folders
    hide: tuple[str, ...] = ()  # arena's outputs (store, replays, config...): masked even inside a shown folder
    refuse_locks: bool = True  # the seccomp filter (arena.sandbox.seccomp); off only to show what it stops
    hide_counters: bool = True  # static /proc counters (arena.sandbox.counters); off only to show what it stops
    private: tuple[str, ...] = ()  # never shown as a runtime: the tournament's root, other entrants' folders

    def __post_init__(self) -> None:
        for name in ("scratch_mb", "processes", "file_size_mb", "open_files"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigError(f"sandbox.{name} must be a positive whole number, got {value!r}")
        if self.open_files < 16:
            raise ConfigError(f"sandbox.open_files must be at least 16, got {self.open_files}")
        if self.cpus is not None and (isinstance(self.cpus, bool) or not isinstance(self.cpus, (int, float))
                                      or not 0.01 <= self.cpus <= 1024):
            raise ConfigError(f"sandbox.cpus must be a number of CPUs from 0.01 (or null: unbounded), got {self.cpus!r}")
        if self.processes < 4:
            raise ConfigError(f"sandbox.processes must be at least 4 (an interpreter needs a few), got {self.processes}")

    def describe(self) -> str:
        if not self.enabled:
            return "off"
        scratch = f"{self.scratch_mb} MB fresh tmpfs" if self.scratch is Scratch.FRESH else "kept folder"
        folder = "read-write" if self.writable_folder else "read-only"
        cpu = "unbounded CPU" if self.cpus is None else f"{self.cpus:g} CPU for all its processes"
        return (
            f"on: no network, own PID namespace, bot folder {folder}, scratch {SCRATCH_PATH} ({scratch}), "
            f"{self.processes} processes, {cpu}, files up to {self.file_size_mb} MB, {self.open_files} open files, "
            "no file locks, no machine-wide /proc counters"
        )


POLICY_KEYS: dict[str, type] = {  # what `sandbox:` in a config may set, and the type of each
    "enabled": bool,
    "scratch": Scratch,
    "scratch_mb": int,
    "writable_folder": bool,
    "processes": int,
    "file_size_mb": int,
    "open_files": int,
    "extra_ro": tuple,
    "cpus": float,
    "shared_folder": bool,
}


def policy_from_mapping(data: object, where: str, base: SandboxPolicy = SandboxPolicy()) -> SandboxPolicy:
    """A policy from a YAML value (`true`, `false` or a mapping of the keys above) over `base`.

    Errors name `where` (e.g. `entrants[2].sandbox.processes`) and what was expected.
    """
    if data is None:
        return base
    if isinstance(data, bool):
        return _replace(base, {"enabled": data})
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected true, false or a mapping of sandbox settings, got {type(data).__name__}")
    values: dict[str, object] = {}
    for key, value in data.items():
        kind = POLICY_KEYS.get(key) if isinstance(key, str) else None
        if kind is None:
            raise ConfigError(f"{where}.{key}: unknown key (expected one of: {', '.join(sorted(POLICY_KEYS))})")
        if kind is Scratch:
            try:
                values[key] = Scratch(value)
            except ValueError:
                raise ConfigError(f"{where}.{key}: expected fresh or keep, got {value!r}") from None
        elif kind is tuple:
            if not isinstance(value, list) or not all(isinstance(v, str) and v.startswith("/") for v in value):
                raise ConfigError(f"{where}.{key}: expected a list of absolute paths")
            values[key] = tuple(value)
        elif kind is float:
            values[key] = value  # checked by SandboxPolicy (a number, or null for unbounded)
        elif kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}.{key}: expected true or false, got {value!r}")
            values[key] = value
        else:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{where}.{key}: expected a whole number, got {value!r}")
            values[key] = value
    try:
        return _replace(base, values)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _replace(base: SandboxPolicy, values: dict[str, object]) -> SandboxPolicy:
    return dataclasses.replace(base, **values)  # type: ignore[arg-type]  # keys and types checked above
