"""A bot's three pipes, non-blocking and bounded: framed stdout lines, a stderr tail, queued stdin.

Every fd is non-blocking and read with `os.read` into bounded buffers, so no bot can make the referee
block or buffer without limit: a stdout line over its byte budget (`Limits.max_line_bytes`, also when
the stream never has a newline) is reported as soon as it is known to be too long and the rest of it is
dropped as it arrives; stderr keeps only a ring of its last lines, each cut to `STDERR_LINE_BYTES`;
unread stdin is bounded by `Limits.max_unread_bytes`.
"""

from __future__ import annotations

import collections
import math
import os
import select
import time
from typing import IO, Any

from arena.core.limits import Limits
from arena.textsafe import LINE_CHARS, clean_bytes
from arena.core.faults import STDERR_LINE_BYTES, STDERR_TAIL_LINES

READ_CHUNK = 65536

OUT, ERR, IN = 0, 1, 2  # which pipe, in the data a `Poller` hands back (owner, which)
READ, WRITE = select.EPOLLIN, select.EPOLLOUT


class Poller:
    """What the referee used of `selectors.DefaultSelector`, on epoll directly: register an fd with its
    data, unregister it, and wait for the data of the ready ones. Every step of a game waits here, and
    compiled (`[tool.arena] compiled`) it costs a fraction of the selectors module's Python; its rules
    are that module's: registering an fd twice or unregistering one not registered raises KeyError, and
    a timeout is rounded up to the millisecond (a shorter one would poll in a busy loop)."""

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._data: dict[int, tuple[Any, int]] = {}

    def register(self, fd: int, events: int, data: tuple[Any, int]) -> None:
        if fd in self._data:
            raise KeyError(f"{fd} is already registered")
        self._epoll.register(fd, events)
        self._data[fd] = data

    def unregister(self, fd: int) -> None:
        del self._data[fd]  # KeyError when it is not registered
        try:
            self._epoll.unregister(fd)
        except OSError:  # closed already: the kernel dropped it
            pass

    def ready(self, timeout: float) -> list[tuple[Any, int]]:
        """The data of every fd ready within `timeout` seconds (0: do not wait)."""
        wait = 0.0 if timeout <= 0.0 else math.ceil(timeout * 1e3) * 1e-3
        found = self._epoll.poll(wait, max(len(self._data), 1))
        data = self._data
        return [data[fd] for fd, _ in found if fd in data]

    def close(self) -> None:
        self._epoll.close()
        self._data.clear()


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
        if not data:
            return []
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


class StderrTail:
    """The last `lines` lines of a stream, each cut to STDERR_LINE_BYTES raw bytes; shown cleaned."""

    def __init__(self, lines: int) -> None:
        self._lines: collections.deque[bytes] = collections.deque(maxlen=lines)
        self._partial = bytearray()
        self.keep = lines

    def feed(self, data: bytes) -> None:
        parts = data.split(b"\n")
        partial = self._partial
        if len(parts) > 1:
            partial += parts[0][: max(0, STDERR_LINE_BYTES - len(partial))]
            self._lines.append(bytes(partial))
            partial.clear()
            for part in parts[1:-1][-self.keep :]:
                self._lines.append(part[:STDERR_LINE_BYTES])
        if len(partial) < STDERR_LINE_BYTES:
            partial += parts[-1][: STDERR_LINE_BYTES - len(partial)]

    def lines(self) -> tuple[str, ...]:
        """The tail as printable text: escapes removed, each line at most LINE_CHARS characters."""
        raw = list(self._lines)
        if self._partial:
            raw.append(bytes(self._partial))
        return tuple(clean_bytes(line, LINE_CHARS) for line in raw)


