"""Bootstrap intervals over deal blocks: coverage on simulated tournaments with known strengths."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from arena.stats.uncertainty import deal_blocks, estimate, resample_counts, small_sample_factor
from arena.tournament.schedule.plan import Deals
from bench.simfield import Field, SimGame, tournament, true_average_ranks

FIELD = Field((0.0, 0.3, 0.6, 1.0), seats=4)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fld", "rounds", "trials"),
    [(FIELD, 20, 150), (Field((0.0, 0.3, 0.6, 0.9, 1.2), seats=3), 10, 120)],
    ids=["4 entrants 4 seats 20 rounds", "5 entrants 3 seats 10 rounds (10 tables)"],
)
def test_intervals_cover_the_true_average_rank_at_about_the_nominal_rate(fld: Field, rounds: int, trials: int) -> None:
    # 600 intervals at 90%. If independent, their binomial standard error is 1.2 points; the entrants of
    # one tournament are not quite independent (their ranks sum to a constant), so allow 4 points
    # either way, about 3 standard errors. Measured (seeds below): 89-90% and 92% (the second is on the
    # safe side: its small-sample widening counts 10 deals per table, though 10 tables add up).
    truth = true_average_ranks(fld, rounds=3000)
    covered = total = 0
    for trial in range(trials):
        games = tournament(fld, rounds=rounds, seed=1000 + trial)
        result = estimate(games, fld.entrants, confidence=0.90, resamples=1000, rating_resamples=0, seed=trial)
        for e in result.entrants:
            assert e.avg_rank is not None
            covered += e.avg_rank.low <= truth[e.entrant] <= e.avg_rank.high
            total += 1
    rate = covered / total
    assert 0.86 <= rate <= 0.94, rate


def test_small_sample_widening() -> None:
    assert small_sample_factor(1, 0.95) == float("inf")  # one deal: no spread to measure
    assert small_sample_factor(20, 0.90, df=10) == pytest.approx(2**0.5 * 1.8125 / 1.6449, rel=1e-3)
    assert small_sample_factor(20, 0.90) == pytest.approx(1.026 * 1.7291 / 1.6449, rel=1e-3)
    assert 1.0 < small_sample_factor(1000, 0.95) < 1.002


def test_same_seed_same_intervals_and_another_seed_differs() -> None:
    games = tournament(FIELD, rounds=8, seed=3)
    a = estimate(games, 4, [3, 2, 1, 0], resamples=300, rating_resamples=20, seed=5)
    b = estimate(list(reversed(games)), 4, [3, 2, 1, 0], resamples=300, rating_resamples=20, seed=5)
    c = estimate(games, 4, [3, 2, 1, 0], resamples=300, rating_resamples=20, seed=6)
    assert a == b
    assert a != c


def test_a_deal_under_all_its_rotations_is_one_unit_resampled_within_its_table() -> None:
    fld = Field((0.0, 0.0, 0.0, 0.0, 0.0), seats=3, deals=Deals.SHARED)  # 10 tables of 3, 3 rotations each
    games = tournament(fld, rounds=6, seed=1)
    blocks = deal_blocks(games, 5)
    assert blocks.size == 60 and all(len(g) == 3 for g in blocks.games)
    counts = resample_counts(blocks, 50, seed=2)
    strata = np.asarray(blocks.strata)
    for table in range(10):
        assert (counts[:, strata == table].sum(axis=1) == 6).all()


def test_clear_leader_is_surely_ahead_and_intervals_contain_the_estimate() -> None:
    games = tournament(Field((0.0, 0.0, 3.0), seats=3), rounds=10, seed=4)
    result = estimate(games, 3, [2, 0, 1], resamples=500, rating_resamples=30, seed=1)
    leader = result.entrants[2]
    assert leader.p_ahead is not None and leader.p_ahead > 0.999
    assert result.entrants[result.order[-1]].p_ahead is None  # last by average rank
    for e in result.entrants:
        assert e.avg_rank is not None and e.rating is not None
        assert e.avg_rank.low <= e.avg_rank.estimate <= e.avg_rank.high
        assert e.rating.low <= e.rating.estimate + 1e-9 and e.rating.estimate - 1e-9 <= e.rating.high
    assert leader.rating is not None and result.entrants[0].rating is not None
    assert leader.rating.low > result.entrants[0].rating.high


def test_no_games_no_intervals_and_bad_options_refused() -> None:
    assert all(e.avg_rank is None for e in estimate([], 3).entrants)
    one_round = estimate(tournament(replace(FIELD, deals=Deals.SHARED), rounds=1, seed=1), 4)  # one deal per table: no spread to measure
    assert one_round.note and all(e.avg_rank is None and e.p_ahead is None for e in one_round.entrants)
    with pytest.raises(ValueError, match="confidence"):
        estimate([], 3, confidence=1.0)


def test_rating_resamples_are_capped_by_the_budget() -> None:
    games = tournament(FIELD, rounds=5, seed=2)  # 20 games
    assert estimate(games, 4, rating_resamples=100, rating_budget=1000, resamples=100).rating_resamples == 50
    skipped = estimate(games, 4, rating_resamples=100, rating_budget=300, resamples=100)
    assert skipped.rating_resamples == 0 and "no mu intervals" in skipped.note
    assert all(e.rating is None and e.avg_rank is not None for e in skipped.entrants)


def test_two_rounds_of_a_three_player_game_give_no_impossible_interval() -> None:
    # Before: after 2 rounds the average-rank intervals reached [0.19, 3.25] (ranks lie in 1..3) and
    # P(ahead of next) read 100% between overlapping intervals.
    for entrants, rounds in ((3, 2), (3, 4), (4, 3), (5, 2)):
        fld = Field(tuple(0.3 * i for i in range(entrants)), seats=3)
        for seed in range(5):
            result = estimate(tournament(fld, rounds, seed), entrants, resamples=300, rating_resamples=20, seed=seed)
            for e in result.entrants:
                if e.avg_rank is None:
                    assert e.why.startswith("too few deals") or result.note
                    continue
                assert 1.0 <= e.avg_rank.low <= e.avg_rank.estimate <= e.avg_rank.high <= 3.0
                if e.p_ahead is not None:
                    assert 0.5 <= e.p_ahead < 1.0
    one_table = estimate(tournament(Field((0.0, 0.3, 0.6), seats=3, deals=Deals.SHARED), 2, 1), 3, resamples=300)
    assert all(e.avg_rank is None for e in one_table.entrants) and "no intervals yet" in one_table.note


def test_a_late_joiner_widens_only_its_own_interval() -> None:
    # Before: one widening factor, from the least-played table, for everyone.
    fld = Field((0.0, 0.3, 0.6, 0.9), seats=3)
    old = tournament(fld, 12, 7)
    grown = Field((0.0, 0.3, 0.6, 0.9, 0.5), seats=3)
    new = [g for g in tournament(grown, 3, 8) if 4 in g.seats]  # the newcomer's games: 3 rounds
    new = [SimGame(10_000 + g.index, g.round, g.table, g.rotation, g.seats, g.ranks, g.seed) for g in new]
    before = estimate(old, 5, resamples=400, rating_resamples=0, seed=1)
    after = estimate(old + new, 5, resamples=400, rating_resamples=0, seed=1)
    for e in range(4):
        a, b = before.entrants[e].avg_rank, after.entrants[e].avg_rank
        assert a is not None and b is not None
        assert (b.high - b.low) < 1.3 * (a.high - a.low)
    newcomer = after.entrants[4].avg_rank
    assert newcomer is not None and newcomer.high - newcomer.low > (b.high - b.low)


def test_p_ahead_follows_the_average_rank_order_and_the_intervals() -> None:
    games = tournament(Field((0.0, 0.1, 0.2, 2.0), seats=4), rounds=8, seed=2)
    result = estimate(games, 4, [0, 1, 2, 3], resamples=500, rating_resamples=0, seed=1)
    order = list(result.order)
    assert order[0] == 3  # by average rank, whatever order was passed
    for a, b in zip(order, order[1:]):
        e = result.entrants[a]
        assert e.next == b and e.p_ahead is not None and e.p_ahead >= 0.5
        lo, hi = e.avg_rank, result.entrants[b].avg_rank
        assert lo is not None and hi is not None
        if lo.high < hi.low:  # intervals apart: the pair is surely ordered
            assert e.p_ahead > 0.95


def test_deals_are_told_apart_by_seed_and_table_not_by_schedule_numbers() -> None:
    # A store grown by a new entrant: its old games keep (round, table) numbers that the new
    # schedule gives to other tables. Before: two deals with one (round, table) merged into one block.
    a = SimGame(0, 0, 3, 0, (0, 1, 2), (1, 2, 3), seed=111)
    b = SimGame(1, 0, 3, 0, (0, 1, 4), (1, 2, 3), seed=222)
    assert deal_blocks([a, b], 5).size == 2
