"""Unpacking an upload in a child process with memory and CPU limits (rlimits).

`archive.unpack` counts every byte, but it parses what a participant sent: a mistake there, or in
`zipfile`, `tarfile` or zlib, should cost one child process, never the server's memory. The child
(`python -m arena.ladder.uploads.unpacker`) sets RLIMIT_AS, RLIMIT_CPU and RLIMIT_FSIZE on itself before it
reads a byte of the archive (from stdin), unpacks into the new folder named on its command line and
answers one JSON line: {"ok": true, "peak_rss_kb": N} or {"refused": REASON, "peak_rss_kb": N}.
A child that dies (out of memory, out of CPU time, killed) is a refusal saying which; nothing is left.
"""

from __future__ import annotations

import errno
import json
import resource
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.errors import SubmissionRefused
from arena.ladder.uploads.archive import ArchiveLimits, unpack
from arena.ladder.uploads.storage import remove_tree

WALL_FACTOR = 3.0  # the wall-clock bound, a multiple of the CPU limit (the machine may be busy)


@dataclass(frozen=True)
class Unpacked:
    peak_rss_kb: int  # the child's peak resident memory


def unpack_isolated(data: bytes, dest: Path, limits: ArchiveLimits) -> Unpacked:
    """Unpack `data` into the new folder `dest` in a child process; a refusal leaves nothing behind."""
    argv = [sys.executable, "-m", "arena.ladder.uploads.unpacker", str(dest), json.dumps(asdict(limits))]
    wall = limits.unpack_cpu_s * WALL_FACTOR + 5
    try:
        proc = subprocess.run(argv, input=data, capture_output=True, timeout=wall)
    except subprocess.TimeoutExpired:
        remove_tree(dest)
        raise SubmissionRefused(f"unpacking the archive took more than {wall:.0f} s; the server gave up on it") from None
    answer = _answer(proc.stdout)
    if "ok" in answer and proc.returncode == 0:
        return Unpacked(int(str(answer.get("peak_rss_kb", 0))))
    remove_tree(dest)
    if "refused" in answer:
        raise SubmissionRefused(str(answer["refused"]))
    raise SubmissionRefused(_death(proc.returncode, proc.stderr, limits))


def _answer(out: bytes) -> dict[str, object]:
    try:
        value = json.loads(out.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _death(code: int, err: bytes, limits: ArchiveLimits) -> str:
    if code == -signal.SIGXCPU:
        return f"unpacking the archive used more than {limits.unpack_cpu_s} s of CPU; the server gave up on it"
    if b"MemoryError" in err:
        return _memory(limits)
    if code == -signal.SIGXFSZ:
        return f"a file in the archive is over {limits.max_file_bytes} bytes unpacked"
    return f"the archive could not be unpacked (the unpacker ended with status {code}); try packing it again"


def _memory(limits: ArchiveLimits) -> str:
    return f"unpacking the archive needed more than {limits.unpack_memory_mb} MB of memory; the server gave up on it"


def _peak_rss_kb() -> int:
    """This process's peak resident memory since its exec (VmHWM; getrusage's ru_maxrss keeps the forking
    parent's peak across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _limit_self(limits: ArchiveLimits) -> None:
    mem = limits.unpack_memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.unpack_cpu_s, limits.unpack_cpu_s + 1))
    size = limits.max_file_bytes + 1
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child(argv: list[str]) -> int:
    dest, raw = Path(argv[0]), json.loads(argv[1])
    limits = ArchiveLimits(**raw)
    _limit_self(limits)
    data = sys.stdin.buffer.read()  # bounded by the server's request limit
    try:
        unpack(data, dest, limits)
        answer: dict[str, object] = {"ok": True}
    except SubmissionRefused as exc:
        answer = {"refused": str(exc)}
    except MemoryError:
        answer = {"refused": _memory(limits)}
    except OSError as exc:
        if exc.errno == errno.ENOMEM:
            answer = {"refused": _memory(limits)}
        elif exc.errno in (errno.ENOSPC, errno.EDQUOT):  # the server's disk, not the archive
            answer = {"refused": f"the server could not store the unpacked archive ({exc.strerror}); nothing was kept: "
                                 "try again later, and tell the organiser"}
        else:
            raise
    answer["peak_rss_kb"] = _peak_rss_kb()
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
