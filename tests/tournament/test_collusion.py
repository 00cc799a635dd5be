"""The collusion test flags a planted feeder and its partner, and rarely flags independent bots."""

from __future__ import annotations

from arena.stats.collusion import detect, holm
from bench.simfield import Field, tournament


def test_flags_the_planted_pair_most_of_the_time() -> None:
    fld = Field((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), seats=4, collusion=((0, 1),), feed=0.8)
    hits = 0
    for seed in range(20):
        report = detect(tournament(fld, 10, seed), 6)
        top = report.pairs[0]
        hits += top.flagged and (top.partner, top.feeder) == (1, 0)
    assert hits >= 16  # measured power at this size is about 95%


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
