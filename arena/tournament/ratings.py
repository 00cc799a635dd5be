"""TrueSkill ratings of a tournament's games, rated one by one in schedule order.

Pure: no I/O. The store feeds games in schedule order, so a rating never depends on how many games ran at
once or on the order they finished in.

Why a hand-written update: `trueskill.TrueSkill.rate` builds a factor graph of Python objects for every
game and costs about 1 ms for a 4-player free-for-all, so 100,000 games would take minutes. For a
free-for-all (one player per team, weight 1) the graph collapses to a chain of Gaussians that
`_rate_chain` walks with plain floats, sending exactly the messages of the package's `run_schedule`
(same schedule, same stopping rule, same erfc approximation), so it agrees with the package up to
float rounding (below 1e-8). `tests/tournament/test_ratings.py` checks this on random games. For speed
the same chain is also generated as straight-line code per player count (see `_chain_source`).
Where the package would raise FloatingPointError (an upset too unlikely for double precision), the
game still counts in the totals but leaves the ratings as they were (`RatingBook.unrated`).

Why ties are averaged over orderings: the package places tied players next to each other in a chain,
so the player nearer the winners is treated differently from the one nearer the losers (trueskill
issue #13: 24.993 vs 25.007 for ranks [0, 1, 1, 2] with equal priors). We rate the game once for every
ordering of the players inside each tie group and give each player the mean of its posterior mu and
sigma over those orderings. The result is exactly invariant under exchanging tied players, and a
game without ties costs a single chain (a two-way tie costs 2, a five-way tie 120: rare in practice;
4% of the Kododo demo's games have any tie).

Why tau defaults to 0: bots do not learn during a tournament, so there is no skill drift to model, and
with tau = 0 a game can never make anyone's sigma grow.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import trueskill

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
        return trueskill.calc_draw_margin(self.draw_probability, 2, env)

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


def _rate_chain(
    priors: Sequence[tuple[float, float]], draws: Sequence[bool], beta2: float, tau2: float, margin: float
) -> list[tuple[float, float]]:
    """Posterior (mu, sigma) of players already sorted best first; `draws[j]` ties player j with j+1.

    The messages and their order are those of `trueskill.TrueSkill.run_schedule` for one player per team.
    Team variable i receives s (its performance, fixed), lt (from difference factor i-1) and rt (from
    difference factor i); difference variable j receives dd (from its sum factor) and tt (from its
    truncation factor). Written as one flat loop: this is the hot path of `arena standings`.
    """
    n = len(priors)
    sqrt = math.sqrt
    exp = math.exp
    inv_sqrt_2pi = _INV_SQRT_2PI
    inv_sqrt2 = 1.0 / _SQRT2
    prior_pi = [0.0] * n
    prior_tau = [0.0] * n
    s_pi = [0.0] * n
    s_tau = [0.0] * n
    for i, (mu, sigma) in enumerate(priors):
        p = sqrt(sigma * sigma + tau2) ** -2
        t = p * mu
        prior_pi[i] = p
        prior_tau[i] = t
        a = 1.0 / (1.0 + beta2 * p)
        perf_pi = a * p
        pi = 1.0 / (1.0 / perf_pi)
        s_pi[i] = pi
        s_tau[i] = pi * ((a * t) / perf_pi)
    m = n - 1
    lt_pi = [0.0] * n
    lt_tau = [0.0] * n
    rt_pi = [0.0] * n
    rt_tau = [0.0] * n
    dd_pi = [0.0] * m
    dd_tau = [0.0] * m
    tt_pi = [0.0] * m
    tt_tau = [0.0] * m
    if m == 1:
        passes: list[tuple[int, int]] = [(0, 0)]
    else:
        passes = [(j, 1) for j in range(m - 1)] + [(j, -1) for j in range(m - 1, 0, -1)]

    for _ in range(MAX_ITERATIONS):
        delta = 0.0
        for j, direction in passes:
            # Difference factor j sends down: mu_a - mu_b, var_a + var_b.
            ap = s_pi[j] + lt_pi[j]
            at = s_tau[j] + lt_tau[j]
            bp = s_pi[j + 1] + rt_pi[j + 1]
            bt = s_tau[j + 1] + rt_tau[j + 1]
            d_pi = 1.0 / (1.0 / ap + 1.0 / bp)
            d_tau = d_pi * (at / ap - bt / bp)
            old_pi = d_pi + tt_pi[j]
            old_tau = d_tau + tt_tau[j]
            dd_pi[j] = d_pi
            dd_tau[j] = d_tau
            # Truncation factor j: moment-match the truncated Gaussian.
            sqrt_pi = sqrt(d_pi)
            diff = d_tau / sqrt_pi
            dm = margin * sqrt_pi
            if draws[j]:
                abs_diff = abs(diff)
                xa = dm - abs_diff
                xb = -dm - abs_diff
                denom = _cdf(xa) - _cdf(xb)
                if not denom:
                    raise RatingOverflow("draw too unlikely to rate in double precision")
                pdf_a = inv_sqrt_2pi * exp(-(xa * xa) / 2)
                pdf_b = inv_sqrt_2pi * exp(-(xb * xb) / 2)
                v_abs = (pdf_b - pdf_a) / denom
                v = -v_abs if diff < 0 else v_abs
                w = v_abs * v_abs + (xa * pdf_a - xb * pdf_b) / denom
            else:
                x = diff - dm
                # cdf(x) = erfc(-x / sqrt 2) / 2 with the package's erfc, inlined.
                z = x * inv_sqrt2  # erfc's argument is -z
                if z < 0:
                    z = -z
                t = 1.0 / (1.0 + z * 0.5)
                r = t * exp(
                    -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
                    + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
                )
                cdf = 0.5 * (2.0 - r if x > 0 else r)
                v = (inv_sqrt_2pi * exp(-(x * x) / 2) / cdf) if cdf else -x
                w = v * (v + x)
                if not 0 < w < 1:
                    raise RatingOverflow("win too unlikely to rate in double precision")
            one_minus_w = 1.0 - w
            new_pi = d_pi / one_minus_w
            new_tau = (d_tau + sqrt_pi * v) / one_minus_w
            t_pi = tt_pi[j] = new_pi - d_pi
            t_tau = tt_tau[j] = new_tau - d_tau
            change = old_tau - new_tau
            if change < 0:
                change = -change
            if change > delta:
                delta = change
            change = old_pi - new_pi
            if change < 0:
                change = -change
            if change > delta * delta:  # compare pi changes by their square root, as the package does
                delta = sqrt(change)
            # Difference factor j sends up to the right (j + 1) or the left (j) team variable.
            if direction == 1:
                if ap == 0 or t_pi == 0:
                    lt_pi[j + 1] = lt_tau[j + 1] = 0.0
                else:
                    pi = 1.0 / (1.0 / ap + 1.0 / t_pi)
                    lt_pi[j + 1] = pi
                    lt_tau[j + 1] = pi * (at / ap - t_tau / t_pi)
            elif direction == -1:
                if t_pi == 0 or bp == 0:
                    rt_pi[j] = rt_tau[j] = 0.0
                else:
                    pi = 1.0 / (1.0 / t_pi + 1.0 / bp)
                    rt_pi[j] = pi
                    rt_tau[j] = pi * (t_tau / t_pi + bt / bp)
        if delta <= DELTA:
            break
    # Finally the two ends: factor 0 to the left, factor m-1 to the right.
    t_pi, t_tau = tt_pi[0], tt_tau[0]
    bp, bt = s_pi[1] + rt_pi[1], s_tau[1] + rt_tau[1]
    if t_pi == 0 or bp == 0:
        rt_pi[0] = rt_tau[0] = 0.0
    else:
        pi = 1.0 / (1.0 / t_pi + 1.0 / bp)
        rt_pi[0] = pi
        rt_tau[0] = pi * (t_tau / t_pi + bt / bp)
    j = m - 1
    t_pi, t_tau = tt_pi[j], tt_tau[j]
    ap, at = s_pi[j] + lt_pi[j], s_tau[j] + lt_tau[j]
    if ap == 0 or t_pi == 0:
        lt_pi[j + 1] = lt_tau[j + 1] = 0.0
    else:
        pi = 1.0 / (1.0 / ap + 1.0 / t_pi)
        lt_pi[j + 1] = pi
        lt_tau[j + 1] = pi * (at / ap - t_tau / t_pi)

    out = []
    for i in range(n):
        u_pi = lt_pi[i] + rt_pi[i]
        u_tau = lt_tau[i] + rt_tau[i]
        if u_pi:
            u_mu = u_tau / u_pi
            u_pi = 1.0 / (1.0 / u_pi)
            u_tau = u_pi * u_mu
        a = 1.0 / (1.0 + beta2 * u_pi)
        pi = prior_pi[i] + a * u_pi
        tau = prior_tau[i] + a * u_tau
        out.append((tau / pi, sqrt(1 / pi)))
    return out


# --- the same chain, unrolled -------------------------------------------------------------------------
#
# Why generated code: `standings` for 100,000 games must take under 5 s, i.e. ~40 us per game, and the
# loop above spends most of its time indexing lists. For a fixed number of players the chain's
# messages can live in local variables; we generate that straight-line code once per player count
# (as `dataclasses` and `namedtuple` generate theirs). `test_ratings.py` checks it gives exactly the
# floats `_rate_chain` gives, which in turn equals the package.

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


UNROLLED_UP_TO = 8  # more players than this use the generic loop


def _unrolled_chain(n: int) -> Callable[..., list[tuple[float, float]]]:
    chain = _UNROLLED.get(n)
    if chain is None:
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
        exec(compile(_chain_source(n), f"<arena.tournament.ratings chain_{n}>", "exec"), namespace)  # noqa: S102
        chain = _UNROLLED[n] = namespace[f"chain_{n}"]
    return chain


_UNROLLED: dict[int, Callable[..., list[tuple[float, float]]]] = {}


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
        chain = _unrolled_chain(n) if n <= UNROLLED_UP_TO else _rate_chain
        return chain(priors, draws, self._beta2, self._tau2, self._margin)


# --- the standings ------------------------------------------------------------------------------------


@dataclass
class EntrantStats:
    """One entrant's rating and running totals; `wins` counts a win shared by m seats as 1/m."""

    mu: float
    sigma: float
    games: int = 0
    seats: int = 0
    wins: float = 0.0
    points: float = 0.0
    rank_sum: float = 0.0
    faults: int = 0

    def to_json(self) -> list[JSON]:
        return [self.mu, self.sigma, self.games, self.seats, self.wins, self.points, self.rank_sum, self.faults]

    @classmethod
    def from_json(cls, row: Sequence[JSON]) -> "EntrantStats":
        mu, sigma, games, seats, wins, points, rank_sum, faults = row
        return cls(float(mu), float(sigma), int(games), int(seats), float(wins), float(points), float(rank_sum), int(faults))


