"""A cheap version of `bench.bench_numbers` (issue 23): the printed numbers against the truth of
simulated fields under several models of a game (not only the one the code was tuned on), with
bounds that a broken method fails: intervals that cover the true average rank, P(ahead of next) that
is not overconfident, a collusion test that does not accuse an honest field, and a stop rule that does
not order identical bots. Every figure is from fixed seeds: the same on every run and machine."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.stats.collusion import detect
from arena.stats.stoprule import StopRule, stopping_round
from arena.stats import uncertainty
from arena.stats.uncertainty import estimate
from bench.simfield import Field, tournament, true_average_ranks

pytestmark = pytest.mark.slow

STRENGTHS = (0.0, 0.4, 0.8, 1.2, 1.6)
MODELS = {
    "normal": Field(STRENGTHS, seats=3),
    "Plackett-Luce": Field(STRENGTHS, seats=3, shape="gumbel"),
    "heavy tails": Field(STRENGTHS, seats=3, shape="t3"),
    "seat effect": Field(STRENGTHS, seats=3, seat_effect=0.5),
}
TRIALS = 6


def test_intervals_cover_the_truth_and_p_ahead_is_not_overconfident() -> None:
    covered = shown = 0
    sure = sure_right = 0  # pairs stated at least 0.95 likely ahead, and those truly ahead
    for fld in MODELS.values():
        truth = true_average_ranks(fld, rounds=600)
        for rounds in (3, 8):
            for trial in range(TRIALS):
                result = estimate(tournament(fld, rounds, 100 + trial), fld.entrants, confidence=0.9, resamples=300,
                                  rating_resamples=0, seed=trial)
                for e in result.entrants:
                    if e.avg_rank is None:
                        continue
                    assert 1 <= e.avg_rank.low <= e.avg_rank.high <= fld.seats  # ranks lie in 1..seats
                    shown += 1
                    covered += e.avg_rank.low <= truth[e.entrant] <= e.avg_rank.high
                    if e.p_ahead is not None and e.next is not None and e.p_ahead >= 0.95:
                        sure += 1
                        sure_right += truth[e.entrant] < truth[e.next]
    assert shown >= 0.9 * len(MODELS) * 2 * TRIALS * 5  # an interval for (nearly) every entrant
    assert covered / shown >= 0.8, f"90% intervals covered the truth {covered}/{shown} times"
    assert sure >= 10 and sure_right / sure >= 0.9, f"stated >= 0.95 ahead, truly ahead {sure_right}/{sure}"


def _calibration_in_the_large(fld: Field, rounds: int, trials: int) -> tuple[float, float, int]:
    """(mean stated P(ahead of next), share of those pairs truly ahead, pairs) over `trials` fields."""
    truth = true_average_ranks(fld, rounds=1500)
    stated: list[float] = []
    ahead: list[bool] = []
    for trial in range(trials):
        result = estimate(tournament(fld, rounds, 300 + trial), fld.entrants, confidence=0.9, resamples=300,
                          rating_resamples=0, seed=trial)
        for e in result.entrants:
            if e.p_ahead is not None and e.next is not None:
                stated.append(e.p_ahead)
                ahead.append(truth[e.entrant] < truth[e.next])
    return sum(stated) / len(stated), sum(ahead) / len(ahead), len(stated)


def test_p_ahead_is_not_overconfident_in_a_field_of_near_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neighbours by average rank are picked by chance in a field of near-ties (winner's curse): a flat
    P(ahead) says 0.67 on average where 0.57 of them are truly ahead. Shrunk by the field's own spread it
    is right on average, and it stays conservative (never above the truth) in a spread-out field."""
    near = replace(MODELS["normal"], strengths=(0.0, 0.05, 0.1, 0.15, 0.2))
    stated, truly, pairs = _calibration_in_the_large(near, 4, 60)
    assert pairs >= 200 and abs(stated - truly) <= 0.04, f"stated {stated:.3f} on average, truly ahead {truly:.3f}"
    spread_stated, spread_truly, _ = _calibration_in_the_large(MODELS["normal"], 4, 20)
    assert spread_stated <= spread_truly + 0.02, f"stated {spread_stated:.3f}, truly ahead {spread_truly:.3f}"
    # The control: without the shrinkage (a field spread taken as unbounded) the same fields are overconfident.
    monkeypatch.setattr(uncertainty, "field_spread", lambda *args: 1e12)
    flat_stated, flat_truly, _ = _calibration_in_the_large(near, 4, 60)
    assert flat_stated - flat_truly >= 0.06, f"flat: stated {flat_stated:.3f}, truly ahead {flat_truly:.3f}"


def test_the_collusion_test_does_not_accuse_honest_fields() -> None:
    flagged = fields = 0
    for fld in MODELS.values():
        honest = replace(fld, strengths=STRENGTHS)
        for rounds in (2, 6):
            for trial in range(8):
                flagged += bool(detect(tournament(honest, rounds, 5000 + trial), honest.entrants).flagged)
                fields += 1
    assert flagged <= 0.1 * fields, f"{flagged} of {fields} honest fields had a pair flagged (nominal 5%)"


def test_the_collusion_test_finds_a_blatant_pair() -> None:
    """The control: the same test does flag a pair that colludes (so the bound above can fail)."""
    fld = replace(MODELS["normal"], collusion=((0, 4),), feed=3.0)
    assert detect(tournament(fld, 10, 77), fld.entrants).flagged


def test_the_stop_rule_does_not_order_identical_bots_at_its_smallest_min_rounds() -> None:
    rule = StopRule(confidence=0.95, min_rounds=2)
    stopped = fields = 0
    for fld in MODELS.values():
        equal = replace(fld, strengths=(0.0,) * 4)
        for trial in range(10):
            stopped += stopping_round(tournament(equal, 12, 9000 + trial), equal.entrants, 12, rule) < 12
            fields += 1
    assert stopped <= 0.075 * fields, f"stopped with an order between equal bots in {stopped} of {fields} fields"
