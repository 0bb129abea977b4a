"""Row reductions with a shared-memory tree: a block per output element (blocks loop over rows
when there are more rows than blocks), its threads stride over the row, then halve the partial
results in shared memory (RED_THREADS, a power of two). Rows are contiguous: the caller moves
reduced dims last and copies first. Accumulators are float64 for floating inputs and int64 for
integers (PyTorch's sum of integers is int64 too)."""

from __future__ import annotations

import math

from numba import cuda, float64, int64

from .._jit import cuda_kernel
from . import RED_THREADS


@cuda_kernel
def sum_rows_float(x, rows, n, out, scale):
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, float64)
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        s = 0.0
        for j in range(t, n, RED_THREADS):
            s += x[r * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] += acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[r] = acc[0] * scale
        cuda.syncthreads()  # thread 0 reads acc[0] before the next row overwrites it


@cuda_kernel
def sum_rows_int(x, rows, n, out):
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, int64)
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        s = 0
        for j in range(t, n, RED_THREADS):
            s += x[r * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] += acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[r] = acc[0]
        cuda.syncthreads()


@cuda_kernel
def extreme_rows_float(x, rows, n, out, want_max):
    # amax / amin (want_max False); NaN wins, as in PyTorch: ``v != v`` keeps a NaN partial
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, float64)
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        s = -math.inf if want_max else math.inf
        for j in range(t, n, RED_THREADS):
            v = x[r * n + j]
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
            out[r] = acc[0]
        cuda.syncthreads()


@cuda_kernel
def extreme_rows_int(x, rows, n, out, want_max, init):
    # init: the identity (int64 min for a max, max for a min)
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, int64)
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        s = init
        for j in range(t, n, RED_THREADS):
            v = x[r * n + j]
            if v > s if want_max else v < s:
                s = v
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                v = acc[t + step]
                if v > acc[t] if want_max else v < acc[t]:
                    acc[t] = v
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[r] = acc[0]
        cuda.syncthreads()
