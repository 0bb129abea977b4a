"""Device twins of the NumPy calls numba-cuda cannot lower (Note [NumPy calls on the device]).

Plain ``@inline`` functions: numba-cuda compiles them for the device when a kernel calls them.
"""

from __future__ import annotations

import math

from numba import uint64

from numtorch.kernels._jit import inline


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
