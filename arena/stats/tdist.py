"""Student's t distribution, from the regularised incomplete beta function (no scipy for two numbers)."""

from __future__ import annotations

import math
from statistics import NormalDist


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lnfront = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lnfront) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lnfront) * _betacf(b, a, 1 - x) / b


def two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def log_two_sided_p(t: float, df: int) -> float:
    """log P(|T| >= |t|), accurate far below the smallest double (a blatant effect has p = 1e-400)."""
    if math.isinf(t):
        return -math.inf
    a, b = df / 2.0, 0.5
    x = df / (df + t * t)
    if x >= (a + 1) / (a + b + 2):
        return math.log(max(betainc(a, b, x), 1e-320))
    log_x = math.log(df) - 2 * math.log(abs(t)) - math.log1p(df / (t * t))  # x itself may underflow
    lnfront = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * log_x + b * math.log1p(-x)
    return lnfront + math.log(_betacf(a, b, x)) - math.log(a)


def normal_score(log_p: float) -> float:
    """The z >= 0 whose two-sided normal tail is exp(log_p): P(|Z| >= z) = exp(log_p), for any log_p <= 0
    (no rounding of 1 - p/2 to 1.0: small tails go through their logarithm)."""
    if log_p >= 0:
        return 0.0
    if math.isinf(log_p):
        return math.inf
    if log_p > -700:
        return -NormalDist().inv_cdf(math.exp(log_p) / 2)
    # Mills' ratio: log P(Z >= z) = -z^2/2 - log z - log(2 pi)/2 + log(1 - 1/z^2 + 3/z^4), z > 37
    z = math.sqrt(-2 * log_p)
    for _ in range(50):
        tail = -math.log(z) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / z**2 + 3 / z**4)
        z = math.sqrt(2 * (math.log(2) + tail - log_p))
    return z


def log_normal_two_sided(z: float) -> float:
    """log P(|Z| >= |z|) for a standard normal Z, without underflow."""
    z = abs(z)
    if math.isinf(z):
        return -math.inf
    if z < 30:
        return math.log(math.erfc(z / math.sqrt(2)))
    return math.log(2) - z * z / 2 - math.log(z) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / z**2 + 3 / z**4)


def quantile(q: float, df: int) -> float:
    """The t with P(T <= t) = q, for 0.5 < q < 1 (bisection: 60 halvings reach double precision)."""
    lo, hi = 0.0, 1.0
    while 1 - two_sided_p(hi, df) / 2 < q:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if 1 - two_sided_p(mid, df) / 2 < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
