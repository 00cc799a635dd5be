"""One game between bot processes: requests, secret simultaneous decisions, clocks, faults, replay.

The shape of a step: every deciding seat gets its request at once (each encoded once, the part of the
view every seat shares encoded once for all, each written with one `os.write`), then the transport (one
`selectors` loop) waits for all answers, each against its own bot's deadline measured from when its
request was written (`arena.referee.decisions`), and
nothing is sent to any bot until the last answer is in or timed out (the barrier). Only then are the
actions checked, applied and the resulting events queued for the seats' next messages. So no bot can
learn anything of another seat's decision of the same step, whatever it does.

A fault never stops the game: the seat gets the game's fallback action for that decision, or for the
rest of the game when the bot is dead (crash, flood), and the fault is recorded with the bot's last
stderr lines. The ranking consequence is decided once, at the end, by the fault policy. A whole game
lasts at most `TimeControl.game_ms` of wall-clock time: a decision is cut at that limit (a timeout),
and after it every remaining decision is the fallback, without asking the bots.

The clock and the transport are injected (`play_game(clock=..., transport=...)`), so tests drive time
exactly; by default they are `time.monotonic` and a `SelectorTransport` over the bots' pipes.

A branch (`script=`, see `arena.referee.script`) plays the original game's recorded actions before
its branch point: the requests are sent and the answers read as in any step, and ignored.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Mapping, Sequence

from arena.errors import ArenaError, GameBroke, IllegalAction
from arena.games.base import GameSpec, GameState
from arena.games.broken import broke
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps_line, encoded
from arena.protocol import PROTOCOL_VERSION, end_message, preview, request_message, start_message
from arena.core.clock import Clock, Deadline, SeatClock
from arena.core.time_control import TimeControl
from arena.referee.decisions import Judge, LogSink, SeatInPlay
from arena.core.faults import FaultKind, FaultPolicy
from arena.replay import Header, ReplayWriter, SeatInfo
from arena.core.result import GameResult, Played, apply_policy
from arena.referee.script import Script
from arena.referee.transport import BotHandle, SelectorTransport, Transport
from arena.referee.stderr_log import LogBounds, StderrLog
from arena.rng import derive_seed, opaque_game_id
from arena.textsafe import clean

__all__ = ["GameResult", "StepHook", "apply_policy", "default_game_id", "play_game"]

# Called after the deal (step -1), after each step with its events, and once at the end (`over`): a live
# view's tap (`arena.live.tap`). It must return at once and never raise; the state is not to be kept.
StepHook = Callable[[int, GameState, Sequence[JSON], bool], None]


class _Game:
    def __init__(
        self,
        spec: GameSpec,
        bots: Sequence[BotHandle],
        seed: int,
        options: dict[str, Any],
        time_control: TimeControl,
        policy: FaultPolicy,
        replay: ReplayWriter | None,
        game_id: str,
        clock: Clock,
        transport: Transport,
        script: Script | None = None,
        keep_logs: bool = False,
        on_log: LogSink | None = None,
        log_bounds: LogBounds = LogBounds(),
        on_step: StepHook | None = None,
    ) -> None:
        self.on_step = on_step
        self.spec = spec
        self.keep_logs = keep_logs and replay is not None
        self.on_log = on_log
        self.seed = seed
        self.options = options
        self.time_control = time_control
        self.policy = policy
        self.replay = replay
        self.game_id = game_id
        self.clock = clock
        self.transport = transport
        self.script = script
        self.state: GameState = spec.new_game(len(bots), options, seed)
        logged = self.keep_logs or on_log is not None
        self.seats = [SeatInPlay(i, bot, SeatClock.new(time_control), StderrLog(i, log_bounds) if logged else None)
                      for i, bot in enumerate(bots)]
        self.judge = Judge(self.seats, transport, clock, replay)
        self.step = -1
        self.decisions = 0
        self.game_deadline: Deadline | None = None
        self.overtime = False  # past the game's wall-clock limit: fallbacks only

    # --- the game ---------------------------------------------------------------------------------

    def run(self) -> GameResult:
        started = self.clock()
        if self.time_control.game_ms is not None:
            self.game_deadline = Deadline(started, float(self.time_control.game_ms))
        names = tuple(seat.bot.name for seat in self.seats)
        if self.replay is not None:
            self.replay.header(self._header())
        self._begin()
        state = self.state
        if self.on_step is not None:
            self.on_step(-1, state, (), False)
        while True:
            deciding = state.to_move()
            if not deciding:
                break
            self.step += 1
            self.judge.begin_step(self.step, self.script is not None and self.script.scripted(self.step))
            if self.script is not None and self.step == self.script.at_step:
                self.judge.release()
            self._play_step(deciding)
        self.judge.end_game()
        last_step, self.step = self.step, -1
        outcome = state.outcome()
        faults = self.judge.faults
        faulty = {f.seat for f in faults if f.seat >= 0}
        played = Played(
            points=tuple(outcome.points),
            tiebreaks=tuple(tuple(t) for t in outcome.tiebreaks),
            ranks=apply_policy(outcome.ranks, faulty, self.policy),
            game_ranks=tuple(outcome.ranks),
            faults=tuple(faults),
            versions=tuple(seat.bot.version for seat in self.seats),
            decisions=self.decisions,
            duration_s=self.clock() - started,
        )
        result = GameResult(
            game=self.spec.name,
            options=dict(self.options),
            seed=self.seed,
            players=names,
            played=played,
            replay_path=self.replay.path if self.replay is not None else None,
            game_id=self.game_id,
            policy=self.policy,
        )
        self._end(result)
        if self.replay is not None:
            self.replay.result(played)
        if self.on_step is not None:
            self.on_step(last_step, state, (), True)
        return result

    def _header(self) -> Header:
        seats = tuple(
            SeatInfo(s.index, s.bot.name, s.bot.version, s.bot.spec.name, tuple(s.bot.spec.command), s.bot.spec.cwd)
            for s in self.seats
        )
        return Header(PROTOCOL_VERSION, self.spec.name, self.spec.version, self.game_id, self.options, self.seed,
                      seats, self.time_control.to_json(), self.policy, self.script.branch if self.script else None)

    def _begin(self) -> None:
        names = [seat.bot.name for seat in self.seats]
        judge = self.judge
        for seat in self.seats:
            bot = seat.bot
            if not bot.alive:
                seat.out = True
                judge.fault(seat, FaultKind.START_FAILED, None, "the bot process was not running when the game started")
                continue
            bot.begin_game()
            self.transport.watch(bot)
            backlog, bot.backlog = bot.backlog, []
            now = self.clock()
            for line in backlog:
                judge.judge(seat, line, now)
        judge.poll()  # lines left over from earlier games: late answers, or answers to nothing
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
                judge.crash(seat, f"{seat.bot.write_failure()} at the start of the game")

    def _game_left_ms(self) -> float | None:
        if self.game_deadline is None:
            return None
        return self.game_deadline.remaining_s(self.clock()) * 1000.0

    def _play_step(self, deciding: tuple[int, ...]) -> None:
        judge = self.judge
        judge.poll()  # judge what arrived between steps first: nothing unasked may pass as an answer
        state = self.state
        seats = self.seats
        step = self.step
        judge.asking(deciding)
        for s in deciding:
            seats[s].reset()
        left = self._game_left_ms()
        if left is not None and left <= 0 and not self.overtime:
            self._over_time()
        if self.overtime:  # past the game's wall-clock limit: nobody is asked any more
            self._barrier(deciding)
            return
        # Build every request first, then write them back to back: the bots' clocks start within
        # microseconds of each other, and no bot is woken while the next request is still being built.
        outgoing: list[tuple[SeatInPlay, bytes, float]] = []
        # The public part of the views, its lists and objects encoded once for every seat (a number is as
        # cheap to encode in place as to place).
        shared = {key: encoded(value) if type(value) in (list, dict) else value
                  for key, value in state.public_view().items()}
        for s in deciding:
            seat = seats[s]
            if seat.out:
                continue
            allowance = seat.clock.allowance_ms()
            if left is not None and left < allowance:
                allowance = max(left, 0.0)
                seat.game_cut = True
            rid = seat.bot.new_request_id()
            events, seat.events = seat.events, []
            view = shared.copy()  # a clone of the shared part, then the seat's own keys (apart from it, by contract)
            view.update(state.own_view(s))
            data = dumps_line(
                request_message(
                    request_id=rid,
                    game_id=self.game_id,
                    game=self.spec.name,
                    seat=s,
                    step=step,
                    view=view,
                    legal=state.legal_actions(s),
                    clock=seat.clock.report(allowance),
                    events=events,
                )
            )
            seat.rid = rid
            outgoing.append((seat, data, allowance))
        judge.poll()  # a line read before its request is written can never answer it
        asked: list[SeatInPlay] = []
        for seat, data, allowance in outgoing:
            if seat.out:
                continue
            if not seat.bot.send(data):
                judge.crash(seat, seat.bot.write_failure())
                continue
            seat.deadline = Deadline(self.clock(), allowance)
            seat.waiting = True
            asked.append(seat)
        judge.collect(asked)
        left = self._game_left_ms()
        if left is not None and left <= 0 and not self.overtime:
            self._over_time()
        self._barrier(deciding)

    def _over_time(self) -> None:
        """The game reached its wall-clock limit: every seat still in it gets a `game_time` fault (under
        forfeit the game is then void: all share last place), and fallbacks are played to the end."""
        self.overtime = True
        limit = self.time_control.game_ms
        for seat in self.seats:
            if not seat.out:
                self.judge.fault(seat, FaultKind.GAME_TIME, None, f"the game reached its wall-clock limit of {limit} ms")

    def _barrier(self, deciding: tuple[int, ...]) -> None:
        """All answers are in: fill in fallbacks, apply, reveal to the replay, queue the events.

        Answers are applied optimistically: `apply` checks every action before changing anything and
        names the seat of an illegal one, so legality costs one check per decision, not two.
        """
        state = self.state
        seats = self.seats
        actions: dict[int, JSON] = {}
        from_bot: set[int] = set()
        script = self.script if self.judge.scripted else None
        for s in deciding:
            seat = seats[s]
            if script is not None:  # a recorded step of a branch: the bots' answers count for nothing
                actions[s] = script.actions[(self.step, s)]
            elif seat.answered:
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
                self.judge.fault(seat, FaultKind.ILLEGAL_ACTION, seat.rid, f"illegal action {preview(seat.action)}: {exc.reason}")
                from_bot.discard(exc.seat)
                actions[exc.seat] = state.fallback(exc.seat)
        self.judge.record_decisions(deciding, actions, from_bot)
        self.decisions += len(deciding)
        public: list[JSON] = []
        for event in events:
            data = event.to_json()
            public.append(data)
            if event.to is None:
                shared = encoded(data)  # one encoding for every seat's next message
                for seat in seats:
                    if not seat.out:
                        seat.events.append(shared)
            else:
                target = seats[event.to]
                if not target.out:
                    target.events.append(data)
        if self.replay is not None:
            self.replay.events(self.step, public)
        if self.on_step is not None:
            self.on_step(self.step, state, public, False)
        self.judge.record_logs(self.keep_logs, self.on_log)

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

    def close(self) -> None:
        for seat in self.seats:
            self.transport.unwatch(seat.bot)
            if seat.waiting:  # an exception mid-step: nothing may answer this request later
                seat.bot.expire_pending()
                seat.waiting = False


def default_game_id(game: str, seed: int) -> str:
    """The game id when none is given: a one-way hash of the seed (`<game>-<16 hex>`, the shape of every
    game id), so a seed reproduces the game and bots that seed themselves from the game id, while the
    id tells a bot nothing it could not find by trying seeds against its own hand."""
    return opaque_game_id(game, derive_seed(seed, "game-id", game))


def play_game(
    game: str | GameSpec,
    bots: Sequence[BotHandle],
    *,
    seed: int,
    options: Mapping[str, Any] | None = None,
    time_control: TimeControl = TimeControl(),
    policy: FaultPolicy = FaultPolicy.FORFEIT,
    replay_path: str | os.PathLike[str] | None = None,
    game_id: str | None = None,
    clock: Clock = time.monotonic,
    transport: Transport | None = None,
    script: Script | None = None,
    keep_logs: bool = False,
    on_log: LogSink | None = None,
    log_bounds: LogBounds = LogBounds(),
    on_step: StepHook | None = None,
) -> GameResult:
    """Play one game; `bots[i]` holds seat i. The bots stay running for the next game (close them
    yourself); a bot that crashed or flooded is dead afterwards (`alive` is False): restart it.
    `script`: play a branch of a recorded game, its recorded actions before `script.at_step`.
    `keep_logs`: write each seat's stderr lines per step into the replay (`log` records); `on_log`
    gets them too, step by step (`arena.referee.stderr_log`: bounded by `log_bounds`, and clean).
    `on_step`: told of the state after the deal, each step and the end (`StepHook`: a live view's tap)."""
    spec = get_game(game) if isinstance(game, str) else game
    spec.check_seats(len(bots))
    if len({id(bot) for bot in bots}) != len(bots):
        raise ArenaError("one bot process cannot hold two seats of a game: start one process per seat")
    resolved = spec.resolve_options(options)
    gid = game_id or default_game_id(spec.name, int(seed))
    own_transport = transport is None
    link: Transport = SelectorTransport(clock) if transport is None else transport
    replay = ReplayWriter(replay_path) if replay_path is not None else None
    match = None
    try:
        match = _Game(spec, bots, int(seed), resolved, time_control, policy, replay, gid, clock, link, script,
                      keep_logs, on_log, log_bounds, on_step)
        return match.run()
    except Exception as exc:  # noqa: BLE001 - the game's own code may raise anything: then it is the game's fault
        said = broke(spec, exc, match.step if match is not None else -1)
        if said is None:
            raise
        raise GameBroke(clean(said, 600)) from exc
    finally:
        if match is not None:
            match.close()
        if own_transport:
            link.close()
        if replay is not None:
            replay.close()
