"""Device twins of the NumPy calls numba-cuda cannot lower (Note [NumPy calls on the device]).

Plain ``@inline`` functions: numba-cuda compiles them for the device when a kernel calls them.
"""

from __future__ import annotations

import math

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
