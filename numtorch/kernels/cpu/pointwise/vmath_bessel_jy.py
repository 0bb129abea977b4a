"""float32 Bessel functions J0, J1, Y0, Y1 and spherical j0 without libm's scalar calls, so that
LLVM vectorises them (Note [Vectorizable Bessel J and Y]); float64 keeps bessel_jy.py's.

# Note [Vectorizable Bessel J and Y]
# bessel_jy.py's forms (Cephes' rationals for |x| <= 5, Hankel's form beyond) with two changes
# for a float32 x: both forms are computed in each lane and one selected, and sin(x), cos(x)
# come from vmath_trig's exact table reduction (Note [Vectorizable trig]) with float64
# polynomials for |r| <= pi/4 (degree 7 in r*r, Chebyshev interpolation of mpmath's values, rel
# error 2e-16) instead of libm's sin(x - phase): cos(x - pi/4) = (cos x + sin x) / sqrt(2) etc.
# have an absolute error of a few 1e-16, as the float64 subtraction x - phase they replace, so
# near J's and Y's zeros the result is as good as bessel_jy.py's. float64 inputs keep libm.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline
from numtorch.kernels.cpu.pointwise import bessel_jy as _jy
from numtorch.kernels.cpu.pointwise.bessel import spherical_j0
from numtorch.kernels.cpu.pointwise.bessel_jy import bessel_j0, bessel_j1, bessel_y0, bessel_y1
from numtorch.kernels.cpu.pointwise.vmath import _generic
from numtorch.kernels.cpu.pointwise.vmath_log import log64
from numtorch.kernels.cpu.pointwise.vmath_trig import _reduce

_SQRT1_2 = 0.7071067811865476


@contract_helper
def _sin_r(r):
    # sin(r), |r| <= pi/4
    u = r * r
    z = u * 3.242277876554809 - 1.0
    p = 7.410479016319734e-19 * z - 6.530575575757204e-16
    p = p * z + 4.442626232266076e-13
    p = p * z - 2.2446460044709356e-10
    p = p * z + 7.994884831726588e-08
    p = p * z - 1.8633021552883453e-05
    p = p * z + 0.0025327026897159965
    p = p * z - 0.16411525078163997
    return r + r * u * p


@contract_helper
def _cos_r(r):
    # cos(r), |r| <= pi/4
    u = r * r
    z = u * 3.242277876554809 - 1.0
    p = -4.119905468174685e-20 * z + 4.0852129799996575e-17
    p = p * z - 3.1768060570113117e-14
    p = p * z + 1.8731856754427426e-11
    p = p * z - 8.009870317130163e-09
    p = p * z + 2.3351350968482795e-06
    p = p * z - 0.0004236738716838983
    p = p * z + 0.04124064963125194
    return (1.0 - 0.5 * u) + u * u * p


@inline
def _sincos(x):
    # (sin |x|, cos |x|) in float64 for a float32 x
    q, r = _reduce(x)
    sp = _sin_r(r)
    cp = _cos_r(r)
    s = sp if (q & 1) == 0 else cp
    c = cp if (q & 1) == 0 else -sp
    s = -s if q >= 2 else s
    c = -c if q >= 2 else c
    return s, c


@inline
def _hankel(a, s, c, pp, pq, qp, qq, quarter, second_kind):
    # bessel_jy._hankel_form with cos/sin(a - phase) from (s, c): phase pi/4 (quarter 1) or 3pi/4
    # (quarter -1): cos(a - phase) = (quarter c + s) / sqrt(2), sin(a - phase) = (quarter s - c) / sqrt(2)
    cm = (quarter * c + s) * _SQRT1_2
    sm = (quarter * s - c) * _SQRT1_2
    z = 25.0 / (a * a)
    p = _jy._horner(pp, z) / _jy._horner(pq, z)
    q = _jy._horner(qp, z) / _jy._horner1(qq, z)
    v = p * sm + 5.0 / a * q * cm if second_kind else p * cm - 5.0 / a * q * sm
    return v * _jy._SQRT_2_OVER_PI / np.sqrt(a)


@inline
def _j0_small(a):
    z = a * a
    return (z - 5.78318596294678452118e00) * (z - 3.04712623436620863991e01) * _jy._horner(_jy._J0_RP, z) / _jy._horner1(_jy._J0_RQ, z)


@inline
def _j1_small(a):
    z = a * a
    return _jy._horner(_jy._J1_RP, z) / _jy._horner1(_jy._J1_RQ, z) * a * (z - 1.46819706421238932572e01) * (z - 4.92184563216946036703e01)


@inline
def j0_32(x):
    a = abs(np.float64(x))
    s, c = _sincos(x)
    big = _hankel(max(a, 5.0), s, c, _jy._J0_PP, _jy._J0_PQ, _jy._J0_QP, _jy._J0_QQ, 1.0, False)
    r = _j0_small(min(a, 5.0)) if a <= 5.0 else big
    return np.float32(r) if a < np.inf else np.float32(np.nan)


@inline
def j1_32(x):
    d = np.float64(x)
    a = abs(d)
    s, c = _sincos(x)
    big = _hankel(max(a, 5.0), s, c, _jy._J1_PP, _jy._J1_PQ, _jy._J1_QP, _jy._J1_QQ, -1.0, False)
    big = -big if d < 0.0 else big
    r = _j1_small(min(max(d, -5.0), 5.0)) if a <= 5.0 else big  # odd in d: j1(-0) = -0
    return np.float32(r) if a < np.inf else np.float32(np.nan)


@inline
def y0_32(x):
    d = np.float64(x)
    s, c = _sincos(x)
    big = _hankel(max(d, 5.0), s, c, _jy._J0_PP, _jy._J0_PQ, _jy._J0_QP, _jy._J0_QQ, 1.0, True)
    e = min(max(d, 1e-300), 5.0)
    z = e * e
    small = _jy._horner(_jy._Y0_YP, z) / _jy._horner1(_jy._Y0_YQ, z) + _jy._TWO_OVER_PI * log64(e) * _j0_small(e)
    r = small if d <= 5.0 else big
    r = r if d > 0.0 else (-np.inf if d == 0.0 else np.nan)
    return np.float32(r) if d < np.inf else np.float32(np.nan)


@inline
def y1_32(x):
    d = np.float64(x)
    s, c = _sincos(x)
    big = _hankel(max(d, 5.0), s, c, _jy._J1_PP, _jy._J1_PQ, _jy._J1_QP, _jy._J1_QQ, -1.0, True)
    e = min(max(d, 1e-300), 5.0)
    z = e * e
    small = e * (_jy._horner(_jy._Y1_YP, z) / _jy._horner1(_jy._Y1_YQ, z)) + _jy._TWO_OVER_PI * (_j1_small(e) * log64(e) - 1.0 / e)
    r = small if d <= 5.0 else big
    r = r if d > 0.0 else (-np.inf if d == 0.0 else np.nan)
    return np.float32(r) if d < np.inf else np.float32(np.nan)


@inline
def spherical_j0_32(x):
    a = abs(np.float64(x))
    s, _ = _sincos(x)
    z = a * a
    series = 1.0 - z / 6.0 * (1.0 - z / 20.0 * (1.0 - z / 42.0 * (1.0 - z / 72.0 * (1.0 - z / 110.0 * (1.0 - z / 156.0)))))
    r = series if a < 0.5 else s / a
    r = r if a < np.inf else 0.0
    return np.float32(r) if x == x else x


# ---- type-generic entry points for generated kernels --------------------------------------
def vbessel_j0(x):
    return bessel_j0(x)


def vbessel_j1(x):
    return bessel_j1(x)


def vbessel_y0(x):
    return bessel_y0(x)


def vbessel_y1(x):
    return bessel_y1(x)


def vspherical_j0(x):
    return spherical_j0(x)


_generic(vbessel_j0, j0_32, None, lambda x: bessel_j0(x))
_generic(vbessel_j1, j1_32, None, lambda x: bessel_j1(x))
_generic(vbessel_y0, y0_32, None, lambda x: bessel_y0(x))
_generic(vbessel_y1, y1_32, None, lambda x: bessel_y1(x))
_generic(vspherical_j0, spherical_j0_32, None, lambda x: spherical_j0(x))
