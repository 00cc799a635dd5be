"""Drives a conformance run: the plan of games, the bot's processes, and the evidence they leave.

Two processes of the bot are used. The main one does the handshake, then plays games one after the
other (every player count, every option value, the bot's seat rotating, more games while a decision or
event kind found by exploring the game has not reached it yet), its memory sampled before each game,
and finally gets `shutdown`. A second, fresh process plays one game full of what later protocol
versions may add (unknown message types, members and event kinds), so that a failure there is known
to be about those and not about, say, the second game of a process.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from arena import __version__
from arena.checkbot.referee_game import RefereeRun, referee_game
from arena.checkbot.driver import (
    UNKNOWN_MEMBER, UNKNOWN_VALUE, GameConfig, GameDriver, CheckedGame, decision_kind,
)
from arena.checkbot.session import RAW_CHARS, BotPipe, BotSession
from arena.referee.request_ids import RequestIds
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.core.clock import Clock
from arena.errors import BotStartError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.jsonvalue import JSON
from arena.protocol import NO_HELLO_HINT, ProtocolViolation, hello_message, parse_hello, shutdown_message
from arena.rng import Rng, derive_seed
from arena.sandbox.probe import decide
from arena.textsafe import NAME_CHARS, clean

EXPLORE_GAMES = 20  # random in-process games per configuration to learn the game's kinds
QUICK_EXPLORE_GAMES = 6
MIN_GAMES = 12  # main-process games of a full run (more when the game has many configurations)
QUICK_MIN_GAMES = 3


@dataclass(frozen=True)
class CheckOptions:
    game: str
    command: tuple[str, ...]
    games: int | None = None  # main-process games; None: every configuration twice (quick: once)
    quick: bool = False
    time_control: TimeControl = TimeControl()  # the probes time each decision and the start-up against it;
    #                                            the game under the referee plays with all of it (bank, game time)
    seed: int = 1
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # added to the bot's environment
    sandbox: bool | None = None  # None: on wherever the sandbox runs here (as `arena play`)
    limits: Limits = field(default_factory=Limits)  # the bot's resource limits: a tournament's defaults

    @property
    def decision_ms(self) -> int:
        return self.time_control.decision_ms

    @property
    def startup_ms(self) -> int:
        return self.time_control.startup_ms

    @property
    def shutdown_ms(self) -> int:  # the referee's grace between shutdown and SIGTERM
        return self.time_control.shutdown_ms


@dataclass
class Handshake:
    elapsed_ms: float | None = None  # when the first line arrived, if it did
    name: str = ""
    version: str = ""
    problem: str | None = None  # why there is no usable hello


@dataclass
class Shutdown:
    exit_code: int | None = None
    after_shutdown_ms: float | None = None  # exited this long after the shutdown message
    after_eof_ms: float | None = None  # ... or only after its stdin was closed
    already_gone: str | None = None  # the process had died before shutdown


@dataclass
class Evidence:
    """Everything the run saw; `checks.evaluate` turns it into verdicts."""

    options: CheckOptions
    spec: GameSpec
    configs: list[GameConfig]
    decision_universe: dict[str, float] = field(default_factory=dict)  # kind -> share of explored seat-games
    event_universe: dict[str, float] = field(default_factory=dict)
    handshake: Handshake = field(default_factory=Handshake)
    games: list[CheckedGame] = field(default_factory=list)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # (games played before, kB)
    shutdown: Shutdown | None = None
    probe_handshake: Handshake = field(default_factory=Handshake)
    probe: CheckedGame | None = None
    referee: RefereeRun | None = None
    stderr_tail: tuple[str, ...] = ()  # the main process's last stderr lines (clean)
    duration_s: float = 0.0


def plan_configs(spec: GameSpec) -> list[GameConfig]:
    """Every player count with default options, then each option at each non-default value."""
    configs = [GameConfig(n, {}) for n in range(spec.min_seats, spec.max_seats + 1)]
    counts = list(range(spec.min_seats, spec.max_seats + 1))
    for option in spec.options:
        values: list[JSON] = []
        if option.choices is not None:
            values = [c for c in option.choices if c != option.default]
        elif option.type is bool:
            values = [not option.default]
        elif option.type is int:
            values = [option.minimum if option.minimum is not None else option.default + 1]
        for value in values:
            configs.append(GameConfig(counts[len(configs) % len(counts)], {option.name: value}))
    return configs


@functools.lru_cache(maxsize=32)
def explore(game: str, seed: int, games: int
            ) -> tuple[dict[str, float], dict[str, float], dict[int, frozenset[str]]]:
    """Kinds of decision and event random play meets in `games` games of each configuration, with the
    share of seat-games that met each; and for each configuration index the kinds it met (to steer
    extra games). Deterministic, and cached: the same game and seed are explored once per process."""
    spec = get_game(game)
    configs = plan_configs(spec)
    decisions: dict[str, int] = {}
    events: dict[str, int] = {}
    by_config: dict[int, frozenset[str]] = {}
    seat_games = 0
    for index, config in enumerate(configs):
        found: set[str] = set()
        for g in range(games):
            game_seed = derive_seed(seed, "explore", index, g)
            state = spec.new_game(config.players, config.options, game_seed)
            rng = Rng(game_seed)
            seen_d: list[set[str]] = [set() for _ in range(config.players)]
            seen_e: list[set[str]] = [set() for _ in range(config.players)]
            while state.to_move():
                actions = {}
                for s in state.to_move():
                    seen_d[s].add(decision_kind(state.view(s)))
                    legal = state.legal_actions(s)
                    actions[s] = legal[rng.below(len(legal))]
                for event in state.apply(actions):
                    for s in range(config.players):
                        if event.visible_to(s):
                            seen_e[s].add(event.kind)
            for s in range(config.players):
                seat_games += 1
                for kind in seen_d[s]:
                    decisions[kind] = decisions.get(kind, 0) + 1
                for kind in seen_e[s]:
                    events[kind] = events.get(kind, 0) + 1
                found |= {f"d:{k}" for k in seen_d[s]} | {f"e:{k}" for k in seen_e[s]}
        by_config[index] = frozenset(found)
    share = max(seat_games, 1)
    return ({k: v / share for k, v in decisions.items()}, {k: v / share for k, v in events.items()}, by_config)


def handshake(session: BotPipe, startup_ms: int, *, unknown_member: bool = False) -> Handshake:
    """Send hello and wait for the bot's, past the allowance so that a late bot's time is known."""
    hello: dict[str, JSON] = hello_message(__version__)
    if unknown_member:
        hello[UNKNOWN_MEMBER] = UNKNOWN_VALUE
    result = Handshake()
    if not session.send(hello):
        result.problem = "it closed its stdin before the hello"
        return result
    waited = startup_ms + max(2000, min(startup_ms, 5000))  # past the allowance, to tell how late it is
    line = session.next_line(session.started_at + waited / 1000)
    if line.timeout:
        result.problem = f"no hello within {waited} ms (the allowance is {startup_ms} ms)"
    elif line.eof:
        code = session.wait_exit(0.5)
        result.problem = f"it exited (status {code}) before its hello"
    else:
        result.elapsed_ms = (line.at - session.started_at) * 1000
        try:
            if line.raw is not None:
                raise ProtocolViolation(f"its first line is not JSON: {line.raw!r}")
            bot = parse_hello(line.message)
            result.name, result.version = clean(bot.name, NAME_CHARS), clean(bot.version, NAME_CHARS)
        except ProtocolViolation as exc:
            result.problem = f"bad hello: {clean(str(exc), 300)}"
    if result.problem is not None:
        tail = session.stderr_tail()
        result.problem += f"; stderr ends with: {' | '.join(tail[-3:])}" if tail else "; nothing on stderr"
        if line.timeout:
            result.problem += f"; {NO_HELLO_HINT}"
    return result


def shutdown(session: BotPipe, grace_ms: int) -> Shutdown:
    result = Shutdown()
    code = session.exit_code()
    if code is not None:
        result.already_gone = f"it had exited (status {code}) before the shutdown"
        result.exit_code = code
        return result
    sent = session.clock()
    session.send(shutdown_message())
    code = session.wait_exit(grace_ms / 1000)
    if code is not None:
        result.after_shutdown_ms = (session.clock() - sent) * 1000
    else:
        session.close_stdin()
        eof = session.clock()
        code = session.wait_exit(grace_ms / 1000)
        if code is not None:
            result.after_eof_ms = (session.clock() - eof) * 1000
    result.exit_code = code
    return result


def run_check(options: CheckOptions, progress: Callable[[str], None] | None = None,
              clock: Clock = time.monotonic) -> Evidence:
    spec = get_game(options.game)
    options = dataclasses.replace(options, sandbox=decide(options.sandbox)[0])  # the CLI showed any warning
    began = clock()
    say = progress or (lambda _text: None)
    configs = plan_configs(spec)
    evidence = Evidence(options, spec, configs)
    say(f"exploring {spec.name}: {len(configs)} configurations")
    explored = QUICK_EXPLORE_GAMES if options.quick else EXPLORE_GAMES
    decisions, events, by_config = explore(spec.name, options.seed, explored)
    evidence.decision_universe, evidence.event_universe = dict(decisions), dict(events)
    _main_process(evidence, by_config, say, clock)
    if evidence.handshake.problem is None:  # a bot that cannot start gets no more processes
        say("probing unknown messages on a fresh process")
        _probe_process(evidence, clock)
        say(f"one game under arena's referee, the bot in all {spec.min_seats} seats")
        evidence.referee = referee_game(spec, options.command, seed=derive_seed(options.seed, "referee"),
                                        time_control=options.time_control,
                                        cwd=options.cwd, env=options.env, sandbox=bool(options.sandbox),
                                        limits=options.limits)
    evidence.duration_s = clock() - began
    return evidence


def _start(options: CheckOptions, clock: Clock) -> BotSession:
    return BotSession(options.command, cwd=options.cwd, env=options.env, sandbox=bool(options.sandbox),
                      limits=options.limits, clock=clock)


def _main_process(evidence: Evidence, by_config: dict[int, frozenset[str]], say: Callable[[str], None],
                  clock: Clock) -> None:
    options, configs = evidence.options, evidence.configs
    if options.games is not None:
        planned = options.games
    else:
        planned = max(len(configs), QUICK_MIN_GAMES) if options.quick else max(2 * len(configs), MIN_GAMES)
    limit = planned if options.quick or options.games is not None else planned + len(configs)
    session = _start(options, clock)
    try:
        evidence.handshake = handshake(session, options.startup_ms)
        if evidence.handshake.problem is not None:
            return
        ids = RequestIds()
        driver = GameDriver(evidence.spec, session, ids, options.decision_ms, options.startup_ms, evidence.handshake.name)
        seen: set[str] = set()
        wanted = {f"d:{k}" for k in evidence.decision_universe} | {f"e:{k}" for k in evidence.event_universe}
        for number in range(1, limit + 1):
            if number > planned and wanted <= seen:
                break
            index = _next_config(number, planned, configs, by_config, wanted - seen)
            config = configs[index]
            rss = session.group_rss_kb()
            if rss is not None:
                evidence.rss_kb.append((number - 1, rss))
            seed = derive_seed(options.seed, "game", number)
            record = CheckedGame(number, config, (number - 1) % config.players, seed, injected=False)
            say(f"game {number}: {config.label()}, seat {record.seat}")
            driver.play(record)
            evidence.games.append(record)
            seen |= {f"d:{k}" for k in record.decision_kinds} | {f"e:{k}" for k in record.event_kinds}
            if record.failure is not None or not record.finished:
                return
        rss = session.group_rss_kb()
        if rss is not None:
            evidence.rss_kb.append((len(evidence.games), rss))
        for line in session.drain(0.05):  # anything said after the last game is noise too
            if evidence.games and not line.eof:
                last = evidence.games[-1]
                last.noise_count += 1
                said = line.raw if line.raw is not None else clean(repr(line.message), RAW_CHARS)
                last.noise.append(f"after the last game: {said!r}")
        evidence.shutdown = shutdown(session, options.shutdown_ms)
    finally:
        session.close()
        evidence.stderr_tail = session.stderr_tail()


def _next_config(number: int, planned: int, configs: Sequence[GameConfig], by_config: dict[int, frozenset[str]],
                 missing: set[str]) -> int:
    """Every configuration in turn; past the plan, the one where random play met most missing kinds."""
    if number <= planned or not missing:
        return (number - 1) % len(configs)
    return max(range(len(configs)), key=lambda i: (len(by_config.get(i, frozenset()) & missing), -i))


def _probe_process(evidence: Evidence, clock: Clock) -> None:
    options = evidence.options
    try:
        session = _start(options, clock)
    except BotStartError as exc:
        evidence.probe_handshake.problem = str(exc)
        return
    try:
        evidence.probe_handshake = handshake(session, options.startup_ms, unknown_member=True)
        if evidence.probe_handshake.problem is not None:
            return
        config = evidence.configs[0]
        record = CheckedGame(1, config, 0, derive_seed(options.seed, "probe"), injected=True)
        driver = GameDriver(evidence.spec, session, RequestIds(), options.decision_ms, options.startup_ms,
                            evidence.probe_handshake.name)
        evidence.probe = driver.play(record)
        if record.finished:
            for line in session.drain(0.05):
                if not line.eof:
                    record.noise_count += 1
                    record.noise.append("after the end message: a stray line")
    finally:
        session.close()
