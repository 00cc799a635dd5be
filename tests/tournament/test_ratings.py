"""Ratings: the fast free-for-all equals the trueskill package, moves the right way, treats ties fairly."""

from __future__ import annotations

import random

import pytest
import trueskill
from hypothesis import given
from hypothesis import strategies as st

from arena.stats.ratings import (
    FastRater,
    OrderedRatings,
    RatedGame,
    RatingBook,
    RatingModel,
    leaderboard,
)

MODELS = [RatingModel(), RatingModel(tau=25 / 300, draw_probability=0.3)]


@pytest.mark.parametrize("model", MODELS)
def test_fast_rating_equals_the_trueskill_package_on_random_games(model: RatingModel) -> None:
    env = model.environment()
    fast = FastRater(model)
    rnd = random.Random(20240521)
    checked = 0
    for _ in range(400):
        n = rnd.randint(2, 6)
        priors = [(rnd.uniform(5, 45), rnd.uniform(0.3, 9)) for _ in range(n)]
        ranks = [rnd.randint(1, n) for _ in range(n)]
        try:
            expected = env.rate([(env.create_rating(mu, sigma),) for mu, sigma in priors], ranks=ranks)
        except FloatingPointError:
            continue
        got = fast.rate_ordered(priors, ranks)
        for (want,), (mu, sigma) in zip(expected, got):
            assert mu == pytest.approx(want.mu, abs=1e-6)
            assert sigma == pytest.approx(want.sigma, abs=1e-6)
        checked += 1
    assert checked > 350


def test_the_package_is_asymmetric_on_ties_and_we_are_not() -> None:
    """trueskill issue #13: equal priors, ranks [0, 1, 1, 2] give the tied pair 24.993 and 25.007."""
    model = RatingModel(tau=25 / 300)  # the package's defaults, where the issue was reported
    env = model.environment()
    pkg = env.rate([(env.create_rating(),)] * 4, ranks=[0, 1, 1, 2])
    assert pkg[1][0].mu != pytest.approx(pkg[2][0].mu, abs=1e-3)
    ours = FastRater(model).rate([(25.0, 25 / 3)] * 4, [0, 1, 1, 2])
    assert ours[1] == ours[2]
    assert ours[1][0] == pytest.approx(25.0, abs=1e-9)
    assert ours[0][0] == pytest.approx(pkg[0][0].mu, abs=1e-3)


prior = st.tuples(st.floats(10, 40), st.floats(1, 8.4))


@given(st.lists(prior, min_size=2, max_size=5), st.data())
def test_tied_entrants_are_rated_symmetrically(priors: list[tuple[float, float]], data: st.DataObject) -> None:
    n = len(priors)
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    rater = FastRater()
    base = rater.rate(priors, ranks)
    # Swapping two tied players' priors swaps their results and changes no one else's.
    tied = [(i, j) for i in range(n) for j in range(i + 1, n) if ranks[i] == ranks[j]]
    for i, j in tied:
        swapped = list(priors)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        again = rater.rate(swapped, ranks)
        assert again[i] == pytest.approx(base[j], abs=1e-9)
        assert again[j] == pytest.approx(base[i], abs=1e-9)
        for k in range(n):
            if k not in (i, j):
                assert again[k] == pytest.approx(base[k], abs=1e-9)


@given(st.lists(prior, min_size=2, max_size=5), st.data())
def test_winner_rises_loser_falls_sigma_never_grows(priors: list[tuple[float, float]], data: st.DataObject) -> None:
    """The sole winner rises and the sole loser falls (a strong player who only ties a weak one for first
    may rightly fall, so shared first and last places are not checked); no one's sigma grows."""
    n = len(priors)
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n).filter(lambda r: len(set(r)) > 1))
    post = FastRater().rate(priors, ranks)
    best, worst = min(ranks), max(ranks)
    for i in range(n):
        assert post[i][1] <= priors[i][1] + 1e-12
        if ranks.count(ranks[i]) == 1 and ranks[i] == best:
            assert post[i][0] > priors[i][0]
        if ranks.count(ranks[i]) == 1 and ranks[i] == worst:
            assert post[i][0] < priors[i][0]


