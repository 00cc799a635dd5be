"""The build of a bot folder: its language's build command, in the sandbox, within limits.

The same function runs for `arena build DIR` and for the server's check of a source submission, so a
participant sees the server's verdict first. The sandbox (arena.sandbox) shows the build the system
folders read-only, its own folder read-write and a private scratch /scratch ($HOME, $TMPDIR: caches
such as cargo's and go's live there and vanish), and no network. Limits: wall time (`time_s`), CPU
time, memory (a cgroup where the machine allows, else the address space), processes and threads,
the size of each file, the folder's growth (`disk_mb`, watched while the build runs) and the log
(`log_kb`: the rest is counted, not kept). A build over a limit is killed at once, with all it started.

The log is what the build wrote to stdout and stderr, cleaned (terminal escapes, invalid UTF-8 and
control characters replaced) and bounded: its first and last parts are kept.
"""

from __future__ import annotations

import dataclasses
import os
import selectors
import subprocess
import time
from dataclasses import dataclass
from typing import Callable

from arena.build.languages import SYSTEM_PATH, Language, describe, installed
from arena.build.languages import parse as parse_languages
from arena.errors import BuildError, ConfigError
from arena.sandbox.launch import Launch
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import probe
from arena.textsafe import clean

MB = 1024 * 1024
TAIL_LINES = 40


