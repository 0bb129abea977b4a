"""Vectorizable sin, cos and tan for float32 kernels (Note [Vectorizable exp]).

# Note [Vectorizable trig]
# A float32 x is m * 2**k with m a 24-bit integer and k fixed by the exponent field E. The
# reduction x * 2/pi = q + f (q an integer, |f| <= 1/2) is done in float64 for every x, huge
# ones included, without branches (Payne-Hanek's idea on a table): TRIG_C0/C1/C2[E] hold
# (2**k * 2/pi) mod 4 split into 28 + 28 + 53 bits, so m * C0 and m * C1 are exact, the
# multiples of 4 dropped by the table do not change q mod 4 or f (m is an integer), and the
# fraction is recovered with one two-sum: its absolute error (~2**-80) is far below the
# smallest |f| of any float32 (~2**-30), so r = f * pi/2 keeps float64's relative accuracy.
# sin / cos / tan of |r| <= pi/4 are fdlibm's float32 kernels evaluated in float64
# (__kernel_sindf, __kernel_cosdf: error < 2**-37; __kernel_tandf: 2**-29), then the quadrant
# q mod 4 picks the function and the sign, and one rounding gives the float32 result. The table
# loads are gathers, which LLVM vectorizes. float64 keeps libm's (its 53-bit m would need
# multiword products). Measured against mpmath (tests/kernels/cpu/test_vmath_trig.py).
"""

import math

import numpy as np

from numtorch.kernels._jit import inline
from numtorch.kernels.cpu.pointwise.vmath import _generic

# 2/pi * 2**320, rounded down (checked against mpmath in the tests)
TWO_OVER_PI_BITS = int(
    "A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E0", 16
)


def _reduction_table():
    c0, c1, c2 = (np.zeros(255) for _ in range(3))
    for e in range(255):
        k = max(e, 1) - 150  # x = m * 2**k, m = the significand as an integer
        v = TWO_OVER_PI_BITS & ((1 << (322 - k)) - 1)  # (2**k * 2/pi) mod 4, scaled by 2**(320 - k)
        s0 = v.bit_length() - 28
        hi = v >> s0 << s0
        mid = (v - hi) >> (s0 - 28) << (s0 - 28)
        c0[e] = math.ldexp(hi >> s0, s0 + k - 320)
        c1[e] = math.ldexp(mid >> (s0 - 28), s0 - 28 + k - 320)
        c2[e] = math.ldexp(float(v - hi - mid), k - 320)
    return c0, c1, c2


TRIG_C0, TRIG_C1, TRIG_C2 = _reduction_table()


@inline
def _reduce(x):
    # (q mod 4, r) with |x| = (q + r * 2/pi) * pi/2 + tiny, |r| <= pi/4, r in float64
    bits = np.float32(x).view(np.int32)
    e = (bits >> np.int32(23)) & np.int32(0xFF)
    mant = (bits & np.int32(0x7FFFFF)) | (np.int32(0x800000) if e > 0 else np.int32(0))
    m = np.float64(mant)
    i = min(e, np.int32(254))
    p0 = m * TRIG_C0[i]
    p1 = m * TRIG_C1[i]
    p2 = m * TRIG_C2[i]
    n0 = np.floor(p0 + 0.5)
    f0 = p0 - n0
    s = f0 + p1
    n1 = np.floor(s + 0.5)
    bb = s - f0
    err = (f0 - (s - bb)) + (p1 - bb)
    f = (s - n1) + (err + p2)
    q = np.int64(n0 + n1) & np.int64(3)
    return q, f * 1.5707963267948966


@inline
def _sin_poly(r):
    z = r * r
    w = z * z
    s = z * r
    return (r + s * (-0.16666666641626524 + z * 0.008333329385889463)) + s * w * (
        -0.00019839334836096632 + z * 2.718311493989822e-06
    )


@inline
def _cos_poly(r):
    z = r * r
    w = z * z
    return ((1.0 + z * -0.499999997251031) + w * 0.04166662332373906) + (w * z) * (
        -0.001388676377460993 + z * 2.439044879627741e-05
    )


@inline
def _tan_poly(r):
    z = r * r
    a = 0.002974357433599673 + z * 0.009465647849436732
    t = 0.05338123784456704 + z * 0.024528318116654728
    w = z * z
    s = z * r
    u = 0.3333313950307914 + z * 0.13339200271297674
    return (r + s * u) + (s * w) * (t + w * a)


