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


def test_a_chain_written_with_an_integer_power_is_not_bit_identical_compiled(tmp_path: Path) -> None:
    """Control: the comparison above can fail. numba turns `x ** -2` into a product where Python calls
    pow, which is why the generator writes `** -2.0`; with the integer power the bits differ."""
    source = chain_source.module_source().replace(" ** -2.0", " ** -2")
    path = tmp_path / "int_power_chains.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("int_power_chains", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    import numba  # type: ignore[import-untyped]

    fast = numba.njit(cache=False)(module.chain_2)
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


def test_the_kept_chains_file_is_what_the_generator_writes() -> None:
    assert chain_source.main([]) == 0, "run `python -m arena.stats.chain_source --write`"
