"""Vectorizable float32 fmod, remainder and floor_divide (Note [Exact float32 fmod]).

numpy's fmod is a libm call per element, which keeps LLVM from vectorizing the loop (fmod of
131072 float32: 5x PyTorch's Sleef loop). Generated kernels call the type-generic ``vfmod``,
``vremainder_float`` and ``vdiv_floor_float`` below through Note [Guarded fast paths]: blocks
whose elements all pass ``vfmod_ok`` take the branch-free ``*_fast`` versions; the rest (and
every other dtype) keep scalar.py's helpers, bit for bit PyTorch's.
"""

import numpy as np

from numtorch.kernels._jit import inline
from numtorch.kernels.cpu.pointwise.scalar import div_floor_float, remainder_float
from numtorch.kernels.cpu.pointwise.vmath import _generic2

# Note [Exact float32 fmod]
# For float32 a, b with b finite and nonzero and |a| < 2**29 |b|, fmod is exact in float64:
# the true quotient's integer part Q is below 2**29, and the float64 quotient never rounds up to
# Q + 1 (its distance to Q + 1 is at least 2**-24 relative to b's bits, more than half an ulp of
# a number below 2**29), so q = trunc(|a| / |b|) is Q; q * |b| (29 + 24 bits) is exact, and so
# is |a| - q * |b| (a multiple of the smaller operand's last bit, smaller than |b|). The result
# takes a's sign, zero included (fmod(-4, 2) is -0.0), as libm's. Larger quotients, zero or
# non-finite divisors, NaN and inf operands fail the guard and take libm's fmod.
_BIG = 536870912.0  # 2**29


@inline
def fmod_ok32(a, b):
    y = abs(np.float64(b))
    return (abs(np.float64(a)) < _BIG * y) & (y < np.inf)


@inline
def fmod_fast32(a, b):
    x = np.float64(a)
    ax = abs(x)
    y = abs(np.float64(b))
    r = ax - np.trunc(ax / y) * y
    return np.float32(np.copysign(r, x))


@inline
def remainder_fast32(a, b):
    # remainder_float's select: the fmod moved into b's sign by one float32 add
    m = fmod_fast32(a, b)
    return m + b if (m != 0) & ((b < 0) != (m < 0)) else m


@inline
def div_floor_fast32(a, b):
    # div_floor_float (ATen's div_floor_floating) with its branches as selects; b != 0 here
    one = np.float32(1.0)
    m = fmod_fast32(a, b)
    d = (a - m) / b
    d = d - one if (m != 0) & ((b < 0) != (m < 0)) else d
    f = np.floor(d)
    f = f + one if d - f > np.float32(0.5) else f
    return f if d != 0 else np.copysign(np.float32(0.0), a / b)


@inline
def fmod_full32(a, b):
    return fmod_fast32(a, b) if fmod_ok32(a, b) else np.fmod(a, b)


@inline
def remainder_full32(a, b):
    return remainder_fast32(a, b) if fmod_ok32(a, b) else remainder_float(a, b)


@inline
def div_floor_full32(a, b):
    return div_floor_fast32(a, b) if fmod_ok32(a, b) else div_floor_float(a, b)


# ---- type-generic entry points for generated kernels --------------------------------------
def vfmod(a, b):
    return np.fmod(a, b)


def vfmod_ok(a, b):
    return False


def vfmod_fast(a, b):
    return np.fmod(a, b)


def vremainder_float(a, b):
    return remainder_float(a, b)


def vremainder_fast(a, b):
    return remainder_float(a, b)


def vdiv_floor_float(a, b):
    return div_floor_float(a, b)


def vdiv_floor_fast(a, b):
    return div_floor_float(a, b)


@inline
def _np_fmod(a, b):
    return np.fmod(a, b)


@inline
def _never(a, b):
    return False


_generic2(vfmod, fmod_full32, _np_fmod)
_generic2(vfmod_ok, fmod_ok32, _never)
_generic2(vfmod_fast, fmod_fast32, _np_fmod)
_generic2(vremainder_float, remainder_full32, remainder_float)
_generic2(vremainder_fast, remainder_fast32, remainder_float)
_generic2(vdiv_floor_float, div_floor_full32, div_floor_float)
_generic2(vdiv_floor_fast, div_floor_fast32, div_floor_float)
