"""NumPy's bit generator called from kernels by address, and the integer draws built on it.

# Note [Bit generator in kernels]
# A kernel that draws a random number of values (rejection) cannot take them pre-drawn; it took
# the ``np.random.Generator`` itself, and Numba's unboxing of a Generator costs ~8 us a call
# (ctypes casts of four function pointers), more than a small sampler's whole work. A
# ``bitgen_t`` (numpy/random/bitgen.h) is ``{void *state; uint64 (*next_uint64)(void *);
# uint32 (*next_uint32)(void *); double (*next_double)(void *); ...}``; kernels here take its
# address (one int, ``ops/factory/_bitgen.address``) and the intrinsics below load the state and
# the function pointer and call it, as NumPy's own C samplers do. So a kernel advances the same
# PCG64 state by the same calls NumPy's sampler would make: the stream is unchanged. The address
# is valid while its Generator lives (the caller holds it for the call).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types, uint64

from .._jit import inline, intrinsic, kernel

_SLOT_U64, _SLOT_U32, _SLOT_F64 = 1, 2, 3  # bitgen_t's members after ``state``


def _call_slot(builder, addr, slot, ret):
    i8p = ir.IntType(8).as_pointer()
    members = builder.inttoptr(addr, i8p.as_pointer())
    state = builder.load(builder.gep(members, [ir.Constant(ir.IntType(32), 0)]))
    fn = builder.load(builder.gep(members, [ir.Constant(ir.IntType(32), slot)]))
    fnty = ir.FunctionType(ret, [i8p])
    return builder.call(builder.bitcast(fn, fnty.as_pointer()), [state])


@intrinsic
def next_uint64(typingctx, bg):
    """The bit generator's next 64 random bits (``bg``: a ``bitgen_t`` address, int64)."""
    return types.uint64(bg), lambda ctx, b, sig, args: _call_slot(b, args[0], _SLOT_U64, ir.IntType(64))


@intrinsic
def next_uint32(typingctx, bg):
    """The next 32 bits (PCG64 hands out the halves of one 64-bit draw in turn)."""
    return types.uint32(bg), lambda ctx, b, sig, args: _call_slot(b, args[0], _SLOT_U32, ir.IntType(32))


@intrinsic
def next_double(typingctx, bg):
    """A double on [0, 1): NumPy's ``random()`` for one value."""
    return types.float64(bg), lambda ctx, b, sig, args: _call_slot(b, args[0], _SLOT_F64, ir.DoubleType())


# NumPy's random_bounded_uint64_fill (numpy/random/src/distributions/distributions.c) with
# use_masked false, as Generator.integers(..., dtype=np.int64) calls it: Lemire's rejection on
# 32-bit draws when the range fits 32 bits, else on 64-bit draws; off + value wraps as uint64.
@inline
def _lemire32(bg, rng):
    rng_excl = uint64(rng) + uint64(1)
    m = uint64(next_uint32(bg)) * rng_excl
    leftover = m & uint64(0xFFFFFFFF)
    if leftover < rng_excl:
        threshold = (uint64(0xFFFFFFFF) - uint64(rng)) % rng_excl
        while leftover < threshold:
            m = uint64(next_uint32(bg)) * rng_excl
            leftover = m & uint64(0xFFFFFFFF)
    return m >> uint64(32)


@inline
def _lemire64(bg, rng):
    rng_excl = rng + uint64(1)
    x = next_uint64(bg)
    leftover = x * rng_excl
    if leftover < rng_excl:
        threshold = (uint64(0xFFFFFFFFFFFFFFFF) - rng) % rng_excl
        while leftover < threshold:
            x = next_uint64(bg)
            leftover = x * rng_excl
    lo32 = uint64(0xFFFFFFFF)
    x0, x1 = x & lo32, x >> uint64(32)
    r0, r1 = rng_excl & lo32, rng_excl >> uint64(32)
    w0 = x0 * r0
    t = x1 * r0 + (w0 >> uint64(32))
    w1 = (t & lo32) + x0 * r1
    return x1 * r1 + (t >> uint64(32)) + (w1 >> uint64(32))


@kernel
def integers_into(bg, out, off, rng):
    """``out[i] = off + U[0, rng]`` for 1-D ``out`` (int64, int32 or a float dtype): Generator.integers'
    draws and their int64 values, each stored as ``out``'s dtype (astype's conversion)."""
    off = uint64(off)
    rng = uint64(rng)
    if rng == uint64(0):
        for i in range(out.size):
            out[i] = np.int64(off)
    elif rng <= uint64(0xFFFFFFFF):
        if rng == uint64(0xFFFFFFFF):
            for i in range(out.size):
                out[i] = np.int64(off + uint64(next_uint32(bg)))
        else:
            for i in range(out.size):
                out[i] = np.int64(off + _lemire32(bg, rng))
    elif rng == uint64(0xFFFFFFFFFFFFFFFF):
        for i in range(out.size):
            out[i] = np.int64(off + next_uint64(bg))
    else:
        for i in range(out.size):
            out[i] = np.int64(off + _lemire64(bg, rng))


# NumPy's uniform fills (random_standard_uniform_fill and its float32 twin): float64 is
# next_double; float32 is the top 24 bits of next_uint32 times 2**-24. Then K.uniform's affine
# step ``lo + (hi - lo) * u`` in the dtype, as the in-place sampler fast call's affine_ kernel.
@kernel
def uniform32_(bg, out, scale, shift, affine):
    """``out`` (1-D float32) = Generator.random(dtype=float32) draws, then ``shift + scale * u``
    in float32 when ``affine`` (``scale``, ``shift``: float64 numbers, rounded to float32 once)."""
    s, h = np.float32(scale), np.float32(shift)
    for i in range(out.size):
        u = np.float32(next_uint32(bg) >> np.uint32(8)) * np.float32(1.0 / 16777216.0)
        out[i] = h + s * u if affine else u


@kernel
def uniform64_(bg, out, scale, shift, affine):
    """``out`` (1-D float64) = Generator.random() draws, then ``shift + scale * u`` when ``affine``."""
    for i in range(out.size):
        u = next_double(bg)
        out[i] = shift + scale * u if affine else u


@kernel
def below_(bg, out, p):
    """``out[i] = 1 if Generator.random() < p else 0`` (one next_double per element; ``p`` float64)."""
    for i in range(out.size):
        out[i] = 1.0 if next_double(bg) < p else 0.0


# NumPy's random_interval (distributions.c): a masked rejection on 32-bit draws while ``mx`` fits
# 32 bits, else on 64-bit draws.
@inline
def _interval(bg, mx):
    if mx == uint64(0):
        return uint64(0)
    mask = mx
    mask |= mask >> uint64(1)
    mask |= mask >> uint64(2)
    mask |= mask >> uint64(4)
    mask |= mask >> uint64(8)
    mask |= mask >> uint64(16)
    mask |= mask >> uint64(32)
    if mx <= uint64(0xFFFFFFFF):
        v = uint64(next_uint32(bg)) & mask
        while v > mx:
            v = uint64(next_uint32(bg)) & mask
    else:
        v = next_uint64(bg) & mask
        while v > mx:
            v = next_uint64(bg) & mask
    return v


@kernel
def permutation_(bg, out):
    """``out`` (1-D int64) = Generator.permutation(out.size): arange, then shuffle's Fisher-Yates
    swaps (``_shuffle_raw``: i from n - 1 down to 1, j = random_interval(i))."""
    n = out.size
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = np.int64(_interval(bg, uint64(i)))
        t = out[j]
        out[j] = out[i]
        out[i] = t
