"""The compiled chain (numba) gives the plain chain's results bit for bit, so a store rated cold (compiled
past `COMPILE_FROM` games) and one rated game by game agree exactly, and the golden standings hold."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.stats import chain_source, kernel
from arena.stats.kernel import FastRater, RatingModel, RatingOverflow, chain, compiled_chain
from arena.jsonvalue import dumps_str
from arena.results.stored import RatedRows
from arena.stats.ratings import RatingBook, RatedGame

pytestmark = pytest.mark.slow  # the first run on a machine compiles five chains (about 2 s each)

MODEL = RatingModel()
RATER = FastRater(MODEL)
ARGS = (RATER._beta2, RATER._tau2, RATER._margin)


def _cases(n: int, count: int, seed: int) -> list[tuple[tuple[tuple[float, float], ...], tuple[bool, ...]]]:
    """Random priors, some far apart (the overflow edge), with and without draws."""
    rnd = random.Random(seed)
    out = []
    for k in range(count):
        spread = 400.0 if k % 10 == 0 else 40.0
        priors = tuple((rnd.uniform(-spread, spread), rnd.uniform(0.05, 9.0)) for _ in range(n))
        draws = tuple(rnd.random() < (0.5 if k % 3 == 0 else 0.05) for _ in range(n - 1))
        out.append((priors, draws))
    return out


def _outcome(f: Any, priors: Any, draws: Any) -> Any:
    try:
        return [tuple(p) for p in f(priors, draws, *ARGS)]
    except RatingOverflow as exc:
        return ("overflow", str(exc))


def _bits(outcome: Any) -> Any:
    return outcome if outcome[0] == "overflow" else [(x.hex(), y.hex()) for x, y in outcome]


@pytest.mark.parametrize("n", list(chain_source.GENERATED_COUNTS))
def test_the_compiled_chain_equals_the_plain_one_bit_for_bit(n: int) -> None:
    plain, fast = chain(n), compiled_chain(n)
    assert fast is not plain
    overflows = 0
    for priors, draws in _cases(n, 3000, seed=n):
        want = _outcome(plain, priors, draws)
        assert _bits(_outcome(fast, priors, draws)) == _bits(want), (priors, draws)
        overflows += want[0] == "overflow"
    assert overflows > 0  # the cases reach the edge where both must raise RatingOverflow


def _int_power_module(tmp_path: Path, source: str, name: str) -> Any:
    """A generated module as the generator would write it with `** -2` for `** -2.0`, loaded from a file."""
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(" ** -2.0", " ** -2"))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_chain_written_with_an_integer_power_is_not_bit_identical_compiled(tmp_path: Path) -> None:
    """Control: the comparison above can fail. numba turns `x ** -2` into a product where Python calls
    pow, which is why the generator writes `** -2.0`; with the integer power the bits differ."""
    import numba  # type: ignore[import-untyped]

    fast = numba.njit(cache=False)(_int_power_module(tmp_path, chain_source.module_source(), "int_power_chains").chain_2)
    differ = sum(_bits(_outcome(fast, p, d)) != _bits(_outcome(chain(2), p, d)) for p, d in _cases(2, 2000, seed=5))
    assert differ > 0


def test_a_book_that_compiles_midway_rates_exactly_as_one_that_never_does(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(3)
    games = []
    for i in range(600):
        n = rnd.choice([2, 3, 4, 5, 6])
        seats = tuple(rnd.sample(range(8), n))
        ranks = tuple(rnd.randint(1, n) for _ in range(n))  # ties too: averaged over their orderings
        games.append(RatedGame(i, seats, ranks, (0.0,) * n, (0,) * n))
    monkeypatch.setattr(kernel, "COMPILE_FROM", None)
    plain = RatingBook.new(MODEL, 8)
    plain.apply_all(games)
    monkeypatch.setattr(kernel, "COMPILE_FROM", 100)
    mixed = RatingBook.new(MODEL, 8)
    mixed.apply_all(games)
    assert mixed.rater()._chain is compiled_chain  # it did switch
    assert plain.rater()._chain is chain
    assert [(e.mu.hex(), e.sigma.hex()) for e in mixed.entrants] == [(e.mu.hex(), e.sigma.hex()) for e in plain.entrants]
    assert not any(math.isnan(e.mu) for e in plain.entrants)


# --- a cold store's rows rated in one compiled loop (`RatingBook.apply_rows`, `runs.run_{n}`) ----------


def _rows(games: list[RatedGame]) -> RatedRows:
    def texts(column: str) -> tuple[str, ...]:
        return tuple(dumps_str(list(getattr(g, column))) for g in games)

    return RatedRows([g.index for g in games], (texts("seats"), texts("ranks"), texts("points"), texts("faults")))


def _random_games(n: int, count: int, entrants: int, seed: int, first: int = 0) -> list[RatedGame]:
    rnd = random.Random(seed)
    games = []
    for i in range(count):
        seats = tuple(rnd.sample(range(entrants), n))
        ranks = tuple(rnd.randint(1, n) for _ in range(n)) if i % 4 == 0 else tuple(rnd.sample(range(1, n + 1), n))
        points = tuple(float(rnd.randint(-20, 60)) if i % 7 else rnd.uniform(-5, 5) for _ in range(n))
        games.append(RatedGame(first + i, seats, ranks, points, tuple(rnd.randint(0, 2) for _ in range(n))))
    return games


def _far_apart(book: RatingBook, seed: int) -> RatingBook:
    """Priors up to 300 apart, with small sigmas: some upsets among them are beyond double precision."""
    rnd = random.Random(seed)
    for e in book.entrants:
        e.mu, e.sigma = rnd.uniform(-150.0, 150.0), rnd.uniform(0.05, 2.0)
    return book


def _state(book: RatingBook) -> Any:
    return ([tuple(v.hex() if isinstance(v, float) else v for v in vars(e).values()) for e in book.entrants],
            book.rated, book.unrated, book.last_index)


def _compiled_book(entrants: int) -> RatingBook:
    book = RatingBook.new(MODEL, entrants, rater=FastRater(MODEL, compile_from=1.0))
    book.rater().expect(10.0)
    assert book.rater().compiles()
    return book


@pytest.mark.parametrize("n", list(chain_source.GENERATED_COUNTS))
def test_rows_rated_in_one_compiled_run_equal_game_by_game_bit_for_bit(n: int) -> None:
    games = _random_games(n, 1500, entrants=9, seed=n)
    plain = _far_apart(RatingBook.new(MODEL, 9), seed=n)
    plain.apply_all(games)
    fast = _far_apart(_compiled_book(9), seed=n)
    fast.apply_rows(_rows(games[:700]))
    fast.apply_rows(_rows(games[700:]))
    assert _state(fast) == _state(plain)
    assert plain.unrated > 0  # the overflow edge is reached, and left to the rater exactly as `apply` does
    assert sum(len(set(g.ranks)) < n for g in games) > 100  # and ties, averaged over their orderings


def test_rows_a_run_cannot_take_are_applied_game_by_game() -> None:
    """An entrant in two seats, games of several sizes, a fraction in an integer column, an index that
    does not follow the book's: the rows go through `apply`, with its results and its errors."""
    filled = [RatedGame(i, (0, 1, 0, 2), (1, 2, 3, 4), (1.0,) * 4, (0,) * 4) for i in range(3)]
    mixed = _random_games(3, 5, 5, seed=1) + _random_games(4, 5, 5, seed=2, first=5)
    fraction = [RatedGame(0, (0, 1), (1, 2), (1.0, 0.0), (0, 0))]
    for games in (filled, mixed, fraction):
        plain = RatingBook.new(MODEL, 5)
        plain.apply_all(games)
        fast = _compiled_book(5)
        rows = _rows(games)
        if games is fraction:
            rows = RatedRows(rows.indices, (rows.columns[0], ("[1.5,2]",), rows.columns[2], rows.columns[3]))
            plain = RatingBook.new(MODEL, 5)
            plain.apply(RatedGame(0, (0, 1), (1.5, 2), (1.0, 0.0), (0, 0)))  # type: ignore[arg-type]
        fast.apply_rows(rows)
        assert _state(fast) == _state(plain)
    book = _compiled_book(5)
    book.apply_rows(_rows(_random_games(2, 3, 5, seed=3, first=10)))
    with pytest.raises(ValueError, match="schedule order"):
        book.apply_rows(_rows(_random_games(2, 3, 5, seed=4, first=5)))


def test_a_run_written_with_an_integer_power_is_not_bit_identical(tmp_path: Path) -> None:
    """Control: the run comparison above can fail. The same run compiled from a source with `** -2`
    moves the ratings' last bits."""
    import numba

    wrong = numba.njit(cache=False)(_int_power_module(tmp_path, chain_source.runs_module_source(), "int_power_runs").run_4)
    games = _random_games(4, 600, entrants=6, seed=11)
    plain = RatingBook.new(MODEL, 6)
    plain.apply_all(games)
    fast = _compiled_book(6)
    fast.apply_rows(_rows(games))
    assert _state(fast) == _state(plain)
    bent = _compiled_book(6)
    rater = bent.rater()
    rater.compiled_run = lambda n: (lambda *args: wrong(*args, rater._beta2, rater._tau2, rater._margin))  # type: ignore[method-assign]
    bent.apply_rows(_rows(games))
    assert _state(bent) != _state(plain)
