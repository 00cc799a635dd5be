"""Resource limits of one sandboxed bot: a cgroup where the machine lets us make one, rlimits always.

Which mechanism holds what (see also `Support.report`):
- processes: cgroup pids.max when a pids cgroup is writable; else RLIMIT_NPROC set inside the
  sandbox by `prlimit` (inside, so it counts the bot's own user namespace, not all the organiser's
  processes); it binds only a non-root user (the kernel exempts real uid 0, which a user namespace keeps);
- memory: cgroup memory limit (all the bot's processes together, resident memory) when writable;
  else RLIMIT_AS per process (address space, so a JVM needs a generous figure);
- CPU share: a cpu cgroup per bot (v2 cpu.max + cpu.weight, v1 cfs quota + shares) holding all its
  processes, whatever their sessions, to `policy.cpus` CPUs and an equal weight; none where no cpu
  controller is writable (`Support.report` says so);
- CPU time, file size, open files: RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE, set in the child before
  bwrap starts and inherited by everything in the sandbox. Core dumps are off (RLIMIT_CORE 0).
"""

from __future__ import annotations

import functools
import itertools
import os
import resource
import signal
import time
from dataclasses import dataclass, field
from typing import Callable

from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import Cgroups

_counter = itertools.count()
MB = 1024 * 1024
BWRAP_PROCESSES = 2  # bwrap's monitor and the namespace's init, counted in the pids cgroup


def _write(path: str, value: str) -> bool:
    try:
        with open(path, "w") as fh:
            fh.write(value)
        return True
    except OSError:
        return False


def _read_counter(path: str, key: str) -> int:
    try:
        with open(path) as fh:
            for line in fh:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


@functools.lru_cache(maxsize=8)
def sweep(parent: str) -> int:
    """Remove the empty cgroups left by arena processes that died without cleaning up (once per parent)."""
    removed = 0
    try:
        names = os.listdir(parent)
    except OSError:
        return 0
    for name in names:
        parts = name.split("-")
        if len(parts) != 3 or parts[0] != "arena" or not parts[1].isdigit() or os.path.exists(f"/proc/{parts[1]}"):
            continue
        try:
            os.rmdir(os.path.join(parent, name))  # fails, and is kept, while anything still runs in it
            removed += 1
        except OSError:
            pass
    return removed


CPU_PERIOD_US = 100_000


def cpu_values(cpus: float, version: int) -> dict[str, str]:
    """A cpu cgroup's settings for `cpus` CPUs: the quota first (it must hold), then an equal weight."""
    quota = max(1000, int(cpus * CPU_PERIOD_US))
    if version == 2:
        return {"cpu.max": f"{quota} {CPU_PERIOD_US}", "cpu.weight": "100"}
    return {"cpu.cfs_quota_us": str(quota), "cpu.cfs_period_us": str(CPU_PERIOD_US), "cpu.shares": "1024"}


