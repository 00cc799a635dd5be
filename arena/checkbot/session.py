"""check-bot's end of one bot process, on the referee's own process and pipe code.

The referee hides what a checker must see (every line, its exact time, the exit after shutdown), and
never sends what a checker must send (unknown message types and members). So check-bot speaks to the
bot itself, but through the referee's pieces: `arena.referee.process.spawn` starts it (under the
tournament's `Limits`: memory and CPU bounded as in a tournament), in the sandbox prepared by the same
`Launch.prepare`, and `arena.referee.pipe.Pipes` frames its stdout lines and keeps its stderr tail.
What is checked is therefore what a tournament runs. The bot runs in its own process group, which
`close` always kills; sandboxed, memory is summed and processes killed over the whole tree, then the
sandbox's own teardown (`Launch.finish`) runs.

The protocol (what is sent, what a reply must be) is `arena.checkbot.driver`/`runner`: they speak to
any `BotSession`-shaped object, so a fake pipe drives them in tests.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from arena.core.limits import Limits
from arena.errors import BotStartError
from arena.jsonvalue import JSON, dumps_line, loads
from arena.core.clock import Clock
from arena.referee.pipe import Pipes, Poller
from arena.referee.process import spawn
from arena.sandbox.launch import Launch
from arena.sandbox.policy import SandboxPolicy
from arena.textsafe import clean, clean_bytes

MAX_LINE_BYTES = Limits().max_line_bytes  # the protocol's limit on a bot's line
RAW_CHARS = 200  # a stray stdout line is quoted up to this many characters


SANDBOX_POLICY = SandboxPolicy()  # check-bot's sandbox: the safe defaults a tournament starts from


def sandbox_launch(command: Sequence[str], cwd: str | None, env: Mapping[str, str], sandbox: bool,
                   limits: Limits = Limits()) -> Launch | None:
    """The single place where check-bot puts a bot in the sandbox: the referee's own bwrap launch
    (arena/sandbox/launch.py) with `SANDBOX_POLICY` and the limits; None runs the bot as a plain child process."""
    if not sandbox:
        return None
    return Launch.prepare(_name(command), command, cwd, env, SANDBOX_POLICY, limits.cpu_seconds, limits.memory_mb)


def _name(command: Sequence[str]) -> str:
    return clean(os.path.basename(command[0]) if command else "", 60)


@dataclass(frozen=True)
class Line:
    """One thing read from the bot's stdout: a decoded message, or `raw` text that was not JSON.

    `eof` marks the end of its stdout; `timeout` that nothing complete arrived before the deadline.
    """

    at: float
    message: JSON = None
    raw: str | None = None
    eof: bool = False
    timeout: bool = False

    @property
    def is_json(self) -> bool:
        return not (self.eof or self.timeout) and self.raw is None


def decode_line(data: bytes | None, now: float, limit: int = MAX_LINE_BYTES) -> Line:
    """A line framed by the referee's `LineReader` (None: over `limit` bytes, dropped) as a `Line`."""
    if data is None:
        return Line(now, raw=f"a line over {limit} bytes")
    if data.endswith(b"\r"):
        data = data[:-1]
    try:
        return Line(now, message=loads(data))
    except ValueError:
        return Line(now, raw=clean_bytes(data, RAW_CHARS))


class BotPipe(Protocol):
    """What check-bot's protocol side (`driver`, `runner.handshake`, `runner.shutdown`) needs of a bot:
    `BotSession` over a real process, or a fake pipe in tests."""

    started_at: float

    def clock(self) -> float: ...

    def send(self, message: Mapping[str, JSON], timeout: float = 5.0) -> bool: ...

    def next_line(self, deadline: float) -> Line: ...

    def drain(self, seconds: float = 0.0) -> list[Line]: ...

    def wait_exit(self, seconds: float) -> int | None: ...

    def exit_code(self) -> int | None: ...

    def close_stdin(self) -> None: ...

    def stderr_tail(self) -> tuple[str, ...]: ...


