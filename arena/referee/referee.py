"""One game between bot processes: requests, secret simultaneous decisions, clocks, faults, replay.

The shape of a step: every deciding seat gets its request at once (each encoded once, written with one
`os.write`), then one `selectors` loop waits for all answers, each against its own bot's deadline, and
nothing is sent to any bot until the last answer is in or timed out (the barrier). Only then are the
actions checked, applied and the resulting events queued for the seats' next messages. So no bot can
learn anything of another seat's decision of the same step, whatever it does.

A fault never stops the game: the seat gets the game's fallback action for that decision, or for the
rest of the game when the bot is dead (crash, flood), and the fault is recorded with the bot's last
stderr lines. The ranking consequence is decided once, at the end, by the fault policy.
"""

from __future__ import annotations

import os
import selectors
import time
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from arena.errors import ArenaError, IllegalAction
from arena.games.base import GameSpec, GameState
from arena.games.ranking import competition_ranks
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps_line, loads
from arena.protocol import PROTOCOL_VERSION, ProtocolViolation, end_message, parse_answer, request_message, start_message
from arena.referee.bot import ERR, IN, OUT, BotProcess, Classification
from arena.referee.clock import SeatClock, TimeControl
from arena.referee.commit import commitment, new_salt
from arena.referee.faults import Fault, FaultKind, FaultPolicy
from arena.referee.replay import REPLAY_FORMAT, ReplayWriter

_monotonic = time.monotonic


@dataclass(frozen=True)
class GameResult:
    game: str
    options: dict
    seed: int
    players: tuple[str, ...]  # bot names by seat
    points: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]  # after the fault policy (forfeit: faulty seats share last place)
    game_ranks: tuple[int, ...]  # as the rules scored it
    faults: tuple[Fault, ...]
    decisions: int  # seat decisions taken, fallbacks included
    duration_s: float
    replay_path: str | None
    game_id: str = ""
    policy: FaultPolicy = FaultPolicy.FORFEIT
    versions: tuple[str, ...] = ()  # bot versions by seat, from the handshakes

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "game_id": self.game_id,
            "options": dict(self.options),
            "seed": self.seed,
            "players": list(self.players),
            "versions": list(self.versions),
            "points": list(self.points),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "ranks": list(self.ranks),
            "game_ranks": list(self.game_ranks),
            "policy": self.policy.value,
            "faults": [f.to_json() for f in self.faults],
            "decisions": self.decisions,
            "duration_s": round(self.duration_s, 6),
            "replay_path": self.replay_path,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GameResult":
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            seed=int(data["seed"]),
            players=tuple(data["players"]),
            points=tuple(data["points"]),
            tiebreaks=tuple(tuple(t) for t in data["tiebreaks"]),
            ranks=tuple(data["ranks"]),
            game_ranks=tuple(data["game_ranks"]),
            faults=tuple(Fault.from_json(f) for f in data["faults"]),
            decisions=int(data["decisions"]),
            duration_s=float(data["duration_s"]),
            replay_path=data.get("replay_path"),
            game_id=data.get("game_id", ""),
            policy=FaultPolicy(data.get("policy", "forfeit")),
            versions=tuple(data.get("versions", ())),
        )

    def summary(self) -> dict[str, JSON]:
        """What every bot is told at the end: scores and who faulted, nobody's stderr."""
        return {
            "points": list(self.points),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "ranks": list(self.ranks),
            "game_ranks": list(self.game_ranks),
            "faults": [{"seat": f.seat, "kind": f.kind.value} for f in self.faults],
        }


def apply_policy(game_ranks: Sequence[int], faulty: set[int], policy: FaultPolicy) -> tuple[int, ...]:
    """Final ranks: under forfeit the faulty seats share last place below every clean seat, whose
    order among themselves is the game's."""
    if policy is FaultPolicy.CONTINUE or not faulty:
        return tuple(game_ranks)
    clean = [s for s in range(len(game_ranks)) if s not in faulty]
    clean_ranks = competition_ranks([(-game_ranks[s],) for s in clean])
    ranks = [len(clean) + 1] * len(game_ranks)
    for seat, rank in zip(clean, clean_ranks):
        ranks[seat] = rank
    return tuple(ranks)


