"""The type-generic erf, erfc, GELU and erfinv entry points of generated kernels.

# Note [Vectorizable erf]
# float32 erf, erfc, gelu and gelu_backward are vmath_erf32.py's (Note [float32 erf]), in
# float32 arithmetic. GELU's exact form 0.5 * x * (1 + erf(x / sqrt(2))) is declared as
# scalar.py's gelu_erf (the CPU code generator substitutes vgelu_erf, as vexp for np.exp)
# because in the plain expression the float constant makes Numba type the erf argument float64
# (libm's scalar erf).
# erfinv32 is vmath_gauss.py's (ndtri's fits, Note [Vectorizable Gaussian functions]).
# float64 erf / erfc / gelu / erfinv keep libm's / ATen's scalar code (a float64 fit needs a
# double-double evaluation or a minimax rational: not done yet).
"""

import math

from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.special import erfinv
from numtorch.kernels.cpu.pointwise.vmath_erf32 import erf32, erfc32, gelu32, gelu_backward32
from numtorch.kernels.cpu.pointwise.vmath_gauss import erfinv32

_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327


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