@dataclass(frozen=True)
class RatedGame:
    """What the ratings need of one stored game. `seats[s]` is the entrant index playing seat s."""

    index: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]  # after the fault policy; 1 is best, ties share
    points: tuple[float, ...]
    faults: tuple[int, ...]  # faults charged to each seat


@dataclass
class RatingBook:
    """Ratings and totals after some games; `apply` must be called in schedule order."""

    model: RatingModel
    entrants: list[EntrantStats]
    rated: int = 0  # games applied
    unrated: int = 0  # games whose upset was beyond double precision: counted in totals, ratings kept
    last_index: int = -1
    _rater: FastRater | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, model: RatingModel, num_entrants: int) -> "RatingBook":
        return cls(model, [EntrantStats(model.mu, model.sigma) for _ in range(num_entrants)])

    def rater(self) -> FastRater:
        if self._rater is None:
            self._rater = FastRater(self.model)
        return self._rater

    def apply(self, game: RatedGame) -> None:
        if game.index <= self.last_index:
            raise ValueError(f"game {game.index} rated after game {self.last_index}: ratings must follow schedule order")
        self.last_index = game.index
        self.rated += 1
        entrants = self.entrants
        seats = game.seats
        ranks = game.ranks
        winners = sum(1 for r in ranks if r == 1)
        for s, e in enumerate(seats):
            st = entrants[e]
            st.seats += 1
            st.points += game.points[s]
            st.rank_sum += ranks[s]
            st.faults += game.faults[s]
            if ranks[s] == 1:
                st.wins += 1.0 / winners
        for e in set(seats):
            entrants[e].games += 1
        priors = [(entrants[e].mu, entrants[e].sigma) for e in seats]
        try:
            post = self.rater().rate(priors, ranks)
        except RatingOverflow:
            self.unrated += 1
            return
        if len(set(seats)) == len(seats):
            for s, e in enumerate(seats):
                entrants[e].mu, entrants[e].sigma = post[s]
            return
        # An entrant filling several seats (`fill: cycle`): each seat was rated as a copy of it with
        # the same prior; the entrant takes the mean of its copies' posteriors.
        for e in set(seats):
            mine = [post[s] for s, x in enumerate(seats) if x == e]
            entrants[e].mu = sum(p[0] for p in mine) / len(mine)
            entrants[e].sigma = sum(p[1] for p in mine) / len(mine)

    def apply_all(self, games: Iterable[RatedGame]) -> None:
        for g in games:
            self.apply(g)

    def copy(self) -> "RatingBook":
        return RatingBook(
            self.model,
            [EntrantStats(**vars(e)) for e in self.entrants],
            self.rated,
            self.unrated,
            self.last_index,
            self._rater,
        )

    def to_json(self) -> dict[str, JSON]:
        return {
            "model": self.model.to_json(),
            "entrants": [e.to_json() for e in self.entrants],
            "rated": self.rated,
            "unrated": self.unrated,
            "last_index": self.last_index,
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> "RatingBook":
        model = RatingModel(**data["model"])
        return cls(
            model,
            [EntrantStats.from_json(row) for row in data["entrants"]],
            int(data["rated"]),
            int(data["unrated"]),
            int(data["last_index"]),
        )


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard."""

    place: int
    name: str
    score: float  # mu - 3 sigma: the rating we are fairly sure the entrant has at least
    mu: float
    sigma: float
    games: int
    wins: float
    avg_points: float | None
    avg_rank: float | None
    faults: int

    def to_json(self) -> dict[str, JSON]:
        return {
            "place": self.place,
            "name": self.name,
            "score": self.score,
            "mu": self.mu,
            "sigma": self.sigma,
            "games": self.games,
            "wins": self.wins,
            "avg_points": self.avg_points,
            "avg_rank": self.avg_rank,
            "faults": self.faults,
        }


def leaderboard(book: RatingBook, names: Sequence[str]) -> list[Standing]:
    """Entrants by mu - 3 sigma, best first; equal scores share a place, listed by name."""
    rows = []
    for name, st in zip(names, book.entrants):
        rows.append(
            (
                st.mu - 3 * st.sigma,
                name,
                st,
            )
        )
    rows.sort(key=lambda r: (-round(r[0], 9), r[1]))
    out: list[Standing] = []
    for i, (score, name, st) in enumerate(rows):
        place = out[-1].place if out and round(out[-1].score, 9) == round(score, 9) else i + 1
        out.append(
            Standing(
                place=place,
                name=name,
                score=score,
                mu=st.mu,
                sigma=st.sigma,
                games=st.games,
                wins=st.wins,
                avg_points=st.points / st.seats if st.seats else None,
                avg_rank=st.rank_sum / st.seats if st.seats else None,
                faults=st.faults,
            )
        )
    return out


class OrderedRatings:
    """Rates games that arrive in any order as if they came in schedule order.

    `prefix` holds the ratings after every game 0..P-1 with no gap: final, since no game below P can
    still arrive. Games above a gap wait in `pending`; `current()` rates them on a copy, so a
    leaderboard shown mid-run is exactly what the store would give for the same games.
    """

    def __init__(self, prefix: RatingBook) -> None:
        self.prefix = prefix
        self.pending: dict[int, RatedGame] = {}

    def add(self, game: RatedGame) -> None:
        nxt = self.prefix.last_index + 1
        if game.index < nxt or game.index in self.pending:
            raise ValueError(f"game {game.index} was already rated")
        if game.index != nxt:
            self.pending[game.index] = game
            return
        self.prefix.apply(game)
        nxt += 1
        while nxt in self.pending:
            self.prefix.apply(self.pending.pop(nxt))
            nxt += 1

    def add_all(self, games: Iterable[RatedGame]) -> None:
        for g in games:
            self.add(g)

    def current(self) -> RatingBook:
        if not self.pending:
            return self.prefix
        book = self.prefix.copy()
        book.apply_all(self.pending[i] for i in sorted(self.pending))
        return book
