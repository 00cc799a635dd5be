"""Deadline arithmetic, exactly: a fake clock and transport (tests/support/fake_transport.py), no sleeping.

Each deadline runs from the moment its request was written; a line is in time when it arrived at or
before it, whatever the other bots send and however long the referee takes to judge their lines.
"""

from __future__ import annotations

import json
import sys

import pytest

from arena.errors import BotStartError
from arena.core.clock import Deadline
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.referee.referee import play_game
from arena.referee.session import BotProcess
from tests.support.bots import bad_spec
from tests.support.fake_transport import FakeBot, FakeClock, FakeTransport, answer_after

MS = 0.001


def game(delays: list[list[float]], tc: TimeControl, *, judge_cost_s: float = 0.0, flood: bool = False):
    clock = FakeClock()
    transport = FakeTransport(clock, judge_cost_s)
    bots = [FakeBot(transport, answer_after(d), name=f"f{i}") for i, d in enumerate(delays)]
    if flood:  # seat 1 writes stderr every millisecond of every decision, each costing judge_cost_s
        bots[1].stderr_per_request = [(k * MS, 10) for k in range(1, 200)]
    result = play_game("kodama-duo", bots, seed=3, time_control=tc, clock=clock, transport=transport)
    return bots, result


def faults_of(result, seat: int) -> list[FaultKind]:
    return [f.kind for f in result.faults if f.seat == seat]


def test_an_answer_at_the_deadline_is_in_time_and_one_a_microsecond_later_is_not():
    tc = TimeControl(decision_ms=100)
    _, result = game([[100 * MS], [0.0999]], tc)
    assert result.faults == ()
    _, result = game([[100 * MS + 1e-6], [0.05]], tc)
    assert faults_of(result, 0) and set(faults_of(result, 0)) == {FaultKind.TIMEOUT}
    assert faults_of(result, 1) == []
    assert all(f.detail == "no answer within 100 ms" for f in result.faults)


def test_bank_and_increment_are_charged_exactly():
    tc = TimeControl(decision_ms=1000, bank_ms=300, increment_ms=50)
    # 200 ms: bank 300 - 200 + 50 = 150; 150 ms: 0 + 50 = 50; then 60 ms is over the 50 ms allowance.
    bots, result = game([[0.2, 0.15, 0.06, 0.01], [0.001]], tc)
    reported = [r["clock"] for r in bots[0].requests[:4]]
    assert [c["remaining_ms"] for c in reported] == [300, 150, 50, 50]
    assert [c["bank_ms"] for c in reported] == [300, 150, 50, 50]
    timeouts = [f for f in result.faults if f.seat == 0]
    assert [(f.kind, f.request_id) for f in timeouts][:1] == [(FaultKind.TIMEOUT, 3)]
    assert timeouts[0].detail == "no answer within 50 ms"


def test_a_flooding_neighbour_and_a_busy_referee_do_not_move_a_deadline():
    tc = TimeControl(decision_ms=100)
    # Each stderr chunk of seat 1 costs the referee 7 ms to judge: the clock runs far ahead of the
    # arrivals, yet seat 0's 99.9 ms answer is in time and its elapsed time is exact.
    bots, result = game([[0.0999], [0.001]], tc, judge_cost_s=0.007, flood=True)
    assert faults_of(result, 0) == []
    bots, result = game([[0.1001], [0.001]], tc, judge_cost_s=0.007, flood=True)
    assert set(faults_of(result, 0)) == {FaultKind.TIMEOUT}
    assert faults_of(result, 1) == []


