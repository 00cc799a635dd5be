"""One game with the bot under test at one seat and arena's in-process random players at the others.

The game is the registered engine itself; the bot gets exactly the messages the referee would send
(`arena.protocol` builders), and every exchange is recorded: the decision kind of each request, the
event kinds delivered, each answer's latency and legality (`GameState.check`), stray stdout lines,
time-outs and a crash. With `inject=True` the game also carries what a later protocol version may add:
a message of an unknown type before every message, an unknown member in every message and every view,
and an unknown event kind among the events; `last_injection` then says what the bot saw last when it failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.core.time_control import TimeControl
from arena.errors import IllegalAction
from arena.games.base import GameSpec, GameState
from arena.jsonvalue import JSON, dumps_str
from arena.protocol import ProtocolViolation, end_message, parse_answer, request_message, start_message
from arena.checkbot.session import BotPipe, Line
from arena.referee.referee import default_game_id
from arena.referee.request_ids import Classification, RequestIds
from arena.rng import Rng
from arena.exits import describe_exit
from arena.textsafe import clean

UNKNOWN_TYPE = "x-checkbot-unknown"
UNKNOWN_MEMBER = "x_checkbot_unknown"
UNKNOWN_EVENT = "x-checkbot-unknown-event"
UNKNOWN_VALUE: dict[str, JSON] = {"note": "a member this bot does not know: ignore it", "nested": [1, {"a": None}]}
MAX_TIMEOUTS = 2  # a bot that misses this many answers in a game is stuck: the game is given up
MAX_NOTES = 5  # evidence kept per kind of problem


def decision_kind(view: JSON) -> str:
    """A game names its kinds of decision in the view's "decision"; a game without them has one."""
    kind = view.get("decision") if isinstance(view, dict) else None
    return kind if isinstance(kind, str) else "move"


@dataclass(frozen=True)
class GameConfig:
    players: int
    options: dict[str, JSON]

    def label(self) -> str:
        opts = ", ".join(f"{k}={dumps_str(v)}" for k, v in sorted(self.options.items()))
        return f"{self.players} players" + (f", {opts}" if opts else "")


@dataclass
class CheckedGame:
    """What one game showed of the bot."""

    number: int  # 1-based, on its process
    config: GameConfig
    seat: int
    seed: int
    injected: bool
    requests: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    decision_kinds: set[str] = field(default_factory=set)
    event_kinds: set[str] = field(default_factory=set)
    illegal: list[str] = field(default_factory=list)
    illegal_count: int = 0
    illegal_kinds: set[str] = field(default_factory=set)
    noise: list[str] = field(default_factory=list)
    noise_count: int = 0
    timeouts: list[str] = field(default_factory=list)
    failure: str | None = None  # crash, stuck or silent: the game was given up here
    last_injection: str | None = None
    last_events: list[str] = field(default_factory=list)  # event kinds new to the process in the last message
    crashed: bool = False  # the failure is the process's exit
    finished: bool = False

    def where(self) -> str:
        return f"game {self.number} ({self.config.label()}, seat {self.seat})"


_NOT_PENDING = {  # how check-bot names an answer whose id is not the pending request's (RequestIds.classify)
    Classification.DUPLICATE: "which was already answered",
    Classification.UNASKED: "which was not asked",
    Classification.ANSWER: "which was not pending",
}


@dataclass
class _Ask:
    rid: int
    kind: str
    step: int


# Names the other seats are given: those of arena's sample bots and of the game's own (`GameSpec.sample_bots`),
# as in a tournament of them, so that an ordinary check-bot game carries no name a tournament could not (the
# bot's own seat has its own name).
OTHER_NAMES = ("random-py", "random-c", "random-js")


def other_names(spec: GameSpec) -> tuple[str, ...]:
    return OTHER_NAMES + tuple(bot.name for bot in spec.sample_bots)


def players(seat: int, count: int, own_name: str, rng: Rng, others: tuple[str, ...] = OTHER_NAMES) -> list[str]:
    """The players list of a check-bot game: the bot's hello name at its seat, sample bots' elsewhere."""
    return [own_name if s == seat else rng.choice(others) for s in range(count)]


