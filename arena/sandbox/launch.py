"""One sandboxed start of a bot: the command to spawn, and after it ends, which limit (if any) ended it.

The referee's process start (and check-bot's) calls `Launch.prepare` and then `Launch.popen` instead
of starting the bot's own command; `finish` kills whatever is left and removes the bot's cgroups.

File descriptors go to bwrap: the static /proc counters (counters.py, `--ro-bind-data`), its options (`--args FD`, so that /proc/1/cmdline in the
sandbox, which is bwrap's, lists no host paths), the seccomp filter (`--seccomp FD`), and the write
end of the bot's stdout pipe. bwrap's own stdout is /dev/null: bwrap's processes close every inherited
descriptor above 2, and bash in front of the bot moves the pipe to the bot's fd 1, so when the bot
closes its stdout (or dies) no other process holds the pipe and the referee reads end-of-file at once.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from arena.exits import describe_exit, signal_of
from arena.errors import BotStartError
from arena.sandbox import bwrap, counters, seccomp
from arena.sandbox.limits import BotLimits
from arena.sandbox.policy import SCRATCH_PATH, SandboxPolicy
from arena.sandbox.probe import probe

# Arguments that name a script the bot's interpreter will open: checked before the start, so that a
# mistyped path is reported as the host path the user wrote, not as the sandbox sees it.
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".lua", ".jar", ".php", ".sh")


def is_script(arg: str) -> bool:
    return not arg.startswith("-") and arg.lower().endswith(SCRIPT_SUFFIXES)


def missing_script(command: Sequence[str], cwd: str | None) -> str | None:
    """What is wrong when an argument of `command` names a script file that is not there (None if all
    are): the path as written and the host path it was looked for at."""
    base = os.path.abspath(cwd or os.getcwd())
    for arg in command[1:]:
        if is_script(arg):
            host = os.path.normpath(os.path.join(base, arg))
            if not os.path.isfile(host):
                where = "" if os.path.isabs(arg) else f" (the path {arg!r} is read from the folder {base})"
                return f"no file {host}{where}: check the script's path"
    return None


# Words a runtime prints when an rlimit refused it something (no cgroup to count it for us).
_STDERR_HINTS = (
    ("memory", ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc", "OutOfMemoryError")),
    ("disk", ("No space left on device", "File too large")),
    ("processes", ("Resource temporarily unavailable", "can't start new thread", "fork: retry")),
)


def _shim(fd: int) -> tuple[str, ...]:
    """Run inside the sandbox in front of the bot: make the pipe at `fd` its stdout, then exec it.
    bash, not sh: dash redirects only descriptors 0 to 9 (bash is essential on Debian)."""
    return ("/bin/bash", "--noprofile", "--norc", "-c", f'exec 1>&{fd} {fd}>&- || exit 126; exec "$@"', "bash")


@dataclass
class Launch:
    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str | None
    limits: BotLimits
    fds: list[int] = field(default_factory=list)  # passed to bwrap: options, seccomp filter, stdout's write end
    stdout_fd: int | None = None  # the read end of the bot's stdout pipe, for the referee

    @classmethod
    def prepare(cls, name: str, command: Sequence[str], cwd: str | None, env: Mapping[str, str], policy: SandboxPolicy,
                cpu_seconds: int | None, memory_mb: int | None) -> "Launch":
        support = probe()
        if support.bwrap is None:
            raise BotStartError(f"bot {name!r}: the sandbox is asked for but cannot run here: {support.reason} "
                                "(or run trusted bots with the sandbox off: --no-sandbox / sandbox: false)")
        program = command[0] if command else ""
        path_env = env.get("PATH") or os.environ.get("PATH") or bwrap.DEFAULT_PATH
        if not (os.path.isfile(os.path.join(cwd or ".", program)) if "/" in program else shutil.which(program, path=path_env)):
            raise BotStartError(f"bot {name!r}: cannot start {' '.join(command)!r}: {program!r} not found "
                                "(check the path, or give the interpreter, e.g. 'python3 bot.py')")
        problem = missing_script(command, cwd)
        if problem is not None:
            raise BotStartError(f"bot {name!r}: cannot start {' '.join(command)!r}: {problem}")
        limits = BotLimits.make(policy, cpu_seconds, memory_mb, support.cgroups, support.root)
        launch = cls((), {}, None, limits)
        try:
            shown: list[tuple[int, str]] = []
            if policy.hide_counters:
                shown = counters.data_fds(limits.memory_mb)
                launch.fds.extend(fd for fd, _ in shown)
            cmd = bwrap.build(support.bwrap, tuple(command), cwd, env, policy, limits.inner_prefix(), name, shown)
            extra: tuple[str, ...] = ()
            if policy.refuse_locks:
                filter_fd = seccomp.filter_fd()
                launch.fds.append(filter_fd)
                extra = ("--seccomp", str(filter_fd))
            options = os.memfd_create("arena-bwrap-args", 0)  # inherited by bwrap, read from offset 0
            launch.fds.append(options)
            os.write(options, b"".join(arg.encode() + b"\0" for arg in (*cmd.options, *extra)))
            os.lseek(options, 0, os.SEEK_SET)
            launch.stdout_fd, write_end = os.pipe2(os.O_CLOEXEC)
            os.set_inheritable(write_end, True)
            launch.fds.append(write_end)
        except BaseException:
            launch.finish()
            raise
        launch.argv = (*cmd.bwrap, "--args", str(options), "--", *_shim(write_end), *cmd.inner)
        launch.env = cmd.env
        return launch

    def popen(self) -> "subprocess.Popen[bytes]":
        """Start bwrap; the Popen's `stdout` is the bot's stdout (see the module's docstring)."""
        try:
            proc = subprocess.Popen(
                list(self.argv), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                env=dict(self.env), bufsize=0, close_fds=True, pass_fds=tuple(self.fds), start_new_session=True,
                preexec_fn=self.preexec,
            )
        except BaseException:
            self.finish()
            raise
        self._close_fds()
        assert self.stdout_fd is not None
        proc.stdout = os.fdopen(self.stdout_fd, "rb", buffering=0)
        self.stdout_fd = None
        return proc

    def _close_fds(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds.clear()

    @property
    def preexec(self) -> Callable[[], None]:
        return self.limits.preexec()

    @staticmethod
    def signal_of(returncode: int | None) -> int | None:
        """The signal that ended the bot: bwrap exits with 128 + N when its child died of signal N."""
        return signal_of(returncode, sandboxed=True)

    def describe_exit(self, returncode: int | None) -> str:
        return describe_exit(returncode, sandboxed=True)

    def limit_hit(self, returncode: int | None, stderr_tail: Sequence[str]) -> str | None:
        """Which sandbox limit ended (or hobbled) the bot, in words for a fault detail; None if none did."""
        policy = self.limits.policy
        words = {
            "memory": f"memory: over its limit of {self.limits.memory_mb} MB",
            "processes": f"processes: over its limit of {policy.processes} processes",
            "disk": f"disk: over its file-size limit of {policy.file_size_mb} MB or its {policy.scratch_mb} MB scratch {SCRATCH_PATH}",
            "cpu": f"cpu: over its CPU-time limit of {self.limits.cpu_seconds} s",
        }
        sig = self.signal_of(returncode)
        if sig == signal.SIGXCPU:  # a SIGKILL alone cannot be told from the referee's own kill
            return words["cpu"]
        if sig == signal.SIGXFSZ:
            return words["disk"]
        events = self.limits.events()
        if events:
            return words[events[0]]
        text = "\n".join(stderr_tail)
        for kind, hints in _STDERR_HINTS:
            if any(h in text for h in hints):
                return words[kind]
        return None

    def finish(self) -> None:
        self._close_fds()
        if self.stdout_fd is not None:
            os.close(self.stdout_fd)
            self.stdout_fd = None
        self.limits.kill_all()
        self.limits.cleanup()
