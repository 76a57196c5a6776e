"""The chi-square test's p-value, computed exactly with the regularized incomplete gamma
function (no scipy): the chance that fair dice stray as far from uniform as the faces
counted, or further."""

from __future__ import annotations

import math


def _lower_series(a: float, x: float) -> float:
    """P(a, x), the regularized lower incomplete gamma function, by its series (x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x), the regularized upper incomplete gamma function, by its continued fraction
    (modified Lentz; x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def upper_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), for a > 0 and x >= 0."""
    if a <= 0:
        raise ValueError(f"a must be above 0, not {a}")
    if x < 0:
        raise ValueError(f"x must be 0 or more, not {x}")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def chi_square_p(statistic: float, df: int) -> float:
    """The chi-square survival function: P(X >= statistic) for X with `df` degrees of freedom."""
    return upper_gamma_q(df / 2.0, statistic / 2.0)
