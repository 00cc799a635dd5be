"""The verdicts of a conformance run: one typed `CheckResult` per check, from the run's `Evidence`.

Pure: nothing here runs a process or reads a clock, so every threshold is tested exactly.

Thresholds (also in the README):
- handshake: a valid hello within `startup_ms` of the start.
- latency: no time-out and every answer within `decision_ms`; a warning when the 99th percentile
  uses more than half of it (a loaded tournament machine is slower than yours).
- memory: resident memory (VmRSS) of the bot's process group, sampled before every game and after
  the last; judged from the sample a third of the way in (after the warm-up of caches and JITs) to
  the end, when at least 5 games were measured. Fail when it grew by more than 64 MB, or, with at
  least 10 games measured, by more than 16 MB at a pace of over 1 MB a game (1 GB over a 1,000-game
  tournament); a warning at over 256 kB a game with at least 10 games measured.
"""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass, replace
from typing import Callable

from arena.checkbot.driver import CheckedGame
from arena.checkbot.load import Load
from arena.checkbot.runner import Evidence

SHOWN = 5  # evidence lines shown per check

MEMORY_FAIL_KB = 64 * 1024
MEMORY_LEAK_MIN_KB = 16 * 1024
MEMORY_LEAK_PER_GAME_KB = 1024
MEMORY_WARN_PER_GAME_KB = 256
MEMORY_MIN_GAMES = 5
MEMORY_LEAK_MIN_GAMES = 10


class Status(enum.Enum):
    PASS = "pass"
    WARN = "warn"  # worth a look; does not fail the run
    FAIL = "fail"
    SKIP = "skip"  # could not be checked because an earlier step failed


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: Status
    summary: str
    evidence: tuple[str, ...] = ()
    timing: bool = False  # a failure a clock decided (a time-out, an allowance exceeded): a busy machine may cause it

    @property
    def passed(self) -> bool:
        return self.status is not Status.FAIL


def _skip(name: str, evidence: Evidence) -> CheckResult | None:
    if evidence.handshake.problem is not None:
        return CheckResult(name, Status.SKIP, "not checked: the bot did not complete its handshake")
    if not evidence.games:
        return CheckResult(name, Status.SKIP, "not checked: no game was played")
    return None


def check_handshake(evidence: Evidence) -> CheckResult:
    hs, allowance = evidence.handshake, evidence.options.startup_ms
    if hs.problem is not None:
        return CheckResult("handshake", Status.FAIL, hs.problem)
    assert hs.elapsed_ms is not None
    said = f"hello from {hs.name!r} version {hs.version!r} after {hs.elapsed_ms:.0f} ms"
    if hs.elapsed_ms > allowance:
        return CheckResult("handshake", Status.FAIL, f"{said}: over the start-up allowance of {allowance} ms",
                           ("the referee would not start this bot; load less before the hello, or raise startup_ms",), timing=True)
    return CheckResult("handshake", Status.PASS, f"{said} (allowance {allowance} ms)")


def check_games(evidence: Evidence) -> CheckResult:
    skipped = _skip("games", evidence)
    if skipped:
        return skipped
    games = evidence.games
    failed = _first_failure(evidence)
    if failed is not None:
        notes = [failed.failure or f"{failed.where()} did not finish"]
        if failed.number > 1 and _stuck_from_start(failed):
            notes.append(f"the {failed.number - 1} game(s) before it went well on the same process: does the bot "
                         "flush stdout after every message, and reset its state at each start?")
        elif failed.number > 1:
            notes.append(f"the {failed.number - 1} game(s) before it went well on the same process: see configurations")
        return CheckResult("games", Status.FAIL, f"game {failed.number} on one process failed", tuple(notes))
    if len(games) < 2:
        return CheckResult("games", Status.WARN, "only one game was played: raise --games")
    requests = sum(g.requests for g in games)
    return CheckResult("games", Status.PASS, f"{len(games)} games on one process, {requests} requests answered")


