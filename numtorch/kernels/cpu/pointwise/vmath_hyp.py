"""Vectorizable inverse trig and hyperbolic functions for float32 kernels (Note [Vectorizable exp]).

# Note [Vectorizable inverse trig and hyperbolics]
# Each is evaluated in float64 (so one rounding at the end gives ~0.5 ulp in float32) from
# branch-free formulas on |x|, with the sign put back by copysign (so -0 stays -0):
# atan: Cephes' reduction (|x| > tan(3pi/8): -1/x + pi/2; > tan(pi/8): (x-1)/(x+1) + pi/4, one
# division for the three cases) and fdlibm's degree-22 odd polynomial; asin / acos: fdlibm's
# rational R on x*x below 1/2 and on (1 - |x|)/2 with a square root above (acos: pi/2 - asin,
# 2 asin(...), pi - 2 asin(...)); sinh: its odd Taylor polynomial below 1, (E - 1/E)/2 above,
# cosh = (E + 1/E)/2, with E = exp(|x|) (|x| clamped to 100: past float32's range; expm1 would
# be one more exp body in the loop, which LLVM then leaves scalar);
# asinh = log1p(a + a*a/(1 + sqrt(1 + a*a))), acosh = log1p(x - 1 + sqrt((x - 1)(x + 1))),
# atanh = log1p(2a / (1 - a)) / 2, all cancellation-free.
# exp / log1p are vmath's float64 versions. float64 inputs keep libm's.
# Measured against mpmath: tests/kernels/cpu/test_vmath_hyp.py.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline
from numtorch.kernels.cpu.pointwise.vmath import _generic, _generic2, exp64
from numtorch.kernels.cpu.pointwise.vmath_log import log1p64

_PIO2 = 1.5707963267948966


@inline
def _atan_poly(t):
    # atan(t) for |t| <= 0.4375 (fdlibm s_atan.c's aT)
    z = t * t
    w = z * z
    s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01 + w * (
        9.09088713343650656196e-02 + w * (6.66107313738753120669e-02 + w * (
            4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))))  # fmt: skip
    s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01 + w * (
        -7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02 + w * (
            -3.65315727442169155270e-02)))))  # fmt: skip
    return t - t * (s1 + s2)


@inline
def atan32(x):
    d = np.float64(x)
    a = abs(d)
    far = a > 2.414213562373095
    mid = a > 0.4142135623730950
    num = -1.0 if far else (a - 1.0 if mid else a)
    den = a if far else (a + 1.0 if mid else 1.0)
    base = _PIO2 if far else (0.7853981633974483 if mid else 0.0)
    y = base + _atan_poly(num / den)
    return np.float32(math.copysign(y, d)) if x == x else x


@inline
def atan2_32(y, x):
    # atan of min/max in [0, 1] (one division, both zero or both inf set to 0 and 1), moved to
    # its octant: pi/2 - a when |y| > |x|, pi - a when x is negative or -0 (C99's atan2(+-0, -0)
    # is +-pi), y's sign last, so every signed zero and infinity pair lands where libm's does
    dy = np.float64(y)
    dx = np.float64(x)
    ay = abs(dy)
    ax = abs(dx)
    lo = min(ax, ay)
    hi = max(ax, ay)
    r = lo / hi
    r = 0.0 if hi == 0 else (1.0 if lo == np.inf else r)
    mid = r > 0.4142135623730950
    num = r - 1.0 if mid else r
    den = r + 1.0 if mid else 1.0
    a = (0.7853981633974483 if mid else 0.0) + _atan_poly(num / den)
    a = _PIO2 - a if ay > ax else a
    a = math.pi - a if math.copysign(1.0, dx) < 0 else a
    return np.float32(math.copysign(a, dy)) if (x == x) & (y == y) else x + y


@inline
def _asin_core(a):
    # (v, big): asin(a) = v for a <= 1/2, pi/2 - 2 v above (fdlibm e_asin.c's R)
    big = a > 0.5
    t = (1.0 - a) * 0.5 if big else a * a
    s = np.sqrt(t) if big else a
    p = t * (1.66666666666666657415e-01 + t * (-3.25565818622400915405e-01 + t * (
        2.01212532134862925881e-01 + t * (-4.00555345006794114027e-02 + t * (
            7.91534994289814532176e-04 + t * 3.47933107596021167570e-05)))))  # fmt: skip
    q = 1.0 + t * (-2.40339491173441421878e00 + t * (2.02094576023350569471e00 + t * (
        -6.88283971605453293030e-01 + t * 7.70381505559019352791e-02)))  # fmt: skip
    return s + s * (p / q), big


@inline
def asin32(x):
    d = np.float64(x)
    v, big = _asin_core(abs(d))
    y = _PIO2 - 2.0 * v if big else v
    return np.float32(math.copysign(y, d)) if x == x else x


@inline
def acos32(x):
    d = np.float64(x)
    v, big = _asin_core(abs(d))
    outer = 2.0 * v if d > 0.0 else 3.141592653589793 - 2.0 * v
    y = outer if big else _PIO2 - math.copysign(v, d)
    return np.float32(y) if x == x else x


@inline
def sinh32(x):
    d = np.float64(x)
    a = abs(d)
    z = d * d
    p = z * (1.0 / 6227020800.0) + 1.0 / 39916800.0
    p = p * z + 1.0 / 362880.0
    p = p * z + 1.0 / 5040.0
    p = p * z + 1.0 / 120.0
    p = p * z + 1.0 / 6.0
    small = d + d * z * p  # Taylor to d**13 / 13!: the next term is below 2**-40 of sinh(1)
    e = exp64(min(a, 100.0))
    big = math.copysign(0.5 * (e - 1.0 / e), d)
    y = small if a < 1.0 else big
    return np.float32(y) if x == x else x


@inline
def cosh32(x):
    e = exp64(min(abs(np.float64(x)), 100.0))
    y = 0.5 * (e + 1.0 / e)
    return np.float32(y) if x == x else x


@inline
def asinh32(x):
    d = np.float64(x)
    a = abs(d)
    a2 = a * a
    y = log1p64(a + a2 / (1.0 + np.sqrt(1.0 + a2)))
    y = y if a < np.inf else a  # inf / inf above
    return np.float32(math.copysign(y, d)) if x == x else x


@inline
def acosh32(x):
    d = np.float64(x)
    dm = d - 1.0
    y = log1p64(dm + np.sqrt(dm * (d + 1.0)))
    y = y if d >= 1.0 else np.nan
    return np.float32(y) if x == x else x


@inline
def atanh32(x):
    d = np.float64(x)
    a = abs(d)
    y = 0.5 * log1p64((a + a) / (1.0 - a))  # a = 1: inf; a > 1: log1p(< -1), NaN
    return np.float32(math.copysign(y, d)) if x == x else x


# ---- type-generic entry points for generated kernels --------------------------------------
def varctan(x):
    return np.arctan(x)


def varctan2(y, x):
    return np.arctan2(y, x)


def varcsin(x):
    return np.arcsin(x)


def varccos(x):
    return np.arccos(x)


def vsinh(x):
    return np.sinh(x)


def vcosh(x):
    return np.cosh(x)


def varcsinh(x):
    return np.arcsinh(x)


def varccosh(x):
    return np.arccosh(x)


def varctanh(x):
    return np.arctanh(x)


@inline
def _np_arctan(x):
    return np.arctan(x)


@inline
def _np_arctan2(y, x):
    return np.arctan2(y, x)


@inline
def _np_arcsin(x):
    return np.arcsin(x)


@inline
def _np_arccos(x):
    return np.arccos(x)


@inline
def _np_sinh(x):
    return np.sinh(x)


@inline
def _np_cosh(x):
    return np.cosh(x)


@inline
def _np_arcsinh(x):
    return np.arcsinh(x)


@inline
def _np_arccosh(x):
    return np.arccosh(x)


@inline
def _np_arctanh(x):
    return np.arctanh(x)


_generic(varctan, atan32, None, lambda x: _np_arctan(x))
_generic2(varctan2, atan2_32, _np_arctan2)
_generic(varcsin, asin32, None, lambda x: _np_arcsin(x))
_generic(varccos, acos32, None, lambda x: _np_arccos(x))
_generic(vsinh, sinh32, None, lambda x: _np_sinh(x))
_generic(vcosh, cosh32, None, lambda x: _np_cosh(x))
_generic(varcsinh, asinh32, None, lambda x: _np_arcsinh(x))
_generic(varccosh, acosh32, None, lambda x: _np_arccosh(x))
_generic(varctanh, atanh32, None, lambda x: _np_arctanh(x))
