"""The TrueSkill kernel: the free-for-all update of one game, and nothing else. Pure: no I/O, no state.

Why a hand-written update: `trueskill.TrueSkill.rate` builds a factor graph of Python objects for every
game and costs about 1 ms for a 4-player free-for-all, so 100,000 games would take minutes. For a
free-for-all (one player per team, weight 1) the graph collapses to a chain of Gaussians that `chain(n)`
walks with plain floats, sending exactly the messages of the package's `run_schedule` (same schedule,
same stopping rule, same erfc approximation), so it agrees with the package up to float rounding
(below 1e-8). `tests/tournament/test_ratings.py` checks this on random games. Where the package would
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

DELTA = 0.0001  # the package's default min_delta: stop iterating when no message moves more
MAX_ITERATIONS = 10  # the package's hard cap on iterations of the chain schedule


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


class RatingOverflow(ArithmeticError):
    """An upset so extreme that double precision cannot rate it (the package raises FloatingPointError)."""


# --- the package's numerics, inlined -------------------------------------------------------------------

_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _erfc(x: float) -> float:
    """The package's erfc (Numerical Recipes' Chebyshev fit), so our results match it to rounding."""
    z = abs(x)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))
                )
            )
        )
    )
    return 2.0 - r if x < 0 else r


def _cdf(x: float) -> float:
    return 0.5 * _erfc(-x / _SQRT2)


# --- the chain, generated per player count -------------------------------------------------------------
#
# Why generated code: `standings` for 100,000 games must take under 5 s, i.e. ~40 us per game, and a
# loop over lists spends most of its time indexing them. For a fixed number of players the chain's
# messages can live in local variables; we generate that straight-line code once per player count
# (as `dataclasses` and `namedtuple` generate theirs), for every count: there is no second, looping
# copy of the update to keep in step. `test_ratings.py` checks it against the package.
#
# The messages and their order are those of `trueskill.TrueSkill.run_schedule` for one player per team.
# Team variable i receives s (its performance, fixed), lt (from difference factor i-1) and rt (from
# difference factor i); difference variable j receives dd (from its sum factor) and tt (from its
# truncation factor). Factor j is visited left to right and back (one visit when there are 2 players).

_STEP = """\
        ap = s_pi{j} + lt_pi{j}
        at = s_tau{j} + lt_tau{j}
        bp = s_pi{k} + rt_pi{k}
        bt = s_tau{k} + rt_tau{k}
        d_pi = 1.0 / (1.0 / ap + 1.0 / bp)
        d_tau = d_pi * (at / ap - bt / bp)
        old_pi = d_pi + tt_pi{j}
        old_tau = d_tau + tt_tau{j}
        sqrt_pi = sqrt(d_pi)
        diff = d_tau / sqrt_pi
        dm = margin * sqrt_pi
        if draw{j}:
            abs_diff = diff if diff >= 0 else -diff
            xa = dm - abs_diff
            xb = -dm - abs_diff
            denom = cdf(xa) - cdf(xb)
            if not denom:
                raise RatingOverflow("draw too unlikely to rate in double precision")
            pdf_a = inv_sqrt_2pi * exp(-(xa * xa) / 2)
            pdf_b = inv_sqrt_2pi * exp(-(xb * xb) / 2)
            v_abs = (pdf_b - pdf_a) / denom
            v = -v_abs if diff < 0 else v_abs
            w = v_abs * v_abs + (xa * pdf_a - xb * pdf_b) / denom
        else:
            x = diff - dm
            z = x * inv_sqrt2
            if z < 0:
                z = -z
            t = 1.0 / (1.0 + z * 0.5)
            r = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            c = 0.5 * (2.0 - r if x > 0 else r)
            v = (inv_sqrt_2pi * exp(-(x * x) / 2) / c) if c else -x
            w = v * (v + x)
            if not 0 < w < 1:
                raise RatingOverflow("win too unlikely to rate in double precision")
        omw = 1.0 - w
        new_pi = d_pi / omw
        new_tau = (d_tau + sqrt_pi * v) / omw
        tt_pi{j} = new_pi - d_pi
        tt_tau{j} = new_tau - d_tau
        change = old_tau - new_tau
        if change < 0:
            change = -change
        if change > delta:
            delta = change
        change = old_pi - new_pi
        if change < 0:
            change = -change
        if change > delta * delta:
            delta = sqrt(change)
