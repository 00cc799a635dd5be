"""The seccomp filter every sandboxed bot runs under: file locks, leases and file watches refused.

Two bots of different games share the read-only system files (/usr, the runtimes). A lock on one of
them (`flock`, `fcntl` record locks, open file description locks) or a lease is seen by any other
process that tries or tests the same lock, and a file watch (`inotify`, `fcntl(F_NOTIFY)`) sees another
process open or read a file: each is a channel between colluding entrants. So is `sysinfo(2)`: its
shared and free memory are the machine's (the `Shmem` line of /proc/meminfo, which counters.py hides,
by another door), and nothing in a namespace changes them. The filter refuses those calls with EPERM;
everything else is allowed. (Without sysinfo, glibc's `sysconf(_SC_PHYS_PAGES)` is not meaningful;
runtimes read memory from /proc/meminfo, which shows the bot's limit: node, the JVM and Python start.) It is compiled by libseccomp (through its Python
bindings, `pyseccomp`) into BPF, which bubblewrap loads with `--seccomp FD` before running the bot.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os

from arena.errors import BotStartError

# fcntl commands that take, test or watch a lock, a lease or a folder (Linux numbers).
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
LOCK_COMMANDS = (fcntl.F_GETLK, fcntl.F_SETLK, fcntl.F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW,
                 F_SETLEASE, F_GETLEASE, F_NOTIFY)
REFUSED_CALLS = ("flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "sysinfo")


def unavailable() -> str | None:
    """Why the filter cannot be built here (libseccomp or its bindings missing), else None."""
    try:
        _bpf()
    except (ImportError, OSError, RuntimeError) as exc:
        return f"libseccomp is not usable ({exc}): install the Debian package libseccomp2 and the pyseccomp package"
    return None


@functools.lru_cache(maxsize=1)
def _bpf() -> bytes:
    import pyseccomp as sc  # ctypes over libseccomp.so.2; imported here so a missing library is a clear error

    flt = sc.SyscallFilter(sc.ALLOW)
    native = sc.system_arch()
    for arch in (sc.Arch.X86_64, sc.Arch.X86, sc.Arch.X32) if native == sc.Arch.X86_64 else ():
        if arch != native:
            flt.add_arch(arch)  # a 32-bit binary calls the same functions by other numbers: refuse them there too
    refuse = sc.ERRNO(errno.EPERM)
    for call in REFUSED_CALLS:
        flt.add_rule(refuse, call)
    for name in ("fcntl", "fcntl64"):
        for command in LOCK_COMMANDS:
            try:
                flt.add_rule(refuse, name, sc.Arg(1, sc.EQ, command))
            except OSError:
                if name == "fcntl":
                    raise  # fcntl64 exists only on 32-bit architectures
    with os.fdopen(os.memfd_create("arena-seccomp-export", os.MFD_CLOEXEC), "w+b") as fh:
        flt.export_bpf(fh)
        fh.seek(0)
        return fh.read()


def filter_fd() -> int:
    """A file descriptor (to pass to bwrap's `--seccomp`) holding the filter's BPF; the caller closes it."""
    try:
        program = _bpf()
    except (ImportError, OSError, RuntimeError) as exc:
        raise BotStartError(f"the sandbox cannot refuse file locks here: libseccomp is not usable ({exc}); "
                            "install libseccomp2 (Debian) and the pyseccomp package (`make setup` does both)") from None
    fd = os.memfd_create("arena-seccomp", 0)  # inherited by bwrap (not close-on-exec), read from offset 0
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
