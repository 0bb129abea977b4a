"""Device twins of the NumPy calls numba-cuda cannot lower (Note [NumPy calls on the device]).

Plain ``@inline`` functions: numba-cuda compiles them for the device when a kernel calls them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types, uint64

from numtorch.kernels._jit import device_overload, inline
from numtorch.kernels.cpu.pointwise.cmath99 import cexp99, csqrt99


@inline
def cuda_rint(x):
    # round half to even: IEEE remainder(x, 1) is x minus the nearest integer, ties to even;
    # copysign keeps rint(-0.3) == -0.0 as NumPy and PyTorch give
    if not math.isfinite(x):
        return x
    return math.copysign(x - math.remainder(x, 1.0), x)


@inline
def cuda_signbit(x):
    return math.copysign(1.0, x) < 0


@inline
def vsigmoid(x):
    return 1 / (1 + math.exp(-x))


@inline
def _magnitude(a):
    # |a| as uint64, without abs's overflow at the type's minimum
    return uint64(a) if a >= 0 else uint64(0) - uint64(a)


@inline
def cuda_gcd(a, b):
    # numba-cuda lowers math.gcd but cannot type it, nor np.gcd's ufunc. Euclid on the
    # magnitudes, cast back to a's type: the same value as the CPU's Stein algorithm
    # (numba.cpython.mathimpl.gcd_impl), gcd(INT64_MIN, 0) wrapping to INT64_MIN as there
    T = type(a)
    u = _magnitude(a)
    v = _magnitude(b)
    while v != 0:
        u, v = v, u % v
    return T(u)


@inline
def cuda_lcm(a, b):
    # np.lcm's formula as Numba lowers it on the CPU (npyfuncs.np_lcm_impl), with the same
    # integer promotions, so both devices agree on signs and on overflow
    return 0 if a == 0 else abs(a * (b // cuda_gcd(b, a)))


# Note [Complex device math]
# A complex variant's expression and the scalar helpers it calls (cpow, rsqrt,
# logaddexp_complex) call np.exp/np.sqrt/np.expm1/np.log1p on complex values and, in the same
# helper, on real ones (cpow's np.exp(z.real)). Their real device spelling, ``math.*``
# (Note [NumPy calls on the device]), cannot take a complex, and numba-cuda has no complex
# lowering of those ufuncs. So the complex variants' source (and the device twins of the helper
# modules that they import) spells them as the functions below instead: one name that Numba
# resolves per argument type, ``math.*`` for a real and the CPU's own algorithm for a complex
# (cexp99/csqrt99, which the exp/sqrt declarations already use, and Numba's CPU formulas of
# complex expm1/log1p, npyfuncs.np_complex_expm1_impl/np_complex_log1p_impl, in the part's
# float type), so both devices give the same values. Real variants keep ``math.*``. Called as
# Python (test_devmath.py) they are NumPy's.
def cuda_exp(x):
    return np.exp(x)


def cuda_sqrt(x):
    return np.sqrt(x)


def cuda_expm1(x):
    return np.expm1(x)


def cuda_log1p(x):
    return np.log1p(x)


def _real_exp(x):
    return math.exp(x)


def _real_sqrt(x):
    return math.sqrt(x)


def _real_expm1(x):
    return math.expm1(x)


def _real_log1p(x):
    return math.log1p(x)


def _complex_exp(x):  # the stub's parameter name, as Numba requires
    return cexp99(x)


def _complex_sqrt(x):  # the stub's parameter name, as Numba requires
    return csqrt99(x)


@inline
def complex_expm1(z):
    a = math.exp(z.real)
    return complex(a * math.cos(z.imag) - 1, a * math.sin(z.imag))


@inline
def complex_log1p(z):
    x1 = z.real + 1
    return complex(math.log(math.hypot(x1, z.imag)), math.atan2(z.imag, x1))


def _complex_expm1(x):  # the stub's parameter name, as Numba requires
    return complex_expm1(x)


def _complex_log1p(x):  # the stub's parameter name, as Numba requires
    return complex_log1p(x)


def _by_type(real, cplx):
    def typer(x):
        return cplx if isinstance(x, types.Complex) else real

    return typer


_OVERLOADS = {cuda_exp: _by_type(_real_exp, _complex_exp), cuda_sqrt: _by_type(_real_sqrt, _complex_sqrt),
              cuda_expm1: _by_type(_real_expm1, _complex_expm1), cuda_log1p: _by_type(_real_log1p, _complex_log1p)}  # fmt: skip
for _stub, _typer in _OVERLOADS.items():
    device_overload(_stub)(_typer)
