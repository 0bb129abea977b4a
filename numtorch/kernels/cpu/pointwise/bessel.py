"""Modified Bessel functions I0, I1, K0, K1 (plain and exponentially scaled) and the spherical
Bessel function j0, inlined into generated pointwise kernels (numtorch/ops/pointwise/bessel.py
declares the ops).

No coefficient tables: the power series converge with positive terms (no cancellation) up to
|x| = 30, Hankel's asymptotic series is at full precision beyond; K0 and K1 for x > 2 are
``int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt`` by the trapezoidal rule, which converges
geometrically for this even, entire integrand (the error falls as exp(-pi^2 / h)).
Every function computes in float64; float32 inputs are rounded once on store.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_k0", "bessel_k0e", "bessel_k1",
           "bessel_k1e", "spherical_j0"]  # fmt: skip

_EULER = 0.57721566490153286061
_SERIES_MAX = 30.0


@inline
def _i_series(x, nu):
    # I_nu(x) for nu in (0, 1), x >= 0: (x/2)^nu sum_k (x^2/4)^k / (k! (k + nu)!)
    q = 0.25 * x * x
    t = 1.0 if nu == 0 else 0.5 * x
    s = t
    k = 1.0
    while t > 1e-17 * s:
        t *= q / (k * (k + nu))
        s += t
        k += 1.0
    return s


@inline
def _hankel(x, nu, sign):
    # sum_k sign^k a_k(nu) / x^k, a_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (8 j): I (sign -1) and K
    mu = 4.0 * nu * nu
    t = 1.0
    s = 1.0
    for j in range(1, 40):
        t *= sign * (mu - (2.0 * j - 1.0) ** 2) / (8.0 * j * x)
        s += t
        if abs(t) < 1e-17 * abs(s):
            break
    return s


@inline
def _i_scaled(x, nu):
    # exp(-x) I_nu(x) for x >= 0
    if x <= _SERIES_MAX:
        return _i_series(x, nu) * math.exp(-x)
    if x == math.inf:
        return 0.0
    return _hankel(x, nu, -1.0) / math.sqrt(2.0 * math.pi * x)


@inline
def bessel_i0(x):
    x = abs(np.float64(x))
    if x <= _SERIES_MAX:
        return _i_series(x, 0)
    if x == math.inf:
        return math.nan  # exp(x) * series / sqrt(x) in ATen: inf / inf
    if x > 713.0:
        return math.inf
    return _hankel(x, 0, -1.0) * math.exp(x) / math.sqrt(2.0 * math.pi * x)


@inline
def bessel_i0e(x):
    x = np.float64(x)
    return x if x != x else _i_scaled(abs(x), 0)


@inline
def bessel_i1(x):
    x = np.float64(x)
    a = abs(x)
    if a <= _SERIES_MAX:
        r = _i_series(a, 1)
    elif a == math.inf:
        r = math.nan  # as ATen's i0
    elif a > 713.0:
        r = math.inf
    else:
        r = _hankel(a, 1, -1.0) * math.exp(a) / math.sqrt(2.0 * math.pi * a)
    return -r if x < 0 else r


@inline
def bessel_i1e(x):
    x = np.float64(x)
    if x != x:
        return x
    r = _i_scaled(abs(x), 1)
    return -r if x < 0 else r


@inline
def _k_small(x, nu):
    # x in (0, 2]: A&S 9.6.13 (nu = 0) and 9.6.11 (nu = 1)
    q = 0.25 * x * x
    lg = math.log(0.5 * x)
    if nu == 0:
        t = 1.0
        h = 0.0
        s = 0.0
        k = 1.0
        while True:
            t *= q / (k * k)
            h += 1.0 / k
            s += t * h
            if t * h <= 1e-17 * abs(s):
                break
            k += 1.0
        return s - (lg + _EULER) * _i_series(x, 0)
    t = 1.0
    psi = -2.0 * _EULER + 1.0  # psi(1) + psi(2)
    s = psi
    k = 1.0
    while True:
        t *= q / (k * (k + 1.0))
        psi += 1.0 / k + 1.0 / (k + 1.0)
        s += t * psi
        if t * psi <= 1e-17 * abs(s):
            break
        k += 1.0
    return 1.0 / x + lg * _i_series(x, 1) - 0.25 * x * s


@inline
def _k_scaled_large(x, nu):
    # exp(x) K_nu(x) for x > 2
    if x > _SERIES_MAX:
        return _hankel(x, nu, 1.0) * math.sqrt(math.pi / (2.0 * x))
    h = min(0.2, 0.8 / math.sqrt(x))
    s = 0.5
    t = h
    while True:
        e = math.exp(-2.0 * x * math.sinh(0.5 * t) ** 2)
        f = e * math.cosh(nu * t)
        s += f
        if e < 1e-18:
            break
        t += h
    return s * h


@inline
def _k(x, nu, scaled):
    x = np.float64(x)
    if x != x or x < 0:
        return math.nan
    if x == 0:
        return math.inf
    if x == math.inf:
        return 0.0
    if x <= 2.0:
        r = _k_small(x, nu)
        return r * math.exp(x) if scaled else r
    r = _k_scaled_large(x, nu)
    return r if scaled else r * math.exp(-x)


@inline
def bessel_k0(x):
    return _k(x, 0, False)


@inline
def bessel_k0e(x):
    return _k(x, 0, True)


@inline
def bessel_k1(x):
    return _k(x, 1, False)


@inline
def bessel_k1e(x):
    return _k(x, 1, True)


@inline
def spherical_j0(x):
    x = np.float64(x)
    if abs(x) == math.inf:
        return 0.0
    if abs(x) < 0.5:
        z = x * x
        return 1.0 - z / 6.0 * (1.0 - z / 20.0 * (1.0 - z / 42.0 * (1.0 - z / 72.0 * (1.0 - z / 110.0 * (1.0 - z / 156.0)))))
    return math.sin(x) / x
