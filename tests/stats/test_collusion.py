"""The collusion test flags a planted feeder and its partner, and rarely flags independent bots."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from arena.stats import tdist
from arena.stats.collusion import detect, holm
from arena.report.statistics import collusion_text
from arena.tournament.schedule.plan import Deals
from bench.simfield import Field, tournament


@pytest.mark.slow  # hundreds of simulated tournaments
def test_flags_the_planted_pair_most_of_the_time() -> None:
    fld = Field((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), seats=4, collusion=((0, 1),), feed=0.8)
    hits = 0
    for seed in range(20):
        report = detect(tournament(fld, 10, seed), 6)
        top = report.pairs[0]
        hits += top.flagged and (top.partner, top.feeder) == (1, 0)
    assert hits >= 16  # measured power at this size is about 95%


@pytest.mark.slow  # hundreds of simulated tournaments
def test_independent_bots_flag_no_pair_beyond_the_false_positive_rate() -> None:
    # Holm keeps the chance of any false flag in a field at most alpha = 5%; 80 fields, allowed up
    # to 5% + three binomial standard errors (7.3 points).
    flagged = 0
    for seed in range(40):
        flagged += bool(detect(tournament(Field((0.0,) * 6, seats=4), 8, seed), 6).flagged)
        flagged += bool(detect(tournament(Field((0.0, 0.3, 0.6, 0.9, 1.2), seats=3), 8, 500 + seed), 5).flagged)
    assert flagged / 80 <= 0.123


def test_pairs_that_always_share_a_table_are_untestable() -> None:
    report = detect(tournament(Field((0.0, 0.0, 0.0, 0.0), seats=4), 5, 1), 4)
    assert len(report.pairs) == 6 and all(p.p is None and not p.flagged for p in report.pairs)


def test_holm_adjustment() -> None:
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]


def test_two_player_games_and_small_fields_do_not_crash() -> None:
    for fld in (Field((0.0, 0.0, 0.0), seats=2), Field((0.0, 0.0, 0.0, 0.0), seats=3)):
        report = detect(tournament(fld, 6, 2), fld.entrants)
        assert len(report.pairs) == fld.entrants * (fld.entrants - 1) // 2
        assert not report.flagged


def test_blatant_collusion_is_flagged_without_crashing() -> None:
    # A feeder that gives everything away: the t statistic's p-value is below the smallest double.
    # Before: statistics.StatisticsError from inv_cdf(1 - p / 2) == inv_cdf(1.0).
    shared = Field((0.0,) * 6, seats=3, collusion=((0, 1),), feed=50.0, noise=0.1, deal_luck=0.1, deals=Deals.SHARED)
    for fld, tiny in ((shared, 1e-20), (replace(shared, deals=Deals.SPREAD), 1e-12)):
        for rounds in (3, 12):
            report = detect(tournament(fld, rounds, 1), 6)
            top = report.pairs[0]
            assert top.flagged and (top.partner, top.feeder) == (1, 0)
            assert top.p is not None and top.p < tiny and math.isfinite(top.z or 0.0)
            assert [p for p in report.pairs if p.flagged] == [top]


def test_normal_score_goes_through_the_log_of_tiny_tails() -> None:
    assert tdist.normal_score(math.log(0.05)) == pytest.approx(1.959964, abs=1e-6)
    for z in (5.0, 29.0, 31.0, 45.0, 300.0):
        assert tdist.normal_score(tdist.log_normal_two_sided(z)) == pytest.approx(z, rel=1e-9)
    assert tdist.log_two_sided_p(1e200, 2) < -900 and tdist.normal_score(-math.inf) == math.inf
    assert tdist.log_two_sided_p(2.0, 5) == pytest.approx(math.log(tdist.two_sided_p(2.0, 5)), rel=1e-12)


def test_the_text_lists_every_flagged_pair_and_says_how_many_it_left_out() -> None:
    fld = Field((0.0,) * 6, seats=3, collusion=((0, 1),), feed=50.0, noise=0.1, deal_luck=0.1)
    text = collusion_text(detect(tournament(fld, 4, 1), 6), list("ABCDEF"), show=3)
    assert "15 pair(s) tested" in text and "at most 5%" in text
    assert "SUSPICIOUS B gains with A" in text and text.count("\n  no sign") == 3
    assert "and 11 more pair(s) with no sign" in text