@dataclass
class BotLimits:
    """The limits of one bot start: a preexec function for the child, then inspection and cleanup."""

    policy: SandboxPolicy
    cpu_seconds: int | None
    memory_mb: int | None
    version: int = 0
    pids_dir: str | None = None
    memory_dir: str | None = None
    cpu_dir: str | None = None
    settings: list[tuple[int, tuple[int, int]]] = field(default_factory=list)
    nproc_inside: int | None = None  # RLIMIT_NPROC to set inside the sandbox (no pids cgroup, not root)

    @classmethod
    def make(cls, policy: SandboxPolicy, cpu_seconds: int | None, memory_mb: int | None, cgroups: Cgroups | None, root: bool) -> "BotLimits":
        lim = cls(policy, cpu_seconds, memory_mb)
        name = f"arena-{os.getpid()}-{next(_counter)}"
        if cgroups is not None:
            lim.version = cgroups.version
            if cgroups.pids:
                lim.pids_dir = lim._make(cgroups.pids, name, {"pids.max": str(policy.processes + BWRAP_PROCESSES)})
            if cgroups.memory and memory_mb is not None:
                size = str(memory_mb * MB)
                values = {"memory.max": size, "memory.swap.max": "0"} if cgroups.version == 2 else {"memory.limit_in_bytes": size}
                lim.memory_dir = lim._make(cgroups.memory, name, values)
            if cgroups.cpu and policy.cpus is not None:
                lim.cpu_dir = lim._make(cgroups.cpu, name, cpu_values(policy.cpus, cgroups.version))
        settings = [
            (resource.RLIMIT_CORE, (0, 0)),
            (resource.RLIMIT_FSIZE, (policy.file_size_mb * MB, policy.file_size_mb * MB)),
            (resource.RLIMIT_NOFILE, (policy.open_files, policy.open_files)),
        ]
        if cpu_seconds is not None:  # SIGXCPU at the soft limit, SIGKILL a second later
            settings.append((resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1)))
        if memory_mb is not None and lim.memory_dir is None:
            settings.append((resource.RLIMIT_AS, (memory_mb * MB, memory_mb * MB)))
        if lim.pids_dir is None and not root:
            lim.nproc_inside = policy.processes + BWRAP_PROCESSES
        lim.settings = settings
        return lim

    def _make(self, parent: str, name: str, values: dict[str, str]) -> str | None:
        sweep(parent)
        folder = os.path.join(parent, name)
        try:
            os.mkdir(folder)
        except OSError:
            return None
        first, *rest = values.items()
        if not _write(os.path.join(folder, first[0]), first[1]):  # the limit itself must hold
            os.rmdir(folder)
            return None
        for key, value in rest:
            _write(os.path.join(folder, key), value)  # optional (e.g. no swap accounting)
        return folder

    def inner_prefix(self) -> tuple[str, ...]:
        """What runs the bot inside the sandbox, when a limit must be set there (after the namespaces)."""
        if self.nproc_inside is None:
            return ()
        return ("prlimit", f"--nproc={self.nproc_inside}", "--")

    def preexec(self) -> Callable[[], None]:
        """Run in the child between fork and exec: join the cgroups, set the rlimits."""
        procs = [os.path.join(d, "cgroup.procs") for d in (self.pids_dir, self.memory_dir, self.cpu_dir) if d]
        settings = list(self.settings)
        setrlimit, getpid = resource.setrlimit, os.getpid

        def apply() -> None:
            pid = str(getpid())
            for path in procs:
                with open(path, "w") as fh:
                    fh.write(pid)
            for which, values in settings:
                setrlimit(which, values)

        return apply

    def events(self) -> list[str]:
        """Limits the kernel enforced so far, in words: 'processes' and/or 'memory'."""
        hits = []
        if self.pids_dir and _read_counter(os.path.join(self.pids_dir, "pids.events"), "max") > 0:
            hits.append("processes")
        if self.memory_dir:
            events = "memory.events" if self.version == 2 else "memory.oom_control"
            if _read_counter(os.path.join(self.memory_dir, events), "oom_kill") > 0:
                hits.append("memory")
        return hits

    def kill_all(self) -> None:
        """SIGKILL whatever is left in the bot's cgroups (the PID namespace normally took them already)."""
        for folder in (self.pids_dir, self.memory_dir, self.cpu_dir):
            if folder is None:
                continue
            if self.version == 2 and _write(os.path.join(folder, "cgroup.kill"), "1"):
                continue
            try:
                with open(os.path.join(folder, "cgroup.procs")) as fh:
                    pids = [int(p) for p in fh.read().split()]
            except (OSError, ValueError):
                continue
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def cleanup(self, timeout: float = 2.0) -> None:
        """Remove the bot's cgroups once they are empty (killing any straggler first)."""
        deadline = time.monotonic() + timeout
        for attr in ("pids_dir", "memory_dir", "cpu_dir"):
            folder = getattr(self, attr)
            while folder is not None:
                try:
                    os.rmdir(folder)
                    setattr(self, attr, None)
                    break
                except FileNotFoundError:
                    setattr(self, attr, None)
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break
                    self.kill_all()
                    time.sleep(0.005)