def check_configurations(evidence: Evidence) -> CheckResult:
    skipped = _skip("configurations", evidence)
    if skipped:
        return skipped
    failed = _first_failure(evidence)
    if failed is not None:
        first_time = all(g.config != failed.config for g in evidence.games[: failed.number - 1])
        if first_time and not _stuck_from_start(failed):
            return CheckResult("configurations", Status.FAIL, f"failed its first game with {failed.config.label()}",
                               (failed.failure or "",))
        return CheckResult("configurations", Status.SKIP, f"cut short by the failure of game {failed.number} (see games)")
    notes = []
    for config in evidence.configs:
        count = sum(1 for g in evidence.games if g.config == config)
        notes.append(f"{config.label()}: {count} game(s) fine" if count else f"{config.label()}: not played")
    missing = sum(1 for n in notes if n.endswith("not played"))
    if missing:
        return CheckResult("configurations", Status.WARN, f"{missing} of {len(evidence.configs)} configurations "
                           "not played (raise --games)", tuple(notes))
    spec = evidence.spec
    return CheckResult("configurations", Status.PASS, f"every player count ({_span(spec.min_seats, spec.max_seats)}) "
                       f"and option value ({len(evidence.configs)} configurations)", tuple(notes))


def _first_failure(evidence: Evidence) -> CheckedGame | None:
    return next((g for g in evidence.games if g.failure is not None or not g.finished), None)


def _stuck_from_start(game: CheckedGame) -> bool:
    """Silent from its first request on: typical of output left in a buffer."""
    return bool(game.timeouts) and not game.crashed and game.requests <= len(game.timeouts)


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def _coverage(universe: dict[str, float], seen: set[str]) -> tuple[list[str], list[str]]:
    missing = [f"{k} (met in {100 * universe[k]:.0f}% of random seat-games)" for k in sorted(universe) if k not in seen]
    return sorted(seen), missing


def check_decisions(evidence: Evidence) -> CheckResult:
    skipped = _skip("decisions", evidence)
    if skipped:
        return skipped
    seen = set().union(*(g.decision_kinds for g in evidence.games))
    illegal = [note for g in evidence.games for note in g.illegal][:SHOWN]
    count = sum(g.illegal_count for g in evidence.games)
    kinds, missing = _coverage(evidence.decision_universe, seen)
    notes = (f"kinds seen: {', '.join(kinds) or 'none'}",) + tuple(f"not reached: {m}" for m in missing)
    if count:
        bad = sorted({k for g in evidence.games for k in g.illegal_kinds})
        return CheckResult("decisions", Status.FAIL, f"{count} illegal answer(s), to {', '.join(bad)} decisions",
                           tuple(illegal) + notes)
    if missing and _first_failure(evidence) is not None:
        return CheckResult("decisions", Status.SKIP, "coverage cut short by a failed game (see games)", notes)
    if missing:
        return CheckResult("decisions", Status.WARN, f"{len(missing)} decision kind(s) never reached the bot "
                           "(raise --games)", notes)
    return CheckResult("decisions", Status.PASS, f"every decision kind ({len(kinds)}) reached the bot and was "
                       "answered legally", notes)


def check_events(evidence: Evidence) -> CheckResult:
    skipped = _skip("events", evidence)
    if skipped:
        return skipped
    seen = set().union(*(g.event_kinds for g in evidence.games))
    kinds, missing = _coverage(evidence.event_universe, seen)
    notes = (f"kinds seen: {', '.join(kinds) or 'none'}",) + tuple(f"not reached: {m}" for m in missing)
    failed = next((g for g in evidence.games if g.crashed and g.last_events), None)
    if failed is not None:
        return CheckResult("events", Status.FAIL, f"the bot exited on the first message carrying event kind(s) "
                           f"{', '.join(failed.last_events)}", (failed.failure or "",) + notes)
    if missing and _first_failure(evidence) is not None:
        return CheckResult("events", Status.SKIP, "coverage cut short by a failed game (see games)", notes)
    if missing:
        return CheckResult("events", Status.WARN, f"{len(missing)} event kind(s) never reached the bot (raise --games)", notes)
    return CheckResult("events", Status.PASS, f"every event kind ({len(kinds)}) reached the bot", notes)


