"""Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11; the generator behind
PyTorch's CUDA random numbers), one thread per counter, four 32-bit words per counter.

Thread ``g`` encrypts the counter (g mod 2**32, g div 2**32, c2, c3) under the key (k0, k1):
the host gives every call its own (c2, c3), so calls never reuse a counter. The words become
uniforms on [a, b) (24-bit for float32: four per thread; 53-bit from word pairs for float64:
two per thread) or, through Box-Muller, normals with mean ``a`` and std ``b``. All the
arithmetic is in uint64 masked to 32 bits: numba (and the simulator's NumPy scalars) never
see a 32-bit overflow, and a uint64 times a uint32 product fits.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda

from .._jit import cuda_device, cuda_kernel

M0 = np.uint64(0xD2511F53)
M1 = np.uint64(0xCD9E8D57)
W0 = np.uint64(0x9E3779B9)
W1 = np.uint64(0xBB67AE85)
LO = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)
S5 = np.uint64(5)
S6 = np.uint64(6)
S8 = np.uint64(8)
TWO_PI = 2 * math.pi


@cuda_device
def philox(x0, x1, x2, x3, key0, key1):
    # ten rounds, the key bumped by the Weyl constants between them (Random123's philox4x32_R)
    for _ in range(10):
        p0 = M0 * x0
        p1 = M1 * x2
        x0, x1, x2, x3 = (p1 >> S32) ^ x1 ^ key0, p1 & LO, (p0 >> S32) ^ x3 ^ key1, p0 & LO
        key0 = (key0 + W0) & LO
        key1 = (key1 + W1) & LO
    return x0, x1, x2, x3


@cuda_kernel
def philox_words(groups, out, c0, c1, c2, c3, k0, k1):
    # the raw 32-bit words (uint32 ``out``, 4 per counter) of counters (c0 + g, c1, c2, c3), for
    # checks against Random123's known answers
    g = cuda.grid(1)
    if g < groups:
        x0, x1, x2, x3 = philox((c0 + np.uint64(g)) & LO, c1, c2, c3, k0, k1)
        out[4 * g] = x0
        out[4 * g + 1] = x1
        out[4 * g + 2] = x2
        out[4 * g + 3] = x3


@cuda_kernel
def philox_fill(groups, out, n, k0, k1, c2, c3, normal, wide, a, b):
    # out: contiguous float32 (wide False) or float64 (wide True), n elements
    g = cuda.grid(1)
    if g < groups:
        x0, x1, x2, x3 = philox(np.uint64(g) & LO, np.uint64(g) >> S32, c2, c3, k0, k1)
        if wide:
            u0 = (float(x0 >> S5) * 67108864.0 + float(x1 >> S6)) * 1.1102230246251565e-16
            u1 = (float(x2 >> S5) * 67108864.0 + float(x3 >> S6)) * 1.1102230246251565e-16
            u2 = 0.0
            u3 = 0.0
            per = 2
        else:
            u0 = float(x0 >> S8) * 5.9604644775390625e-08
            u1 = float(x1 >> S8) * 5.9604644775390625e-08
            u2 = float(x2 >> S8) * 5.9604644775390625e-08
            u3 = float(x3 >> S8) * 5.9604644775390625e-08
            per = 4
        if normal:  # Box-Muller on (u0, u1) and (u2, u3); 1 - u is in (0, 1]: log stays finite
            r = math.sqrt(-2.0 * math.log(1.0 - u0))
            v0 = a + b * r * math.cos(TWO_PI * u1)
            v1 = a + b * r * math.sin(TWO_PI * u1)
            r = math.sqrt(-2.0 * math.log(1.0 - u2))
            v2 = a + b * r * math.cos(TWO_PI * u3)
            v3 = a + b * r * math.sin(TWO_PI * u3)
        else:
            v0 = a + u0 * (b - a)
            v1 = a + u1 * (b - a)
            v2 = a + u2 * (b - a)
            v3 = a + u3 * (b - a)
        i = per * g
        if i < n:
            out[i] = v0
        if i + 1 < n:
            out[i + 1] = v1
        if per == 4:
            if i + 2 < n:
                out[i + 2] = v2
            if i + 3 < n:
                out[i + 3] = v3
