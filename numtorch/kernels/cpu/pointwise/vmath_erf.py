"""Vectorizable erf, erfc and exact GELU for float32 kernels (Note [Vectorizable exp]).

# Note [Vectorizable erf]
# float32 erf is evaluated in float64 (twice the bits a float32 result needs, so one rounding at
# the end gives <= 1 ulp) from two polynomials, both computed and one selected so that the loop
# has no branch: for |x| < 1, erf(x) = x * P(x*x) (degree 6); for 1 <= |x| < 4,
# erf(x) = 1 - exp(Q(|x|) - x*x) with Q a degree-10 fit of log(erfc(x)) + x*x (smooth, unlike
# erfc itself), and exp from vmath.exp64. Past 4, erf rounds to +-1 in float32. The coefficients
# are least-squares fits on 400 Chebyshev nodes of the mpmath values (max abs error 1.2e-9 and
# 1.9e-9 on the intervals). erf32 is inlined by Numba (@inline): as a separate function with exp64
# inside, it is over LLVM's inlining threshold and the loop stays scalar (measured 15.8 ns/element
# against 3.0); evaluated in float64, fused multiply-adds would not change its result.
# erfc32 needs relative accuracy down to erfc(10.05) (float32's last subnormal), where Q's
# polynomial in x does not reach: a second fit of the same function on [4, 10.1] (degree 10,
# max abs error 4.2e-9) takes over there, selected per lane; x*x is exact in float64 for a
# float32 x. Below 1, erfc = 1 - x * P(x*x) (no cancellation: erfc >= 0.157).
# GELU's exact form 0.5 * x * (1 + erf(x / sqrt(2))) is declared as scalar.py's gelu_erf (the
# CPU code generator substitutes vgelu_erf, as vexp for np.exp) because in the plain expression
# the float constant makes Numba type the erf argument float64 (libm's scalar erf):
# gelu32 computes 1 + erf(z) as erfc(-z) with erfc32's polynomials (no cancellation for x < 0).
# erfinv32: ATen's first guess, then one Newton step on erfc(x) = 1 - |y| with these erfc
# polynomials (relative accuracy in the tail, where erf(x) - y would cancel).
# float64 erf / erfc / gelu / erfinv keep libm's / ATen's scalar code (a float64 fit needs a
# double-double evaluation or a minimax rational: not done yet).
"""

import math

import numpy as np

from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.special import erfinv
from numtorch.kernels.cpu.pointwise.vmath import exp64
from numtorch.kernels.cpu.pointwise.vmath_log import log64

_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327


@inline
def _erf_small(d):
    # erf(d) for |d| < 1, in float64
    z = d * d
    p = 7.88249708263282e-05 * z - 0.000801885498449554
    p = p * z + 0.005189311941811514
    p = p * z - 0.026854328795705172
    p = p * z + 0.11283597463483974
    p = p * z - 0.376126269035805
    p = p * z + 1.1283791658815028
    return d * p  # keeps -0 and subnormals' sign


@inline
def _erfc_mid(b):
    # erfc(b) for b in [1, 4], in float64 (abs error 2e-9: for erf only, 1 - this)
    q = -4.1048490487123574e-08 * b + 9.603836823411608e-07
    q = q * b - 8.218785508023266e-06
    q = q * b + 1.2279168094536063e-05
    q = q * b + 0.000376564183171619
    q = q * b - 0.00420608392043164
    q = q * b + 0.025484069776669897
    q = q * b - 0.10902525464221462
    q = q * b + 0.3674181986763856
    q = q * b - 1.129921985614656
    q = q * b + 0.00026400374948365446
    return exp64(q - b * b)


@inline
def _erfc_tail(b):
    # erfc(b) for b in [1, 10.1], in float64 with relative error ~4e-9: _erfc_mid's Q on [1, 4],
    # a second degree-10 fit of log(erfc(b)) + b*b on [4, 10.1] above (400 Chebyshev nodes, max
    # abs error 4.2e-9), the coefficients selected per lane so that one polynomial is evaluated
    # and no division is needed (a fit in 1/b needs one: gelu measured 11% slower with it)
    near = b < 4.0
    q = (-4.1048490487123574e-08 if near else 1.619438353379644e-10) * b
    q = (q + (9.603836823411608e-07 if near else -1.2923427268975464e-08)) * b
    q = (q + (-8.218785508023266e-06 if near else 4.6785732782763346e-07)) * b
    q = (q + (1.2279168094536063e-05 if near else -1.016750087509253e-05)) * b
    q = (q + (0.000376564183171619 if near else 0.00014795924981618843)) * b
    q = (q + (-0.00420608392043164 if near else -0.001523732478751434)) * b
    q = (q + (0.025484069776669897 if near else 0.011461421733991738)) * b
    q = (q + (-0.10902525464221462 if near else -0.06436325145372283)) * b
    q = (q + (0.3674181986763856 if near else 0.2777712996237133)) * b
    q = (q + (-1.129921985614656 if near else -1.0245214580711153)) * b
    q = q + (0.00026400374948365446 if near else -0.055507352875393455)
    return exp64(q - b * b)


