"""The machine-wide counters of /proc, replaced in every sandbox by static files of the same shape.

Why: a sandbox has /proc of its own PID namespace, but some of its files count for the whole machine:
/proc/meminfo (its `Shmem` line grows when any process writes to any tmpfs, its `Cached` when any
process reads a file), /proc/stat, /proc/vmstat, /proc/loadavg, /proc/uptime (the machine's idle time),
/proc/pressure/*, the interrupt and disk counters. Two bots alive at once can signal through any of
them: one writes and deletes files in its own /scratch, the other watches `Shmem` move. So each of
those files is bound over, read-only, by a file built here: the host's own layout (the same keys, the
same number of CPUs, so runtimes that parse them still start) with fixed values that no process can
change. Memory is shown as the bot's own memory limit, free.

Every sandbox gets the same bytes (nothing in them depends on the moment), built once per process.
"""

from __future__ import annotations

import functools
import os
import re

DEFAULT_MEMORY_MB = 4096  # MemTotal shown when the bot has no memory limit
BOOT = 1_700_000_000  # `btime` shown: a fixed moment, not the host's
# The files replaced, when the host has them (a bind needs the file to exist in the sandbox's /proc).
FILES = (
    "/proc/meminfo", "/proc/stat", "/proc/vmstat", "/proc/loadavg", "/proc/uptime", "/proc/pressure/cpu",
    "/proc/pressure/memory", "/proc/pressure/io", "/proc/diskstats", "/proc/interrupts", "/proc/softirqs",
    "/proc/schedstat", "/proc/zoneinfo", "/proc/buddyinfo", "/proc/swaps", "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state",
)


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _cpus() -> int:
    """How many `cpuN` lines the host's /proc/stat has (glibc counts them when /sys is not shown)."""
    return max(1, sum(1 for line in _read("/proc/stat").splitlines() if re.match(r"cpu\d+ ", line)))


def meminfo(memory_mb: int) -> str:
    """The host's keys (so parsers find what they expect), each at a fixed value: the bot's memory,
    all of it free and available, nothing cached, shared, dirty or swapped."""
    total = memory_mb * 1024
    fixed = {"MemTotal": total, "MemFree": total, "MemAvailable": total, "Hugepagesize": 2048,
             "Hugetlb": 0, "DirectMap4k": total}
    lines = []
    for line in _read("/proc/meminfo").splitlines() or ["MemTotal: 0 kB", "MemFree: 0 kB", "MemAvailable: 0 kB"]:
        key, _, rest = line.partition(":")
        unit = " kB" if rest.strip().endswith("kB") else ""
        value = fixed.get(key, 0)
        lines.append(f"{key + ':':<16}{value:>8}{unit}")
    return "\n".join(lines) + "\n"


def stat(cpus: int) -> str:
    zeros = " ".join(["0"] * 10)
    cpu_lines = [f"cpu  {zeros}"] + [f"cpu{i} {zeros}" for i in range(cpus)]
    return "\n".join(cpu_lines + ["intr 0", "ctxt 0", f"btime {BOOT}", "processes 1", "procs_running 1",
                                  "procs_blocked 0", "softirq 0 0 0 0 0 0 0 0 0 0 0"]) + "\n"


def _zeroed(text: str) -> str:
    """`key value` lines (vmstat) with every value 0."""
    return "".join(f"{line.split()[0]} 0\n" for line in text.splitlines() if line.split())


def _per_cpu(text: str, cpus: int) -> str:
    """/proc/interrupts and /proc/softirqs: the header of CPU names, then each row's counts at 0."""
    rows = text.splitlines()
    head = rows[0] if rows else "".join(f"       CPU{i}" for i in range(cpus))
    out = [head]
    for row in rows[1:]:
        name, _, rest = row.partition(":")
        words = rest.split()
        label = " ".join(words[cpus:]) if len(words) > cpus and not words[cpus].isdigit() else ""
        out.append(f"{name}:" + "".join(f"{0:>11}" for _ in range(cpus)) + (f"   {label}" if label else ""))
    return "\n".join(out) + "\n"


PRESSURE = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"


@functools.lru_cache(maxsize=8)
def files(memory_mb: int | None) -> tuple[tuple[str, bytes], ...]:
    """(path in the sandbox, its static content) for every replaced file the host has."""
    cpus = _cpus()
    texts = {
        "/proc/meminfo": meminfo(memory_mb or DEFAULT_MEMORY_MB),
        "/proc/stat": stat(cpus),
        "/proc/vmstat": _zeroed(_read("/proc/vmstat")),
        "/proc/loadavg": "0.00 0.00 0.00 1/1 1\n",
        "/proc/uptime": "1000.00 1000.00\n",
        "/proc/pressure/cpu": PRESSURE,
        "/proc/pressure/memory": PRESSURE,
        "/proc/pressure/io": PRESSURE,
        "/proc/diskstats": "",
        "/proc/interrupts": _per_cpu(_read("/proc/interrupts"), cpus),
        "/proc/softirqs": _per_cpu(_read("/proc/softirqs"), cpus),
        "/proc/schedstat": "version 15\ntimestamp 0\n" + "".join(f"cpu{i} 0 0 0 0 0 0 0 0 0\n" for i in range(cpus)),
        "/proc/zoneinfo": "",
        "/proc/buddyinfo": "",
        "/proc/swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
        "/proc/sys/fs/file-nr": "0\t0\t1048576\n",
        "/proc/sys/fs/inode-nr": "0\t0\n",
        "/proc/sys/fs/dentry-state": "0\t0\t45\t0\t0\t0\n",
    }
    return tuple((path, texts[path].encode("ascii")) for path in FILES if os.path.exists(path))


def data_fds(memory_mb: int | None) -> list[tuple[int, str]]:
    """A memfd holding each file (inheritable, at offset 0, for bwrap's `--ro-bind-data FD PATH`) and
    its path; the caller passes them to bwrap and closes them."""
    out = []
    try:
        for path, content in files(memory_mb):
            fd = os.memfd_create("arena-counters", 0)
            out.append((fd, path))
            os.write(fd, content)
            os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        for fd, _ in out:
            os.close(fd)
        raise
    return out
