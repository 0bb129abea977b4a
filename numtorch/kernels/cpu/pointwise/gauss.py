"""The normal distribution's functions (ndtr, log_ndtr, ndtri), erfcx, entr, xlog1py and the
regularised incomplete gamma functions, inlined into generated pointwise kernels
(numtorch/ops/pointwise/special_fns.py declares the ops). Special values follow ATen's.
Every function computes in float64; float32 inputs are rounded once on store.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline
from numtorch.kernels.cpu.pointwise.special import erfinv

__all__ = ["entr", "erfcx", "gammainc", "gammaincc", "log_ndtr", "ndtr", "ndtri", "xlog1py"]

_SQRT1_2 = 0.70710678118654752440
_LOG_SQRT_2PI = 0.91893853320467274178


@inline
def ndtr(x):
    return 0.5 * math.erfc(-np.float64(x) * _SQRT1_2)


@inline
def _exp_square(x):
    # exp(x^2) with x^2 split exactly (hi has 26 bits): the rounding of x*x would otherwise be
    # multiplied by x^2 in the exponent's relative error
    hi = math.floor(x * 67108864.0) / 67108864.0
    lo = x - hi
    return math.exp(hi * hi) * math.exp(lo * (2.0 * hi + lo))


@inline
def _erfcx_pos(x):
    # x >= 0: the asymptotic series takes over where erfc underflows
    if x < 26.0:
        return _exp_square(x) * math.erfc(x)
    if x > 1e154:
        return 1.0 / (x * math.sqrt(math.pi))
    z = 1.0 / (2.0 * x * x)
    s = 1.0
    t = 1.0
    for k in range(1, 12):
        t *= -(2.0 * k - 1.0) * z
        s += t
    return s / (x * math.sqrt(math.pi))


@inline
def erfcx(x):
    # exp(x^2) erfc(x)
    x = np.float64(x)
    if x != x:
        return x
    if x < 0:
        if x < -26.7:
            return math.inf
        return 2.0 * _exp_square(x) - _erfcx_pos(-x)
    return _erfcx_pos(x)


@inline
def log_ndtr(x):
    x = np.float64(x)
    t = x * _SQRT1_2
    if x < -1.0:
        return math.log(erfcx(-t) / 2.0) - t * t
    return math.log1p(-math.erfc(t) / 2.0)


@inline
def ndtri(p):
    # the central half by erfinv (1 - 2p is exact there); the tails by Newton's method on
    # log_ndtr(x) = log(p) from A&S 26.2.23's first guess, well conditioned down to subnormal p
    p = np.float64(p)
    if p != p or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    q = 1.0 - p if p > 0.5 else p  # exact for p >= 0.5
    if q >= 0.25:
        x = -math.sqrt(2.0) * erfinv(1.0 - 2.0 * q)
    else:
        t = math.sqrt(-2.0 * math.log(q))
        x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
        lq = math.log(q)
        for _ in range(8):
            ln = log_ndtr(x)
            step = (ln - lq) / math.exp(-0.5 * x * x - _LOG_SQRT_2PI - ln)
            x -= step
            if abs(step) <= 1e-16 * abs(x):
                break
    return -x if p > 0.5 else x


@inline
def entr(x):
    x = np.float64(x)
    if x != x:
        return x
    if x > 0:
        return -x * math.log(x)
    if x == 0:
        return 0.0
    return -math.inf


@inline
def xlog1py(x, y):
    if y != y:
        return y
    if x == 0:
        return x * 0
    return x * math.log1p(y)


@inline
def _gamma_edge(a, x, lower):
    # ATen's calc_igamma / calc_igammac special cases; -1 when none applies
    if a != a or x != x or a < 0 or x < 0:
        return math.nan
    if a == 0:
        if x > 0:
            return 1.0 if lower else 0.0
        return math.nan
    if x == 0:
        return 0.0 if lower else 1.0
    if a == math.inf:
        if x == math.inf:
            return math.nan
        return 0.0 if lower else 1.0
    if x == math.inf:
        return 1.0 if lower else 0.0
    return -1.0


@inline
def _gamma_p_series(a, x):
    # P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))
    t = 1.0
    s = 1.0
    ap = a
    for _ in range(100000):
        ap += 1.0
        t *= x / ap
        s += t
        if t < 1e-17 * s:
            break
    return s * math.exp(a * math.log(x) - x - math.lgamma(a + 1.0))


@inline
def _gamma_q_cfrac(a, x):
    # Q(a, x) by Legendre's continued fraction, modified Lentz
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        e = d * c
        h *= e
        if abs(e - 1.0) < 1e-16:
            break
    return h * math.exp(a * math.log(x) - x - math.lgamma(a))


@inline
def _gamma_regularised(a, x, lower):
    a = np.float64(a)
    x = np.float64(x)
    r = _gamma_edge(a, x, lower)
    if r != -1.0:
        return r
    if x < a + 1.0:
        p = _gamma_p_series(a, x)
        return p if lower else 1.0 - p
    q = _gamma_q_cfrac(a, x)
    return 1.0 - q if lower else q


@inline
def gammainc(a, x):
    return _gamma_regularised(a, x, True)


@inline
def gammaincc(a, x):
    return _gamma_regularised(a, x, False)
