"""Bit shifts of narrow integers in narrow vector lanes (Note [Narrow shifts]).

# Note [Narrow shifts]
# scalar.py's lshift / rshift compute ``a << b`` and the out-of-range zero (``a * 0``) in
# Numba's int64 (its literal 0 is an int64), so a uint8 loop ran 8 lanes per AVX-512 register
# where PyTorch runs 64 (measured 2.4x PyTorch's time on 131072 elements). Here operands of 8
# and 16 bits are widened once, to int16 and int32 respectively, and the shift count is
# clamped to the narrow width ``bits``, which gives ATen's out-of-range results for free: in
# the wider lane ``a << bits`` keeps no bit of the narrow result (the store truncates), and
# ``a >> bits`` of a sign-extended value is its sign fill (-1 or 0), of a zero-extended one 0.
# In range, the low ``bits`` bits of the wide shift are the narrow shift's (two's complement
# wraps identically), so results are bit-identical to the int64 form. The shifts are NumPy's
# ufuncs, which Numba types in their operands' type (its ``<<`` on int16 gives int64, and the
# loop went back to 8 lanes: 12.9 us where these take 2.2). 32- and 64-bit operands keep
# scalar.py's form. The CPU code generator substitutes vlshift /
# vrshift for lshift / rshift (as vexp for np.exp); the CUDA generator keeps scalar.py's.
"""

import numpy as np
from numba.core import types

from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.scalar import lshift, rshift


def vlshift(a, b, bits):
    return lshift(a, b, bits)


def vrshift(a, b, bits):
    return rshift(a, b, bits)


@inline
def _lshift_in16(a, b, bits):
    n = np.int16(bits)
    y = np.int16(b)
    return np.left_shift(np.int16(a), y if y >= np.int16(0) and y < n else n)


@inline
def _rshift_in16(a, b, bits):
    n = np.int16(bits)
    y = np.int16(b)
    return np.right_shift(np.int16(a), y if y >= np.int16(0) and y < n else n)


@inline
def _lshift_in32(a, b, bits):
    n = np.int32(bits)
    y = np.int32(b)
    return np.left_shift(np.int32(a), y if y >= np.int32(0) and y < n else n)


@inline
def _rshift_in32(a, b, bits):
    n = np.int32(bits)
    y = np.int32(b)
    return np.right_shift(np.int32(a), y if y >= np.int32(0) and y < n else n)


def _lanes(a, b, bits):
    # 8 or 16 for three operands of one 8- or 16-bit integer type (the generated kernels cast
    # the scalar operand and ``bits`` to the compute dtype), else 0: the generic form
    if isinstance(a, types.Integer) and a == b == bits and a.bitwidth <= 16:
        return a.bitwidth
    return 0


@scalar_overload(vlshift)
def _lshift_typer(a, b, bits):
    w = _lanes(a, b, bits)
    if w == 8:
        return lambda a, b, bits: _lshift_in16(a, b, bits)
    if w == 16:
        return lambda a, b, bits: _lshift_in32(a, b, bits)
    return lambda a, b, bits: lshift(a, b, bits)


@scalar_overload(vrshift)
def _rshift_typer(a, b, bits):
    w = _lanes(a, b, bits)
    if w == 8:
        return lambda a, b, bits: _rshift_in16(a, b, bits)
    if w == 16:
        return lambda a, b, bits: _rshift_in32(a, b, bits)
    return lambda a, b, bits: rshift(a, b, bits)
