"""The sequential probability ratio test of `arena match`, as fastchess computes it. Pure: no I/O.

Source: Disservin/fastchess, app/src/matchmaking/sprt/sprt.cpp (`SPRT::getLLR`, `getLLR_normalized`,
`getLLR_logistic`, `itp`) and app/src/matchmaking/elo/elo_pentanomial.cpp (`EloPentanomial`), ported
line by line; the papers they follow are Michel Van den Bergh's "Comparing the approximations for the
generalized log likelihood ratio of a multinomial distribution" and "Comments on normalized Elo"
(https://www.cantate.be/Fishtest/). The formulas:

- Wald's bounds: lower = ln(beta / (1 - alpha)), upper = ln((1 - beta) / alpha). Stop with H1 (NEW is
  better) once LLR >= upper, with H0 (NEW is not better by the effect size) once LLR <= lower.
- The data are a multinomial over outcomes with scores a_i in [0, 1] and empirical frequencies
  phat_i (a count of 0 counts as 1e-3, fastchess's `regularize`). LLR = N * sum_i phat_i ln(p1_i / p0_i)
  where p0, p1 are the maximum likelihood distributions under H0 and H1 (the generalized SPRT):
  * logistic model (expectation s): p_i = phat_i / (1 + theta (a_i - s)), theta solving
    sum_i phat_i (a_i - s) / (1 + theta (a_i - s)) = 0 (Proposition 1.1, equations 1.2-1.3);
  * normalized model (t = (mu - 1/2) / sigma): iterate from the uniform distribution:
    phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu) / sigma)^2) / 2 with mu, sigma of the current p, then
    theta solving sum_i phat_i phi_i / (1 + theta phi_i) = 0, p_i = phat_i / (1 + theta phi_i)
    (section 4.1, equation 4.9), at most 10 times or until p moves by less than 1e-4.
- Pentanomial (2 players, a pair of games on one deal with seats swapped): the pair's score for NEW is
  0 (LL), 1/4 (LD), 1/2 (WL or DD), 3/4 (WD) or 1 (WW). Logistic Elo e maps to the expected score
  1 / (1 + 10^(-e/400)); normalized Elo to t = sqrt(2) e / (800 / ln 10) per pair.
- Elo from the pentanomial: score S = sum_i phat_i a_i, variance V = sum_i phat_i (a_i - S)^2 per pair,
  interval S +- 1.959963984540054 sqrt(V / pairs); Elo = -400 log10(1/S - 1), its error half the
  width of the interval mapped to Elo; nElo = (S - 1/2) / sqrt(2 V) * 800 / ln 10 (same mapping for
  its error); LOS = (1 - erf(-(S - 1/2) / sqrt(2 V / pairs))) / 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

Z95 = 1.959963984540054  # fastchess CI95ZSCORE
NELO_SCALE = 800.0 / math.log(10)
PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def regularize(count: float) -> float:
    """fastchess `regularize`: an empty outcome counts 1e-3, so every logarithm is finite."""
    return 1e-3 if count == 0 else float(count)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_to_score(elo: float) -> float:
    """fastchess `leloToScore`: the expected score of a player `elo` logistic Elo stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """fastchess `scoreToEloDiff`; +-inf at a score of 1 or 0."""
    if score >= 1:
        return math.inf
    if score <= 0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _itp(f: Callable[[float], float], a: float, b: float, f_a: float, f_b: float, k_1: float, k_2: float,
         n_0: float, epsilon: float) -> float:
    """fastchess `itp` (Oliveira and Takahashi's ITP root finder), operation by operation, inf and nan included."""
    if f_a > 0:
        a, b, f_a, f_b = b, a, f_b, f_a
    n_half = math.ceil(math.log2(abs(b - a) / (2.0 * epsilon)))
    n_max = n_half + n_0
    i = 0
    while abs(b - a) > 2.0 * epsilon:
        x_half = (a + b) / 2.0
        r = epsilon * 2.0 ** (n_max - i) - (b - a) / 2.0
        delta = k_1 * abs(b - a) ** k_2
        denom = f_b - f_a
        x_f = (f_b * a - f_a * b) / denom if math.isfinite(denom) and denom != 0 else math.nan
        gap = x_half - x_f
        sigma = gap / abs(gap) if gap == gap and gap != 0 else math.nan
        x_t = x_f + sigma * delta if delta <= abs(gap) else x_half
        x_itp = x_t if abs(x_t - x_half) <= r else x_half - sigma * r
        f_itp = f(x_itp)
        if f_itp == 0:
            a = b = x_itp
        elif math.copysign(1.0, f_itp) < 0:
            a, f_a = x_itp, f_itp
        else:
            b, f_b = x_itp, f_itp
        i += 1
    return (a + b) / 2.0


