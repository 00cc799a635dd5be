"""A protocol session with one bot process, lower-level than the referee's, for conformance probes.

The referee hides what a checker must see (every line, its exact time, the exit after shutdown), and
never sends what a checker must send (unknown message types and members). So check-bot speaks to the
bot itself: `subprocess` plus the message builders of `arena.protocol` and the canonical encoder.
Pipes are read with `select` and `os.read` into bounded buffers; the bot runs in its own process
group, which `close` always kills. Sandboxed, the process started is bubblewrap, and the bot one of
its descendants: memory is summed and processes killed over the whole tree, then the sandbox's own
teardown (`Launch.finish`) runs.
"""

from __future__ import annotations

import collections
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from arena.errors import BotStartError
from arena.jsonvalue import JSON, dumps_line, loads
from arena.sandbox.launch import Launch
from arena.sandbox.policy import SandboxPolicy
from arena.textsafe import clean, clean_bytes

MAX_LINE_BYTES = 1_000_000  # the protocol's limit on a bot's line
STDERR_TAIL = 20
RAW_CHARS = 200  # a stray stdout line is quoted up to this many characters
Clock = Callable[[], float]


SANDBOX_POLICY = SandboxPolicy()  # check-bot's sandbox: the safe defaults a tournament starts from


def sandbox_launch(command: Sequence[str], cwd: str | None, env: Mapping[str, str], sandbox: bool) -> Launch | None:
    """The single place where check-bot puts a bot in the sandbox: the referee's own bwrap launch
    (arena/sandbox/launch.py) with `SANDBOX_POLICY`; None runs the bot as a plain child process."""
    if not sandbox:
        return None
    name = clean(os.path.basename(command[0]) if command else "", 60)
    return Launch.prepare(name, command, cwd, env, SANDBOX_POLICY, None, None)


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


class LineSplitter:
    """Bytes from a pipe into `Line`s, holding at most MAX_LINE_BYTES of a partial line: a longer line
    becomes one marker the moment it is known to be too long, and its rest is dropped up to its newline."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes, now: float) -> list[Line]:
        lines: list[Line] = []
        parts = data.split(b"\n")
        for part in parts[:-1]:
            if self._discarding:  # the rest of a line already reported as too long
                self._discarding = False
                continue
            if len(self._buf) + len(part) > MAX_LINE_BYTES:
                lines.append(Line(now, raw=f"a line over {MAX_LINE_BYTES} bytes"))
            else:
                self._buf += part
                lines.append(self._decode(bytes(self._buf), now))
            self._buf.clear()
        if not self._discarding:
            self._buf += parts[-1]
            if len(self._buf) > MAX_LINE_BYTES:
                lines.append(Line(now, raw=f"a line over {MAX_LINE_BYTES} bytes"))
                self._buf.clear()
                self._discarding = True
        return lines

    @staticmethod
    def _decode(data: bytes, now: float) -> Line:
        if data.endswith(b"\r"):
            data = data[:-1]
        try:
            return Line(now, message=loads(data))
        except ValueError:
            return Line(now, raw=clean_bytes(data, RAW_CHARS))


class BotSession:
    """One bot process and its pipes. Not thread-safe; `close` in a `finally`."""

    def __init__(self, command: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None,
                 sandbox: bool = False, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.launch = sandbox_launch(command, cwd, env or {}, sandbox)
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.started_at = clock()
        try:
            if self.launch is not None:
                self.proc = self.launch.popen()
            else:
                self.proc = subprocess.Popen(
                    list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    cwd=cwd, env=full_env, bufsize=0, close_fds=True, start_new_session=True,
                )
        except OSError as exc:
            if self.launch is not None:
                self.launch.finish()
            raise BotStartError(f"cannot start {' '.join(command)!r}: {exc.strerror or exc} (check the path, "
                                "or give the interpreter, e.g. 'python3 bot.py')") from exc
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out, selectors.EVENT_READ)
        self._sel.register(self._err, selectors.EVENT_READ)
        self._splitter = LineSplitter()
        self._lines: collections.deque[Line] = collections.deque()
        self._tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._err_buf = bytearray()
        self.out_eof = False
        self.stdin_closed = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stderr_tail(self) -> tuple[str, ...]:
        return tuple(self._tail)

    def exit_code(self) -> int | None:
        return self.proc.poll()

    # --- writing ----------------------------------------------------------------------------------

    def send(self, message: Mapping[str, JSON], timeout: float = 5.0) -> bool:
        """Write one message within `timeout` seconds; False if the bot no longer reads its stdin."""
        if self.stdin_closed:
            return False
        data = memoryview(dumps_line(dict(message)))
        deadline = self.clock() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self._in, selectors.EVENT_WRITE)
            while data:
                try:
                    written = os.write(self._in, data)
                except BlockingIOError:
                    written = 0
                except OSError:
                    self.stdin_closed = True
                    return False
                data = data[written:]
                if data:
                    remaining = deadline - self.clock()
                    if remaining <= 0:
                        return False
                    sel.select(min(remaining, 0.05))
                    self._pump(0)  # a bot blocked on a full stdout pipe must be able to go on
        return True

    def close_stdin(self) -> None:
        if not self.stdin_closed and self.proc.stdin is not None:
            self.stdin_closed = True
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    # --- reading ----------------------------------------------------------------------------------

    def next_line(self, deadline: float) -> Line:
        """The next complete stdout line, or an eof / timeout marker (stderr is drained meanwhile)."""
        while not self._lines:
            if self.out_eof:
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
        while self.clock() < deadline and not self.out_eof:
            self._pump(deadline - self.clock())
        lines = list(self._lines)
        self._lines.clear()
        return lines

    def _pump(self, timeout: float) -> None:
        for key, _ in self._sel.select(timeout):
            if key.fd == self._err:
                self._read_err()
            else:
                self._read_out()

    def _read_out(self) -> None:
        try:
            data = os.read(self._out, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.out_eof = True
            self._sel.unregister(self._out)
            return
        self._lines.extend(self._splitter.feed(data, self.clock()))

    def _read_err(self) -> None:
        try:
            data = os.read(self._err, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._sel.unregister(self._err)
            return
        parts = (bytes(self._err_buf) + data).split(b"\n")
        for part in parts[:-1]:
            self._tail.append(clean_bytes(part))
        self._err_buf = bytearray(parts[-1][:4096])

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
        self._sel.close()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
