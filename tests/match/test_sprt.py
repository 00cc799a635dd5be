"""The statistics of `arena match`: fastchess's figures on fixed inputs, and the test's error rates."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import pytest

from arena.errors import MatchError
from arena.match import sprt
from arena.match.sequential import SprtSpec, Tally, Verdict, run_test


# fastchess app/tests/sprt_test.cpp: Stats(ll, ld, wl, dd, wd, ww), SPRT(alpha, beta, elo0, elo1, model) -> LLR
FASTCHESS_LLR = [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
]


@pytest.mark.parametrize("counts,elo0,elo1,model,expected", FASTCHESS_LLR)
def test_pentanomial_llr_equals_fastchess(counts: tuple[int, ...], elo0: float, elo1: float, model: str, expected: float) -> None:
    assert sprt.penta_llr(sprt.Penta(*counts), elo0, elo1, model) == pytest.approx(expected, rel=0.01)


def _independent_elo(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> dict[str, float]:
    """EloPentanomial's figures written out again from its definitions, not from arena's code."""
    n = ll + ld + wl + dd + wd + ww
    score = (ww + 0.75 * wd + 0.5 * (wl + dd) + 0.25 * ld) / n
    var = (ww * (1 - score) ** 2 + wd * (0.75 - score) ** 2 + (wl + dd) * (0.5 - score) ** 2
           + ld * (0.25 - score) ** 2 + ll * score ** 2) / n
    up, low = score + 1.959963984540054 * math.sqrt(var / n), score - 1.959963984540054 * math.sqrt(var / n)

    def elo(s: float) -> float:
        return -400 * math.log10(1 / s - 1)

    def nelo(s: float) -> float:
        return (s - 0.5) / math.sqrt(2 * var) * 800 / math.log(10)

    los = (1 - math.erf(-(score - 0.5) / math.sqrt(2 * var / n))) / 2
    return {"score": score, "elo": elo(score), "elo_error": (elo(up) - elo(low)) / 2, "nelo": nelo(score),
            "nelo_error": (nelo(up) - nelo(low)) / 2, "los": los}


# fastchess app/tests/elo_test.cpp: nElo, its error, Elo, its error, LOS (%), score
FASTCHESS_ELO = [
    ((34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 100.00, 0.579),
    ((332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 5.05, 0.488),
    ((7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, 0.00, 0.470),
]


@pytest.mark.parametrize("counts,nelo,nelo_err,elo,elo_err,los,score", FASTCHESS_ELO)
def test_pentanomial_elo_equals_fastchess_and_its_formulas(counts: tuple[int, ...], nelo: float, nelo_err: float,
                                                           elo: float, elo_err: float, los: float, score: float) -> None:
    got = sprt.penta_elo(sprt.Penta(*counts), draws=0, games=2 * sum(counts))
    mine = _independent_elo(*counts)
    for key in mine:
        assert getattr(got, key) == pytest.approx(mine[key], rel=1e-9, abs=1e-12), key
    assert (got.nelo, got.nelo_error, got.elo, got.elo_error) == pytest.approx((nelo, nelo_err, elo, elo_err), rel=0.01)
    assert f"{100 * got.los:.2f}" == f"{los:.2f}"
    assert got.score == pytest.approx(score, rel=0.01)


def test_bounds_are_walds() -> None:
    lo, hi = sprt.bounds(0.05, 0.1)
    assert lo == pytest.approx(math.log(0.1 / 0.95)) and hi == pytest.approx(math.log(0.9 / 0.05))


def test_pair_outcomes_are_classified_like_fastchess() -> None:
    p = sprt.Penta()
    for a, b in [(1, 1), (1, 0.5), (0.5, 1), (1, 0), (0, 1), (0.5, 0.5), (0.5, 0), (0, 0)]:
        p = p.add(a, b)
    assert p.to_json() == {"LL": 1, "LD": 1, "WL": 2, "DD": 1, "WD": 2, "WW": 1}


@dataclass
class G:
    round: int
    index: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]


def _simulate(rng: random.Random, seats: int, spec: SprtSpec, max_deals: int, edge: float) -> tuple[Verdict, int]:
    """One match of the pure test: `edge` is the chance NEW's result is redrawn as the better of two."""
    tally = Tally(seats, spec)
    for r in range(max_deals):
        if seats == 2:
            def game(new_seat: int) -> G:
                u = rng.random()
                if u < 0.1:
                    return G(r, 0, (0, 1), (1, 1))
                new_wins = u < 0.55 or rng.random() < edge
                ranks = (1, 2) if new_wins else (2, 1)
                return G(r, 0, (0, 1) if new_seat == 0 else (1, 0), ranks if new_seat == 0 else ranks[::-1])
            tally.add(game(0), game(1))
        else:
            new = rng.randint(1, seats)
            if rng.random() < edge:
                new = min(new, rng.randint(1, seats))
            tally.add(G(r, 0, (0,), (new,)), G(r, 1, (1,), (rng.randint(1, seats),)))
        verdict = tally.verdict()
        if verdict is not None:
            return verdict, r + 1
    return Verdict.UNDECIDED, max_deals


