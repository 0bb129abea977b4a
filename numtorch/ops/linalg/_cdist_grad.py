"""cdist's own node: PyTorch's _cdist_backward for both inputs, as ops (differentiable again) or,
where nothing observes it, its pointwise part in NumPy (Note [cdist's own node])."""

from __future__ import annotations

import math

import numpy as np

from ..._ops import ops as _ops
from ..._tensor import Tensor
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._formula_np import plain, wrap

_K = lazy("numtorch.kernels.cpu.cdist")

aten = _ops.aten  # Note [Composite bodies are below the Python API]

# Note [cdist's own node]
# cdist was recorded as its composite (two unsqueezes, sub, linalg.vector_norm): four nodes whose
# backward ran the norm's formula and sub's two sums to size (~100 us of engine and op cost on
# the sweep's 2x3x2 points, PyTorch 31 with one CdistBackward0). cdist now has a CPU kernel (the
# fast call's arrays, Note [Short-row cdist], or the composite below autograd: the same bits as
# before) and one node whose formula is PyTorch's _cdist_backward (Distance.cpp) for both inputs:
# with diff = x1_i - x2_j and d = result_ij, the contribution to x1_i of pair (i, j) is
#   p = 0: 0;  p = 1: g sign(diff);  p = 2: g diff / d;  p = inf: g sign(diff) [|diff| == d];
#   p < 2: sign(diff) |diff|^(p-1) g / d^(p-1) (0 also where diff = 0 and p < 1);
#   else: diff |diff|^(p-2) g / d^(p-1)
# and 0 wherever d = 0; x1's gradient sums it over j, x2's is minus its sum over i (PyTorch calls
# _cdist_backward with the operands swapped: diff's negation is exact). At ties of the inf-norm
# every tied coordinate takes the whole gradient, as PyTorch's (the norm's formula split it).
# The formula is written in ops with a denominator of 1 where d = 0, so a second derivative reads
# no 0/0 (PyTorch's _cdist_backward has none; the composite had one and gradgradcheck uses it).
# For p = 1 and 2 under Note [Backward formulas in NumPy]'s gate (any size) the contributions
# come from one kernel (kernels/cpu/cdist.py pair_grad: the same IEEE operations per element in
# the ops' order; NumPy's broadcasts over a short last dim were 2.6x the old norm formula at 131k
# results), or NumPy's where a side's batch dims are neither the result's nor one matrix; the
# sums stay the sum op's. Both are the ops' bits (tests/autograd/test_cdist_node_perf19f.py
# compares them with the ops under create_graph). A dispatch mode sees aten.cdist (PyTorch's
# sees _cdist_forward, the op its composite cdist calls), and a kernel registered over aten.cdist
# is called, as PyTorch's; while any aten override is live the kernel takes the composite.


def _contribution_ops(grad, x1, x2, p, result):
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    g = grad.unsqueeze(-1)
    d = result.unsqueeze(-1)
    if p == 0:  # zero, connected to the graph (a second derivative of zero, as the composite's)
        return diff * 0
    if p == 1:
        return g * diff.sgn()
    if math.isinf(p):
        return g * diff.sgn() * (diff.abs() == d)
    zero = d == 0
    safe = aten.where(zero, 1.0, d)
    if p == 2:
        return aten.where(zero, 0.0, g * diff / safe)
    if p < 2:
        if p < 1:
            zero = zero | (diff == 0)
        base = diff.sgn() * aten.where(diff == 0, 1.0, diff.abs()).pow(p - 1)
    else:
        base = diff * diff.abs().pow(p - 2)
    return aten.where(zero, 0.0, base * g / safe.pow(p - 1))


def _contribution_np(grad, x1, x2, p, result):
    a, b = x1._data, x2._data
    g = grad._data[..., None]
    with np.errstate(all="ignore"):  # inf - inf is nan, quietly (PyTorch's)
        diff = np.subtract(a[..., :, None, :], b[..., None, :, :])
        if p == 1:  # sgn's (x > 0) - (x < 0): 0 at a nan, +0 at -0
            s = (diff > 0).astype(diff.dtype)
            np.subtract(s, diff < 0, out=s)
            return g * s
        d = result._data[..., None]
        return np.where(d == 0, d.dtype.type(0), g * diff / d)


def _contribution_kernel(grad, x1, x2, p, result):
    # the kernel's array, or None where a side's batch dims are neither the result's nor one
    # matrix (NumPy's broadcast then)
    out_shape = result._data.shape
    batch = out_shape[:-2]
    arrs = []
    for t in (x1, x2, grad, result):
        a = t._data
        if not (a.flags.c_contiguous and a.flags.writeable):
            a = a.copy()
        arrs.append(a)
    a, b, g, d = arrs
    for x in (a, b):
        if x.shape[:-2] != batch and x.size != x.shape[-1] * x.shape[-2]:
            return None
    if g.shape != out_shape or not (a.size and b.size):  # empty: reshape(-1, ...) is ambiguous
        return None
    P, R = out_shape[-2:]
    M = a.shape[-1]
    out = np.empty(out_shape + (M,), a.dtype)
    k = _K.pair_grad if out.size < PARALLEL_THRESHOLD else _K.pair_grad_parallel
    k(
        a.reshape(-1, P, M),
        b.reshape(-1, R, M),
        g.reshape(-1, P, R),
        d.reshape(-1, P, R),
        out.reshape(-1, P, R, M),
        p == 1,
    )
    return out


def cdist_backward(grad, x1, x2, p, result):
    """The gradients of x1 and x2 (Note [cdist's own node])."""
    c = None
    if (
        (p == 1 or p == 2)
        and grad.__class__ is Tensor
        and plain(grad, x1, x2, result, any_size=True)
    ):
        arr = (
            _contribution_kernel(grad, x1, x2, p, result)
            if x1._data.dtype == x2._data.dtype
            else None
        )
        if arr is None:
            arr = _contribution_np(grad, x1, x2, p, result)
        c = wrap(arr, grad)
    if c is None:
        c = _contribution_ops(grad, x1, x2, p, result)
    g1 = c.sum(-2)
    g2 = -c.sum(-3)
    # a batch broadcast (the sweep's (2, 3, 2) against (1, 2, 2)): as the engine's at::sum_to
    return (g1 if g1.shape == x1.shape else g1.sum_to_size(x1.shape),
            g2 if g2.shape == x2.shape else g2.sum_to_size(x2.shape))  # fmt: skip
