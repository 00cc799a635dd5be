"""The stop rule: stops early on a clear field, almost never on identical bots, same round however run."""

from __future__ import annotations

import random

import pytest

from arena.stats.stoprule import (
    StopRule,
    StopWatch,
    complete_rounds,
    decide,
    first_stop,
    pair_test,
    stopping_round,
    t_two_sided_p,
)
from arena.tournament.run.stop.stopping import SettledHook
from arena.tournament.schedule.plan import Deals
from bench.simfield import Field, tournament

RULE = StopRule(confidence=0.95, min_rounds=4)


@pytest.mark.parametrize(("t", "df", "p"), [(2.776, 4, 0.05), (12.706, 1, 0.05), (3.182, 3, 0.05), (2.576, 10_000, 0.01)])
def test_student_t_p_values_match_published_tables(t: float, df: int, p: float) -> None:
    assert t_two_sided_p(t, df) == pytest.approx(p, abs=2e-4)


@pytest.mark.parametrize("deals", list(Deals))
def test_stops_early_on_a_clear_field(deals: Deals) -> None:
    # 4 entrants at 4 seats: spread, no two games can share a deal, so the luck of the deal is not
    # cancelled and the rule needs a few more rounds (measured: at most 27 of these 10 fields)
    fld = Field((0.0, 1.5, 3.0, 4.5), seats=4, deals=deals)
    rounds = [stopping_round(tournament(fld, 40, seed), 4, 40, RULE) for seed in range(10)]
    assert max(rounds) < (20 if deals is Deals.SHARED else 30), rounds


@pytest.mark.slow
def test_identical_bots_stop_before_the_end_at_most_at_the_error_rate() -> None:
    # 200 fields of 4 identical bots, 30 rounds: the rule's guarantee is at most 5% stopping; allow
    # three binomial standard errors above it (5% + 4.6 points).
    fld = Field((0.0, 0.0, 0.0, 0.0), seats=4)
    stopped = sum(stopping_round(tournament(fld, 30, seed), 4, 30, RULE) < 30 for seed in range(200))
    assert stopped / 200 <= 0.096


def test_top_one_settles_the_winner_while_equal_others_stay_unsettled() -> None:
    fld = Field((0.0, 0.0, 0.0, 3.0), seats=4)
    games = tournament(fld, 30, 7)
    assert stopping_round(games, 4, 30, RULE) == 30
    r = stopping_round(games, 4, 30, StopRule(0.95, 4, top=1))
    assert r < 15
    decision = decide(games, 4, r, 30, StopRule(0.95, 4, top=1))
    assert decision.stop and decision.pairs[0].ahead == 3
    assert "STOP" in decision.progress()


def test_decision_depends_only_on_the_whole_rounds_given_not_on_order_or_later_games() -> None:
    games = tournament(Field((0.0, 0.4, 0.8, 1.2), seats=4), 20, 11)
    first = decide([g for g in games if g.round < 9], 4, 9, 20, RULE)
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)  # another completion order, plus games of later rounds in flight
    assert decide(shuffled, 4, 9, 20, RULE) == first


def test_no_test_before_min_rounds_and_options_checked() -> None:
    games = tournament(Field((0.0, 9.0), seats=2), 10, 1)
    early = decide(games, 2, 3, 10, RULE)
    assert not early.stop and early.pairs == () and "before the stop test" in early.progress()
    # a deterministic winner: the spread is zero, but 4 rounds cannot make p below 2^-3 = 0.125 > 0.05 / 7
    assert not decide(games, 2, 4, 10, RULE).stop
    assert decide(games, 2, 9, 10, RULE).stop  # 2^-8 < 0.05 / 7
    for bad in ({"confidence": 1.0}, {"min_rounds": 1}, {"top": 0}):
        with pytest.raises(ValueError):
            StopRule(**bad)  # type: ignore[arg-type]


def test_pair_test_sign_and_ties() -> None:
    rows: list[list[float | None]] = [[1.0, 2.0], [1.5, 1.5], [1.0, 2.0]]
    t = pair_test(rows, 0, 1)
    assert t.difference == pytest.approx(2 / 3) and t.t > 0
    assert pair_test([[1.0, 1.0], [1.0, 1.0]], 0, 1).p == 1.0


