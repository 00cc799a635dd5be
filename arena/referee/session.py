"""A bot's protocol session: handshake, request ids and their states, and the end of its process.

The session is in one of explicit states (`SessionState`): STARTING until its hello is accepted, READY
between requests, ASKED while one request is pending, and DEAD once it crashed, was killed or closed
(never left: the caller restarts the bot). Request ids rise over the process's life, so a stale answer
from an earlier game can never match a later request.
"""

from __future__ import annotations

import enum
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

from mypy_extensions import mypyc_attr

from arena import __version__
from arena.errors import BotStartError
from arena.jsonvalue import dumps_line, loads
from arena.protocol import NO_HELLO_HINT, ProtocolViolation, hello_message, parse_hello, shutdown_message
from arena.core.clock import Deadline
from arena.core.time_control import TimeControl
from arena.core.faults import Fault, FaultKind
from arena.core.limits import Limits
from arena.referee.pipe import Pipes, Poller
from arena.exits import describe_exit
from arena.referee.request_ids import Classification, RequestIds
from arena.referee.process import group_alive, killpg, live_group_members, reap, spawn, wait_group_gone
from arena.sandbox.launch import Launch
from arena.sandbox.policy import SandboxPolicy
from arena.textsafe import NAME_CHARS, clean


@mypyc_attr(native_class=False)  # a plain class even compiled (setup.py): workers get it pickled
@dataclass(frozen=True)
class BotSpec:
    name: str
    command: tuple[str, ...]  # argv; placeholders already substituted
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # added to os.environ (to a clean one in a sandbox)
    sandbox: SandboxPolicy | None = None  # None or disabled: a plain child process


class SessionState(enum.Enum):
    STARTING = "starting"
    READY = "ready"
    ASKED = "asked"
    DEAD = "dead"


