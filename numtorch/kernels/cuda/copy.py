"""Copies: a strided (non-contiguous, broadcast) source into a contiguous destination,
casting to the destination's dtype; and a strided fill."""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel


@cuda_kernel
def copy_strided(n, shape, out, x, xo, xs):
    # flat output index -> source element through the strides: ndim stays out of the type
    i = cuda.grid(1)
    if i < n:
        p = xo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            p += k * xs[d]
        out[i] = x[p]


@cuda_kernel
def copy_into_strided(n, shape, out, oo, os_, x, xo, xs):
    # both sides strided: copy_ into a view (a slice, a transpose) of another tensor
    i = cuda.grid(1)
    if i < n:
        p = xo
        q = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            p += k * xs[d]
            q += k * os_[d]
        out[q] = x[p]


@cuda_kernel
def fill_strided(n, shape, out, oo, os_, value):
    # fill_ / zero_ of any view (a slice, a column) through its strides
    i = cuda.grid(1)
    if i < n:
        q = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            k = rem % shape[d]
            rem //= shape[d]
            q += k * os_[d]
        out[q] = value
