"""Vectorizable erfinv for float32, and the type-generic erf, erfc, GELU entry points.

# Note [Vectorizable erf]
# float32 erf, erfc, gelu and gelu_backward are vmath_erf32.py's (Note [float32 erf]), in
# float32 arithmetic. GELU's exact form 0.5 * x * (1 + erf(x / sqrt(2))) is declared as
# scalar.py's gelu_erf (the CPU code generator substitutes vgelu_erf, as vexp for np.exp)
# because in the plain expression the float constant makes Numba type the erf argument float64
# (libm's scalar erf).
# erfinv32 is evaluated in float64 (twice the bits a float32 result needs): ATen's first guess,
# then one Newton step on erfc(x) = 1 - |y| with _erfc_mid: erfc(b) on [1, 4] as
# exp(Q(b) - b*b), Q a degree-10 fit of log(erfc(b)) + b*b (smooth, unlike erfc itself; 400
# Chebyshev nodes of the mpmath values, max abs error 1.9e-9), and _erf_small: erf below 1 as
# x * P(x*x) (max abs error 1.2e-9). The erfc step keeps x's relative accuracy in the tail, where
# erf(x) - y would cancel.
# float64 erf / erfc / gelu / erfinv keep libm's / ATen's scalar code (a float64 fit needs a
# double-double evaluation or a minimax rational: not done yet).
"""

import math

import numpy as np

from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.special import erfinv
from numtorch.kernels.cpu.pointwise.vmath import exp64
from numtorch.kernels.cpu.pointwise.vmath_erf32 import erf32, erfc32, gelu32, gelu_backward32
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
