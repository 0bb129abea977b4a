"""Scalar helpers for the special functions (lgamma's family, erfinv), inlined into generated
pointwise kernels next to ``scalar.py``'s (numtorch/ops/pointwise/special.py declares the ops).

Each follows ATen's ``Math.h`` algorithm so special values match PyTorch: poles give inf or
NaN as there, and float32 inputs are computed in float64 (the constants are float64) and
rounded once on store.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline

_PSI_10 = 2.25175258906672110764  # digamma(10)
_MACHEP = 1.11022302462515654042e-16
# Cephes zeta: the Euler-Maclaurin coefficients (2k)! / B_2k
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)  # fmt: skip


@inline
def lgamma(x):
    return math.lgamma(x)


@inline
def _digamma_pos(x):
    # x > 0: recurrence up to 10, then the asymptotic series (ATen's calc_digamma)
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + _PSI_10
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        p = 8.33333333333333333333e-2
        for c in (-2.10927960927960927961e-2, 7.57575757575757575758e-3, -4.16666666666666666667e-3,
                  3.96825396825396825397e-3, -8.33333333333333333333e-3, 8.33333333333333333333e-2):  # fmt: skip
            p = p * z + c
        y = z * p
    return result + math.log(x) - 0.5 / x - y


@inline
def digamma(x):
    x = float(x)
    if x == 0:
        return math.copysign(math.inf, -x)  # digamma(+-0) = -+inf, as ATen
    if x < 0:
        if x == np.floor(x):
            return math.nan  # poles at the negative integers (and -inf)
        r = x - np.trunc(x)  # reflection: digamma(1 - x) - pi / tan(pi * x)
        return _digamma_pos(1 - x) - math.pi / math.tan(math.pi * r)
    return _digamma_pos(x)


@inline
def trigamma(x):
    x = float(x)
    sign = 1.0
    result = 0.0
    if x < 0.5:
        sign = -1.0
        s = math.sin(math.pi * x)
        result -= math.pi * math.pi / (s * s)
        x = 1 - x
    for _ in range(6):
        result += 1 / (x * x)
        x += 1
    ixx = 1 / (x * x)
    result += (1 + 1 / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
    return sign * result


@inline
def zeta(x, q):
    # Hurwitz zeta(x, q) = sum_k (k + q)^-x (Cephes zeta, as ATen's)
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == np.floor(q):
            return math.inf
        if x != np.floor(x):
            return math.nan
    s = q**-x
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a**-x
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for j in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[j]
        s = s + t
        if abs(t / s) < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


@inline
def polygamma(n, x):
    # n >= 0 (checked before the kernel): digamma, trigamma, else (-1)^(n+1) n! zeta(n + 1, x)
    n = int(n)
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    sgn = 1.0 if n % 2 else -1.0
    return sgn * math.exp(math.lgamma(n + 1.0)) * zeta(n + 1.0, float(x))


@inline
def erfinv(y):
    # ATen's calc_erfinv: a rational first guess (central range / tail), then two Newton steps
    y = float(y)
    ya = abs(y)
    if ya > 1:
        return math.nan
    if ya == 1:
        return math.copysign(math.inf, y)
    if ya <= 0.7:
        z = y * y
        num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899
        dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0
        x = y * num / dem
    else:
        z = math.sqrt(-math.log((1.0 - ya) / 2.0))
        num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454
        dem = (1.637067800 * z + 3.543889200) * z + 1.0
        x = math.copysign(num / dem, y)
    c = 2.0 / math.sqrt(math.pi)
    x = x - (math.erf(x) - y) / (c * math.exp(-x * x))
    x = x - (math.erf(x) - y) / (c * math.exp(-x * x))
    return x