def _mean(x: Sequence[float], p: Sequence[float]) -> float:
    return sum(xi * pi for xi, pi in zip(x, p))


def _mle_expectation(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The closest distribution to `probs` with expectation s (fastchess getLLR_logistic's `mle`)."""
    def f(x: float) -> float:
        return sum(p * (a - s) / (1.0 + x * (a - s)) for a, p in zip(scores, probs))

    theta = _itp(f, -1.0 / (scores[-1] - s), -1.0 / (scores[0] - s), math.inf, -math.inf, 0.1, 2.0, 0.99, 1e-3)
    return [p / (1 + theta * (a - s)) for a, p in zip(scores, probs)]


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], mu_ref: float, t_star: float) -> list[float]:
    """The closest distribution to `probs` with (mu - mu_ref) / sigma = t_star (getLLR_normalized's `mle`)."""
    n = len(scores)
    p = [1.0 / n] * n
    for _ in range(10):
        mu = _mean(scores, p)
        sigma = math.sqrt(sum(pi * (a - mu) ** 2 for a, pi in zip(scores, p)))
        phi = [a - mu_ref - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]

        def f(x: float) -> float:
            return sum(ph * fi / (1.0 + x * fi) for ph, fi in zip(probs, phi))

        theta = _itp(f, -1.0 / max(phi), -1.0 / min(phi), math.inf, -math.inf, 0.1, 2.0, 0.99, 1e-7)
        new = [ph / (1.0 + theta * fi) for ph, fi in zip(probs, phi)]
        moved = max(abs(a - b) for a, b in zip(new, p))
        p = new
        if moved < 1e-4:
            break
    return p


def llr_expectation(scores: Sequence[float], counts: Sequence[float], s0: float, s1: float) -> float:
    """GSPRT LLR of "expected score s1" against "s0" (fastchess getLLR_logistic), counts regularised."""
    reg = [regularize(c) for c in counts]
    total = sum(reg)
    probs = [c / total for c in reg]
    p0 = _mle_expectation(scores, probs, s0)
    p1 = _mle_expectation(scores, probs, s1)
    return total * _mean([math.log(b) - math.log(a) for a, b in zip(p0, p1)], probs)


def llr_normal(scores: Sequence[float], counts: Sequence[float], s0: float, s1: float, prior: float = 2.0) -> float:
    """The normal approximation of the same GSPRT LLR, from the same paper (Van den Bergh, "Comparing the
    approximations ...", the quadratic one): LLR ~ N (s1 - s0) (2 shat - s0 - s1) / (2 V), shat and V the
    mean and variance of the empirical distribution with `prior` pseudo-counts spread evenly over the
    outcomes (arena's choice, in place of fastchess's 1e-3: a variance from a handful of deals would
    otherwise be near 0 and the LLR huge; the prior pulls the mean to 1/2 and keeps V honest early on).
    Unlike the exact multinomial LLR it does not level off when the data lie far beyond both
    hypotheses, so a big effect stops the test soon."""
    reg = [c + prior / len(counts) for c in counts]
    total = sum(reg)
    probs = [c / total for c in reg]
    mean = _mean(scores, probs)
    var = sum(p * (a - mean) ** 2 for a, p in zip(scores, probs))
    return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def llr_normalized(scores: Sequence[float], counts: Sequence[float], t0: float, t1: float) -> float:
    """GSPRT LLR of "normalized effect t1" against "t0" (fastchess getLLR_normalized), counts regularised."""
    reg = [regularize(c) for c in counts]
    total = sum(reg)
    probs = [c / total for c in reg]
    p0 = _mle_normalized(scores, probs, 0.5, t0)
    p1 = _mle_normalized(scores, probs, 0.5, t1)
    return total * _mean([math.log(b) - math.log(a) for a, b in zip(p0, p1)], probs)


