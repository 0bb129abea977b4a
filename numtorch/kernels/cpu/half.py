"""float32/float64 -> float16 conversion (``x.half()``, ``x.to(torch.float16)``, ``h.copy_(x)``).

# Note [float16 conversion]
# NumPy converts to float16 one element at a time through a branchy C routine (~2 ns per element,
# 9x PyTorch's vectorised conversion at 131072 float32). These kernels compute the same bits
# (NumPy's npy_floatbits_to_halfbits / npy_doublebits_to_halfbits, round to nearest even) without
# branches, so the loop vectorises; every case is computed and the right one selected:
#   normal half (2^-14 <= |x| < 2^16): rebias the exponent, then round the dropped significand
#     bits to nearest even by adding 0b0111..1 plus the last kept bit; a carry steps the exponent
#     up, to 0x7c00 (inf) from just below 2^16;
#   subnormal half (|x| < 2^-14): |x| + C in floating point, with C a power of two whose ulp is
#     2^-24 (the half subnormal step): the FPU rounds to nearest even once, and the low bits of
#     the sum are the half's significand (1024 = 0x400 when it rounds up to the smallest normal);
#   |x| >= 2^16 (or inf): inf; NaN: NumPy keeps the top 10 payload bits and no quiet bit, and
#     makes a payload that would read as inf 1.
# Results are the half's bits, written through a uint16 view of the output.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types

from .._jit import intrinsic, kernel


# Note [float16 by fptrunc]
# float32 -> float16 is LLVM's fptrunc to half, which is IEEE round to nearest even (NumPy's
# rounding, subnormals and overflow to inf included) and which LLVM lowers to the F16C
# conversion instruction (vcvtps2ph, 8 or 16 lanes) on x86 CPUs that have it (every AVX2 one):
# ~4x the integer kernel below at 131072 values. Only NaN differs: the instruction quiets a
# signalling NaN, NumPy keeps its top 10 payload bits as they are (and makes a payload that
# would read as inf 1), so NaN lanes take NumPy's bits. float64 keeps the integer form: x86 has
# no float64 -> half instruction before AVX512-FP16 (fptrunc would be a libgcc call, and two
# roundings through float32 would differ). Where the target has no such instruction (an x86
# CPU without F16C, NUMBA_CPU_NAME=generic or a named CPU) LLVM calls compiler-rt's
# __truncsfhf2, which Numba's JIT does not link, so the caller (shape.copy.assign) takes this
# kernel only where fptrunc_is_an_instruction() and the integer f32_to_f16 elsewhere.
@intrinsic
def _fptrunc_half_bits(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))

    return types.uint16(types.float32), codegen


@kernel
def f32_to_f16_fptrunc(src, dst):
    """``dst[i]`` = the float16 bits of float32 ``src[i]`` by fptrunc (Note [float16 by fptrunc]);
    only where ``fptrunc_is_an_instruction()``."""
    # NaN lanes are rare: the conversion loop only notes that one was seen (one compare a lane)
    # and a second pass writes NumPy's NaN bits; selecting them in every lane cost ~9 integer
    # operations a vector (7.1 -> 5.8 us per 131072 values, PyTorch's whole call 6.5)
    bits = src.view(np.int32)
    seen = False
    for i in range(src.shape[0]):
        dst[i] = np.uint16(_fptrunc_half_bits(src[i]))
        seen |= (bits[i] & 0x7FFFFFFF) > 0x7F800000
    if seen:
        for i in range(src.shape[0]):
            u = bits[i]
            a = np.int32(u & 0x7FFFFFFF)
            if a > 0x7F800000:
                nan = np.int32(0x7C00) + max((a >> 13) & 0x3FF, np.int32(1))
                dst[i] = np.uint16(np.int32((u >> 16) & 0x8000) | nan)


@kernel
def f32_to_f16(src, dst):
    """``dst[i]`` = the float16 bits of float32 ``src[i]`` (1-D, ``dst`` uint16)."""
    bits = src.view(np.int32)
    for i in range(src.shape[0]):
        u = bits[i]
        sign = np.int32((u >> 16) & 0x8000)
        a = np.int32(u & 0x7FFFFFFF)
        r = a - np.int32(0x38000000)  # exponent bias 127 -> 15
        normal = (r + np.int32(0x0FFF) + ((r >> 13) & 1)) >> 13
        sub = np.float32(abs(src[i]) + np.float32(0.5)).view(np.int32) - np.int32(0x3F000000)
        nan = np.int32(0x7C00) + max((a >> 13) & 0x3FF, np.int32(1))
        h = sub if a < 0x38800000 else normal
        h = np.int32(0x7C00) if a >= 0x47800000 else h
        h = nan if a > 0x7F800000 else h
        dst[i] = np.uint16(h | sign)


def fptrunc_is_an_instruction() -> bool:
    """Whether Numba's target converts float32 to half in an instruction: F16C on x86-64 (the
    host's features, when Numba compiles for the host), always on arm64. Elsewhere LLVM emits a
    call to compiler-rt's __truncsfhf2, which Numba's JIT does not link (a crash: seen with
    NUMBA_CPU_NAME=generic), so f32_to_f16 stays the integer form there."""
    import platform

    import numba
    from numba.core.codegen import get_host_cpu_features

    machine = platform.machine().lower()
    if machine in ("arm64", "aarch64"):
        return True
    if machine not in ("x86_64", "amd64") or numba.config.CPU_NAME not in (None, "host"):
        return False
    features = numba.config.CPU_FEATURES or get_host_cpu_features()
    return "+f16c" in features.split(",")


@kernel
def f64_to_f16(src, dst):
    """``dst[i]`` = the float16 bits of float64 ``src[i]`` (1-D, ``dst`` uint16)."""
    bits = src.view(np.int64)
    for i in range(src.shape[0]):
        u = bits[i]
        sign = (u >> 48) & 0x8000
        a = u & 0x7FFFFFFFFFFFFFFF
        r = a - (1008 << 52)  # exponent bias 1023 -> 15
        normal = (r + ((1 << 41) - 1) + ((r >> 42) & 1)) >> 42
        sub = np.float64(abs(src[i]) + 268435456.0).view(np.int64) - (1051 << 52)  # 2^28: ulp 2^-24
        nan = 0x7C00 + max((a >> 42) & 0x3FF, 1)
        h = sub if a < (1009 << 52) else normal
        h = 0x7C00 if a >= (1039 << 52) else h
        h = nan if a > (2047 << 52) else h
        dst[i] = np.uint16(h | sign)