class GameDriver:
    def __init__(self, spec: GameSpec, session: BotPipe, ids: RequestIds, decision_ms: int, startup_ms: int,
                 own_name: str = "bot") -> None:
        self.spec = spec
        self.own_name = own_name
        self.session = session
        self.ids = ids
        self.decision_ms = decision_ms
        self.startup_ms = startup_ms
        self.delivered: set[str] = set()  # event kinds this process has been sent

    def _note_events(self, kinds: set[str], record: CheckedGame) -> None:
        record.last_events = sorted(kinds - self.delivered)
        self.delivered |= kinds

    def play(self, record: CheckedGame) -> CheckedGame:
        spec, session, seat = self.spec, self.session, record.seat
        state = spec.new_game(record.config.players, record.config.options, record.seed)
        others = Rng(record.seed ^ 0xC0FFEE)
        game_id = default_game_id(spec.name, record.seed)  # the shape of every game id, the seed not in it
        self._stray(record, "before the game")
        names = players(seat, record.config.players, self.own_name, others.fork("names"), other_names(spec))
        start = start_message(
            game_id=game_id, game=spec.name, game_version=spec.version, options=state_options(spec, record.config),
            seat=seat, players=names, time_control=self.time_control(),
        )
        if not self._send(record, start, "the start message"):
            return record
        events: list[JSON] = []
        step = -1
        while state.to_move():
            step += 1
            actions: dict[int, JSON] = {}
            for s in state.to_move():
                if s != seat:
                    legal = state.legal_actions(s)
                    actions[s] = legal[others.below(len(legal))]
                    continue
                view = state.view(s)
                kind = decision_kind(view)
                if record.injected:  # a later game version may add members to its views too
                    view = {**view, UNKNOWN_MEMBER: UNKNOWN_VALUE}
                record.decision_kinds.add(kind)
                if record.injected:
                    events.append({"kind": UNKNOWN_EVENT, **UNKNOWN_VALUE})
                ask = _Ask(self.ids.new(), kind, step)
                message = request_message(
                    request_id=ask.rid, game_id=game_id, game=spec.name, seat=s, step=step, view=view,
                    legal=state.legal_actions(s), clock=self.clock_report(), events=events,
                )
                delivered = {e.get("kind") for e in events if isinstance(e, dict)}
                self._note_events({k for k in delivered if isinstance(k, str)}, record)
                events = []
                if not self._send(record, message, f"request {ask.rid} ({kind} decision)"):
                    return record
                record.event_kinds.update(k for k in delivered if isinstance(k, str) and k != UNKNOWN_EVENT)
                record.requests += 1
                action = self._answer(record, ask, state)
                if record.failure is not None:
                    return record
                actions[s] = state.fallback(s) if action is _NO_ACTION else action
            for event in state.apply(actions):
                if event.visible_to(seat):
                    events.append(event.to_json())
        outcome = state.outcome()
        if record.injected:
            events.append({"kind": UNKNOWN_EVENT, **UNKNOWN_VALUE})
        result: dict[str, JSON] = {**outcome.to_json(), "game_ranks": list(outcome.ranks), "faults": []}
        self._note_events({e["kind"] for e in events}, record)
        end = end_message(game_id=game_id, game=spec.name, seat=seat, events=events, result=result)
        if self._send(record, end, "the end message"):
            record.event_kinds.update(e["kind"] for e in events if e["kind"] != UNKNOWN_EVENT)
            record.finished = True
        return record

    def time_control(self) -> dict[str, JSON]:
        return TimeControl(decision_ms=self.decision_ms, startup_ms=self.startup_ms).to_json()

    def clock_report(self) -> dict[str, JSON]:
        return {"remaining_ms": self.decision_ms, "decision_ms": self.decision_ms, "bank_ms": None, "increment_ms": 0}

    # --- exchanges --------------------------------------------------------------------------------

    def _send(self, record: CheckedGame, message: dict[str, JSON], what: str) -> bool:
        if record.injected:
            if not self.session.send({"type": UNKNOWN_TYPE, **UNKNOWN_VALUE}):
                return self._lost(record, f"it stopped reading before {what}")
            message = {**message, UNKNOWN_MEMBER: UNKNOWN_VALUE}
            extra = ""
            events = message.get("events")
            if isinstance(events, list) and any(isinstance(e, dict) and e.get("kind") == UNKNOWN_EVENT for e in events):
                extra = f" and an event of unknown kind {UNKNOWN_EVENT!r}"
            record.last_injection = (f"a message of unknown type {UNKNOWN_TYPE!r}, then {what} with an unknown member "
                                     f"{UNKNOWN_MEMBER!r}{extra}")
        if not self.session.send(message):
            return self._lost(record, f"it stopped reading its stdin (sending {what})")
        return True

    def _answer(self, record: CheckedGame, ask: _Ask, state: GameState) -> JSON:
        session = self.session
        sent = session.clock()
        deadline = sent + self.decision_ms / 1000
        while True:
            line = session.next_line(deadline)
            if line.timeout:
                self.ids.expire()
                tail = session.stderr_tail()  # what the bot was saying when its time ran out
                said = f"; its stderr then ended with: {' | '.join(tail[-3:])}" if tail else "; nothing on its stderr by then"
                record.timeouts.append(f"{record.where()}: no answer to request {ask.rid} ({ask.kind} decision, "
                                       f"step {ask.step}) within {self.decision_ms} ms{said}")
                if len(record.timeouts) >= MAX_TIMEOUTS:
                    record.failure = f"{record.timeouts[0]}; given up after {MAX_TIMEOUTS} missed answers"
                return _NO_ACTION
            if line.eof:
                self._lost(record, f"it closed its stdout while deciding request {ask.rid} ({ask.kind} decision)")
                return _NO_ACTION
            answer = self._parse(record, line, f"while deciding request {ask.rid}")
            if answer is None:
                continue
            rid, action = answer
            kind = self.ids.classify(rid)
            if kind is not Classification.ANSWER:
                if kind is not Classification.LATE:  # a late answer to a timed-out request is ignored, as the referee does
                    self._noise(record, f"an answer to request {rid}, {_NOT_PENDING[kind]} (while deciding request {ask.rid})")
                continue
            self.ids.settle()
            record.latencies_ms.append((line.at - sent) * 1000)
            try:
                state.check(record.seat, action)
            except IllegalAction as exc:
                record.illegal_count += 1
                record.illegal_kinds.add(ask.kind)
                if len(record.illegal) < MAX_NOTES:
                    record.illegal.append(f"{record.where()}, step {ask.step}, request {ask.rid}: illegal answer to a "
                                          f"{ask.kind!r} decision: {clean(dumps_str(action), 200)}: {clean(exc.reason, 300)}")
                return _NO_ACTION
            return action

    def _parse(self, record: CheckedGame, line: Line, when: str) -> tuple[int, JSON] | None:
        if line.raw is not None:
            self._noise(record, f"{line.raw!r} ({when})")
            return None
        try:
            answer = parse_answer(line.message)
        except ProtocolViolation as exc:
            self._noise(record, f"{clean(str(exc), 200)} ({when})")
            return None
        return answer.request_id, answer.action

    def _stray(self, record: CheckedGame, when: str) -> None:
        for line in self.session.drain(0.0):
            if line.is_json:
                answer = self._parse(record, line, when)
                kind = None if answer is None else self.ids.classify(answer[0])
                if kind is Classification.LATE:
                    continue
                if answer is not None and kind is not None:
                    self._noise(record, f"an answer to request {answer[0]}, {_NOT_PENDING[kind]} ({when})")
            elif line.raw is not None:
                self._noise(record, f"{line.raw!r} ({when})")

    def _noise(self, record: CheckedGame, what: str) -> None:
        record.noise_count += 1
        if len(record.noise) < MAX_NOTES:
            record.noise.append(f"{record.where()}: {what}")

    def _lost(self, record: CheckedGame, why: str) -> bool:
        code = self.session.wait_exit(0.5)
        status = describe_exit(code)
        tail = self.session.stderr_tail()
        hint = f"; stderr ends with: {' | '.join(tail[-3:])}" if tail else ""
        record.failure = f"{record.where()}: {status}: {why}{hint}"
        record.crashed = code is not None
        return False


_NO_ACTION: Any = object()


def state_options(spec: GameSpec, config: GameConfig) -> dict[str, JSON]:
    """The options as the start message states them: every option, defaults filled in."""
    return dict(spec.resolve_options(config.options))