@dataclass(frozen=True)
class Penta:
    """Pair outcomes for NEW, fastchess's order: Stats(ll, ld, wl, dd, wd, ww)."""

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def counts(self) -> tuple[int, int, int, int, int]:
        """By pair score 0, 1/4, 1/2, 3/4, 1 (WL and DD both score 1/2)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def add(self, first: float, second: float) -> "Penta":
        """One more pair: NEW's score (1 win, 0.5 draw, 0 loss) in each of its two games."""
        total = first + second
        field = {0.0: "ll", 0.5: "ld", 1.5: "wd", 2.0: "ww"}.get(total)
        if field is None:
            field = "dd" if first == 0.5 else "wl"
        return Penta(**{**self.__dict__, field: getattr(self, field) + 1})

    def to_json(self) -> dict[str, int]:
        return {"LL": self.ll, "LD": self.ld, "WL": self.wl, "DD": self.dd, "WD": self.wd, "WW": self.ww}


def penta_llr(penta: Penta, elo0: float, elo1: float, model: str = "normalized") -> float:
    """fastchess SPRT::getLLR(penta_WW, ..., penta_LL) for the given model."""
    if model == "normalized":
        return llr_normalized(PENTA_SCORES, penta.counts(), math.sqrt(2.0) * elo0 / NELO_SCALE, math.sqrt(2.0) * elo1 / NELO_SCALE)
    return llr_expectation(PENTA_SCORES, penta.counts(), elo_to_score(elo0), elo_to_score(elo1))


@dataclass(frozen=True)
class EloEstimate:
    """fastchess EloPentanomial: score, Elo and nElo with their 95% error, LOS, draw ratio of games."""

    score: float
    variance: float  # per pair
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float
    draw_ratio: float  # drawn games / games

    def to_json(self) -> dict[str, float | None]:
        def num(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {k: num(v) for k, v in self.__dict__.items()}


def _nelo(score: float, variance: float) -> float:
    if variance <= 0:
        return 0.0 if score == 0.5 else math.copysign(math.inf, score - 0.5)
    return (score - 0.5) / math.sqrt(2 * variance) * NELO_SCALE


def penta_elo(penta: Penta, draws: int, games: int) -> EloEstimate:
    """fastchess EloPentanomial's figures for the pairs in `penta` (a pair counts WL and DD at 1/2)."""
    n = penta.pairs
    if n == 0:
        return EloEstimate(0.5, 0.0, 0.0, math.inf, 0.0, math.inf, 0.5, 0.0)
    probs = [c / n for c in penta.counts()]
    score = _mean(PENTA_SCORES, probs)
    variance = sum(p * (a - score) ** 2 for a, p in zip(PENTA_SCORES, probs))
    half = Z95 * math.sqrt(variance / n)
    up, low = score + half, score - half
    error = (score_to_elo(up) - score_to_elo(low)) / 2.0 if 0 < low and up < 1 else math.inf
    nelo_error = (_nelo(up, variance) - _nelo(low, variance)) / 2.0 if variance > 0 else math.inf
    per_pair = variance / n
    if per_pair > 0:
        los = (1 - math.erf(-(score - 0.5) / math.sqrt(2.0 * per_pair))) / 2.0
    else:
        los = 0.5 if score == 0.5 else float(score > 0.5)
    return EloEstimate(score, variance, score_to_elo(score), error, _nelo(score, variance), nelo_error, los,
                       draws / games if games else 0.0)
