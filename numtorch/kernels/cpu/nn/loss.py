"""Loss kernels: negative log likelihood over an (N, C, S) block and the float64 total that
elementwise losses reduce with (their elementwise parts are generated pointwise kernels)."""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel, reassoc_kernel


# Note [Loss totals]
# Blocks of 256 summed in float64, the blocks' sums added in float64. The block loop runs
# with uint64 indices and fastmath "reassoc" so that LLVM splits it into vector lanes
# (signed indices keep Numba's negative-index wraparound, and a strict float64 fold is
# sequential: 72 us per 131072 float32, 1.5x PyTorch's whole mse_loss). The order within a
# block is free; float64 partial sums of float32 (or float64) terms keep the accuracy.
_U = np.uint64


@inline
def _element(x, t, j):
    return x[j]


@inline
def _sq_diff(x, t, j):
    d = x[j] - t[j]  # the square rounded in x's dtype, as mse_loss's elementwise result
    return d * d


@inline
def _blocked_total(term, x, t):
    # the sum of term(x, t, j) over j < x.size, in float64 blocks of 256 (Note [Loss totals])
    acc = 0.0
    n = _U(x.size)
    i = _U(0)
    while i < n:
        part = 0.0
        for j in range(i, min(i + _U(256), n)):
            part += term(x, t, j)
        acc += part
        i += _U(256)
    return acc


@reassoc_kernel
def total(x):
    """The sum of a contiguous array, accumulated in float64 in blocks of 256 for accuracy."""
    return _blocked_total(_element, x, x)


@reassoc_kernel
def sq_diff_total(x, t):
    """total((x - t) * (x - t)) with each square rounded in x's dtype (mse_loss's elements,
    bitwise), without writing them out; x and t contiguous, of one shape and dtype."""
    return _blocked_total(_sq_diff, x, t)


@inline
def _nll(x, target, w, C, S, ignore_index, out):
    tw = 0.0
    for k in range(target.size):
        n = k // S
        s = k - n * S
        t = target[k]
        if t == ignore_index:
            out[k] = 0
            continue
        wt = w[t] if w.size else 1.0
        out[k] = -wt * x[(n * C + t) * S + s]
        tw += wt
    return tw


@kernel
def nll_loss(x, target, w, C, S, ignore_index, out):
    """Per-position -w[t] * x[n, t, s] of an (N, C, S) block into ``out`` (N*S,); returns the
    summed weight of the positions not equal to ``ignore_index``. ``w`` of size 0: all ones."""
    return _nll(x, target, w, C, S, ignore_index, out)


@kernel
def nll_loss_checked(x, target, w, C, S, ignore_index, out):
    """nll_loss for the fast call (Note [Loss binding fast calls]), ``w`` of size 0: -1.0 (out
    not written) where a target other than ``ignore_index`` is outside [0, C), before any is
    read; else the count of the positions not equal to ``ignore_index``."""
    for k in range(target.size):
        t = target[k]
        if t != ignore_index and (t < 0 or t >= C):
            return -1.0
    return _nll(x, target, w, C, S, ignore_index, out)


@kernel
def nll_loss_backward(grad, target, w, C, S, ignore_index, scale, gi):
    """``gi`` (N*C*S,) = -w[t] * grad * scale at the target positions, zero elsewhere; ``grad``
    holds one element (reduced losses) or N*S."""
    for i in range(gi.size):
        gi[i] = 0
    one = grad.size == 1
    for k in range(target.size):
        n = k // S
        s = k - n * S
        t = target[k]
        if t == ignore_index:
            continue
        wt = w[t] if w.size else 1.0
        g = grad[0] if one else grad[k]
        gi[(n * C + t) * S + s] = -wt * g * scale


@kernel
def in_unit_range(x):
    """Whether every element of a flat array lies in [0, 1] (NaN does not): binary
    cross entropy's input and target checks in one pass, without the comparisons' arrays."""
    for i in range(x.size):
        v = x[i]
        if not (v >= 0 and v <= 1):
            return False
    return True