@pytest.mark.slow  # hundreds of simulated matches
@pytest.mark.parametrize("seats", [2, 4])
def test_identical_bots_are_declared_better_in_at_most_alpha_of_runs(seats: int) -> None:
    rng = random.Random(seats)
    spec = SprtSpec.parse(None, seats)
    runs = [_simulate(rng, seats, spec, 250, 0.0) for _ in range(300)]
    better = sum(v is Verdict.BETTER for v, _ in runs) / len(runs)
    not_better = sum(v is Verdict.NOT_BETTER for v, _ in runs) / len(runs)
    assert better <= spec.alpha
    assert not_better > 0.5  # and it does conclude: H0 in most runs within 250 deals


@pytest.mark.parametrize("seats", [2, 4])
def test_a_clearly_stronger_bot_is_found_better_early(seats: int) -> None:
    rng = random.Random(10 + seats)
    spec = SprtSpec.parse(None, seats)
    runs = [_simulate(rng, seats, spec, 250, 0.6 if seats == 2 else 1.0) for _ in range(100)]
    assert sum(v is Verdict.BETTER for v, _ in runs) >= 95
    assert sorted(n for _, n in runs)[50] < 100


def test_run_test_stops_at_the_first_crossing_and_reports_undecided_only_at_the_end() -> None:
    spec = SprtSpec.parse("rank0=0 rank1=1", 3)
    games = [G(r, 2 * r + i, (i,), (1 if i == 0 else 3,)) for r in range(40) for i in (0, 1)]
    tally, verdict, rounds = run_test(games, 3, spec, 40)
    assert verdict is Verdict.BETTER and rounds < 40 and tally.deals == rounds
    _, none, used = run_test(games[:4], 3, SprtSpec.parse("rank0=0 rank1=1.9", 3), 40)
    assert none is None and used == 2
    equal = [G(r, 2 * r + i, (i,), (2,)) for r in range(3) for i in (0, 1)]
    assert run_test(equal, 3, SprtSpec.parse("rank0=-1.9 rank1=1.9", 3), 3)[1] is Verdict.UNDECIDED


@pytest.mark.parametrize("text,seats,needle", [
    ("elo0=10 elo1=5", 2, "below"), ("rank0=0 rank1=3", 3, "within"), ("alpha=0.6 beta=0.5", 2, "alpha"),
    ("elo0=0 rank1=1", 2, "rank1="), ("model=bayesian", 2, "model"), ("elo1=x", 2, "number"),
])
def test_bad_bounds_are_refused_saying_what_to_fix(text: str, seats: int, needle: str) -> None:
    with pytest.raises(MatchError, match=needle):
        SprtSpec.parse(text, seats)


def test_run_test_reads_the_points_of_each_deal_when_given_them() -> None:
    """NEW's points minus OLD's per deal, from whatever carries the games' points (the store's `played`)."""
    games = [G(r, 2 * r + i, (i, 2, 3), (1 if i == 0 else 3, 2, 2)) for r in range(6) for i in (0, 1)]
    points = {g.index: (10.0 + g.index, 5.0, 0.0) if g.seats[0] == 0 else (9.0, 5.0, 3.0 + g.index) for g in games}
    tally, _, rounds = run_test(games, 3, SprtSpec.parse("rank0=0 rank1=1.9", 3), 40, lambda g: points[g.index])
    # deal r: NEW (entrant 0, seat 0 of game 2r) scored 10 + 2r; OLD (entrant 1, seat 0 of game 2r + 1) scored 9
    assert tally.points == [10.0 + 2 * r - 9.0 for r in range(rounds)]
    assert run_test(games, 3, SprtSpec.parse("rank0=0 rank1=1.9", 3), 40)[0].points == []  # none given: none kept