class BotSession:
    """One bot process and its pipes (a `BotPipe`). Not thread-safe; `close` in a `finally`."""

    def __init__(self, command: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None,
                 sandbox: bool = False, limits: Limits = Limits(), clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.limits = limits
        self.launch = sandbox_launch(command, cwd, env or {}, sandbox, limits)
        self.started_at = clock()
        try:
            self.proc = spawn(_name(command), command, cwd, env or {}, limits, self.launch)
        except BotStartError:
            if self.launch is not None:
                self.launch.finish()
            raise
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.pipes = Pipes(self.proc.stdin, self.proc.stdout, self.proc.stderr, limits, self)
        self._sel = Poller()
        self.pipes.attach(self._sel)
        self._lines: collections.deque[Line] = collections.deque()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def stdin_closed(self) -> bool:
        return self.pipes.broken_pipe

    def stderr_tail(self) -> tuple[str, ...]:
        return self.pipes.tail.lines()

    def exit_code(self) -> int | None:
        return self.proc.poll()

    # --- writing ----------------------------------------------------------------------------------

    def send(self, message: Mapping[str, JSON], timeout: float = 5.0) -> bool:
        """Write one message within `timeout` seconds; False if the bot no longer reads its stdin.
        Any message, known to the protocol or not: the probes send unknown types and members."""
        if not self.pipes.send(dumps_line(dict(message))):
            return False
        deadline = self.clock() + timeout
        while self.pipes.pending and not self.pipes.broken_pipe:
            remaining = deadline - self.clock()
            if remaining <= 0:
                return False
            self._pump(min(remaining, 0.05))  # a bot blocked on a full stdout pipe must be able to go on
        return not self.pipes.broken_pipe

    def close_stdin(self) -> None:
        self.pipes.close_stdin()

    # --- reading ----------------------------------------------------------------------------------

    def next_line(self, deadline: float) -> Line:
        """The next complete stdout line, or an eof / timeout marker (stderr is drained meanwhile)."""
        while not self._lines:
            if self.pipes.out_eof:
                return Line(self.clock(), eof=True)
            remaining = deadline - self.clock()
            if remaining <= 0:
                return Line(self.clock(), timeout=True)
            self._pump(remaining)
        return self._lines.popleft()

    def drain(self, seconds: float = 0.0) -> list[Line]:
        """Every line available within `seconds` (stray output between messages)."""
        deadline = self.clock() + seconds
        self._pump(max(0.0, seconds))
        while self.clock() < deadline and not self.pipes.out_eof:
            self._pump(deadline - self.clock())
        lines = list(self._lines)
        self._lines.clear()
        return lines

    def _pump(self, timeout: float) -> None:
        raw = self.pipes.pump(self._sel, timeout)
        if raw:
            now = self.clock()
            self._lines.extend(decode_line(data, now, self.limits.max_line_bytes) for data in raw)

    # --- resources and the end --------------------------------------------------------------------

    def tree(self) -> list[int]:
        """The bot's pid and those of every process under it (a wrapper, a sandbox, or children that
        left its process group); just its own pid without /proc."""
        if not os.path.isdir("/proc/self"):
            return [self.pid]
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as fh:
                        stat = fh.read()
                    children.setdefault(int(stat[stat.rfind(b")") + 2:].split()[1]), []).append(int(entry))
                except (OSError, ValueError, IndexError):
                    continue
        found, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children.get(pid, ()))
        return found

    def group_rss_kb(self) -> int | None:
        """Resident memory (VmRSS) summed over `tree()`, or None without /proc."""
        total, found = 0, False
        for pid in self.tree():
            try:
                with open(f"/proc/{pid}/status", "rb") as fh:
                    for row in fh:
                        if row.startswith(b"VmRSS:"):
                            total += int(row.split()[1])
                            found = True
            except (OSError, ValueError, IndexError):
                continue
        return total if found else None

    def wait_exit(self, seconds: float) -> int | None:
        """Wait up to `seconds` for the process to exit, draining its pipes; its status or None."""
        deadline = self.clock() + seconds
        while True:
            code = self.proc.poll()
            if code is not None:
                return code
            remaining = deadline - self.clock()
            if remaining <= 0:
                return None
            self._pump(min(remaining, 0.01))

    def close(self) -> None:
        """Kill the bot's process group and every process under it, and reap it; idempotent."""
        stray = self.tree()[1:] if self.proc.poll() is None else []
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in stray:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(5.0)
        except subprocess.TimeoutExpired:
            pass
        if self.launch is not None:
            self.launch.finish()  # whatever is left in its cgroups, then the cgroups themselves
            self.launch = None
        self.pipes.detach()
        self._sel.close()
        self.pipes.close()
