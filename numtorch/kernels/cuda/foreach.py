"""Gradient clipping on CUDA in a few launches (Note [CUDA gradient clipping], numtorch/cuda/_clip.py):
per-gradient partial reductions into one shared float64 buffer, one block that folds them into
the per-gradient norms and the total norm, and an in-place scaling that computes the clipping
coefficient from the total norm on the device (no host synchronisation).

``kind``: 0 the sum of squares (the 2-norm), 1 the sum of magnitudes (the 1-norm, and a 2-norm
of one element, which eager takes as its magnitude), 2 the largest magnitude (the inf-norm; NaN
wins, as in PyTorch's amax)."""

from __future__ import annotations

import math

from numba import cuda, float64

from .._jit import cuda_device, cuda_kernel
from . import RED_THREADS


@cuda_kernel
def norm_partials(x, n, k, part, slot, kind):
    """Block ``b`` of ``k`` reduces chunk ``b`` of the ``n`` elements of ``x`` into ``part[slot + b]``."""
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    m = (n + k - 1) // k
    for b in range(cuda.blockIdx.x, k, cuda.gridDim.x):
        lo = b * m
        hi = min(lo + m, n)
        s = float64(0.0)
        for j in range(lo + t, hi, RED_THREADS):
            s = _take(s, abs(x[j]), kind)
        acc[t] = s
        cuda.syncthreads()
        _fold(acc, t, kind)
        if t == 0:
            part[slot + b] = acc[0]
        cuda.syncthreads()  # thread 0 reads acc[0] before the next chunk overwrites it


@cuda_kernel
def norm_total(part, info, g, kind, norms, total):
    """One block: gradient ``i``'s partials are ``part[info[i]:info[i + 1]]`` and ``info[g + 1 + i]``
    is 1 where they are its norm already (one element); ``norms[i]`` gets its norm in the result
    dtype and ``total[0]`` the norm of those norms, as eager's vector_norm of their stack."""
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    s = float64(0.0)
    for i in range(t, g, RED_THREADS):
        r = float64(0.0)
        for j in range(info[i], info[i + 1]):
            v = part[j]
            if kind != 2:
                r += v
            elif v > r or v != v:
                r = v
        norms[i] = r  # rounded to the result dtype before the root, as eager's sum then sqrt
        if kind == 0 and info[g + 1 + i] == 0:
            norms[i] = math.sqrt(norms[i])
        s = _take(s, norms[i], kind)
    acc[t] = s
    cuda.syncthreads()
    _fold(acc, t, kind)
    if t == 0:
        if g == 1:  # eager's norm of one element is its magnitude
            total[0] = norms[0]
        else:
            total[0] = acc[0]
            if kind == 0:
                total[0] = math.sqrt(total[0])


@cuda_device
def _take(s, v, kind):
    # the float64 accumulator ``s`` after the magnitude ``v``: a square is taken in v's dtype,
    # then summed in float64, as eager's (a * a).sum()
    if kind == 0:
        return s + v * v
    if kind == 1:
        return s + v
    if v > s or v != v:
        return float64(v)
    return s


@cuda_device
def _fold(acc, t, kind):
    step = RED_THREADS // 2
    while step > 0:
        if t < step:
            v = acc[t + step]
            if kind != 2:
                acc[t] += v
            elif v > acc[t] or v != v:
                acc[t] = v
        cuda.syncthreads()
        step //= 2


@cuda_kernel
def clip_scale(n, g, total, max_norm, eps, one):
    """``g *= min(max_norm / (total[0] + eps), 1)`` in ``g``'s dtype, each step rounded as eager's
    ``clamp(max_norm / (total + eps), max=1)`` (``x / t`` is ``t.reciprocal() * x`` there); the
    scalars come typed as ``g``. A NaN coefficient stays NaN, as clamp's."""
    i = cuda.grid(1)
    if i < n:
        c = one / (total[0] + eps) * max_norm
        if c > one:
            c = one
        g[i] = g[i] * c
