"""A fake clock, transport and bot for exact timing tests of the referee (test code only).

The transport delivers scripted arrivals stamped with their scripted time, the way the real transport
stamps each read; the clock only moves when the referee waits, or by `judge_cost_s` per arrival
delivered (modelling a referee busy judging a flooding bot). No sleeping anywhere.
"""

from __future__ import annotations

import heapq
import itertools
import json
from dataclasses import dataclass, field
from typing import Callable

from arena.core.limits import Limits
from arena.referee.request_ids import Classification, RequestIds
from arena.referee.session import BotSpec
from arena.referee.transport import Arrival, ArrivalKind, Batch


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class FakeTransport:
    def __init__(self, clock: FakeClock, judge_cost_s: float = 0.0, wait_cost_s: float = 0.0) -> None:
        self.clock = clock
        self.judge_cost_s = judge_cost_s
        self.wait_cost_s = wait_cost_s  # referee time passing before each wait (building requests, ...)
        self.queue: list[tuple[float, int, Arrival, int]] = []  # (at, order, arrival, stderr bytes it stands for)
        self.seq = itertools.count()
        self.watched: set[int] = set()
        self.owed = 0.0  # judging time of the last batch, paid when the referee waits again

    def schedule(self, at: float, arrival: Arrival, stderr_bytes: int = 0) -> None:
        heapq.heappush(self.queue, (at, next(self.seq), arrival, stderr_bytes))

    def watch(self, bot: object) -> None:
        self.watched.add(id(bot))

    def unwatch(self, bot: object) -> None:
        self.watched.discard(id(bot))

    def wait(self, timeout: float) -> Batch:
        clock = self.clock
        clock.t += self.owed + self.wait_cost_s
        self.owed = 0.0
        until = clock.t + max(timeout, 0.0)
        if self.queue and self.queue[0][0] <= until:
            clock.t = max(clock.t, self.queue[0][0])
        else:
            clock.t = until
        out: list[Arrival] = []
        while self.queue and self.queue[0][0] <= clock.t:
            _, _, arrival, stderr_bytes = heapq.heappop(self.queue)
            if id(arrival.bot) in self.watched:
                if arrival.kind is ArrivalKind.STDERR:  # as a real read puts the bytes in the tail
                    arrival.bot.stderr_bytes += stderr_bytes  # type: ignore[attr-defined]
                out.append(arrival)
        self.owed = self.judge_cost_s * len(out)
        return Batch(out, clock.t)

    def close(self) -> None:
        pass


# script(request, count) -> [(delay_s, line or None for "stderr bytes")]
Script = Callable[[dict, int], list[tuple[float, bytes]]]


def answer_after(delays_s: list[float]) -> Script:
    """Answer the n-th request with its first legal action after delays_s[n-1] (the last repeats)."""

    def script(request: dict, count: int) -> list[tuple[float, bytes]]:
        delay = delays_s[min(count, len(delays_s)) - 1]
        return [(delay, json.dumps({"id": request["id"], "action": request["legal"][0]}).encode())]

    return script


@dataclass
class FakeBot:
    """A BotHandle whose answers are scripted in time."""

    transport: FakeTransport
    script: Script
    name: str = "fake"
    version: str = "0"
    limits: Limits = field(default_factory=Limits)
    stderr_per_request: list[tuple[float, int]] = field(default_factory=list)  # (delay, bytes) on stderr
    exit_detail: str = ""
    limit_detail: str | None = None
    backlog: list[bytes | None] = field(default_factory=list)
    game_unasked_lines: int = 0
    requests: list[dict] = field(default_factory=list)
    stderr_bytes: int = 0
    ids: RequestIds = field(default_factory=RequestIds)  # the referee's own id logic
    killed: bool = False

    def __post_init__(self) -> None:
        self.spec = BotSpec(self.name, ("fake",))

    @property
    def alive(self) -> bool:
        return not self.killed

    @property
    def game_stderr_bytes(self) -> int:
        return self.stderr_bytes

    def exited(self) -> bool:
        return self.killed

    @property
    def pending_id(self) -> int | None:
        return self.ids.pending

    def begin_game(self) -> None:
        self.game_unasked_lines = 0
        self.ids.settle()

    def new_request_id(self) -> int:
        return self.ids.new()

    def classify(self, request_id: int) -> Classification:
        return self.ids.classify(request_id)

    def settle(self) -> None:
        self.ids.settle()

    def expire_pending(self) -> None:
        self.ids.expire()

    def send(self, data: bytes) -> bool:
        message = json.loads(data)
        if message["type"] != "request":
            return True
        now = self.transport.clock.t
        message["_sent_at"] = now  # test bookkeeping, not part of the protocol
        self.requests.append(message)
        for delay, line in self.script(message, len(self.requests)):
            self.transport.schedule(now + delay, Arrival(self, ArrivalKind.LINE, now + delay, line))
        for delay, size in self.stderr_per_request:
            self.transport.schedule(now + delay, Arrival(self, ArrivalKind.STDERR, now + delay), stderr_bytes=size)
        return True

    def flush_blocking(self, timeout: float) -> None:
        pass

    def write_failure(self) -> str:
        return "its stdin is closed"

    def stderr_tail(self) -> tuple[str, ...]:
        return ()

    def kill(self) -> bool:
        self.killed = True
        self.exit_detail = "killed by signal SIGKILL"
        return False