def _random_games(count: int, seed: int) -> list[RatedGame]:
    rnd = random.Random(seed)
    games = []
    for i in range(count):
        seats = list(range(4))
        rnd.shuffle(seats)
        points = [rnd.randint(0, 3) + e for e in seats]
        ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
        games.append(RatedGame(i, tuple(seats), ranks, tuple(points), (0, 0, 0, rnd.randint(0, 1))))
    return games


def test_arrival_order_does_not_change_ratings() -> None:
    games = _random_games(200, 5)
    in_order = RatingBook.new(RatingModel(), 4)
    in_order.apply_all(games)
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)
    ordered = OrderedRatings(RatingBook.new(RatingModel(), 4))
    for g in shuffled[:150]:
        ordered.add(g)
    partial = ordered.current()
    assert partial.rated == 150
    for g in shuffled[150:]:
        ordered.add(g)
    assert not ordered.pending
    assert ordered.current().to_json() == in_order.to_json()
    with pytest.raises(ValueError):
        ordered.add(games[3])


def test_leaderboard_totals_and_order() -> None:
    book = RatingBook.new(RatingModel(), 3)
    # Entrant 0 wins outright, then shares a win with entrant 1; entrant 2 faults twice.
    book.apply(RatedGame(0, (0, 1, 2), (1, 2, 3), (10, 5, 0), (0, 0, 2)))
    book.apply(RatedGame(1, (1, 2, 0), (1, 3, 1), (7, 1, 7), (0, 0, 0)))
    rows = {s.name: s for s in leaderboard(book, ["a", "b", "c"])}
    assert rows["a"].wins == 1.5 and rows["b"].wins == 0.5 and rows["c"].wins == 0
    assert rows["a"].avg_points == 8.5 and rows["c"].avg_rank == 3
    assert rows["c"].faults == 2 and rows["a"].games == 2
    assert [s.name for s in leaderboard(book, ["a", "b", "c"])] == ["a", "b", "c"]
    assert rows["a"].score == pytest.approx(rows["a"].mu - 3 * rows["a"].sigma)


def test_an_entrant_in_several_seats_is_counted_per_game_and_rated_once() -> None:
    book = RatingBook.new(RatingModel(), 2)
    book.apply(RatedGame(0, (0, 1, 0, 1, 0), (1, 2, 3, 4, 5), (5, 4, 3, 2, 1), (0,) * 5))
    a, b = book.entrants
    assert a.games == 1 and a.seats == 3 and b.seats == 2
    assert a.wins == 1.0
    assert a.sigma < 25 / 3 and b.sigma < 25 / 3


def test_book_round_trips_through_json() -> None:
    book = RatingBook.new(RatingModel(), 4)
    book.apply_all(_random_games(20, 2))
    again = RatingBook.from_json(book.to_json())
    assert again.to_json() == book.to_json()


def test_no_global_trueskill_setup_is_used() -> None:
    before = trueskill.global_env()
    model = RatingModel(mu=100, sigma=10, beta=5)
    FastRater(model).rate([(100, 10), (100, 10)], [1, 2])
    assert trueskill.global_env() is before and before.mu == trueskill.MU


def test_the_one_chain_equals_the_package_for_every_player_count() -> None:
    """One kernel for every table size (no second, looping copy): 2 to 12 players, with draws."""
    from arena.stats.kernel import chain

    rnd = random.Random(8)
    model = RatingModel(tau=0.1)
    env = model.environment()
    margin = model.draw_margin()
    checked = 0
    for n in range(2, 13):
        for _ in range(20):
            priors = [(rnd.uniform(5, 45), rnd.uniform(0.3, 9)) for _ in range(n)]
            ranks = sorted(rnd.randint(1, n) for _ in range(n))
            draws = [ranks[j] == ranks[j + 1] for j in range(n - 1)]
            try:
                expected = env.rate([(env.create_rating(mu, sigma),) for mu, sigma in priors], ranks=ranks)
            except FloatingPointError:
                continue
            got = chain(n)(priors, draws, model.beta**2, model.tau**2, margin)
            want = [x for (r,) in expected for x in (r.mu, r.sigma)]
            assert [x for pair in got for x in pair] == pytest.approx(want, abs=1e-6)
            checked += 1
    assert checked > 150