def test_recorded_elapsed_time_is_the_arrival_minus_the_write(tmp_path):
    clock = FakeClock()
    transport = FakeTransport(clock, judge_cost_s=0.005)
    bots = [FakeBot(transport, answer_after([0.0123]), name="a"), FakeBot(transport, answer_after([0.0456]), name="b")]
    bots[1].stderr_per_request = [(k * MS, 10) for k in range(1, 40)]
    replay = tmp_path / "r.jsonl"
    play_game("kodama-duo", bots, seed=3, time_control=TimeControl(decision_ms=100), clock=clock, transport=transport, replay_path=replay)
    from arena.replay import read_replay

    decisions = [r for r in read_replay(replay) if r["type"] == "decision"]
    assert {r["elapsed_ms"] for r in decisions if r["seat"] == 0} == {12.3}
    assert {r["elapsed_ms"] for r in decisions if r["seat"] == 1} == {45.6}


def test_the_game_wall_clock_limit_cuts_the_decision_then_plays_fallbacks():
    tc = TimeControl(decision_ms=1000, game_ms=2500)
    bots, result = game([[0.9], [0.9]], tc)
    # Every decision takes 0.9 s; step 2 (both seats at once, at 1.8 s) has 0.7 s left of the game:
    # both are cut at the game's limit, both get game_time, and nobody is asked again.
    requests = sorted((r["id"], r["step"], r["clock"]["remaining_ms"], i) for i, b in enumerate(bots) for r in b.requests)
    assert [r[2] for r in sorted(requests, key=lambda r: r[1])] == [1000, 1000, 700, 700]
    last_step = max(r[1] for r in requests)
    assert sorted((f.seat, f.kind, f.step) for f in result.faults) == [
        (0, FaultKind.GAME_TIME, last_step),
        (1, FaultKind.GAME_TIME, last_step),
    ]
    assert result.faults[0].detail == "the game reached its wall-clock limit of 2500 ms"
    assert result.decisions > 4  # the game was played to its end with fallbacks


def test_the_game_limit_reached_between_decisions_charges_every_seat_still_in():
    tc = TimeControl(decision_ms=1000, game_ms=1800)
    _, result = game([[0.9], [0.9]], tc)  # two sequential 0.9 s decisions use the game up exactly
    assert sorted((f.seat, f.kind) for f in result.faults) == [(0, FaultKind.GAME_TIME), (1, FaultKind.GAME_TIME)]


def test_an_answer_read_before_its_request_was_written_is_never_used():
    """Item 6: seat 0 guesses the next id and writes an answer to it soon after answering request 1.
    Wherever that line falls (the referee spends 1 ms before each of its reads here): if it arrived
    before request 2 was written it is an `unexpected_answer`, never the answer, and request 2 (which
    the bot then never answers) times out; if it arrived after, the referee cannot tell it from an
    answer (protocol.md says so) and the game judges it."""
    before = after = 0
    details = set()
    for tenth_ms in range(0, 80, 2):
        clock = FakeClock()
        transport = FakeTransport(clock, wait_cost_s=0.001)
        delta = tenth_ms / 10_000

        def script(request: dict, count: int, delta: float = delta) -> list[tuple[float, bytes]]:
            if count == 1:
                guess = json.dumps({"id": request["id"] + 1, "action": request["legal"][0]}).encode()
                first = json.dumps({"id": request["id"], "action": request["legal"][0]}).encode()
                return [(0.002, first), (0.002 + delta, guess)]
            return [] if count == 2 else answer_after([0.001])(request, count)

        bots = [FakeBot(transport, script, name="guesser"), FakeBot(transport, answer_after([0.001]), name="fair")]
        result = play_game("kodama-duo", bots, seed=3, time_control=TimeControl(decision_ms=50), clock=clock, transport=transport)
        seat0 = [(f.kind, f.request_id) for f in result.faults if f.seat == 0]
        guess_at = bots[0].requests[0]["_sent_at"] + 0.002 + delta
        if guess_at < bots[0].requests[1]["_sent_at"]:
            before += 1
            assert (FaultKind.UNEXPECTED_ANSWER, 2) in seat0 and (FaultKind.TIMEOUT, 2) in seat0, (tenth_ms, seat0)
            details.update(f.detail for f in result.faults if f.kind is FaultKind.UNEXPECTED_ANSWER)
        else:
            after += 1
            assert (FaultKind.UNEXPECTED_ANSWER, 2) not in seat0 and (FaultKind.TIMEOUT, 2) not in seat0, (tenth_ms, seat0)
    assert before > 5 and after > 5
    # Both ways of being early are exercised: read before the step began, and read while the step's
    # requests were being built (the id was already chosen but not yet written).
    assert any("read before that request was sent" in d for d in details), details
    assert any("which was not asked" in d for d in details), details