def check_unknown(evidence: Evidence) -> CheckResult:
    name = "unknown-messages"
    if evidence.handshake.problem is not None:
        return CheckResult(name, Status.SKIP, "not checked: the bot did not complete its handshake")
    if evidence.probe_handshake.problem is not None:
        return CheckResult(name, Status.FAIL, f"a hello with an unknown member: {evidence.probe_handshake.problem}")
    probe = evidence.probe
    if probe is None:
        return CheckResult(name, Status.SKIP, "not checked: the probe game did not run")
    where = f"after {probe.last_injection}" if probe.last_injection else "at the start"
    if probe.failure is not None:
        return CheckResult(name, Status.FAIL, f"the bot failed {where}", (probe.failure,))
    main = evidence.games
    problems = []  # what the probe showed and the main games did not: the unknown messages' doing
    if probe.noise_count and not any(g.noise_count for g in main):
        problems += probe.noise
    if probe.illegal_count and not any(g.illegal_count for g in main):
        problems += probe.illegal
    if probe.timeouts and not any(g.timeouts for g in main):
        problems += probe.timeouts
    if problems:
        return CheckResult(name, Status.FAIL, "the bot reacted to unknown messages, members or event kinds",
                           tuple(problems[:SHOWN]))
    return CheckResult(name, Status.PASS, f"ignored on a fresh process: a message of unknown type before each message, "
                       f"an unknown member in each and in each view, an unknown event kind in each request ({probe.requests} requests)")


def check_shutdown(evidence: Evidence) -> CheckResult:
    result, grace = evidence.shutdown, evidence.options.shutdown_ms
    if result is None:
        return _skip("shutdown", evidence) or CheckResult("shutdown", Status.SKIP, "not checked: a game failed first")
    if result.already_gone is not None:
        return CheckResult("shutdown", Status.FAIL, result.already_gone)
    status = "" if result.exit_code in (0, None) else f" with status {result.exit_code} (the protocol asks for 0)"
    verdict = Status.PASS if not status else Status.WARN
    if result.after_shutdown_ms is not None:
        return CheckResult("shutdown", verdict, f"exited {result.after_shutdown_ms:.0f} ms after shutdown{status}")
    if result.after_eof_ms is not None:
        return CheckResult("shutdown", verdict, f"exited {result.after_eof_ms:.0f} ms after its stdin closed{status}",
                           (f"it ignored the shutdown message for {grace} ms; fine, as arena also closes stdin",))
    return CheckResult("shutdown", Status.FAIL, f"still running {grace} ms after shutdown, and {grace} ms after its "
                       "stdin was closed", ("the referee would kill it and record a no_exit fault",), timing=True)


def check_stdout(evidence: Evidence) -> CheckResult:
    skipped = _skip("stdout", evidence)
    if skipped:
        return skipped
    count = sum(g.noise_count for g in evidence.games)
    if count:
        notes = tuple(n for g in evidence.games for n in g.noise)[:5]
        return CheckResult("stdout", Status.FAIL, f"{count} stdout line(s) that are not answers (logs go to stderr)", notes)
    return CheckResult("stdout", Status.PASS, "nothing on stdout but protocol messages")


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def fmt_ms(ms: float) -> str:
    """A latency as read: two decimals, `<0.01 ms` below that (never a misleading `0.00 ms`)."""
    return "<0.01 ms" if ms < 0.005 else f"{ms:.2f} ms"


def check_latency(evidence: Evidence) -> CheckResult:
    skipped = _skip("latency", evidence)
    if skipped:
        return skipped
    limit = evidence.options.decision_ms
    times = [t for g in evidence.games for t in g.latencies_ms]
    timeouts = [t for g in evidence.games for t in g.timeouts]
    if not times and not timeouts:
        return CheckResult("latency", Status.SKIP, "no decision was asked")
    figures = (f"median {fmt_ms(statistics.median(times))}, p99 {fmt_ms(percentile(times, 99))}, "
               f"max {fmt_ms(max(times))} over {len(times)} answers" if times else "no answer")
    if timeouts:
        answered = f"the answers that came in time, request sent to answer read: {figures}" if times else "no answer in time"
        return CheckResult("latency", Status.FAIL, f"{len(timeouts)} time-out(s): no answer within {limit} ms; {answered}",
                           tuple(timeouts[:5]), timing=True)
    if max(times) > limit:
        return CheckResult("latency", Status.FAIL, f"{figures}: over the {limit} ms limit", timing=True)
    if percentile(times, 99) > limit / 2:
        return CheckResult("latency", Status.WARN, f"{figures}: p99 over half the {limit} ms limit")
    return CheckResult("latency", Status.PASS, f"{figures} (limit {limit} ms)")


