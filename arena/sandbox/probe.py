"""What this machine offers for isolation: bubblewrap with user namespaces, and writable cgroups.

Probed once per process (a bwrap start costs a few milliseconds) and cached; `report()` is what
`arena validate` prints, so an organiser sees which protections hold before running anything.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

from arena.errors import ConfigError
from arena.sandbox import seccomp

CGROUP_ROOT = "/sys/fs/cgroup"


@dataclass(frozen=True)
class Cgroups:
    """Writable cgroup folders (our own cgroup in each hierarchy) for the pids, memory and cpu controllers."""

    version: int  # 2 (unified) or 1 (one hierarchy per controller)
    pids: str | None  # parent folder in which a per-bot cgroup with pids.max can be made
    memory: str | None  # same for memory.max (v2) / memory.limit_in_bytes (v1)
    cpu: str | None = None  # same for cpu.max and cpu.weight (v2) / cpu.cfs_quota_us and cpu.shares (v1)


@dataclass(frozen=True)
class Support:
    bwrap: str | None  # path of a bwrap that starts a sandbox here, or None
    reason: str  # why the sandbox cannot run ("" when it can)
    root: bool
    cgroups: Cgroups | None

    @property
    def sandbox(self) -> bool:
        return self.bwrap is not None

    def report(self) -> list[str]:
        """One line per protection: what holds on this machine, and by which mechanism."""
        if not self.sandbox:
            return [f"sandbox: NOT AVAILABLE ({self.reason}); bots run as plain processes with rlimits only"]
        cg = self.cgroups
        pids = f"cgroup v{cg.version} pids.max" if cg and cg.pids else None
        if pids is None:
            pids = "not limited (running as root: RLIMIT_NPROC does not bind root)" if self.root else "RLIMIT_NPROC (counted per user)"
        memory = f"cgroup v{cg.version} memory (all the bot's processes together)" if cg and cg.memory else "RLIMIT_AS per process"
        cpu = (f"cgroup v{cg.version} cpu: one bounded share for all the bot's processes, whatever their sessions"
               if cg and cg.cpu else "NOT bounded (no writable cgroup cpu controller here): a bot's processes share "
               "the CPU with everyone's, so a bot that spins many processes can slow the others")
        return [
            f"sandbox: bubblewrap {self.bwrap} with user, PID, network, IPC and UTS namespaces",
            "network: none (empty network namespace)",
            "processes: own PID namespace (sees and signals only its own); all killed at match end",
            "files: system runtimes and the bot folder read-only, private scratch, nothing else",
            "privileges: all capabilities dropped, no new privileges, no nested user namespaces",
            f"limit processes: {pids}",
            f"limit memory: {memory}",
            "limit cpu time: RLIMIT_CPU per process",
            f"cpu share: {cpu}",
            f"file locks, leases, watches and sysinfo: refused (seccomp){'' if seccomp.unavailable() is None else ' - NOT AVAILABLE: ' + str(seccomp.unavailable())}",
            "machine-wide counters: /proc/meminfo, stat, vmstat, loadavg, pressure... static in every sandbox",
            "limit file size / open files: RLIMIT_FSIZE / RLIMIT_NOFILE; scratch: tmpfs size",
        ]


def _try_bwrap(path: str) -> str:
    """'' when a minimal sandbox starts, else the reason it does not."""
    argv = [path, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
            "--dev", "/dev", "--cap-drop", "ALL", "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{path} does not start: {exc}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip()[:200]
        return f"{path} cannot create namespaces here ({err or 'status ' + str(done.returncode)}); are user namespaces enabled?"
    return ""


def _delegated(folder: str, controller: str) -> bool:
    """Whether children of a v2 cgroup get `controller`, enabling it when allowed (e.g. a container's root)."""
    try:
        with open(f"{folder}/cgroup.subtree_control") as fh:
            if controller in fh.read().split():
                return True
        with open(f"{folder}/cgroup.controllers") as fh:
            if controller not in fh.read().split():
                return False
        with open(f"{folder}/cgroup.subtree_control", "w") as fh:
            fh.write(f"+{controller}")  # refused (EBUSY) where processes live in a non-root cgroup
        return True
    except OSError:
        return False


def _own_cgroup(controller: str, version: int) -> str | None:
    """The folder of this process's cgroup for `controller`, if we may create children in it."""
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, rel = line.split(":", 2)
        if version == 2 and names == "":
            base = CGROUP_ROOT if os.path.exists(f"{CGROUP_ROOT}/cgroup.controllers") else f"{CGROUP_ROOT}/unified"
        elif version == 1 and controller in names.split(","):
            base = f"{CGROUP_ROOT}/{names}"
        else:
            continue
        folder = os.path.normpath(base + rel)
        if version == 2 and not _delegated(folder, controller):
            return None
        return folder if os.path.isdir(folder) and os.access(folder, os.W_OK) else None
    return None


def probe_cgroups() -> Cgroups | None:
    for version in (2, 1):
        pids, memory, cpu = _own_cgroup("pids", version), _own_cgroup("memory", version), _own_cgroup("cpu", version)
        if pids or memory or cpu:
            return Cgroups(version, pids, memory, cpu)
    return None


@functools.lru_cache(maxsize=1)
def probe() -> Support:
    root = os.geteuid() == 0
    path = shutil.which("bwrap")
    if path is None:
        return Support(None, "bubblewrap (bwrap) is not installed: install the Debian package 'bubblewrap'", root, None)
    reason = _try_bwrap(path)
    return Support(None if reason else path, reason, root, probe_cgroups())


def decide(asked: bool | None) -> tuple[bool, str | None]:
    """Whether to sandbox, from what the user asked (None: the default), and a warning to show first.

    The default is on wherever the sandbox runs; where it cannot, bots run unsandboxed after a clear
    warning. Asking for it explicitly where it cannot run is an error (ConfigError).
    """
    support = probe()
    if asked is False:
        return False, "sandbox off (--no-sandbox): bots run as you, with your files, network and processes"
    if support.sandbox:
        return True, None
    if asked:
        raise ConfigError(f"the sandbox is asked for but cannot run on this machine: {support.reason}")
    return False, f"WARNING: no sandbox on this machine ({support.reason}): bots run as you, with your files and network"