class BotProcess:
    """One running bot. Reused across the games of a match; `close` ends it and everything it started."""

    def __init__(
        self, spec: BotSpec, time_control: TimeControl, limits: Limits, proc: "subprocess.Popen[bytes]", launch: Launch | None = None
    ) -> None:
        self._session(spec, time_control, limits, launch, SessionState.STARTING, "")
        self.proc = proc
        self.pid = proc.pid
        self.pgid = proc.pid  # start_new_session: the bot leads its own group
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.pipes = Pipes(proc.stdin, proc.stdout, proc.stderr, limits, self)

    def _session(self, spec: BotSpec, time_control: TimeControl, limits: Limits, launch: Launch | None,
                 state: SessionState, exit_detail: str) -> None:
        """The session's fields, which every bot has, started or not (an `UnstartedBot` has only these)."""
        self.spec = spec
        self.launch = launch
        self.limit_detail: str | None = None  # set when a sandbox limit ended the bot
        self.time_control = time_control
        self.limits = limits
        self.name = clean(spec.name, NAME_CHARS)  # replaced by the handshake's name
        self.version = ""
        self.state = state
        self.exit_detail = exit_detail
        self.close_faults: list[Fault] = []  # no_exit / orphans found by close(), seat -1
        self.backlog: list[bytes | None] = []  # lines read with the hello, not yet judged
        self.ids = RequestIds()  # rising over the process's life; the pending one; the expired ones
        self._closed = state is SessionState.DEAD  # an unstarted bot has nothing to close
        self.game_unasked_lines = 0

    # --- start-up ---------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        spec: BotSpec,
        time_control: TimeControl = TimeControl(),
        limits: Limits = Limits(),
        clock: Callable[[], float] = time.monotonic,
    ) -> "BotProcess":
        """Spawn the bot and complete the handshake within `time_control.startup_ms` of the spawn."""
        started = clock()
        launch = None
        if spec.sandbox is not None and spec.sandbox.enabled:  # bwrap argv, clean env, cgroup/rlimit limits
            launch = Launch.prepare(spec.name, spec.command, spec.cwd, spec.env, spec.sandbox, limits.cpu_seconds, limits.memory_mb)
        proc = spawn(spec.name, spec.command, spec.cwd, spec.env, limits, launch)
        bot = cls(spec, time_control, limits, proc, launch)
        try:
            bot._handshake(Deadline(started, float(time_control.startup_ms)), clock)
        except BaseException:
            bot.kill()
            bot.pipes.close()
            raise
        return bot

    @classmethod
    def unstarted(cls, spec: BotSpec, time_control: TimeControl, limits: Limits, reason: str) -> "BotProcess":
        """A bot that could not be started, as the holder of its seats (see `UnstartedBot`)."""
        return UnstartedBot(spec, time_control, limits, reason)

    def _handshake(self, deadline: Deadline, clock: Callable[[], float]) -> None:
        sel = Poller()
        pipes = self.pipes
        try:
            pipes.attach(sel)
            pipes.send(dumps_line(hello_message(__version__)))
            while True:
                timeout = deadline.remaining_s(clock())
                if timeout <= 0:
                    raise BotStartError(
                        f"bot {self.name!r}: no hello within the start-up allowance of "
                        f"{deadline.allowance_ms:.0f} ms{self._tail_hint()}; {NO_HELLO_HINT}"
                    )
                lines = pipes.pump(sel, timeout)
                if lines:
                    self._accept_hello(lines[0])
                    self.backlog.extend(lines[1:])  # early lines, judged by the referee
                    self.state = SessionState.READY
                    return
                if pipes.out_eof or pipes.broken_pipe:
                    code = reap(self.proc, 0.2)
                    pipes.drain_stderr_now()
                    raise BotStartError(f"bot {self.name!r}: {describe_exit(code)} during the handshake{self._tail_hint()}")
        finally:
            pipes.detach()
            sel.close()

    def _accept_hello(self, line: bytes | None) -> None:
        if line is None:
            raise BotStartError(f"bot {self.name!r}: its hello is longer than {self.limits.max_line_bytes} bytes")
        try:
            hello = parse_hello(loads(line))
        except ValueError as exc:  # JSONDecodeError and ProtocolViolation
            reason = str(exc) if isinstance(exc, ProtocolViolation) else f"not JSON: {clean(repr(line[:120]), 200)}"
            raise BotStartError(f"bot {self.name!r}: bad hello: {reason}{self._tail_hint()}") from exc
        self.name = clean(hello.name, NAME_CHARS)
        self.version = clean(hello.version, NAME_CHARS)

    # --- state ------------------------------------------------------------------------------------

    @property
    def dead(self) -> bool:
        return self.state is SessionState.DEAD

    @property
    def alive(self) -> bool:
        """False after a crash, a kill or close; the caller restarts the bot before its next game."""
        return not self.dead and not self._closed and self.proc.poll() is None

    def exited(self) -> bool:
        return self.proc.poll() is not None

    def stderr_tail(self) -> tuple[str, ...]:
        return self.pipes.tail.lines()

    def write_failure(self) -> str:
        """Why `send` refused, in the words of a fault detail."""
        if self.pipes.not_reading:
            return f"it stopped reading its stdin (over {self.limits.max_unread_bytes} bytes unread)"
        return "its stdin is closed"

    def _tail_hint(self) -> str:
        tail = self.stderr_tail()
        return "; its stderr ends with: " + " | ".join(tail[-5:]) if tail else "; it wrote nothing on stderr"

    def begin_game(self) -> None:
        self.pipes.stderr_bytes = 0
        self.game_unasked_lines = 0
        self.ids.settle()
        if self.state is SessionState.ASKED:
            self.state = SessionState.READY

    @property
    def game_stderr_bytes(self) -> int:
        return self.pipes.stderr_bytes

    # --- request ids ------------------------------------------------------------------------------

    @property
    def pending_id(self) -> int | None:
        """The one request this bot is answering, if any."""
        return self.ids.pending

    def new_request_id(self) -> int:
        """Ids rise over the process's life, so a stale answer from an earlier game can never match."""
        rid = self.ids.new()
        self.state = SessionState.ASKED
        return rid

    def classify(self, request_id: int) -> Classification:
        return self.ids.classify(request_id)

    def settle(self) -> None:
        """The pending request got its answer (or a line that stands for it)."""
        self.ids.settle()
        if self.state is SessionState.ASKED:
            self.state = SessionState.READY

    def expire_pending(self) -> None:
        """The pending request timed out: an answer to it may still come, and is then ignored."""
        self.ids.expire()
        if self.state is SessionState.ASKED:
            self.state = SessionState.READY

    # --- pipes (the referee's loop drives them) ---------------------------------------------------

    def attach(self, sel: Poller) -> None:
        self.pipes.attach(sel)

    def detach(self) -> None:
        self.pipes.detach()

    def send(self, data: bytes) -> bool:
        return self.pipes.send(data)

    def flush_blocking(self, timeout: float) -> None:
        self.pipes.flush_blocking(timeout)

    # --- teardown ---------------------------------------------------------------------------------

    def kill(self) -> bool:
        """End the bot now (after a crash or a flood): kill its group and reap it.

        Returns True if the bot had exited by itself and left processes behind in its group (orphans).
        """
        self.state = SessionState.DEAD
        self.ids.settle()
        code = self.proc.poll()
        if code is None and self.pipes.out_eof:
            code = reap(self.proc, 0.1)  # it closed stdout: give it a moment to finish exiting
        orphans = code is not None and group_alive(self.pgid)
        killpg(self.pgid, signal.SIGKILL)
        if code is None:
            code = reap(self.proc, 5.0)
        wait_group_gone(self.pgid, 2.0)
        self.pipes.drain_stderr_now()
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
        pipes = self.pipes
        try:
            if not self.dead and self.proc.poll() is None:
                pipes.send(dumps_line(shutdown_message()))
                pipes.flush_blocking(grace)
                pipes.close_stdin()
                code = self._wait_draining(grace)
                if code is None:
                    self._close_fault(FaultKind.NO_EXIT, f"still running {self.time_control.shutdown_ms} ms after shutdown")
                    killpg(self.pgid, signal.SIGTERM)
                    code = reap(self.proc, grace)
                    if code is None:
                        killpg(self.pgid, signal.SIGKILL)
                        code = reap(self.proc, 5.0)
                elif group_alive(self.pgid):
                    members = live_group_members(self.pgid) if os.path.isdir("/proc/self") else []
                    self._close_fault(FaultKind.ORPHANS, f"exited but left processes running in its group: {members}")
                self.exit_detail = describe_exit(code)
        finally:
            self.state = SessionState.DEAD
            killpg(self.pgid, signal.SIGKILL)
            if self.proc.poll() is None:
                reap(self.proc, 5.0)
            wait_group_gone(self.pgid, 2.0)
            if self.launch is not None and self.limit_detail is None:
                self._end_sandbox(self.proc.returncode)
            pipes.detach()
            pipes.close()

    def _close_fault(self, kind: FaultKind, detail: str) -> None:
        self.close_faults.append(Fault.bounded(-1, kind, -1, None, f"bot {self.name!r}: {detail}", self.stderr_tail()))

    def _wait_draining(self, timeout: float) -> int | None:
        """Wait for the exit while draining both pipes, so a bot blocked on a full pipe can still exit."""
        deadline = time.monotonic() + timeout
        sel = Poller()
        pipes = self.pipes
        try:
            pipes.detach()
            pipes.attach(sel)
            while True:
                code = self.proc.poll()
                if code is not None:
                    return code
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                pipes.pump(sel, min(remaining, 0.01))  # anything said after shutdown is of no use
        finally:
            pipes.detach()
            sel.close()

    def __repr__(self) -> str:
        return f"BotProcess({self.name!r}, pid={self.pid}, {'dead' if self.dead else 'running'})"


class UnstartedBot(BotProcess):
    """A bot that could not be started: never alive, so the referee gives each of its seats a
    `start_failed` fault and the game goes on without it (a tournament does not stop for one bot).
    It owns no process and no pipes; closing, killing and detaching it do nothing."""

    def __init__(self, spec: BotSpec, time_control: TimeControl, limits: Limits, reason: str) -> None:  # noqa: D107
        self._session(spec, time_control, limits, None, SessionState.DEAD, reason)  # no process, so no pipes

    @property
    def alive(self) -> bool:
        return False

    def exited(self) -> bool:
        return True

    def stderr_tail(self) -> tuple[str, ...]:
        return ()

    def attach(self, sel: Poller) -> None:
        pass

    def detach(self) -> None:
        pass

    def send(self, data: bytes) -> bool:
        return False

    def kill(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"UnstartedBot({self.name!r})"
