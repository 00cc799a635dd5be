"""The TrueSkill kernel: the free-for-all update of one game, and nothing else. Pure: no I/O, no state.

Why a hand-written update: `trueskill.TrueSkill.rate` builds a factor graph of Python objects for every
game and costs about 1 ms for a 4-player free-for-all, so 100,000 games would take minutes. For a
free-for-all (one player per team, weight 1) the graph collapses to a chain of Gaussians that `chain(n)`
walks with plain floats, sending exactly the messages of the package's `run_schedule` (same schedule,
same stopping rule, same erfc approximation), so it agrees with the package up to float rounding
(below 1e-8). `tests/stats/test_ratings.py` checks this on random games. Where the package would
raise FloatingPointError (an upset too unlikely for double precision), `RatingOverflow` is raised.

Why ties are averaged over orderings: the package places tied players next to each other in a chain,
so the player nearer the winners is treated differently from the one nearer the losers (trueskill
issue #13: 24.993 vs 25.007 for ranks [0, 1, 1, 2] with equal priors). `FastRater.rate` rates the game
once for every ordering of the players inside each tie group and gives each player the mean of its
posterior mu and sigma over those orderings. The result is exactly invariant under exchanging tied
players, and a game without ties costs a single chain (a two-way tie costs 2, a five-way tie 120).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import trueskill  # type: ignore[import-untyped]

from arena.jsonvalue import JSON
from arena.stats.chain_source import (
    DELTA,
    GENERATED_COUNTS,
    MAX_ITERATIONS,
    RatingOverflow,
    chain_source,
    inv_sqrt2,
    inv_sqrt_2pi,
    sqrt2,
)

__all__ = ["COMPILE_FROM", "Chain", "FastRater", "RatingModel", "RatingOverflow", "chain", "compiled_chain", "compiled_run", "plain_cost"]


@dataclass(frozen=True)
class RatingModel:
    """The TrueSkill constants, explicit (never the package's global environment)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 0.0
    draw_probability: float = 0.10

    def environment(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau, draw_probability=self.draw_probability
        )

    def draw_margin(self) -> float:
        """The margin between two single players, as the package computes it (its own ppf)."""
        env = self.environment()
        return float(trueskill.calc_draw_margin(self.draw_probability, 2, env))

    def to_json(self) -> dict[str, JSON]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "beta": self.beta,
            "tau": self.tau,
            "draw_probability": self.draw_probability,
        }


Chain = Callable[[Sequence[tuple[float, float]], Sequence[bool], float, float, float], list[tuple[float, float]]]


def chain(n: int) -> Chain:
    """The posterior (mu, sigma) of n players sorted best first; `draws[j]` ties player j with j+1."""
    if n < 2:
        raise ValueError("a chain needs at least two players")
    found = _CHAINS.get(n)
    if found is not None:
        return found
    if n in GENERATED_COUNTS:
        from arena.stats.generated import chains  # 1,900 generated lines: loaded when a game is rated, not by a warm call

        made: Chain = getattr(chains, f"chain_{n}")
    else:  # more players than any game seats: the same generator, run here
        namespace: dict[str, Any] = {
            "sqrt": math.sqrt,
            "exp": math.exp,
            "sqrt2": sqrt2,
            "inv_sqrt2": inv_sqrt2,
            "inv_sqrt_2pi": inv_sqrt_2pi,
            "RatingOverflow": RatingOverflow,
            "MAX_ITERATIONS": MAX_ITERATIONS,
            "DELTA": DELTA,
        }
        exec(compile(chain_source(n), f"<arena.stats.chain_source chain_{n}>", "exec"), namespace)  # noqa: S102
        made = namespace[f"chain_{n}"]
    _CHAINS[n] = made
    return made


_CHAINS: dict[int, Chain] = {}

# What one plain chain costs, in 4-player games (BENCHMARKS.md, "ratings: one TrueSkill chain": 3.8, 12.2,
# 23.7, 34.5 and 52.0 us for 2 to 6 players when this was set, interpreted); numba's chain costs about a
# tenth, and so does chains.py as mypyc compiles it (a call of either: 2.3 us for 4 players). What numba
# still buys a compiled install is `compiled_run`: a cold store's games in one loop, not a call each.
PLAIN_COST = {2: 0.16, 3: 0.5, 4: 1.0, 5: 1.45, 6: 2.2}

# Compiling (loading numba and the chain it keeps on disk: about 0.6 s) pays once this much plain work, in
# 4-player games, is ahead: 25,000 of them take about 0.6 s plain and 0.06 s compiled.
COMPILE_FROM = 25_000.0


def plain_cost(n: int) -> float:
    """The cost of one plain n-player chain in 4-player games (beyond the table: its growth, (n - 1)^1.65)."""
    return PLAIN_COST.get(n) or ((n - 1) / 3) ** 1.65


