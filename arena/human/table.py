"""The human seat's state: what the referee said, what the person may choose now, and the refusals.

One `HumanTable` per seat process. The referee's messages come in (`hello`, `start`, `request`, `end`);
the person's choices (`choose`) go out as the seat's answer lines. A choice names the request it
answers (its id) and one of that request's legal actions (by index), so a double click, a choice for a
step already past, a forged id or index, or anything sent after the answer, is refused with a message
and never reaches the referee: only one answer per request is ever written, and only a legal one.

Time is injected (`clock`), so the tests drive it without sleeping. The table also knows whether a
page (or terminal) is watching: a request whose clock runs out with nobody watching means the person
left, and the seat process then exits, which the referee records as a crash (`abandoned`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from arena.jsonvalue import JSON, dumps_line
from arena.protocol import PROTOCOL_VERSION

EVENTS_KEPT = 300  # the last events shown to the person (older ones are counted, not kept)
PRESENCE_S = 3.0  # a page counts as watching this long after its last poll
LONG_POLL_S = 2.0  # how long one poll waits for news (shorter than PRESENCE_S: an open page stays present)


@dataclass(frozen=True)
class Outcome:
    """What became of one choice: accepted (`line`: the answer to write to the referee) or refused (`message`)."""

    line: bytes | None
    message: str

    @property
    def accepted(self) -> bool:
        return self.line is not None


@dataclass
class Pending:
    request_id: int
    step: int
    legal: list[JSON]
    allowance_ms: float
    received_at: float


class HumanTable:
    """The seat's state, shared by the thread reading the referee and the threads serving the page."""

    def __init__(self, name: str, clock: Callable[[], float]) -> None:
        self.name = name
        self.clock = clock
        self.cond = threading.Condition()
        self.version = 0  # rises with every change a page should see
        self.start: dict[str, Any] = {}
        self.step: int | None = None
        self.view: JSON = None
        self.pending: Pending | None = None
        self.answered: dict[int, int] = {}  # request id -> step, for the refusals' messages
        self.events: list[dict[str, JSON]] = []
        self.events_dropped = 0
        self.result: JSON = None
        self.over = False
        self.closed = False  # the referee said shutdown, or the person left
        self.left = False  # the person left (the terminal's end of input): the seat process ends now
        self.polling = 0
        self.last_seen: float | None = None
        self.delivered = -1  # the latest version a poll has handed to a page

    # --- the referee's side -------------------------------------------------------------------------

    def hello(self) -> bytes:
        return dumps_line({"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.name, "version": "1"})

    def receive(self, message: dict[str, Any]) -> bytes | None:
        """One message from the referee; returns a line to answer it with (only the hello has one)."""
        kind = message.get("type")
        with self.cond:
            if kind == "hello":
                return self.hello()
            if kind == "start":
                self.start = message
                self.over = False
                self.result = None
            elif kind == "request":
                self._news(message.get("step"), message.get("events"))
                clock = message.get("clock") or {}
                self.view = message.get("view")
                self.pending = Pending(int(message["id"]), int(message["step"]), list(message.get("legal") or []),
                                       float(clock.get("remaining_ms") or 0), self.clock())
            elif kind == "end":
                self._news(None, message.get("events"))
                self.pending = None
                self.result = message.get("result")
                self.over = True
            elif kind == "shutdown":
                self.closed = True
            self.version += 1
            self.cond.notify_all()
        return None

    def _news(self, step: JSON, events: JSON) -> None:
        if isinstance(step, int):
            self.step = step
        for event in events if isinstance(events, list) else []:
            if isinstance(event, dict):
                self.events.append({"at_step": self.step, **event})
        if len(self.events) > EVENTS_KEPT:
            self.events_dropped += len(self.events) - EVENTS_KEPT
            del self.events[:-EVENTS_KEPT]

    # --- the person's side ----------------------------------------------------------------------------

    def choose(self, request_id: object, index: object) -> Outcome:
        """The person's choice: the `index`-th legal action of request `request_id`."""
        with self.cond:
            pending = self.pending
            if type(request_id) is not int or type(index) is not int:
                return Outcome(None, "refused: a choice names a request id and an action's index, both whole numbers")
            if pending is None or request_id != pending.request_id:
                if request_id in self.answered:
                    return Outcome(None, f"refused: step {self.answered[request_id]} is already answered (one answer per step)")
                if self.over:
                    return Outcome(None, "refused: the game is over")
                now = f"step {pending.step} is waiting for you" if pending else "nothing is asked of you now"
                return Outcome(None, f"refused: request {request_id} is not the one being asked ({now})")
            if not 0 <= index < len(pending.legal):
                return Outcome(None, f"refused: there is no legal action number {index} at this step (0 to {len(pending.legal) - 1})")
            self.pending = None
            self.answered[request_id] = pending.step
            self.version += 1
            self.cond.notify_all()
            line = dumps_line({"type": "answer", "id": request_id, "action": pending.legal[index]})
            return Outcome(line, f"played at step {pending.step}")

    def leave(self) -> None:
        """The person left (the terminal's end of input): the seat process ends, a crash to the referee."""
        with self.cond:
            self.closed = self.left = True
            self.version += 1
            self.cond.notify_all()

    # --- watching -----------------------------------------------------------------------------------

    def watch(self, since: int, timeout: float = LONG_POLL_S) -> dict[str, JSON]:
        """The seat's state once it differs from version `since` (or after `timeout`): a long poll."""
        with self.cond:
            self.polling += 1
            self.last_seen = self.clock()
            try:
                self.cond.wait_for(lambda: self.version != since or self.closed, timeout)
            finally:
                self.polling -= 1
                self.last_seen = self.clock()
            self.delivered = max(self.delivered, self.version)
            self.cond.notify_all()
            return self.snapshot()

    def wait_delivered(self, timeout: float) -> None:
        """After the game: give a watching page up to `timeout` seconds to fetch the result before the
        seat process exits (it must exit within the referee's shutdown grace)."""
        with self.cond:
            if self.present(self.clock()):
                self.cond.wait_for(lambda: self.delivered >= self.version, timeout)

    def present(self, now: float) -> bool:
        return self.polling > 0 or (self.last_seen is not None and now - self.last_seen <= PRESENCE_S)

    def abandoned(self) -> bool:
        """A request's clock has (all but) run out and no page or terminal is watching: the person left.
        The margin (a tenth of the allowance, at most a second) lets the seat exit before the referee's
        deadline, so the referee sees a crash, not a timeout."""
        with self.cond:
            pending, now = self.pending, self.clock()
            if pending is None or self.present(now):
                return False
            margin = min(1000.0, pending.allowance_ms / 10)
            return (now - pending.received_at) * 1000 >= pending.allowance_ms - margin

    def snapshot(self) -> dict[str, JSON]:
        """What the page draws: the seat's own view only (the referee sends nothing else), the legal
        actions of the pending request, its clock, the events so far and the result."""
        with self.cond:
            pending = self.pending
            start = self.start
            remaining = None
            if pending is not None:
                remaining = max(0, int(pending.allowance_ms - (self.clock() - pending.received_at) * 1000))
            return {
                "version": self.version,
                "game": start.get("game"),
                "game_id": start.get("game_id"),
                "seat": start.get("seat"),
                "players": start.get("players") or [],
                "time_control": start.get("time_control"),
                "phase": "over" if self.over else "closed" if self.closed else "asked" if pending else "waiting",
                "step": self.step,
                "view": self.view,
                "request_id": pending.request_id if pending else None,
                "legal": pending.legal if pending else [],
                "remaining_ms": remaining,
                "events": list(self.events),
                "events_dropped": self.events_dropped,
                "result": self.result,
            }
