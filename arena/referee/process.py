"""A bot's process group: the one place a bot process is started, and its killing and reaping.

`spawn` is the single entry point that turns an argv into a running child (a sandbox wraps the argv
there). The child leads its own session, so `os.killpg` ends everything it started.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from typing import Callable, Mapping, Sequence

from arena.errors import BotStartError
from arena.core.limits import Limits
from arena.sandbox.launch import Launch, missing_script


def resource_limiter(limits: Limits) -> Callable[[], None] | None:
    """The preexec function that sets the child's limits, or None when there are none.

    preexec_fn forces fork+exec instead of the faster vfork path, so it is only used when needed.
    """
    if limits.cpu_seconds is None and limits.memory_mb is None:
        return None
    # Everything is computed before the fork: between fork and exec the child should do as little as
    # possible (another thread of the parent may hold a lock at fork time).
    settings = []
    if limits.cpu_seconds is not None:  # SIGXCPU at the soft limit, SIGKILL a second later
        settings.append((resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)))
    if limits.memory_mb is not None:
        size = limits.memory_mb * 1024 * 1024
        settings.append((resource.RLIMIT_AS, (size, size)))
    setrlimit = resource.setrlimit

    def limit() -> None:
        for which, values in settings:
            setrlimit(which, values)

    return limit


def spawn(
    name: str, argv: Sequence[str], cwd: str | None, env: Mapping[str, str], limits: Limits, launch: Launch | None = None
) -> "subprocess.Popen[bytes]":
    """Start `argv` with piped stdio in a new session under `limits`; `env` is added to os.environ.
    With a sandbox `launch` (prepared from the same argv), bubblewrap's argv, clean environment and
    limits are used instead.

    Raises BotStartError saying what to fix. This is the only place a bot process is created.
    """
    if not argv:
        raise BotStartError(f"bot {name!r}: empty command")
    problem = missing_script(argv, cwd) if launch is None else None  # a launch has checked it
    if problem is not None:
        raise BotStartError(f"bot {name!r}: cannot start {' '.join(argv)!r}: {problem}")
    run_argv, run_cwd, preexec = list(argv), cwd, resource_limiter(limits)
    full_env = dict(os.environ)
    full_env.update(env)
    try:
        if launch is not None:
            return launch.popen()
        return subprocess.Popen(
            run_argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=run_cwd,
            env=full_env,
            bufsize=0,
            close_fds=True,
            start_new_session=True,
            preexec_fn=preexec,
        )
    except FileNotFoundError as exc:
        missing = cwd if cwd and not os.path.isdir(cwd) else argv[0]
        raise BotStartError(
            f"bot {name!r}: cannot start {' '.join(argv)!r}: {missing!r} not found "
            "(check the path, or give the interpreter, e.g. 'python3 bot.py')"
        ) from exc
    except PermissionError as exc:
        raise BotStartError(f"bot {name!r}: cannot start {argv[0]!r}: permission denied (is it executable? chmod +x)") from exc
    except OSError as exc:
        raise BotStartError(f"bot {name!r}: cannot start {' '.join(argv)!r}: {exc.strerror or exc}") from exc


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


def group_alive(pgid: int) -> bool:
    """Whether a process group still has a live (non-zombie) member.

    `os.killpg(pgid, 0)` also counts zombies, and in a container whose init does not reap, orphaned
    zombies stay forever; they hold no resources, so /proc is consulted to ignore them.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return bool(live_group_members(pgid)) if os.path.isdir("/proc/self") else True


def live_group_members(pgid: int) -> list[int]:
    """Pids of non-zombie processes in group `pgid` (Linux /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(entry))
    return members


def killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def reap(proc: "subprocess.Popen[bytes]", timeout: float) -> int | None:
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return None


def wait_group_gone(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True
