"""A bot as a child process: start-up and handshake, bounded non-blocking pipe I/O, and teardown.

Every fd is non-blocking and read with `os.read` into bounded buffers, so no bot can make the referee
block or buffer without limit: a line over `Limits.max_line_bytes` is reported and the rest of it is
discarded as it arrives, and stderr is drained into a ring buffer of its last lines. The bot runs in its
own session (process group), so that teardown can kill everything it started with one `os.killpg`.

The referee multiplexes many bots on one `selectors` selector (measured: asyncio costs ~5x per
round-trip on this class of machine, see issue 7); this module only offers the per-bot primitives.
"""

from __future__ import annotations

import collections
import os
import resource
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

from arena import __version__
from arena.errors import BotError, BotStartError
from arena.jsonvalue import dumps_line, loads
from arena.protocol import ProtocolViolation, hello_message, parse_hello, shutdown_message
from arena.referee.clock import TimeControl
from arena.referee.faults import Fault, FaultKind
from arena.sandbox.launch import Launch
from arena.sandbox.policy import SandboxPolicy

READ_CHUNK = 65536
STDERR_LINE_CHARS = 500  # a stderr line kept in the tail is cut to this many characters

OUT, ERR, IN = 0, 1, 2  # selector key data: (bot, which pipe)


@dataclass(frozen=True)
class BotSpec:
    name: str
    command: tuple[str, ...]  # argv; placeholders already substituted
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # added to os.environ (to a clean one in a sandbox)
    sandbox: SandboxPolicy | None = None  # None or disabled: a plain child process


@dataclass(frozen=True)
class Limits:
    """Bounds on one bot: resources set in the child, and what the referee accepts from its pipes."""

    cpu_seconds: int | None = None  # RLIMIT_CPU, over the process's whole life (a whole match): off by default
    memory_mb: int | None = 4096  # RLIMIT_AS (address space, not resident memory: a JVM may need more)
    max_line_bytes: int = 1_000_000
    stderr_tail_lines: int = 20
    max_stderr_bytes_per_game: int = 4_000_000  # more is a flood
    max_unasked_lines_per_game: int = 20  # stdout lines that answer nothing; more is a flood
    # Bytes written to the bot's stdin that it has not read yet. A bot reads each request before it
    # answers, so only one that stopped reading gets near this; without a bound, every later request
    # of the match would pile up in the referee's memory.
    max_unread_bytes: int = 16_000_000

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_mb"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise BotError(f"limit {name} must be a positive number or unset, got {value}")
        if self.max_line_bytes < 1024:
            raise BotError(f"limit max_line_bytes must be at least 1024, got {self.max_line_bytes}")
        if self.max_unread_bytes < 65536:
            raise BotError(f"limit max_unread_bytes must be at least 65536, got {self.max_unread_bytes}")


class Classification:
    """How an answer's id relates to what this bot was asked."""

    ANSWER = "answer"  # the id of the pending request
    LATE = "late"  # the id of a request that already timed out: ignored
    DUPLICATE = "duplicate"  # an id already answered
    UNASKED = "unasked"  # an id never asked (yet): early or made up


def _resource_limiter(limits: Limits) -> Callable[[], None] | None:
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


class LineReader:
    """Splits a byte stream into lines while holding at most `limit` bytes of a partial line.

    A line over the limit is reported as None the moment it is known to be too long, and its remaining
    bytes are dropped as they arrive, up to its newline: a bot cannot make the referee buffer more.
    """

    __slots__ = ("limit", "buf", "discarding")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.discarding = False

    def feed(self, data: bytes) -> list[bytes | None]:
        buf = self.buf
        limit = self.limit
        # Fast path: the usual answer, one whole line in one read.
        if not buf and not self.discarding and data.find(b"\n") == len(data) - 1:
            return [data[:-1]] if len(data) <= limit + 1 else [None]
        lines: list[bytes | None] = []
        start = 0
        if self.discarding:
            nl = data.find(b"\n")
            if nl < 0:
                return lines
            start = nl + 1
            self.discarding = False
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            if buf:
                buf += data[start:nl]
                line = bytes(buf)
                buf.clear()
            else:
                line = data[start:nl]
            lines.append(line if len(line) <= limit else None)
            start = nl + 1
        if start < len(data):
            if len(buf) + len(data) - start > limit:
                buf.clear()
                self.discarding = True
                lines.append(None)
            else:
                buf += data[start:]
        return lines


