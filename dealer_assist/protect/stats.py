"""The statistics of a bet spread, in pure Python (no SciPy): Pearson's correlation, the
least-squares slope of wager on true count with its 95 % interval, and the p-value of the
slope's t statistic (Student's t through the regularised incomplete beta function), the
p-value with the slope's standard error robust to autocorrelation (Newey–West) beside it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0.5 < p < 1) of Student's t, by bisection on the two-sided p."""
    target = 2.0 * (1.0 - p)
    low, high = 0.0, 1e3
    for _ in range(200):
        mid = (low + high) / 2
        if t_two_sided_p(mid, df) > target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


@dataclass(frozen=True)
class Fit:
    """Wager on count: ``n`` points, Pearson's ``r`` (None when either varies not at all), the
    least-squares ``slope`` (wager per unit of count) with its 95 % interval, and the two-sided
    p-value of slope = 0 (1.0 when the wager never varies)."""

    n: int
    r: float | None
    slope: float
    low: float
    high: float
    p_value: float
    p_robust: float = 1.0  # the same with the Newey-West standard error (not used to flag)

    def slope_text(self) -> str:
        return f"{self.low:.2f} to {self.high:.2f}"


def newey_west_se(xs: Sequence[float], ys: Sequence[float], mx: float, my: float, slope: float,
                  sxx: float) -> float:
    """The slope's standard error robust to autocorrelation (Newey–West, Bartlett weights,
    lag floor(4 (n/100)^(2/9))): the points are rounds in time order, and both a true count
    and a progression's wager carry over from one round to the next."""
    n = len(xs)
    lags = int(4 * (n / 100) ** (2 / 9))
    u = [(x - mx) * ((y - my) - slope * (x - mx)) for x, y in zip(xs, ys, strict=True)]
    total = sum(v * v for v in u)
    for lag in range(1, min(lags, n - 1) + 1):
        weight = 1 - lag / (lags + 1)
        total += 2 * weight * sum(u[t] * u[t - lag] for t in range(lag, n))
    return math.sqrt(max(total, 0.0)) / sxx


def fit(xs: Sequence[float], ys: Sequence[float]) -> Fit:
    n = len(xs)
    if n < 3:
        return Fit(n, None, 0.0, -math.inf, math.inf, 1.0)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    if sxx <= 0.0:
        return Fit(n, None, 0.0, -math.inf, math.inf, 1.0)
    slope = sxy / sxx
    if syy <= 0.0:  # a flat bettor: nothing to explain
        return Fit(n, None, 0.0, 0.0, 0.0, 1.0)
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    df = n - 2
    sse = max(0.0, syy - slope * sxy)
    if sse <= 1e-12 * syy:  # every point on the line
        return Fit(n, r, slope, slope, slope, 0.0 if slope else 1.0, 0.0 if slope else 1.0)
    se = math.sqrt(sse / df / sxx)
    half = t_quantile(0.975, df) * se
    robust = newey_west_se(xs, ys, mx, my, slope, sxx)
    return Fit(n, r, slope, slope - half, slope + half, t_two_sided_p(slope / se, df),
               t_two_sided_p(slope / robust, df) if robust > 0 else 1.0)
