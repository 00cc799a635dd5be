"""The chains as every rater runs them (chains.py, compiled by mypyc unless ARENA_PURE=1) give the bits,
and raise the errors, of the same generated source run as plain Python: the live ratings of `arena run`
and a cold store's ties must not depend on whether the package was compiled."""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.stats import chain_source
from arena.stats.generated import chains
from arena.stats.kernel import FastRater

RATER = FastRater()


def _plain(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<plain chains>", "exec"), namespace)  # noqa: S102
    return namespace


def _outcome(chain: Callable[..., list[tuple[float, float]]], priors: tuple[tuple[float, float], ...], draws: tuple[bool, ...]) -> object:
    try:
        return [(mu.hex(), sigma.hex()) for mu, sigma in chain(priors, draws, RATER._beta2, RATER._tau2, RATER._margin)]
    except (ArithmeticError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _cases(count: int) -> list[tuple[tuple[tuple[float, float], ...], tuple[bool, ...]]]:
    """Ordinary fields and priors far apart (upsets beyond double precision, a math domain error), with draws."""
    rng = random.Random(25)
    out = []
    for _ in range(count):
        n = rng.randint(2, 6)
        spread = rng.choice([10.0, 100.0, 1000.0, 5000.0])
        priors = tuple((rng.uniform(-spread, spread), rng.choice([rng.uniform(1e-6, 0.1), rng.uniform(0.1, 50.0)]))
                       for _ in range(n))
        out.append((priors, tuple(rng.random() < 0.3 for _ in range(n - 1))))
    return out


def _differences(plain: dict[str, Any]) -> tuple[int, set[str]]:
    differ, kinds = 0, set()
    for priors, draws in _cases(4000):
        mine = _outcome(getattr(chains, f"chain_{len(priors)}"), priors, draws)
        kinds.add(mine if isinstance(mine, str) else "rated")
        differ += mine != _outcome(plain[f"chain_{len(priors)}"], priors, draws)
    return differ, kinds


def test_the_chains_give_the_bits_and_errors_of_their_plain_source() -> None:
    differ, kinds = _differences(_plain(chain_source.module_source()))
    assert differ == 0
    assert {"rated", "RatingOverflow: win too unlikely to rate in double precision",
            "RatingOverflow: draw too unlikely to rate in double precision"} <= kinds  # every path was taken


def test_a_chain_written_another_way_is_told_apart_bit_for_bit() -> None:
    """The control: the same maths with 1 / x in place of `sqrt(x) ** -2.0` differs in the last bits."""
    source = chain_source.module_source().replace("sqrt(sigma * sigma + tau2) ** -2.0", "1.0 / (sigma * sigma + tau2)")
    differ, _ = _differences(_plain(source))
    assert differ > 0
