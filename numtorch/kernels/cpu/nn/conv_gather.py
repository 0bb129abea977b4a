"""im2col as a gather through one sample's index map (Note [im2col of small planes by gather],
numtorch/ops/nn/conv_gather.py)."""

from __future__ import annotations

from numtorch.kernels._jit import prange, serial_and_parallel


def _gather(x, cols, idx, N, CHW):
    """cols[n, j] = x[n, idx[j]] (0 where idx[j] < 0) for n < N, both operands flat."""
    m = idx.size
    for n in prange(N):
        xb = n * CHW
        cb = n * m
        for j in range(m):
            v = idx[j]
            if v >= 0:
                cols[cb + j] = x[xb + v]
            else:
                cols[cb + j] = 0


im2col_gather, im2col_gather_parallel = serial_and_parallel(_gather)