"""

_UP_RIGHT = """\
{ind}if ap == 0 or tt_pi{j} == 0:
{ind}    lt_pi{k} = lt_tau{k} = 0.0
{ind}else:
{ind}    pi = 1.0 / (1.0 / ap + 1.0 / tt_pi{j})
{ind}    lt_pi{k} = pi
{ind}    lt_tau{k} = pi * (at / ap - tt_tau{j} / tt_pi{j})
"""

_UP_LEFT = """\
{ind}if tt_pi{j} == 0 or bp == 0:
{ind}    rt_pi{j} = rt_tau{j} = 0.0
{ind}else:
{ind}    pi = 1.0 / (1.0 / tt_pi{j} + 1.0 / bp)
{ind}    rt_pi{j} = pi
{ind}    rt_tau{j} = pi * (tt_tau{j} / tt_pi{j} + bt / bp)
"""


def _chain_source(n: int) -> str:
    m = n - 1
    lines = [f"def chain_{n}(priors, draws, beta2, tau2, margin):"]
    lines.append("    (" + "".join(f"draw{j}, " for j in range(m)) + ") = draws")
    for i in range(n):
        lines += [
            f"    mu, sigma = priors[{i}]",
            f"    p_pi{i} = sqrt(sigma * sigma + tau2) ** -2",
            f"    p_tau{i} = p_pi{i} * mu",
            f"    a = 1.0 / (1.0 + beta2 * p_pi{i})",
            f"    perf_pi = a * p_pi{i}",
            f"    s_pi{i} = 1.0 / (1.0 / perf_pi)",
            f"    s_tau{i} = s_pi{i} * ((a * p_tau{i}) / perf_pi)",
            f"    lt_pi{i} = lt_tau{i} = rt_pi{i} = rt_tau{i} = 0.0",
        ]
    for j in range(m):
        lines.append(f"    tt_pi{j} = tt_tau{j} = 0.0")
    lines.append("    for _ in range(MAX_ITERATIONS):")
    lines.append("        delta = 0.0")
    if m == 1:
        lines.append(_STEP.format(j=0, k=1).rstrip("\n"))
    else:
        for j in range(m - 1):
            lines.append(_STEP.format(j=j, k=j + 1).rstrip("\n"))
            lines.append(_UP_RIGHT.format(ind="        ", j=j, k=j + 1).rstrip("\n"))
        for j in range(m - 1, 0, -1):
            lines.append(_STEP.format(j=j, k=j + 1).rstrip("\n"))
            lines.append(_UP_LEFT.format(ind="        ", j=j).rstrip("\n"))
    lines.append("        if delta <= DELTA:")
    lines.append("            break")
    # The two ends: factor 0 to its left variable, factor m-1 to its right one.
    lines += ["    bp = s_pi1 + rt_pi1", "    bt = s_tau1 + rt_tau1", _UP_LEFT.format(ind="    ", j=0).rstrip("\n")]
    lines += [
        f"    ap = s_pi{m - 1} + lt_pi{m - 1}",
        f"    at = s_tau{m - 1} + lt_tau{m - 1}",
        _UP_RIGHT.format(ind="    ", j=m - 1, k=m).rstrip("\n"),
    ]
    out = []
    for i in range(n):
        lines += [
            f"    u_pi = lt_pi{i} + rt_pi{i}",
            f"    u_tau = lt_tau{i} + rt_tau{i}",
            "    if u_pi:",
            "        u_mu = u_tau / u_pi",
            "        u_pi = 1.0 / (1.0 / u_pi)",
            "        u_tau = u_pi * u_mu",
            "    a = 1.0 / (1.0 + beta2 * u_pi)",
            f"    q_pi{i} = p_pi{i} + a * u_pi",
            f"    q_tau{i} = p_tau{i} + a * u_tau",
        ]
        out.append(f"(q_tau{i} / q_pi{i}, sqrt(1 / q_pi{i}))")
    lines.append("    return [" + ", ".join(out) + "]")
    return "\n".join(lines) + "\n"


Chain = Callable[[Sequence[tuple[float, float]], Sequence[bool], float, float, float], list[tuple[float, float]]]


def chain(n: int) -> Chain:
    """The posterior (mu, sigma) of n players sorted best first; `draws[j]` ties player j with j+1."""
    if n < 2:
        raise ValueError("a chain needs at least two players")
    found = _CHAINS.get(n)
    if found is not None:
        return found
    namespace: dict[str, Any] = {
        "sqrt": math.sqrt,
        "exp": math.exp,
        "cdf": _cdf,
        "inv_sqrt_2pi": _INV_SQRT_2PI,
        "inv_sqrt2": 1.0 / _SQRT2,
        "RatingOverflow": RatingOverflow,
        "MAX_ITERATIONS": MAX_ITERATIONS,
        "DELTA": DELTA,
    }
    exec(compile(_chain_source(n), f"<arena.stats.kernel chain_{n}>", "exec"), namespace)  # noqa: S102
    made: Chain = namespace[f"chain_{n}"]
    _CHAINS[n] = made
    return made


_CHAINS: dict[int, Chain] = {}


class FastRater:
    """Free-for-all TrueSkill with the package's results and symmetric ties, fast enough for big stores."""

    def __init__(self, model: RatingModel = RatingModel()) -> None:
        self.model = model
        self._beta2 = model.beta**2
        self._tau2 = model.tau**2
        self._margin = model.draw_margin()

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
        if len(priors) != len(ranks) or len(priors) < 2:
            raise ValueError("need at least two players, each with a rank")
        order = sorted(range(len(ranks)), key=lambda i: ranks[i])
        groups = [list(g) for _, g in itertools.groupby(order, key=lambda i: ranks[i])]
        if all(len(g) == 1 for g in groups):
            return self.rate_ordered(priors, ranks)
        n = len(priors)
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
        draws = [ranks[j] == ranks[j + 1] for j in range(n - 1)]
        return chain(n)(priors, draws, self._beta2, self._tau2, self._margin)