def test_deadline_arithmetic():
    d = Deadline(10.0, 250.0)
    assert d.at == 10.25 and d.met_by(10.25) and not d.met_by(10.250001)
    assert d.remaining_s(10.05) == pytest.approx(0.2) and d.elapsed_ms(10.1) == pytest.approx(100.0)


class JumpClock:
    """The spawn reads 0.0; every later read says `later` seconds: the start-up check is exact."""

    def __init__(self, later: float) -> None:
        self.calls = 0
        self.later = later

    def __call__(self) -> float:
        self.calls += 1
        return 0.0 if self.calls == 1 else self.later


@pytest.mark.process
def test_startup_allowance_runs_from_the_spawn():
    tc = TimeControl(startup_ms=10_000)
    with pytest.raises(BotStartError, match="no hello within the start-up allowance of 10000 ms"):
        BotProcess.start(bad_spec("illegal"), tc, clock=JumpClock(10.0))
    bot = BotProcess.start(bad_spec("illegal"), tc, clock=JumpClock(9.999))
    bot.close()


@pytest.mark.process
def test_flood_drift_on_real_processes_is_measured(start_bots, tmp_path):
    """A real bot that sleeps 100 ms per decision next to one flooding stderr for 150 ms: what the
    referee records differs from what the bot itself measured by the pipes' latency only, never by the
    neighbour's flood (the bot's own time, its wake-up on a loaded machine included, is its own)."""
    from arena.core.limits import Limits
    from arena.replay import read_replay

    tc = TimeControl(decision_ms=600)
    limits = Limits(max_stderr_bytes_per_game=1_000_000_000)
    log = tmp_path / "bot.log"
    bots = start_bots(
        bad_spec("sleep", SLEEP_S="0.1", BOT_LOG=str(log)), bad_spec("stderr_trickle"), time_control=tc, limits=limits
    )
    replay = tmp_path / "r.jsonl"
    play_game("kodama-duo", bots, seed=1, time_control=tc, replay_path=replay)
    own = {r["id"]: r["took_ms"] for r in map(json.loads, log.read_text().splitlines())}
    recorded = {r["id"]: r["elapsed_ms"] for r in read_replay(replay) if r["type"] == "decision" and r["seat"] == 0}
    drift = sorted(recorded[i] - own[i] for i in own)
    print(f"\nreferee minus bot, ms, over {len(drift)} decisions: min {drift[0]:.2f} median {drift[len(drift) // 2]:.2f} max {drift[-1]:.2f}", file=sys.stderr)
    # On a loaded machine either process can be descheduled for a few ms around a write, so the bound
    # is on the median and the 90th percentile; a referee that stamped answers after judging the
    # flood would be off by tens of ms.
    assert abs(drift[len(drift) // 2]) < 5 and drift[int(len(drift) * 0.9)] < 20, drift  # median and 90th percentile


@pytest.mark.parametrize(
    "field, bad, good",
    [("decision_ms", 0, 1), ("startup_ms", 0, 1), ("shutdown_ms", -1, 0), ("game_ms", 0, 1), ("bank_ms", -1, 0), ("increment_ms", -1, 0)],
)
def test_time_control_bounds_are_exact(field, bad, good):
    from arena.errors import ArenaError

    TimeControl(**{field: good})
    with pytest.raises(ArenaError, match=field):
        TimeControl(**{field: bad})