class _Seat:
    """The referee's side of one seat during one game."""

    __slots__ = (
        "index", "bot", "clock", "events", "out", "waiting", "rid", "sent", "deadline", "allowance_ms",
        "answered", "action", "elapsed_ms", "salt",
    )

    def __init__(self, index: int, bot: BotProcess, clock: SeatClock) -> None:
        self.index = index
        self.bot = bot
        self.clock = clock
        self.events: list[JSON] = []  # events for this seat not yet sent
        self.out = False  # the bot is dead: fallbacks for the rest of the game
        self.waiting = False
        self.rid: int | None = None
        self.sent = 0.0
        self.deadline = 0.0
        self.allowance_ms = 0.0
        self.answered = False
        self.action: JSON = None
        self.elapsed_ms: float | None = None
        self.salt: str | None = None


class _Game:
    def __init__(
        self,
        spec: GameSpec,
        bots: Sequence[BotProcess],
        seed: int,
        options: dict[str, Any],
        time_control: TimeControl,
        policy: FaultPolicy,
        replay: ReplayWriter | None,
        game_id: str,
    ) -> None:
        self.spec = spec
        self.seed = seed
        self.options = options
        self.time_control = time_control
        self.policy = policy
        self.replay = replay
        self.game_id = game_id
        self.state: GameState = spec.new_game(len(bots), options, seed)
        self.seats = [_Seat(i, bot, SeatClock.new(time_control)) for i, bot in enumerate(bots)]
        self.by_bot = {id(bot): seat for bot, seat in zip(bots, self.seats)}
        self.sel = selectors.DefaultSelector()
        self.faults: list[Fault] = []
        self.step = -1
        self.secret = False
        self.decisions = 0

    # --- the game ---------------------------------------------------------------------------------

    def run(self) -> GameResult:
        started = _monotonic()
        names = tuple(seat.bot.name for seat in self.seats)
        if self.replay is not None:
            self.replay.write(self._header(names))
        self._begin()
        state = self.state
        while True:
            deciding = state.to_move()
            if not deciding:
                break
            self.step += 1
            self._play_step(deciding)
        self.step = -1
        outcome = state.outcome()
        faulty = {f.seat for f in self.faults if f.seat >= 0}
        result = GameResult(
            game=self.spec.name,
            options=dict(self.options),
            seed=self.seed,
            players=names,
            points=tuple(outcome.points),
            tiebreaks=tuple(tuple(t) for t in outcome.tiebreaks),
            ranks=apply_policy(outcome.ranks, faulty, self.policy),
            game_ranks=tuple(outcome.ranks),
            faults=tuple(self.faults),
            decisions=self.decisions,
            duration_s=_monotonic() - started,
            replay_path=self.replay.path if self.replay is not None else None,
            game_id=self.game_id,
            policy=self.policy,
            versions=tuple(seat.bot.version for seat in self.seats),
        )
        self._end(result)
        if self.replay is not None:
            self.replay.write({"type": "result", **result.to_json()})
        return result

    def _header(self, names: tuple[str, ...]) -> dict[str, JSON]:
        return {
            "type": "header",
            "format": REPLAY_FORMAT,
            "protocol": PROTOCOL_VERSION,
            "game": self.spec.name,
            "game_version": self.spec.version,
            "game_id": self.game_id,
            "options": self.options,
            "seed": self.seed,
            "seats": [
                {
                    "seat": s.index,
                    "name": s.bot.name,  # as the bot introduced itself
                    "version": s.bot.version,
                    "entrant": s.bot.spec.name,  # as the operator named it
                    "command": list(s.bot.spec.command),
                }
                for s in self.seats
            ],
            "time_control": self.time_control.to_json(),
            "policy": self.policy.value,
        }

    def _begin(self) -> None:
        names = [seat.bot.name for seat in self.seats]
        for seat in self.seats:
            bot = seat.bot
            if not bot.alive:
                seat.out = True
                self._fault(seat, FaultKind.START_FAILED, None, "the bot process was not running when the game started")
                continue
            bot.begin_game()
            bot.pending_id = None
            bot.attach(self.sel)
            backlog, bot.backlog = bot.backlog, []
            for line in backlog:
                self._judge(seat, line, _monotonic())
        self._poll(0.0)  # lines left over from earlier games: late answers, or answers to nothing
        for seat in self.seats:
            if seat.out:
                continue
            message = start_message(
                game_id=self.game_id,
                game=self.spec.name,
                game_version=self.spec.version,
                options=self.options,
                seat=seat.index,
                players=names,
                time_control=self.time_control.to_json(),
            )
            if not seat.bot.send(dumps_line(message)):
                self._crash(seat, f"{seat.bot.write_failure()} at the start of the game")

    def _play_step(self, deciding: tuple[int, ...]) -> None:
        self._poll(0.0)  # judge what arrived between steps first: nothing unasked may pass as an answer
        state = self.state
        seats = self.seats
        step = self.step
        self.secret = len(deciding) > 1
        # Build every request first, then write them back to back: the bots' clocks start within
        # microseconds of each other, and no bot is woken while the next request is still being built.
        outgoing: list[tuple[_Seat, bytes]] = []
        for s in deciding:
            seat = seats[s]
            seat.answered = False
            seat.action = None
            seat.elapsed_ms = None
            seat.salt = None
            seat.rid = None
            if seat.out:
                continue
            rid = seat.bot.new_request_id()
            events, seat.events = seat.events, []
            clock = seat.clock
            outgoing.append(
                (
                    seat,
                    dumps_line(
                        request_message(
                            request_id=rid,
                            game_id=self.game_id,
                            game=self.spec.name,
                            seat=s,
                            step=step,
                            view=state.view(s),
                            legal=state.legal_actions(s),
                            clock=clock.report(),
                            events=events,
                        )
                    ),
                )
            )
            seat.rid = rid
            seat.allowance_ms = clock.allowance_ms()
        asked: list[_Seat] = []
        for seat, data in outgoing:
            if not seat.bot.send(data):
                self._crash(seat, seat.bot.write_failure())
                continue
            now = _monotonic()
            seat.sent = now
            seat.deadline = now + seat.allowance_ms / 1000.0
            seat.waiting = True
            asked.append(seat)
        self._collect(asked)
        self._barrier(deciding)

    def _collect(self, waiting: list[_Seat]) -> None:
        """Wait for every asked seat's answer or deadline; each bot only against its own clock."""
        select = self.sel.select
        while True:
            waiting = [seat for seat in waiting if seat.waiting]
            if not waiting:
                return
            timeout = min(seat.deadline for seat in waiting) - _monotonic()
            ready = select(timeout if timeout > 0.0 else 0.0)
            now = _monotonic()
            answered_now: set[int] = set()
            for key, _ in ready:
                bot, which = key.data
                if which == OUT:
                    answered_now.add(id(bot))
                self._dispatch(bot, which, now)
            for seat in waiting:
                # A seat whose stdout had nothing when the select returned after its deadline is late.
                if seat.waiting and now >= seat.deadline and id(seat.bot) not in answered_now:
                    self._timeout(seat, now)

    def _barrier(self, deciding: tuple[int, ...]) -> None:
        """All answers are in: fill in fallbacks, apply, reveal to the replay, queue the events.

        Answers are applied optimistically: `apply` checks every action before changing anything and
        names the seat of an illegal one, so legality costs one check per decision, not two.
        """
        state = self.state
        seats = self.seats
        actions: dict[int, JSON] = {}
        from_bot: set[int] = set()
        for s in deciding:
            seat = seats[s]
            if seat.answered:
                actions[s] = seat.action
                from_bot.add(s)
            else:
                actions[s] = state.fallback(s)
        for _ in range(len(deciding) + 1):
            try:
                events = state.apply(actions)
                break
            except IllegalAction as exc:
                if exc.seat not in from_bot:
                    raise  # the game refused its own fallback: a bug in the game, not in a bot
                seat = seats[exc.seat]
                self._fault(seat, FaultKind.ILLEGAL_ACTION, seat.rid, f"illegal action {seat.action!r}: {exc.reason}")
                from_bot.discard(exc.seat)
                actions[exc.seat] = state.fallback(exc.seat)
        replay = self.replay
        if replay is not None:
            for s in deciding:
                seat = seats[s]
                replay.write(
                    {
                        "type": "decision",
                        "step": self.step,
                        "seat": s,
                        "id": seat.rid,
                        "answer": seat.action if seat.answered else None,
                        "answered": seat.answered,
                        "salt": seat.salt,
                        "played": actions[s],
                        "source": "bot" if s in from_bot else "fallback",
                        "elapsed_ms": None if seat.elapsed_ms is None else round(seat.elapsed_ms, 3),
                    }
                )
        self.decisions += len(deciding)
        public: list[JSON] = []
        for event in events:
            data = event.to_json()
            public.append(data)
            if event.to is None:
                for seat in seats:
                    if not seat.out:
                        seat.events.append(data)
            else:
                target = seats[event.to]
                if not target.out:
                    target.events.append(data)
        if replay is not None:
            replay.write({"type": "events", "step": self.step, "events": public})

    def _end(self, result: GameResult) -> None:
        summary = result.summary()
        for seat in self.seats:
            if seat.out:
                continue
            events, seat.events = seat.events, []
            message = end_message(game_id=self.game_id, game=self.spec.name, seat=seat.index, events=events, result=summary)
            seat.bot.send(dumps_line(message))
            seat.bot.flush_blocking(0.2)  # a bot that does not read gets what fits, and no wait beyond this
        # No reading here: the result (and its faults) is final once built, and a fault recorded now
        # would be in the replay but not in the result. What a bot does after `end` (exit, stray
        # lines) is judged when its next game begins, or by `close`.

    # --- input ------------------------------------------------------------------------------------

    def _poll(self, timeout: float) -> None:
        ready = self.sel.select(timeout)
        now = _monotonic()
        for key, _ in ready:
            bot, which = key.data
            self._dispatch(bot, which, now)

    def _dispatch(self, bot: BotProcess, which: int, now: float) -> None:
        seat = self.by_bot[id(bot)]
        if seat.out:
            return
        if which == OUT:
            for line in bot.read_stdout():
                self._judge(seat, line, now)
                if seat.out:
                    return
            if bot.out_eof:
                self._crash(seat, "it closed its stdout")
        elif which == ERR:
            bot.read_stderr()
            if bot.game_stderr_bytes > bot.limits.max_stderr_bytes_per_game:
                self._flood(seat, f"more than {bot.limits.max_stderr_bytes_per_game} bytes on stderr in one game")
        elif which == IN:
            bot.flush_output()
            if bot.broken_pipe:
                self._crash(seat, "its stdin is closed")

    def _judge(self, seat: _Seat, line: bytes | None, now: float) -> None:
        """One stdout line: the answer to the pending request, or a fault of its own kind."""
        bot = seat.bot
        if line is None:
            self._bad_line(seat, FaultKind.LINE_TOO_LONG, f"a line over {bot.limits.max_line_bytes} bytes (the rest was discarded)", now)
            return
        try:
            message = loads(line)
        except ValueError:
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                self._bad_line(seat, FaultKind.INVALID_UTF8, f"a line that is not UTF-8 ({exc.reason} at byte {exc.start})", now)
                return
            self._bad_line(seat, FaultKind.MALFORMED_JSON, f"a line that is not JSON: {line[:100]!r}", now)
            return
        try:
            rid, action = parse_answer(message)
        except ProtocolViolation as exc:
            self._bad_line(seat, FaultKind.MALFORMED_JSON, str(exc), now)
            return
        kind = bot.classify(rid)
        if kind is Classification.ANSWER:
            self._answer(seat, action, now)
        elif kind is Classification.LATE:
            pass  # the answer to a request that already timed out: the timeout was the fault
        else:
            if kind is Classification.DUPLICATE:
                detail = f"a second answer to request {rid}: answers are final, it was ignored"
            else:
                detail = f"an answer to request {rid}, which was not asked (early or made up): ignored"
            self._fault(seat, FaultKind.UNEXPECTED_ANSWER, rid, detail)
            self._unasked(seat)

    def _answer(self, seat: _Seat, action: JSON, now: float) -> None:
        seat.waiting = False
        seat.bot.pending_id = None
        seat.answered = True
        seat.action = action
        seat.elapsed_ms = elapsed = (now - seat.sent) * 1000.0
        seat.clock.charge(elapsed)
        if self.secret and self.replay is not None:
            # Committed the moment it arrives, before the barrier: the replay proves the order.
            seat.salt = salt = new_salt()
            self.replay.write(
                {
                    "type": "commit",
                    "step": self.step,
                    "seat": seat.index,
                    "id": seat.rid,
                    "commitment": commitment(salt, self.step, seat.index, action),
                    "elapsed_ms": round(elapsed, 3),
                },
                flush=True,
            )

    def _bad_line(self, seat: _Seat, kind: FaultKind, detail: str, now: float) -> None:
        """An unreadable line is the answer to the pending request, if any (answers are final)."""
        if seat.waiting:
            seat.waiting = False
            seat.bot.pending_id = None
            seat.elapsed_ms = elapsed = (now - seat.sent) * 1000.0
            seat.clock.charge(elapsed)
            self._fault(seat, kind, seat.rid, detail)
        else:
            self._fault(seat, kind, None, detail)
            self._unasked(seat)

    def _unasked(self, seat: _Seat) -> None:
        bot = seat.bot
        bot.game_unasked_lines += 1
        if bot.game_unasked_lines > bot.limits.max_unasked_lines_per_game:
            self._flood(seat, f"more than {bot.limits.max_unasked_lines_per_game} stdout lines that answer nothing in one game")

    def _timeout(self, seat: _Seat, now: float) -> None:
        bot = seat.bot
        if bot.proc.poll() is not None:  # exited, with its stdout held open by a child
            self._crash(seat, "no answer")
            return
        seat.waiting = False
        bot.expire_pending()
        seat.elapsed_ms = elapsed = (now - seat.sent) * 1000.0
        seat.clock.charge(elapsed)
        self._fault(seat, FaultKind.TIMEOUT, seat.rid, f"no answer within {seat.allowance_ms:.0f} ms")

    # --- faults -----------------------------------------------------------------------------------

    def _fault(self, seat: _Seat, kind: FaultKind, rid: int | None, detail: str) -> None:
        fault = Fault(seat.index, kind, self.step, rid, detail, seat.bot.stderr_tail())
        self.faults.append(fault)
        if self.replay is not None:
            self.replay.write({"type": "fault", **fault.to_json()})

    def _remove(self, seat: _Seat) -> tuple[int | None, bool]:
        """Take a seat's bot out of the game for good: kill its group; fallbacks from now on."""
        rid = seat.rid if seat.waiting else None
        seat.waiting = False
        seat.out = True
        seat.events = []
        seat.bot.detach()
        orphans = seat.bot.kill()
        return rid, orphans

    def _crash(self, seat: _Seat, why: str) -> None:
        rid, orphans = self._remove(seat)
        limit = seat.bot.limit_detail  # a sandbox limit ended it: say which
        kind, detail = (FaultKind.LIMIT, f"{limit}; {seat.bot.exit_detail}") if limit else (FaultKind.CRASH, seat.bot.exit_detail)
        self._fault(seat, kind, rid, f"{detail} ({why})")
        if orphans:
            self._fault(seat, FaultKind.ORPHANS, None, "it exited and left processes running in its group (killed)")

    def _flood(self, seat: _Seat, why: str) -> None:
        rid, _ = self._remove(seat)
        self._fault(seat, FaultKind.FLOOD, rid, f"{why}; the bot was stopped")

    def close(self) -> None:
        for seat in self.seats:
            seat.bot.detach()
            if seat.waiting:  # an exception mid-step: nothing may answer this request later
                seat.bot.expire_pending()
                seat.waiting = False
        self.sel.close()


def play_game(
    game: str | GameSpec,
    bots: Sequence[BotProcess],
    *,
    seed: int,
    options: Mapping | None = None,
    time_control: TimeControl = TimeControl(),
    policy: FaultPolicy = FaultPolicy.FORFEIT,
    replay_path: str | os.PathLike | None = None,
    game_id: str | None = None,
) -> GameResult:
    """Play one game; `bots[i]` holds seat i. The bots stay running for the next game (close them
    yourself); a bot that crashed or flooded is dead afterwards (`alive` is False): restart it."""
    spec = get_game(game) if isinstance(game, str) else game
    spec.check_seats(len(bots))
    if len({id(bot) for bot in bots}) != len(bots):
        raise ArenaError("one bot process cannot hold two seats of a game: start one process per seat")
    resolved = spec.resolve_options(options)
    gid = game_id or f"{spec.name}-{seed}-{uuid.uuid4().hex[:8]}"
    replay = ReplayWriter(replay_path) if replay_path is not None else None
    match = None
    try:
        match = _Game(spec, bots, int(seed), resolved, time_control, policy, replay, gid)
        return match.run()
    finally:
        if match is not None:
            match.close()
        if replay is not None:
            replay.close()
