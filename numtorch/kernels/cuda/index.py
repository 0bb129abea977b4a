"""Index kernels: gather (gather, index_select, embedding), scatter (scatter, index_add,
embedding's backward, with atomics where indices may repeat) and row-wise argmax/argmin.

Gather and scatter walk one iteration shape (``shape``: the output for a gather, the source for
a scatter) with (storage, element offset, element strides) per operand, as the strided copy
kernels do; along ``dim`` the position comes from the index operand instead (negative indices
wrap by ``size``). index_select and embedding are gathers whose index operand has stride 0 in
every dim but ``dim``. Indices are checked on the host before a launch (a device-side assert
would leave the context unusable).
"""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel


@cuda_kernel
def gather_strided(n, shape, out, x, xo, xs, idx, io, is_, dim, size):
    # out: contiguous, ``shape``; out[k] = x[k with k[dim] replaced by idx[k]]
    i = cuda.grid(1)
    if i < n:
        p = xo
        q = io
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            q += k * is_[d]
            if d != dim:
                p += k * xs[d]
        j = idx[q]
        if j < 0:
            j += size
        out[i] = x[p + j * xs[dim]]


@cuda_kernel
def scatter_strided(n, shape, out, oo, os_, src, so, ss, idx, io, is_, dim, size):
    # out[k with k[dim] replaced by idx[k]] = src[k]; a repeated index keeps one of the writes,
    # as PyTorch's scatter on CUDA (which documents the order as undefined)
    i = cuda.grid(1)
    if i < n:
        p = so
        q = io
        r = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            p += k * ss[d]
            q += k * is_[d]
            if d != dim:
                r += k * os_[d]
        j = idx[q]
        if j < 0:
            j += size
        out[r + j * os_[dim]] = src[p]


@cuda_kernel
def scatter_add_strided(n, shape, out, oo, os_, src, so, ss, idx, io, is_, dim, size):
    # as scatter_strided, adding: repeated indices (index_add, embedding's backward) need atomics
    i = cuda.grid(1)
    if i < n:
        p = so
        q = io
        r = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            p += k * ss[d]
            q += k * is_[d]
            if d != dim:
                r += k * os_[d]
        j = idx[q]
        if j < 0:
            j += size
        cuda.atomic.add(out, r + j * os_[dim], src[p])


@cuda_kernel
def argext_rows(rows, x, n, out, want_max):
    # one thread per contiguous row; the first extreme wins, and the first NaN wins (PyTorch's)
    r = cuda.grid(1)
    if r < rows:
        base = r * n
        best = x[base]
        bi = 0
        for j in range(1, n):
            if best != best:
                break
            v = x[base + j]
            if v != v or (v > best if want_max else v < best):
                best = v
                bi = j
        out[r] = bi
