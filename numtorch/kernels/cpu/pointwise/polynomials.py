"""Orthogonal polynomials of degree n (Chebyshev T/U/V/W and their shifted forms, Hermite H/He,
Laguerre L, Legendre P), inlined into generated pointwise kernels
(numtorch/ops/pointwise/polynomials.py declares the ops).

As ATen: the degree is truncated to an integer, a negative degree gives 0, +-1 are special
cased, and high degrees inside (-1, 1) use the trigonometric closed forms of the Chebyshev
polynomials instead of the three-term recurrence (whose rounding grows with n).
"""

import math

import numpy as np

from numtorch.kernels._jit import inline

__all__ = ["cheb_t", "cheb_u", "cheb_v", "cheb_w", "hermite_h", "hermite_he", "laguerre_l", "legendre_p",
           "shifted_cheb_t", "shifted_cheb_u", "shifted_cheb_v", "shifted_cheb_w"]  # fmt: skip


@inline
def _degree(n):
    # NaN degrees truncate to the int64 minimum in ATen's static_cast, i.e. negative
    n = np.float64(n)
    if n != n or n < -9.2e18:
        return -1
    if n > 9.2e18:
        return 9200000000000000000
    return int(n)


@inline
def _recur(x, n, p, q, a, b):
    # P_{k+1} = (a x) P_k - b P_{k-1}, a and b fixed: the Chebyshev family
    for _ in range(1, n):
        r = a * x * q - b * p
        p = q
        q = r
    return q


@inline
def cheb_t(x, n):
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 1.0:
        return 1.0 if x > 0 or n % 2 == 0 else -1.0
    if n > 6 and abs(x) < 1.0:
        return math.cos(n * math.acos(x))
    if n == 0:
        return 1.0
    return _recur(x, n, 1.0, x, 2.0, 1.0)


@inline
def cheb_u(x, n):
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 1.0:
        return n + 1.0 if x > 0 or n % 2 == 0 else -(n + 1.0)
    if n > 8 and abs(x) < 1.0:
        t = math.acos(x)
        if math.sin(t) != 0:
            return math.sin((n + 1) * t) / math.sin(t)
        return (n + 1) * math.cos((n + 1) * t) / x
    if n == 0:
        return 1.0
    return _recur(x, n, 1.0, x + x, 2.0, 1.0)


@inline
def cheb_v(x, n):
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 1.0:
        if x > 0:
            return 1.0
        return n + n + 1.0 if n % 2 == 0 else -(n + n + 1.0)
    if n > 8 and abs(x) < 1.0:
        t = math.acos(x)
        if math.sin(t / 2) != 1.0:
            return math.cos((n + 0.5) * t) / math.cos(t / 2)
        return n + n + 1.0 if n % 2 == 0 else -(n + n + 1.0)
    if n == 0:
        return 1.0
    return _recur(x, n, 1.0, x + x - 1.0, 2.0, 1.0)


@inline
def cheb_w(x, n):
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 1.0:
        if x > 0:
            return n + n + 1.0
        return 1.0 if n % 2 == 0 else -1.0
    if n > 8 and abs(x) < 1.0:
        t = math.acos(x)
        if math.cos(t / 2) != 1.0:
            return math.sin((n + 0.5) * t) / math.sin(t / 2)
        if x > 0:
            return n + n + 1.0
        return 1.0 if n % 2 == 0 else -1.0
    if n == 0:
        return 1.0
    return _recur(x, n, 1.0, x + x + 1.0, 2.0, 1.0)


@inline
def shifted_cheb_t(x, n):
    return cheb_t(np.float64(x) + np.float64(x) - 1.0, n)


@inline
def shifted_cheb_u(x, n):
    return cheb_u(np.float64(x) + np.float64(x) - 1.0, n)


@inline
def shifted_cheb_v(x, n):
    return cheb_v(np.float64(x) + np.float64(x) - 1.0, n)


@inline
def shifted_cheb_w(x, n):
    return cheb_w(np.float64(x) + np.float64(x) - 1.0, n)


@inline
def _hermite(x, n, s):
    # s = 2: physicists' H_{k+1} = 2x H_k - 2k H_{k-1}; s = 1: probabilists' He
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if n == 0:
        return 1.0
    p = 1.0
    q = s * x
    for k in range(1, n):
        r = s * x * q - s * k * p
        p = q
        q = r
    return q


@inline
def hermite_h(x, n):
    return _hermite(x, n, 2.0)


@inline
def hermite_he(x, n):
    return _hermite(x, n, 1.0)


@inline
def laguerre_l(x, n):
    # (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 0.0 or n == 0:
        return 1.0
    p = 1.0
    q = 1.0 - x
    for k in range(1, n):
        r = ((k + k + 1.0 - x) * q - k * p) / (k + 1.0)
        p = q
        q = r
    return q


@inline
def legendre_p(x, n):
    # (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}
    x = np.float64(x)
    n = _degree(n)
    if n < 0:
        return 0.0
    if abs(x) == 1.0:
        return 1.0 if x > 0 or n % 2 == 0 else -1.0
    if n == 0:
        return 1.0
    p = 1.0
    q = x
    for k in range(1, n):
        r = ((k + k + 1.0) * x * q - k * p) / (k + 1.0)
        p = q
        q = r
    return q