@inline
def erf32(x):
    d = np.float64(x)
    a = abs(d)
    small = _erf_small(d)
    b = min(max(a, 1.0), 4.0)
    big = math.copysign(1.0 - _erfc_mid(b), d)
    y = small if a < 1.0 else big
    return np.float32(y)  # NaN: small and big are NaN; |x| >= 4: big is +-1 (exp underflows)


@inline
def erfc32(x):
    d = np.float64(x)
    a = abs(d)
    small = 1.0 - _erf_small(d)
    e = _erfc_tail(min(max(a, 1.0), 10.1))
    big = e if d >= 0.0 else 2.0 - e
    big = big if a <= 10.1 or d < 0.0 else 0.0
    y = small if a < 1.0 else big
    return np.float32(y) if x == x else x


@inline
def _one_plus_erf(d):
    # 1 + erf(d) in float64; erfc(-d) below -1, so x * (1 + erf) keeps its relative accuracy
    a = abs(d)
    e = _erfc_tail(min(max(a, 1.0), 10.1))
    big = 2.0 - e if d >= 0.0 else (e if a <= 10.1 else 0.0)
    return 1.0 + _erf_small(d) if a < 1.0 else big


@inline
def gelu32(x):
    d = np.float64(x)
    return np.float32(0.5 * d * _one_plus_erf(d * _SQRT1_2))


@inline
def gelu_backward32(g, x):
    d = np.float64(x)
    cdf = 0.5 * _one_plus_erf(d * _SQRT1_2)
    pdf = exp64(-0.5 * d * d) * _INV_SQRT_2PI
    return np.float32(np.float64(g) * (cdf + d * pdf))


@inline
def erfinv32(y):
    # Note [Vectorizable erf]: ATen's calc_erfinv first guesses (both computed, one selected,
    # one division), then one Newton step on erfc(x) = 1 - |y| in float64 (1 - |y| is exact
    # there; erfc's relative accuracy keeps x's in the tail, where erf(x) - y would cancel:
    # erf'(4) is 3e-7). x <= 3.9 for a float32 |y| < 1, so erfc's [1, 4] fit serves, and the
    # step multiplies by exp(x*x) instead of dividing (double divisions are the costly part).
    d = np.float64(y)
    a = abs(d)
    t = 1.0 - a
    z = a * a
    num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899
    dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0
    w = np.sqrt(-log64(max(t, 1e-30) * 0.5))
    tn = ((1.641345311 * w + 3.429567803) * w - 1.624906493) * w - 1.970840454
    td = (1.637067800 * w + 3.543889200) * w + 1.0
    central = a <= 0.7
    x = (a * num if central else tn) / (dem if central else td)
    e = (1.0 - _erf_small(x)) if x < 1.0 else _erfc_mid(min(max(x, 1.0), 4.0))
    x = x + (e - t) * exp64(x * x) * 0.886226925452758
    x = x if a < 1.0 else (np.inf if a == 1.0 else np.nan)
    return np.float32(math.copysign(x, d)) if y == y else y


# ---- type-generic entry points for generated kernels --------------------------------------
def verf(x):
    return math.erf(x)


def verfc(x):
    return math.erfc(x)


def vgelu_erf(x):
    return 0.5 * x * (1 + math.erf(x * _SQRT1_2))


def vgelu_erf_backward(g, x):
    return g * (0.5 * (1 + math.erf(x * _SQRT1_2)) + x * math.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def verfinv(y):
    return erfinv(y)


@inline
def _m_erf(x):
    return math.erf(x)


@inline
def _m_erfc(x):
    return math.erfc(x)


@inline
def _m_gelu(x):
    return 0.5 * x * (1 + math.erf(x * _SQRT1_2))


@inline
def _m_gelu_backward(g, x):
    return g * (0.5 * (1 + math.erf(x * _SQRT1_2)) + x * math.exp(-0.5 * x * x) * _INV_SQRT_2PI)


@scalar_overload(verf)
def _erf_typer(x):
    if str(x) == "float32":
        return lambda x: erf32(x)
    return lambda x: _m_erf(x)


@scalar_overload(verfc)
def _erfc_typer(x):
    if str(x) == "float32":
        return lambda x: erfc32(x)
    return lambda x: _m_erfc(x)


@scalar_overload(vgelu_erf)
def _gelu_typer(x):
    if str(x) == "float32":
        return lambda x: gelu32(x)
    return lambda x: _m_gelu(x)


@scalar_overload(vgelu_erf_backward)
def _gelu_backward_typer(g, x):
    if str(x) == "float32" and str(g) == "float32":
        return lambda g, x: gelu_backward32(g, x)
    return lambda g, x: _m_gelu_backward(g, x)


@scalar_overload(verfinv)
def _erfinv_typer(y):
    if str(y) == "float32":
        return lambda y: erfinv32(y)
    return lambda y: erfinv(y)