def check_memory(evidence: Evidence) -> CheckResult:
    skipped = _skip("memory", evidence)
    if skipped:
        return skipped
    samples = [s for s in evidence.rss_kb if s[0] >= 1]
    if len(samples) < MEMORY_MIN_GAMES:
        return CheckResult("memory", Status.SKIP, f"not judged: {len(samples)} game(s) measured, it takes "
                           f"{MEMORY_MIN_GAMES} (run without --quick, or raise --games)")
    (first_games, first_kb), (last_games, last_kb) = samples[len(samples) // 3], samples[-1]
    games = last_games - first_games
    growth = last_kb - first_kb
    pace = growth / games
    said = (f"resident {first_kb / 1024:.1f} MB after game {first_games}, {last_kb / 1024:.1f} MB after game "
            f"{last_games}: {growth / 1024:+.1f} MB ({pace:+.0f} kB a game)")
    enough = len(samples) >= MEMORY_LEAK_MIN_GAMES
    if growth > MEMORY_FAIL_KB or (enough and growth > MEMORY_LEAK_MIN_KB and pace > MEMORY_LEAK_PER_GAME_KB):
        return CheckResult("memory", Status.FAIL, f"{said}: it leaks", ("a long tournament would exhaust its memory",))
    if enough and pace > MEMORY_WARN_PER_GAME_KB:
        return CheckResult("memory", Status.WARN, f"{said}: growing", ("run more games to tell a cache from a leak",))
    return CheckResult("memory", Status.PASS, said)


def check_referee(evidence: Evidence) -> CheckResult:
    run = evidence.referee
    if run is None:
        return CheckResult("referee", Status.SKIP, "not checked: the bot did not complete its handshake")
    if run.problem is not None:
        return CheckResult("referee", Status.FAIL, f"arena's referee could not play a game with it: {run.problem}")
    if run.faults:
        return CheckResult("referee", Status.FAIL, f"{len(run.faults)} fault(s) under arena's referee, the bot in all "
                           f"{run.seats} seats", tuple(run.faults[:SHOWN]))
    return CheckResult("referee", Status.PASS, f"one game under arena's referee, the bot in all {run.seats} seats: "
                       f"{run.decisions} decisions, no fault")


CHECKS: tuple[Callable[[Evidence], CheckResult], ...] = (
    check_handshake, check_games, check_configurations, check_decisions, check_events, check_unknown,
    check_shutdown, check_stdout, check_latency, check_memory, check_referee,
)


def evaluate(evidence: Evidence) -> list[CheckResult]:
    return [check(evidence) for check in CHECKS]


__all__ = ["CHECKS", "CheckResult", "CheckedGame", "Status", "evaluate", "percentile"]


def judge(first: list[CheckResult], first_load: Load, second: list[CheckResult] | None = None,
          second_load: Load | None = None) -> list[CheckResult]:
    """The verdicts of a run, or of a run and its repeat where the first was doubtful (`doubtful`).

    Repeated: a check that failed in only one of the two runs (while the machine was busy) takes the
    other run's verdict, saying so; one that failed both times fails, and where a clock decided it and
    the machine was busy both times the report says it was too busy to judge (the failure may be the
    machine's): a bot that fails every time is never passed for it. A failure no clock decided (a crash,
    an import error before the hello, a malformed answer) is the bot's whatever the load, and says so.
    Checks that failed in neither run show the second run.
    """
    if second is None or second_load is None:
        return first
    out: list[CheckResult] = []
    for one, two in zip(first, second):
        failed_one, failed_two = one.status is Status.FAIL, two.status is Status.FAIL
        if failed_one and failed_two:
            if second_load.busy and two.timing:
                note = (f"the machine was too busy to judge: failed twice, with {first_load.describe()}, then "
                        f"{second_load.describe()}; run check-bot again when the machine is quieter")
                out.append(replace(two, summary=f"{two.summary} (the machine was too busy to judge)", evidence=(note, *two.evidence)))
            else:
                out.append(replace(two, evidence=(f"failed again when repeated ({second_load.describe()})", *two.evidence)))
        elif failed_one or failed_two:
            kept, busy = (two, first_load) if failed_one else (one, second_load)
            note = f"failed in one of two runs, while the machine was busy ({busy.describe()}); passed in the other"
            out.append(replace(kept, evidence=(note, *kept.evidence)))
        else:
            out.append(two)
    return out


def doubtful(results: list[CheckResult], load: Load) -> bool:
    """Whether a run's verdict needs a repeat: a clock decided a failure while the machine was busy."""
    return load.busy and any(r.status is Status.FAIL and r.timing for r in results)
