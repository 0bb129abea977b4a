"""bincount and histc: one thread per input element adding into its bin with an atomic (bins
repeat, so the adds must not race; float sums then land in an unspecified order, as PyTorch's
CUDA kernels' do)."""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_kernel


@cuda_kernel
def count_at(total, idx, io, counts):
    i = cuda.grid(1)
    if i < total:
        cuda.atomic.add(counts, idx[io + i], int64(1))


@cuda_kernel
def add_at(total, idx, io, w, wo, out):
    i = cuda.grid(1)
    if i < total:
        cuda.atomic.add(out, idx[io + i], w[wo + i])


@cuda_kernel
def histc_counts(total, x, xo, counts, lo, hi, bins):
    # the CPU kernel's bin in float64: int((v - lo) * bins / (hi - lo)), the top edge in the last
    # bin, values outside [lo, hi] (and NaN) dropped
    i = cuda.grid(1)
    if i < total:
        v = float64(x[xo + i])
        if v >= lo and v <= hi:
            b = min(int64((v - lo) * bins / (hi - lo)), bins - 1)
            cuda.atomic.add(counts, b, int64(1))