# The quadrant and sign logic, once for both reductions: (q mod 4, r) from _reduce or
# _reduce_medium, the float64 value before the one rounding to float32.
@inline
def _negative(x):
    # the sign bit: odd functions keep -0 (a NaN's sign is never read: x - x or the guard)
    return np.float32(x).view(np.int32) < np.int32(0)


@inline
def _sin_q(x, q, r):
    y = _sin_poly(r) if (q & 1) == 0 else _cos_poly(r)
    y = -y if q >= 2 else y
    return -y if _negative(x) else y


@inline
def _cos_q(q, r):
    y = _cos_poly(r) if (q & 1) == 0 else _sin_poly(r)
    return -y if (q == 1 or q == 2) else y


@inline
def _tan_q(x, q, r):
    t = _tan_poly(r)
    y = t if (q & 1) == 0 else -1.0 / t
    return -y if _negative(x) else y


@inline
def sin32(x):
    q, r = _reduce(x)
    return np.float32(_sin_q(x, q, r)) if abs(x) < np.inf else x - x


@inline
def cos32(x):
    q, r = _reduce(x)
    return np.float32(_cos_q(q, r)) if abs(x) < np.inf else x - x


@inline
def tan32(x):
    q, r = _reduce(x)
    return np.float32(_tan_q(x, q, r)) if abs(x) < np.inf else x - x


# Note [Guarded fast paths]
# The table reduction above is most of sin32's cost, and it serves only |x| >= 2**28 * pi/2,
# which real inputs almost never hold. A generated contiguous kernel whose expression is one
# guarded call (kernels/_codegen.py's _GUARDED) runs in blocks of 16 elements: when the guard
# holds for the whole block, the fast version (fdlibm's medium-size float reduction: x*2/pi
# rounded, then x - n*pio2_1 - n*pio2_1t with a 25-bit pio2_1, exact for |x| < 2**28 * pi/2),
# else the full one. Both are vector loops; the branch is per block, so the common case never
# computes the table path (sin 131072 float32: 224 -> about 120 us). Other dtypes: the guard is
# a constant False and the fast version is never called.
@inline
def _reduce_medium(x):
    xd = abs(np.float64(x))
    fn = np.floor(xd * 0.6366197723675814 + 0.5)
    r = (xd - fn * 1.57079631090164184570e00) - fn * 1.58932547735281966916e-08
    return np.int64(fn) & np.int64(3), r


@inline
def trig_ok32(x):
    return abs(x) < np.float32(421657428.0)  # 2**28 * pi/2, rounded down; False for NaN and inf


@inline
def sin_fast32(x):
    q, r = _reduce_medium(x)
    return np.float32(_sin_q(x, q, r))


@inline
def cos_fast32(x):
    q, r = _reduce_medium(x)
    return np.float32(_cos_q(q, r))


@inline
def tan_fast32(x):
    q, r = _reduce_medium(x)
    return np.float32(_tan_q(x, q, r))


# ---- type-generic entry points for generated kernels --------------------------------------
def vsin(x):
    return np.sin(x)


def vcos(x):
    return np.cos(x)


def vtan(x):
    return np.tan(x)


@inline
def _np_sin(x):
    return np.sin(x)


@inline
def _np_cos(x):
    return np.cos(x)


@inline
def _np_tan(x):
    return np.tan(x)


def vtrig_ok(x):
    return False


def vsin_fast(x):
    return np.sin(x)


def vcos_fast(x):
    return np.cos(x)


def vtan_fast(x):
    return np.tan(x)


@inline
def _never(x):
    return False


_generic(vsin, sin32, None, lambda x: _np_sin(x))
_generic(vtrig_ok, trig_ok32, None, lambda x: _never(x))
_generic(vsin_fast, sin_fast32, None, lambda x: _np_sin(x))
_generic(vcos_fast, cos_fast32, None, lambda x: _np_cos(x))
_generic(vtan_fast, tan_fast32, None, lambda x: _np_tan(x))
_generic(vcos, cos32, None, lambda x: _np_cos(x))
_generic(vtan, tan32, None, lambda x: _np_tan(x))
