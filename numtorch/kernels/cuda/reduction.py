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


# Note [Four loads in flight]
# A thread's strided loop ``s += x[j]`` stalls on each load before it issues the next (the add
# waits for it, and a GPU issues in order): one load in flight per thread, so a 16M sum was
# bound by memory latency, not bandwidth (76 us, PyTorch 36 us, on an H200). Independent
# accumulators let a thread issue several loads before the first add waits; their partial
# results add up in float64 / int64 (the order of a float sum is unspecified on CUDA, as in
# PyTorch).
#
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
        base = (b // k) * n
        s = zero
        s1 = zero
        s2 = zero
        s3 = zero
        j = lo + t
        while j + 3 * RED_THREADS < hi:  # Note [Four loads in flight]
            s += x[base + j]
            s1 += x[base + j + RED_THREADS]
            s2 += x[base + j + 2 * RED_THREADS]
            s3 += x[base + j + 3 * RED_THREADS]
            j += 4 * RED_THREADS
        while j < hi:
            s += x[base + j]
            j += RED_THREADS
        acc[t] = (s + s1) + (s2 + s3)
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
        base = (b // k) * n
        s = init
        s1 = init
        j = lo + t
        while j + RED_THREADS < hi:  # Note [Four loads in flight], two here: two compares each
            s = _pick(s, x[base + j], want_max)
            s1 = _pick(s1, x[base + j + RED_THREADS], want_max)
            j += 2 * RED_THREADS
        if j < hi:
            s = _pick(s, x[base + j], want_max)
        acc[t] = _pick(s, s1, want_max)
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] = _pick(acc[t], acc[t + step], want_max)
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0]
        cuda.syncthreads()


@cuda_device
def _pick(s, v, want_max):
    # the running extreme s, or v when it beats it or is NaN (NaN wins, as in PyTorch)
    return v if (v > s if want_max else v < s) or v != v else s