def test_first_stop_is_the_same_with_later_rounds_partly_stored_and_in_any_order() -> None:
    """What keeps -j 1, -j 2 and a resumed run at one stopping round: the first round at which the rule
    stops depends only on the games of the rounds before it."""
    fld = Field((0.0, 1.5, 3.0, 4.5), seats=4)
    games = tournament(fld, 30, 3)
    at = stopping_round(games, 4, 30, RULE)
    assert at < 30
    sequential = [g for g in games if g.round < at]  # -j 1 stops exactly here
    found = first_stop(sequential, 4, 4, 30, RULE)
    assert found is not None and found.rounds == at
    assert first_stop([g for g in games if g.round < at - 1], 4, 4, 30, RULE) is None
    in_flight = sequential + [g for g in games if g.round == at][:3] + [g for g in games if g.round == at + 1][:2]
    random.Random(5).shuffle(in_flight)  # -j 2, or a resume after SIGKILL, stored these too
    again = first_stop(in_flight, 4, 4, 30, RULE)
    assert again == found
    assert complete_rounds(in_flight, 4) == at


def test_stop_watch_reaches_the_same_round_in_schedule_order_in_any_order_and_resumed() -> None:
    games = tournament(Field((0.0, 1.5, 3.0, 4.5), seats=4), 30, 3)
    at = stopping_round(games, 4, 30, RULE)
    orders = {"schedule": list(games), "shuffled": random.Random(2).sample(games, len(games))}
    for name, order in orders.items():
        watch = StopWatch(RULE, 4, 4, 30)
        for g in order:
            if watch.observe(g):
                break
        assert watch.stopped is not None and watch.stopped.rounds == at, name
    # resumed after a kill: the stored games are fed first, in store order, then the rest
    watch = StopWatch(RULE, 4, 4, 30)
    assert "stop test after round 4" in watch.progress()
    for g in games[: 4 * (at - 1) + 2]:
        assert watch.observe(g) is None
    assert "settled" in watch.progress()
    for g in games[4 * (at - 1) + 2 :]:
        if watch.observe(g):
            break
    assert watch.stopped is not None and watch.stopped.rounds == at and "STOP" in watch.progress()


def test_equal_differences_in_few_rounds_are_not_certain_at_min_rounds_2() -> None:
    # Before: all-equal per-round differences gave t = inf, p = 0, so two rounds were "certain".
    rule = StopRule(confidence=0.95, min_rounds=2)
    rows: list[list[float | None]] = [[1.0, 2.0], [1.0, 2.0]]
    assert pair_test(rows, 0, 1).p == 0.5  # the smallest p-value two rounds can give
    games = tournament(Field((0.0, 9.0), seats=2), 10, 1)
    assert not decide(games, 2, 2, 10, rule).stop
    # and over many fields of two identical 2-seat bots, with the smallest min_rounds: wrong stops stay rare
    fld = Field((0.0, 0.0, 0.0), seats=2, deal_luck=0.0)
    stopped = sum(stopping_round(tournament(fld, 12, seed), 3, 12, rule) < 12 for seed in range(100))
    assert stopped <= 10


def test_an_exact_tie_in_every_round_settles_as_a_tie() -> None:
    # Two bots that always crash (always last, sharing the place) and two clearly ordered ones.
    # Before: the tied pair's p stayed 1 and the rule never stopped.
    from bench.simfield import SimGame

    games = []
    for r in range(20):
        for rot in range(4):
            seats = tuple((i + rot) % 4 for i in range(4))
            rank_of = {0: 1, 1: 2, 2: 3, 3: 3}
            games.append(SimGame(r * 4 + rot, r, 0, rot, seats, tuple(rank_of[e] for e in seats)))
    decision = first_stop(games, 4, 4, 20, RULE)
    assert decision is not None and decision.stop
    tie = decision.pairs[-1]
    assert {tie.ahead, tie.behind} == {2, 3} and tie.tied and tie.p == 1.0
    assert decision.rounds == 10  # the first r with 2^(1 - r) <= 0.05 / 17: a difference would have shown
    hook = SettledHook(RULE, ["a", "b", "c", "d"], 20)
    hook.stopped = decision
    assert "c and d tied in every round" in hook.state()