@dataclass(frozen=True)
class BuildLimits:
    time_s: float = 300.0  # wall time of the whole build
    cpu_seconds: int = 600  # CPU time of each process (compilers run several)
    memory_mb: int = 2048  # all the build's processes together (a cgroup), else each one's address space
    processes: int = 256  # processes and threads at once (cargo and go run many threads)
    disk_mb: int = 512  # growth of the folder, and the size of the scratch tmpfs
    file_mb: int = 256  # largest single file
    log_kb: int = 256  # the log kept (half from its start, half from its end)

    def __post_init__(self) -> None:
        for name in ("time_s", "cpu_seconds", "memory_mb", "processes", "disk_mb", "file_mb", "log_kb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise BuildError(f"build.{name} must be a positive number, got {value!r}")

    def describe(self) -> str:
        return (f"{self.time_s:g} s, {self.cpu_seconds} s of CPU a process, {self.memory_mb} MB of memory, "
                f"{self.processes} processes, {self.disk_mb} MB of disk, files up to {self.file_mb} MB, no network")


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    reason: str  # "" when ok; else why, in words naming the limit or the exit status
    log: str  # cleaned and bounded
    seconds: float

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The log's last lines: what a refusal shows."""
        return "\n".join(self.log.rstrip("\n").split("\n")[-lines:])


class _Log:
    """The build's output: the first and the last `half` bytes kept, the rest counted."""

    def __init__(self, limit_bytes: int) -> None:
        self.half = max(1024, limit_bytes // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        dropped = self.total - len(self.head) - len(self.tail)
        raw = bytes(self.head)
        if dropped > 0:
            raw += f"\n[... {dropped} bytes of the build's output left out ...]\n".encode()
        raw += bytes(self.tail)
        limit = 4 * (len(self.head) + len(self.tail)) + 200
        return clean(raw.decode("utf-8", "replace"), limit, keep_newlines=True)


def folder_bytes(folder: str) -> int:
    """The bytes the files under `folder` take (hard links counted once; nothing followed)."""
    total, seen = 0, set()
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def build(folder: str, language: Language, limits: BuildLimits = BuildLimits(), sandbox: bool = True,
          poll_s: float = 0.25, beat: Callable[[], None] = lambda: None) -> BuildResult:
    """Build the bot in `folder` (absolute) with `language`'s build command; nothing to build is a success.
    `beat` is called at every poll while the build runs (the server's checker: its heartbeat)."""
    started = time.monotonic()
    if language.build is None:
        return BuildResult(True, "", f"{language.name}: nothing to build\n", 0.0)
    missing = language.missing()
    if missing:
        return BuildResult(False, f"this machine cannot build {language.name}: {', '.join(missing)} not installed", "", 0.0)
    script = f"exec 2>&1 </dev/null; {language.build}"
    env = {"PATH": SYSTEM_PATH, "CARGO_HOME": "/scratch/cargo", "GOCACHE": "/scratch/go-cache", "GOPATH": "/scratch/go",
           "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "CARGO_NET_OFFLINE": "true", "NPM_CONFIG_OFFLINE": "true"}
    log = _Log(limits.log_kb * 1024)
    base = folder_bytes(folder)
    if sandbox:
        if not probe().sandbox:
            raise BuildError(f"the sandbox cannot run here ({probe().reason}); build trusted code with --no-sandbox")
        policy = SandboxPolicy(writable_folder=True, processes=limits.processes, file_size_mb=limits.file_mb,
                               scratch_mb=limits.disk_mb, cpus=None, refuse_locks=False, open_files=1024)
        launch: Launch | None = Launch.prepare(f"build of {language.name}", ("/bin/sh", "-c", script), folder, env,
                                               policy, limits.cpu_seconds, limits.memory_mb)
        assert launch is not None
        proc = launch.popen()
        assert proc.stdin is not None
        proc.stdin.close()
        streams = [proc.stdout, proc.stderr]
    else:
        launch = None
        proc = subprocess.Popen(["/bin/sh", "-c", script], cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **env})
        streams = [proc.stdout]
    reason = ""
    hit: str | None = None
    try:
        reason = _watch(proc, [s for s in streams if s is not None], log, folder, base, limits, started, poll_s, beat)
    finally:
        if proc.poll() is None:  # over a limit, or interrupted: the build and all it started go
            _kill_group(proc)
            if launch is not None:
                launch.limits.kill_all()
        code = proc.wait()
        try:
            if launch is not None and code != 0:  # read the cgroups' counters before they are removed
                hit = launch.limit_hit(code, log.text().splitlines()[-TAIL_LINES:])
        finally:
            if launch is not None:
                launch.finish()
            for stream in streams:
                if stream is not None:
                    stream.close()
    if not reason and hit:
        reason = f"the build was stopped at a limit: {hit}"
    if not reason and code != 0:
        reason = f"the build failed ({launch.describe_exit(code) if launch else f'exit status {code}'})"
    seconds = time.monotonic() - started
    return BuildResult(not reason, reason, log.text(), seconds)


def _watch(proc: "subprocess.Popen[bytes]", streams: list, log: _Log, folder: str, base: int,  # type: ignore[type-arg]
           limits: BuildLimits, started: float, poll_s: float, beat: Callable[[], None]) -> str:
    """Read the build's output until it ends; the limit it went over, in words, or ""."""
    with selectors.DefaultSelector() as selector:  # epoll: any descriptor number (select() stops at 1024)
        for stream in streams:
            selector.register(stream, selectors.EVENT_READ)
        next_disk = 0.0
        while selector.get_map():
            beat()
            now = time.monotonic()
            if now - started > limits.time_s:
                return f"the build took longer than its limit of {limits.time_s:g} s (stopped)"
            if now >= next_disk:
                next_disk = now + poll_s
                over = _over_disk(folder, base, limits)
                if over:
                    return over
            for key, _events in selector.select(min(poll_s, max(0.0, limits.time_s - (now - started)))):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                else:
                    log.add(data)
    while True:  # output closed; the build may still run (and write)
        beat()
        over = _over_disk(folder, base, limits)
        if over or proc.poll() is not None:
            return over
        if time.monotonic() - started > limits.time_s:
            return f"the build took longer than its limit of {limits.time_s:g} s (stopped)"
        time.sleep(min(poll_s, 0.05))


def _over_disk(folder: str, base: int, limits: BuildLimits) -> str:
    if folder_bytes(folder) - base > limits.disk_mb * MB:
        return f"the build wrote more than its limit of {limits.disk_mb} MB of disk (stopped)"
    return ""


def _kill_group(proc: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        pass


@dataclass(frozen=True)
class BuildSettings:
    """What a server builds: its languages and the limits of each build (the config's `build:`)."""

    languages: tuple[Language, ...]
    limits: BuildLimits = BuildLimits()

    def offered(self) -> list[str]:
        """One line per language, for `arena serve` and the upload page."""
        return describe(self.languages)


def parse_settings(data: object, where: str = "build") -> BuildSettings:
    """`build: {languages: ..., time_s: 300, memory_mb: 2048, ...}` (every key optional)."""
    if data is None:
        return BuildSettings(installed())
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with languages and limits (time_s, memory_mb, ...)")
    known = {f.name for f in dataclasses.fields(BuildLimits)}
    unknown = sorted(str(k) for k in data if k != "languages" and k not in known)
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}: unknown key (known: languages, {', '.join(sorted(known))})")
    try:
        limits = BuildLimits(**{k: v for k, v in data.items() if k in known})
    except BuildError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return BuildSettings(parse_languages(data.get("languages"), f"{where}.languages"), limits)