class Pipes:
    """The referee's end of one child's stdin, stdout and stderr."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes], limits: Limits, owner: Any) -> None:
        self._streams = (stdin, stdout, stderr)
        self.limits = limits
        self.owner = owner  # what selector keys carry, so a loop over many bots knows whose pipe is ready
        self.in_fd = stdin.fileno()
        self.out_fd = stdout.fileno()
        self.err_fd = stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)
        self.out_eof = False
        self.err_eof = False
        self.broken_pipe = False
        self.not_reading = False  # set when unread stdin passed `limits.max_unread_bytes`
        self.stderr_bytes = 0  # read since the last `reset_counts`
        self.lines = LineReader(limits.max_line_bytes)
        self.tail = StderrTail(STDERR_TAIL_LINES)
        self._out_pending = bytearray()  # bytes not yet accepted by the child's stdin pipe
        self._selector: Poller | None = None

    # --- selector ---------------------------------------------------------------------------------

    def attach(self, sel: Poller) -> None:
        """Watch stdout and stderr (and stdin while output is pending) on `sel`."""
        self._selector = sel
        if not self.out_eof:
            sel.register(self.out_fd, READ, (self.owner, OUT))
        if not self.err_eof:
            sel.register(self.err_fd, READ, (self.owner, ERR))
        if self._out_pending:
            sel.register(self.in_fd, WRITE, (self.owner, IN))

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

    # --- stdin ------------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Bytes sent that the child's stdin pipe has not taken yet."""
        return len(self._out_pending)

    def send(self, data: bytes) -> bool:
        """Write without blocking; what the pipe does not take now is sent as it drains.

        False if the child can no longer be written to (it closed stdin or died), or if it left more
        than `limits.max_unread_bytes` unread (`not_reading` is then set).
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
        except OSError:
            self.broken_pipe = True
            return False
        if written < len(data):
            self._out_pending += data[written:]
            if self._selector is not None:
                self._selector.register(self.in_fd, WRITE, (self.owner, IN))
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

    def flush_blocking(self, timeout: float) -> None:
        """Push pending output for at most `timeout` seconds (for messages that expect no answer)."""
        deadline = time.monotonic() + timeout
        while self._out_pending and not self.broken_pipe and time.monotonic() < deadline:
            self.flush_output()
            if self._out_pending:
                time.sleep(0.001)

    def close_stdin(self) -> None:
        """EOF on the child's stdin: programs that read until end of input exit on it."""
        self._unwatch(self.in_fd)
        self._out_pending.clear()  # what it did not read by now it never will
        self.broken_pipe = True
        try:
            self._streams[0].close()
        except OSError:
            pass  # the child closed its end first

    # --- stdout and stderr ------------------------------------------------------------------------

    def read_stdout(self) -> list[bytes | None]:
        """The complete lines available now; None stands for a line over the budget (discarded).

        Sets `out_eof` when the child closed its stdout.
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
        return self.lines.feed(data)

    def read_stderr(self) -> bytes:
        """Read what stderr holds (one read) into the tail; returns the bytes read (for a game's log)."""
        try:
            data = os.read(self.err_fd, READ_CHUNK)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self.err_eof = True
            self._unwatch(self.err_fd)
            return b""
        self.stderr_bytes += len(data)
        self.tail.feed(data)
        return data

    def drain_stderr_now(self) -> None:
        """Read what is left on stderr after an exit (bounded: the pipe holds at most 1 MiB)."""
        for _ in range(32):
            if self.err_eof or not self.read_stderr():
                return

    def pump(self, sel: Poller, timeout: float) -> list[bytes | None]:
        """Wait up to `timeout` on `sel` (which watches only these pipes): drain stderr, push pending
        stdin, and return the stdout lines read."""
        lines: list[bytes | None] = []
        for _, which in sel.ready(timeout):
            if which == ERR:
                self.read_stderr()
            elif which == IN:
                self.flush_output()
            else:
                lines.extend(self.read_stdout())
        return lines

    def close(self) -> None:
        for stream in self._streams:
            try:
                stream.close()
            except OSError:
                pass
