"""cumprod, its gradient with zeros, and prod as CUDA kernels over contiguous rows (the caller
moves the scanned or reduced dim last). Scans are one thread per row, in the CPU kernel's
sequential order (numtorch/kernels/cpu/reduction/core.py); prod is a shared-memory tree as the
sums of reduction.py, float64 / int64 accumulators."""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_kernel
from . import RED_THREADS


@cuda_kernel
def cumprod_rows(rows, x, n):
    # in place
    r = cuda.grid(1)
    if r < rows:
        base = r * n
        s = x[base]
        for j in range(1, n):
            s *= x[base + j]
            x[base + j] = s


@cuda_kernel
def cumprod_grad_rows(rows, x, g, out, n):
    # dx_k = prod(x_j, j < k) * S_k with S_k = g_k + x_{k+1} * S_{k+1}: exact with zeros, no division
    r = cuda.grid(1)
    if r < rows:
        base = r * n
        s = 0.0
        for j in range(n - 1, -1, -1):
            s = g[base + j] + (x[base + j + 1] * s if j < n - 1 else 0.0)
            out[base + j] = s
        e = 1.0
        for j in range(n):
            out[base + j] *= e
            e *= x[base + j]


@cuda_kernel
def prod_rows_float(x, rows, n, k, out):
    # out[row * k + chunk]: the product of one chunk of a row (reduction.py's layout)
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, float64)
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = 1.0
        for j in range(lo + t, hi, RED_THREADS):
            s *= x[(b // k) * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] *= acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0]
        cuda.syncthreads()


@cuda_kernel
def prod_rows_int(x, rows, n, k, out):
    t = cuda.threadIdx.x
    acc = cuda.shared.array(RED_THREADS, int64)
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = 1
        for j in range(lo + t, hi, RED_THREADS):
            s *= x[(b // k) * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] *= acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0]
        cuda.syncthreads()