def compiled_chain(n: int) -> Chain:
    """`chain(n)` compiled to machine code by numba: the same bits, 10 times faster (`test_kernel_compiled.py`).

    The first compile on a machine takes about 2 s per player count and numba keeps it on disk; a later
    process loads it in about 0.15 s. Counts beyond the generated ones run as plain Python."""
    found = _COMPILED.get(n)
    if found is not None:
        return found
    if n not in GENERATED_COUNTS:
        return chain(n)
    import numba  # loaded only by a rater with many games to rate

    from arena.stats.generated import runs  # the chains' text as numba reads it (chains.py is compiled by mypyc)

    source = getattr(runs, f"chain_{n}")
    try:
        made: Chain = numba.njit(cache=True)(source)
    except RuntimeError:  # numba found no writable cache folder for this install: compile in memory
        made = numba.njit(cache=False)(source)
    _COMPILED[n] = made
    return made


_COMPILED: dict[int, Chain] = {}


def compiled_run(n: int) -> Callable[..., int] | None:
    """`runs.run_{n}` compiled by numba (kept on disk as the chains are), or None beyond the generated
    counts: a run of n-player games rated in one loop, bit for bit as `RatingBook.apply` rates them."""
    found = _RUNS.get(n)
    if found is not None or n not in GENERATED_COUNTS:
        return found
    import numba

    from arena.stats.generated import runs

    source = getattr(runs, f"run_{n}")
    try:
        made: Callable[..., int] = numba.njit(cache=True)(source)
    except RuntimeError:  # no writable cache folder: compile in memory
        made = numba.njit(cache=False)(source)
    _RUNS[n] = made
    return made


_RUNS: dict[int, Callable[..., int]] = {}


class FastRater:
    """Free-for-all TrueSkill with the package's results and symmetric ties, fast enough for big stores."""

    def __init__(self, model: RatingModel = RatingModel(), compile_from: float | None = None) -> None:
        self.model = model
        self._beta2 = float(model.beta) ** 2
        self._tau2 = float(model.tau) ** 2
        self._margin = model.draw_margin()
        self._chain: Callable[[int], Chain] = chain
        # Plain work (in 4-player games, `plain_cost`) to do before compiling the chain; None: never compile.
        self._left = compile_from

    def expect(self, work: float) -> None:
        """About `work` (in 4-player games, `plain_cost`) is to be rated in one go, and nothing after it:
        compile at once where that is past `compile_from`, and never where it is short of it (rating
        `compile_from` plainly and then compiling for nothing left would pay twice)."""
        if self._left is not None and work >= self._left:
            self._chain = compiled_chain
        self._left = None

    def compiles(self) -> bool:
        """Whether this rater runs the compiled chain now (see `expect`)."""
        return self._chain is compiled_chain

    def compiled_run(self, n: int) -> Callable[..., int] | None:
        """`kernel.compiled_run(n)` with this rater's constants, once this rater has compiled its chain
        (`expect`); None before, or beyond the generated counts."""
        if not self.compiles():
            return None
        run = compiled_run(n)
        if run is None:
            return None
        beta2, tau2, margin = self._beta2, self._tau2, self._margin
        return lambda *args: run(*args, beta2, tau2, margin)

    def _next_chain(self, n: int) -> Chain:
        """The chain for this game: plain Python, until this rater has done `compile_from` of plain work."""
        if self._left is not None:
            self._left -= plain_cost(n)
            if self._left <= 0:
                self._chain, self._left = compiled_chain, None
        return self._chain(n)

    def rate_ordered(self, priors: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
        """What `trueskill.TrueSkill.rate` gives for single-player teams, ties in the given order."""
        if len(priors) != len(ranks) or len(priors) < 2:
            raise ValueError("need at least two players, each with a rank")
        order = sorted(range(len(ranks)), key=lambda i: ranks[i])
        post = self._rate_sorted([priors[i] for i in order], [ranks[i] for i in order])
        out: list[tuple[float, float]] = [(0.0, 0.0)] * len(priors)
        for pos, i in enumerate(order):
            out[i] = post[pos]
        return out

    def rate(self, priors: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
        """Posterior (mu, sigma) per player; tied players' results averaged over their orderings."""
        n = len(ranks)
        if len(priors) != n or n < 2:
            raise ValueError("need at least two players, each with a rank")
        order = sorted(range(n), key=ranks.__getitem__)
        if len(set(ranks)) == n:  # no tie (most games): one chain, as `rate_ordered` would run it
            post = self._next_chain(n)(tuple([priors[i] for i in order]), (False,) * (n - 1), self._beta2, self._tau2, self._margin)
            out = post[:]
            for pos, i in enumerate(order):
                out[i] = post[pos]
            return out
        groups = [list(g) for _, g in itertools.groupby(order, key=lambda i: ranks[i])]
        sum_mu = [0.0] * n
        sum_sigma = [0.0] * n
        count = 0
        for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
            seq = [i for group in choice for i in group]
            post = self._rate_sorted([priors[i] for i in seq], [ranks[i] for i in seq])
            for pos, i in enumerate(seq):
                sum_mu[i] += post[pos][0]
                sum_sigma[i] += post[pos][1]
            count += 1
        return [(sum_mu[i] / count, sum_sigma[i] / count) for i in range(n)]

    def _rate_sorted(self, priors: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
        n = len(ranks)
        draws = tuple([ranks[j] == ranks[j + 1] for j in range(n - 1)])
        return self._next_chain(n)(tuple(priors), draws, self._beta2, self._tau2, self._margin)
