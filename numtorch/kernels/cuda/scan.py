"""cumprod, its gradient with zeros, and prod as CUDA kernels. Scans are one thread per line,
in the CPU kernel's sequential order (numtorch/kernels/cpu/reduction/core.py), over a copy with
the scanned dim first: thread c walks x[j * cols + c], so a warp's loads of each step are one
coalesced transaction (with the dim last, each thread's line is n elements from its neighbour's).
prod reduces contiguous rows (the caller moves the dim last) with a shared-memory tree as the
sums of reduction.py, float64 / int64 / complex128 accumulators."""

from __future__ import annotations

import math

from numba import complex128, cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import RED_THREADS


@cuda_kernel
def cumprod_cols(cols, x, n):
    # in place; line c is x[c], x[cols + c], ..., x[(n - 1) * cols + c]
    c = cuda.grid(1)
    if c < cols:
        s = x[c]
        for j in range(1, n):
            s *= x[j * cols + c]
            x[j * cols + c] = s


@cuda_kernel
def cumprod_grad_cols(cols, x, g, out, n):
    # dx_k = prod(x_j, j < k) * S_k with S_k = g_k + x_{k+1} * S_{k+1}: exact with zeros, no division
    c = cuda.grid(1)
    if c < cols:
        s = 0.0
        for j in range(n - 1, -1, -1):
            s = g[j * cols + c] + (x[(j + 1) * cols + c] * s if j < n - 1 else 0.0)
            out[j * cols + c] = s
        e = 1.0
        for j in range(n):
            out[j * cols + c] *= e
            e *= x[j * cols + c]


# Note [One reduction body per dtype family]: a shared-memory array's dtype must be a
# compile-time constant, so each accumulator dtype has its own kernel; those only allocate the
# tree's array and hand it, with the accumulator's one, to the single body _prod_rows.
@cuda_kernel
def prod_rows_float(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, float64), float64(1.0))


@cuda_kernel
def prod_rows_int(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, int64), int64(1))


@cuda_kernel
def prod_rows_complex(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, complex128), complex128(1.0))


@cuda_device
def _prod_rows(x, rows, n, k, out, acc, one):
    # out[row * k + chunk]: the product of one chunk of a row (reduction.py's layout), in acc's type
    t = cuda.threadIdx.x
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = one
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
def logcumsumexp_cols(cols, x, n):
    # in place along lines as cumprod_cols; the running value goes through the CPU's
    # np.logaddexp formula: max + log1p(exp(-|a - b|)), equal infinities kept, NaN propagated
    c = cuda.grid(1)
    if c < cols:
        s = x[c]
        for j in range(1, n):
            v = x[j * cols + c]
            if s == v and math.isinf(s):
                s = s + v
            elif s != s or v != v:
                s = s + v
            else:
                m = max(s, v)
                s = m + math.log1p(math.exp(-abs(s - v)))
            x[j * cols + c] = s


@cuda_kernel
def cumext_cols(cols, x, idx, n, largest):
    # cummax / cummin in place along lines as cumprod_cols, the CPU kernel's rule: a NaN takes
    # over (each later NaN takes its index), ties move the index forward (PyTorch's >= / <=)
    c = cuda.grid(1)
    if c < cols:
        b = x[c]
        at = 0
        idx[c] = 0
        for j in range(1, n):
            v = x[j * cols + c]
            if v != v or (b == b and (v >= b if largest else v <= b)):
                b = v
                at = j
            x[j * cols + c] = b
            idx[j * cols + c] = at
