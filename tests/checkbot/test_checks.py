"""The verdicts, from made-up evidence: every threshold tested exactly, no process, no clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.checkbot.checks import (
    MEMORY_FAIL_KB, Status, check_decisions, check_games, check_handshake, check_latency, check_memory,
    check_shutdown, check_unknown, evaluate, percentile,
)
from arena.checkbot.driver import GameConfig, CheckedGame
from arena.checkbot.runner import CheckOptions, Evidence, Handshake, Shutdown, plan_configs
from arena.games.registry import get_game
from tests.support.checkbot import evidence


def test_clean_evidence_passes_every_check():
    statuses = {r.name: r.status for r in evaluate(evidence(games=6))}
    assert set(statuses.values()) == {Status.PASS}, statuses


@pytest.mark.parametrize("elapsed,expected", [(10_000.0, Status.PASS), (10_000.5, Status.FAIL)])
def test_the_handshake_allowance_is_inclusive(elapsed, expected):
    ev = evidence()
    ev.handshake.elapsed_ms = elapsed
    assert check_handshake(ev).status is expected


def test_a_failed_handshake_skips_the_checks_that_need_games():
    ev = evidence()
    ev.handshake = Handshake(problem="no hello within 12000 ms")
    ev.games = []
    results = {r.name: r.status for r in evaluate(ev)}
    assert results["handshake"] is Status.FAIL
    assert results["games"] is Status.SKIP and results["latency"] is Status.SKIP


@pytest.mark.parametrize(
    "latencies,expected",
    [([1.0] * 99 + [1000.0], Status.PASS), ([1.0] * 99 + [1000.1], Status.FAIL), ([600.0] * 100, Status.WARN)],
)
def test_latency_against_the_decision_limit(latencies, expected):
    ev = evidence(games=1)
    ev.games[0].latencies_ms = latencies
    assert check_latency(ev).status is expected


def test_a_timeout_fails_latency_and_is_quoted():
    ev = evidence(games=1)
    ev.games[0].timeouts = ["game 1: no answer to request 4"]
    result = check_latency(ev)
    assert result.status is Status.FAIL and result.evidence == ("game 1: no answer to request 4",)


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=200), st.floats(1, 100))
def test_percentile_is_an_element_and_bounded(values, p):
    value = percentile(values, p)
    assert value in values
    assert sum(1 for v in values if v <= value) >= len(values) * p / 100


def memory(samples: list[int]) -> Status:
    ev = evidence(games=len(samples))
    ev.rss_kb = list(enumerate([samples[0]] + samples))
    return check_memory(ev).status


def test_memory_thresholds():
    assert memory([20_000] * 4) is Status.SKIP  # too few games to judge
    assert memory([20_000] * 12) is Status.PASS
    assert memory([20_000] * 5 + [20_000 + MEMORY_FAIL_KB + 1]) is Status.FAIL  # sudden growth
    assert memory([20_000 + 3072 * i for i in range(12)]) is Status.FAIL  # 3 MB a game: a leak
    assert memory([20_000 + 512 * i for i in range(12)]) is Status.WARN  # 512 kB a game
    assert memory([20_000 + 3072 * i for i in range(6)]) is Status.PASS  # too few games to call a pace a leak


def test_warm_up_growth_is_not_a_leak():
    assert memory([20_000, 40_000, 50_000, 50_100, 50_100, 50_200, 50_200, 50_200, 50_300, 50_300, 50_300, 50_300]) is Status.PASS


@pytest.mark.parametrize(
    "shutdown,expected",
    [
        (Shutdown(exit_code=0, after_shutdown_ms=3.0), Status.PASS),
        (Shutdown(exit_code=0, after_eof_ms=3.0), Status.PASS),
        (Shutdown(exit_code=3, after_shutdown_ms=3.0), Status.WARN),
        (Shutdown(exit_code=None), Status.FAIL),
        (Shutdown(exit_code=1, already_gone="it had exited (status 1) before the shutdown"), Status.FAIL),
    ],
)
def test_shutdown_verdicts(shutdown, expected):
    ev = evidence()
    ev.shutdown = shutdown
    assert check_shutdown(ev).status is expected


def test_unreached_kinds_warn_and_illegal_answers_fail():
    ev = evidence()
    ev.decision_universe["spirit"] = 0.3
    result = check_decisions(ev)
    assert result.status is Status.WARN
    assert "not reached: spirit (met in 30% of random seat-games)" in result.evidence
    ev.games[1].illegal_count = 2
    ev.games[1].illegal_kinds = {"move"}
    assert check_decisions(ev).status is Status.FAIL


def test_a_problem_seen_in_the_main_games_too_is_not_blamed_on_unknown_messages():
    ev = evidence()
    assert ev.probe is not None
    ev.probe.noise_count, ev.probe.noise = 1, ["stray line"]
    assert check_unknown(ev).status is Status.FAIL
    ev.games[0].noise_count = 1
    assert check_unknown(ev).status is Status.PASS


def test_a_crash_in_a_later_game_points_at_that_game():
    ev = evidence()
    ev.games[2].finished = False
    ev.games[2].failure = "game 3: exited with status 1"
    ev.games[2].crashed = True
    result = check_games(ev)
    assert result.status is Status.FAIL and result.summary == "game 3 on one process failed"
    assert "see configurations" in result.evidence[1]


def test_the_plan_covers_every_player_count_and_option_value():
    configs = plan_configs(get_game("kododo"))
    assert sorted({c.players for c in configs}) == [2, 3, 4, 5]
    assert {k: v for c in configs for k, v in c.options.items()} == {"long": True, "target": 1, "max_deals": 1}