class BotProcess:
    """One running bot. Reused across the games of a match; `close` ends it and everything it started."""

    def __init__(self, spec: BotSpec, time_control: TimeControl, limits: Limits, proc: subprocess.Popen,
                 launch: Launch | None = None) -> None:
        self.spec = spec
        self.launch = launch
        self.limit_detail: str | None = None  # set when a sandbox limit ended the bot
        self.time_control = time_control
        self.limits = limits
        self.proc = proc
        self.pid = proc.pid
        self.pgid = proc.pid  # start_new_session: the bot leads its own group
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.in_fd = proc.stdin.fileno()
        self.out_fd = proc.stdout.fileno()
        self.err_fd = proc.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)
        self.name = spec.name  # replaced by the handshake's name
        self.version = ""
        self.dead = False  # set once the bot has crashed or been killed; never reset (restart instead)
        self.out_eof = False
        self.err_eof = False
        self.broken_pipe = False
        self.not_reading = False  # set when its unread stdin passed `limits.max_unread_bytes`
        self.exit_detail = ""
        self.close_faults: list[Fault] = []  # no_exit / orphans found by close(), seat -1
        self.backlog: list[bytes | None] = []  # lines read with the hello, not yet judged
        self.pending_id: int | None = None  # the one request this bot is answering, if any
        self._next_id = 1
        self._expired: set[int] = set()
        self._lines = LineReader(limits.max_line_bytes)
        self._out_pending = bytearray()  # bytes not yet accepted by the bot's stdin pipe
        self._tail: collections.deque[str] = collections.deque(maxlen=limits.stderr_tail_lines)
        self._err_partial = bytearray()
        self._selector: selectors.BaseSelector | None = None
        self._closed = False
        self.game_stderr_bytes = 0
        self.game_unasked_lines = 0

    # --- start-up ---------------------------------------------------------------------------------

    @classmethod
    def start(cls, spec: BotSpec, time_control: TimeControl = TimeControl(), limits: Limits = Limits()) -> "BotProcess":
        """Spawn the bot and complete the handshake within `time_control.startup_ms`."""
        if not spec.command:
            raise BotStartError(f"bot {spec.name!r}: empty command")
        env = dict(os.environ)
        env.update(spec.env)
        argv, cwd, preexec, launch = list(spec.command), spec.cwd, _resource_limiter(limits), None
        if spec.sandbox is not None and spec.sandbox.enabled:  # sandbox hook: bwrap argv, clean env, limits
            launch = Launch.prepare(spec.name, spec.command, spec.cwd, spec.env, spec.sandbox, limits.cpu_seconds, limits.memory_mb)
            argv, cwd, env, preexec = list(launch.argv), launch.cwd, dict(launch.env), launch.preexec
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                bufsize=0,
                close_fds=True,
                start_new_session=True,
                preexec_fn=preexec,
            )
        except FileNotFoundError as exc:
            missing = spec.cwd if spec.cwd and not os.path.isdir(spec.cwd) else spec.command[0]
            raise BotStartError(
                f"bot {spec.name!r}: cannot start {' '.join(spec.command)!r}: {missing!r} not found "
                "(check the path, or give the interpreter, e.g. 'python3 bot.py')"
            ) from exc
        except PermissionError as exc:
            raise BotStartError(
                f"bot {spec.name!r}: cannot start {spec.command[0]!r}: permission denied (is it executable? chmod +x)"
            ) from exc
        except OSError as exc:
            raise BotStartError(f"bot {spec.name!r}: cannot start {' '.join(spec.command)!r}: {exc.strerror or exc}") from exc
        bot = cls(spec, time_control, limits, proc, launch)
        try:
            bot._handshake()
        except BaseException:
            bot.kill()
            bot._close_fds()
            raise
        return bot

    @classmethod
    def unstarted(cls, spec: BotSpec, time_control: TimeControl, limits: Limits, reason: str) -> "BotProcess":
        """A bot that could not be started, as the holder of its seats: never alive, so the referee gives
        each of its seats a `start_failed` fault and the game goes on without it (a tournament does not
        stop for one bot). Owns no process; `close` and `detach` do nothing."""
        bot = cls.__new__(cls)
        bot.spec, bot.time_control, bot.limits = spec, time_control, limits
        bot.name, bot.version = spec.name, ""
        bot.dead = True
        bot._closed = True
        bot.exit_detail = reason
        bot.close_faults = []
        bot.backlog = []
        bot.pending_id = None
        bot._selector = None
        bot._tail = collections.deque(maxlen=limits.stderr_tail_lines)
        bot._err_partial = bytearray()
        return bot

    def _handshake(self) -> None:
        allowance = self.time_control.startup_ms
        deadline = time.monotonic() + allowance / 1000
        sel = selectors.DefaultSelector()
        try:
            self.attach(sel)
            self.send(dumps_line(hello_message(__version__)))
            while True:
                timeout = deadline - time.monotonic()
                if timeout <= 0:
                    raise BotStartError(
                        f"bot {self.spec.name!r}: no hello within the start-up allowance of {allowance} ms{self._tail_hint()}"
                    )
                for key, _ in sel.select(timeout):
                    _, which = key.data
                    if which == ERR:
                        self.read_stderr()
                    elif which == IN:
                        self.flush_output()
                    else:
                        lines = self.read_stdout()
                        if lines:
                            self._accept_hello(lines[0])
                            self.backlog.extend(lines[1:])  # early lines, judged by the referee
                            return
                if self.out_eof or self.broken_pipe:
                    code = self._reap(0.2)
                    self._drain_stderr_now()
                    raise BotStartError(
                        f"bot {self.spec.name!r}: {describe_exit(code)} during the handshake{self._tail_hint()}"
                    )
        finally:
            self.detach()
            sel.close()

    def _accept_hello(self, line: bytes | None) -> None:
        if line is None:
            raise BotStartError(f"bot {self.spec.name!r}: its hello is longer than {self.limits.max_line_bytes} bytes")
        try:
            hello = parse_hello(loads(line))
        except ValueError as exc:  # JSONDecodeError and ProtocolViolation
            reason = str(exc) if isinstance(exc, ProtocolViolation) else f"not JSON: {line[:120]!r}"
            raise BotStartError(f"bot {self.spec.name!r}: bad hello: {reason}{self._tail_hint()}") from exc
        self.name = hello.name
        self.version = hello.version

    # --- state ------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """False after a crash, a kill or close; the caller restarts the bot before its next game."""
        return not self.dead and not self._closed and self.proc.poll() is None

    def stderr_tail(self) -> tuple[str, ...]:
        lines = list(self._tail)
        if self._err_partial:
            lines.append(self._err_partial[:STDERR_LINE_CHARS].decode("utf-8", "replace"))
        return tuple(lines)

    def write_failure(self) -> str:
        """Why `send` refused, in the words of a fault detail."""
        if self.not_reading:
            return f"it stopped reading its stdin (over {self.limits.max_unread_bytes} bytes unread)"
        return "its stdin is closed"

    def _tail_hint(self) -> str:
        tail = self.stderr_tail()
        return "; its stderr ends with: " + " | ".join(tail[-5:]) if tail else "; it wrote nothing on stderr"

    def begin_game(self) -> None:
        self.game_stderr_bytes = 0
        self.game_unasked_lines = 0

    # --- request ids ------------------------------------------------------------------------------

    def new_request_id(self) -> int:
        """Ids rise over the process's life, so a stale answer from an earlier game can never match."""
        rid = self._next_id
        self._next_id = rid + 1
        self.pending_id = rid
        return rid

    def classify(self, request_id: int) -> str:
        if request_id == self.pending_id:
            return Classification.ANSWER
        if request_id in self._expired:
            self._expired.discard(request_id)
            return Classification.LATE
        if 0 < request_id < self._next_id:
            return Classification.DUPLICATE
        return Classification.UNASKED

    def expire_pending(self) -> None:
        """The pending request timed out: an answer to it may still come, and is then ignored."""
        if self.pending_id is not None:
            self._expired.add(self.pending_id)
            self.pending_id = None

    # --- selector ---------------------------------------------------------------------------------

    def attach(self, sel: selectors.BaseSelector) -> None:
        """Watch this bot's stdout and stderr (and stdin while output is pending) on `sel`."""
        self._selector = sel
        if not self.out_eof:
            sel.register(self.out_fd, selectors.EVENT_READ, (self, OUT))
        if not self.err_eof:
            sel.register(self.err_fd, selectors.EVENT_READ, (self, ERR))
        if self._out_pending:
            sel.register(self.in_fd, selectors.EVENT_WRITE, (self, IN))

    def detach(self) -> None:
        sel, self._selector = self._selector, None
        if sel is None:
            return
        for fd in (self.out_fd, self.err_fd, self.in_fd):
            try:
                sel.unregister(fd)
            except (KeyError, ValueError):
                pass

    def _unwatch(self, fd: int) -> None:
        if self._selector is not None:
            try:
                self._selector.unregister(fd)
            except (KeyError, ValueError):
                pass

    # --- I/O --------------------------------------------------------------------------------------

    def send(self, data: bytes) -> bool:
        """Write without blocking; what the pipe does not take now is sent as it drains.

        Returns False if the bot can no longer be written to (it closed stdin or died), or if it
        left more than `limits.max_unread_bytes` unread (`not_reading` is then set).
        """
        if self.broken_pipe or self.not_reading:
            return False
        if self._out_pending:
            if len(self._out_pending) + len(data) > self.limits.max_unread_bytes:
                self.not_reading = True
                return False
            self._out_pending += data
            return True
        try:
            written = os.write(self.in_fd, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, OSError):
            self.broken_pipe = True
            return False
        if written < len(data):
            self._out_pending += data[written:]
            if self._selector is not None:
                self._selector.register(self.in_fd, selectors.EVENT_WRITE, (self, IN))
        return True

    def flush_output(self) -> None:
        try:
            written = os.write(self.in_fd, self._out_pending)
        except BlockingIOError:
            return
        except OSError:
            self.broken_pipe = True
            self._out_pending.clear()
            self._unwatch(self.in_fd)
            return
        del self._out_pending[:written]
        if not self._out_pending:
            self._unwatch(self.in_fd)

    def read_stdout(self) -> list[bytes | None]:
        """The complete lines available now; None stands for a line over the limit (discarded).

        Sets `out_eof` when the bot closed its stdout.
        """
        try:
            data = os.read(self.out_fd, READ_CHUNK)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            self.out_eof = True
            self._unwatch(self.out_fd)
            return []
        return self._lines.feed(data)

    def read_stderr(self) -> int:
        """Drain what stderr holds into the tail; returns the number of bytes read."""
        try:
            data = os.read(self.err_fd, READ_CHUNK)
        except BlockingIOError:
            return 0
        except OSError:
            data = b""
        if not data:
            self.err_eof = True
            self._unwatch(self.err_fd)
            return 0
        self.game_stderr_bytes += len(data)
        parts = data.split(b"\n")
        partial = self._err_partial
        if len(parts) > 1:
            partial += parts[0][:STDERR_LINE_CHARS]
            self._tail.append(partial[:STDERR_LINE_CHARS].decode("utf-8", "replace"))
            partial.clear()
            for part in parts[1:-1][-self.limits.stderr_tail_lines :]:
                self._tail.append(part[:STDERR_LINE_CHARS].decode("utf-8", "replace"))
        if len(partial) < STDERR_LINE_CHARS:
            partial += parts[-1][: STDERR_LINE_CHARS - len(partial)]
        return len(data)

    def _drain_stderr_now(self) -> None:
        """Read what is left on stderr after an exit (bounded: the pipe holds at most 1 MiB)."""
        for _ in range(32):
            if self.err_eof or not self.read_stderr():
                return

    # --- teardown ---------------------------------------------------------------------------------

    def _reap(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def _killpg(self, sig: int) -> None:
        try:
            os.killpg(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _wait_group_gone(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while group_alive(self.pgid):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def kill(self) -> bool:
        """End the bot now (after a crash or a flood): kill its group and reap it.

        Returns True if the bot had exited by itself and left processes behind in its group (orphans).
        """
        self.dead = True
        self.pending_id = None
        code = self.proc.poll()
        if code is None and self.out_eof:
            code = self._reap(0.1)  # it closed stdout: give it a moment to finish exiting
        orphans = code is not None and group_alive(self.pgid)
        self._killpg(signal.SIGKILL)
        if code is None:
            code = self._reap(5.0)
        self._wait_group_gone(2.0)
        self._drain_stderr_now()
        self.exit_detail = describe_exit(code)
        self._end_sandbox(code)
        return orphans

    def _end_sandbox(self, code: int | None) -> None:
        """Which sandbox limit (if any) ended the bot; then kill what is left and free its cgroups."""
        if self.launch is not None:
            self.exit_detail = self.launch.describe_exit(code)
            self.limit_detail = self.limit_detail or self.launch.limit_hit(code, self.stderr_tail())
            self.launch.finish()

    def close(self) -> None:
        """Ask the bot to exit, then SIGTERM and SIGKILL its whole group; idempotent, always waits.

        A bot that outstays the grace period gets a `no_exit` fault, one that leaves processes in its
        group an `orphans` fault, both in `close_faults` (seat -1: a bot holds no seat between games).
        """
        if self._closed:
            return
        self._closed = True
        grace = self.time_control.shutdown_ms / 1000
        try:
            if not self.dead and self.proc.poll() is None:
                self.send(dumps_line(shutdown_message()))
                self.flush_blocking(grace)
                self._close_stdin()
                code = self._wait_draining(grace)
                if code is None:
                    self._close_fault(FaultKind.NO_EXIT, f"still running {self.time_control.shutdown_ms} ms after shutdown")
                    self._killpg(signal.SIGTERM)
                    code = self._reap(grace)
                    if code is None:
                        self._killpg(signal.SIGKILL)
                        code = self._reap(5.0)
                elif group_alive(self.pgid):
                    members = live_group_members(self.pgid) if os.path.isdir("/proc/self") else []
                    self._close_fault(FaultKind.ORPHANS, f"exited but left processes running in its group: {members}")
                self.exit_detail = describe_exit(code)
        finally:
            self.dead = True
            self._killpg(signal.SIGKILL)
            if self.proc.poll() is None:
                self._reap(5.0)
            self._wait_group_gone(2.0)
            if self.launch is not None and self.limit_detail is None:
                self._end_sandbox(self.proc.returncode)
            self.detach()
            self._close_fds()

    def _close_fault(self, kind: FaultKind, detail: str) -> None:
        self.close_faults.append(Fault(-1, kind, -1, None, f"bot {self.name!r}: {detail}", self.stderr_tail()))

    def flush_blocking(self, timeout: float) -> None:
        """Push pending output for at most `timeout` seconds (for messages that expect no answer)."""
        deadline = time.monotonic() + timeout
        while self._out_pending and not self.broken_pipe and time.monotonic() < deadline:
            self.flush_output()
            if self._out_pending:
                time.sleep(0.001)

    def _wait_draining(self, timeout: float) -> int | None:
        """Wait for the exit while draining both pipes, so a bot blocked on a full pipe can still exit."""
        deadline = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        try:
            self.detach()
            if not self.out_eof:
                sel.register(self.out_fd, selectors.EVENT_READ, OUT)
            if not self.err_eof:
                sel.register(self.err_fd, selectors.EVENT_READ, ERR)
            self._selector = sel
            while True:
                code = self.proc.poll()
                if code is not None:
                    return code
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                for key, _ in sel.select(min(remaining, 0.01)):
                    if key.data == ERR:
                        self.read_stderr()
                    else:
                        self.read_stdout()  # anything said after shutdown is of no use
        finally:
            self.detach()
            sel.close()

    def _close_stdin(self) -> None:
        """EOF on the bot's stdin: bots that read until end of input exit on it."""
        self._unwatch(self.in_fd)
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass  # the bot closed its end first: nothing left to tell it

    def _close_fds(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __repr__(self) -> str:
        return f"BotProcess({self.name!r}, pid={self.pid}, {'dead' if self.dead else 'running'})"
