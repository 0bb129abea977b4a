"""Index kernels: gather (gather, index_select, embedding), scatter (scatter, index_add,
embedding's backward, with atomics where indices may repeat) and row-wise argmax/argmin.

Gather and scatter walk one iteration shape (``shape``: the output for a gather, the source for
a scatter) with (storage, element offset, element strides) per operand, as the strided copy
kernels do; along ``dim`` the position comes from the index operand instead (negative indices
wrap by ``size`` when ``code`` is 0). index_select and embedding are gathers whose index operand
has stride 0 in every dim but ``dim``. With a nonzero ``code`` an index outside [0, size) is
skipped (a gather writes 0) and recorded in ``err`` (Note [Device-side index checks]).
"""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_device, cuda_kernel


@cuda_device
def resolve(j, size, err, code, dim):
    # the position index ``j`` names along ``dim``, or -1 for a bad one (recorded once in err)
    if code == 0:
        return j + size if j < 0 else j
    if j < 0 or j >= size:
        if cuda.atomic.cas(err, 0, 0, code) == 0:
            err[1] = j
            err[2] = dim
            err[3] = size
        return -1
    return j


@cuda_kernel
def gather_strided(n, shape, out, x, xo, xs, idx, io, is_, dim, size, err, code):
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
        j = resolve(idx[q], size, err, code, dim)
        if j >= 0:
            out[i] = x[p + j * xs[dim]]
        else:
            out[i] = 0


@cuda_kernel
def scatter_strided(n, shape, out, oo, os_, src, so, ss, idx, io, is_, dim, size, err, code):
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
        j = resolve(idx[q], size, err, code, dim)
        if j >= 0:
            out[r + j * os_[dim]] = src[p]


@cuda_kernel
def scatter_add_strided(n, shape, out, oo, os_, src, so, ss, idx, io, is_, dim, size, err, code):
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
        j = resolve(idx[q], size, err, code, dim)
        if j >= 0:
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
