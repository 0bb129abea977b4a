"""Row reductions with a shared-memory tree: a block per (row, chunk) (blocks loop when there are
more than blocks), its threads stride over the chunk, then halve the partial results in shared
memory (RED_THREADS, a power of two). Each row is cut into ``k`` chunks, ``out[row * k + chunk]``
getting one partial: with few long rows (a full sum) the caller picks ``k > 1`` so the whole
GPU works, then reduces the partials with ``k = 1``. Rows are contiguous: the caller moves
reduced dims last and copies first. Accumulators are float64 for floating inputs and int64 for
integers (PyTorch's sum of integers is int64 too)."""

from __future__ import annotations

import math

from numba import cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import RED_THREADS


# Note [One reduction body per dtype family]: each kernel below allocates its accumulator dtype's
# tree array (a compile-time constant) and hands it to the one body of its reduction.
@cuda_kernel
def sum_rows_float(x, rows, n, k, out, scale):
    _sum_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, float64), float64(0.0), scale)


@cuda_kernel
def sum_rows_int(x, rows, n, k, out):
    _sum_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, int64), int64(0), int64(1))


@cuda_kernel
def extreme_rows_float(x, rows, n, k, out, want_max):
    init = -math.inf if want_max else math.inf
    _extreme_rows(x, rows, n, k, out, want_max, cuda.shared.array(RED_THREADS, float64), float64(init))


@cuda_kernel
def extreme_rows_int(x, rows, n, k, out, want_max, init):
    # init: the identity (int64 min for a max, max for a min)
    _extreme_rows(x, rows, n, k, out, want_max, cuda.shared.array(RED_THREADS, int64), int64(init))


@cuda_device
def _sum_rows(x, rows, n, k, out, acc, zero, scale):
    t = cuda.threadIdx.x
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = zero
        for j in range(lo + t, hi, RED_THREADS):
            s += x[(b // k) * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] += acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0] * scale
        cuda.syncthreads()  # thread 0 reads acc[0] before the next row overwrites it


@cuda_device
def _extreme_rows(x, rows, n, k, out, want_max, acc, init):
    # amax / amin (want_max False); NaN wins, as in PyTorch: ``v != v`` keeps a NaN partial
    # (never true for integers)
    t = cuda.threadIdx.x
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = init
        for j in range(lo + t, hi, RED_THREADS):
            v = x[(b // k) * n + j]
            if (v > s if want_max else v < s) or v != v:
                s = v
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                v = acc[t + step]
                if (v > acc[t] if want_max else v < acc[t]) or v != v:
                    acc[t] = v
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0]
        cuda.syncthreads()
