"""Calls on constant buffers alone are made once and reused while the buffers keep their arrays
and versions (Note [Constant folds]): GPT-2's causal mask ``mask[:, :, :t, :t] == 0``."""

from __future__ import annotations

import math

import numpy as np

import numtorch
from numtorch._compile import direct


class _Masked(numtorch.nn.Module):
    def __init__(self, t=5):
        super().__init__()
        self.register_buffer("mask", numtorch.tril(numtorch.ones(t, t)).view(1, t, t))

    def forward(self, x):
        t = x.shape[-1]
        att = (x * 0.5).masked_fill(self.mask[:, :t, :t] == 0, -math.inf).softmax(-1)
        return att * 2.0


def _cf(cm):
    return cm.__dict__["_compiled"]  # an OptimizedModule's CompiledFunction


def _eq(a, b) -> None:
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_mask_comparison_is_kept_and_follows_buffer_writes():
    m = _Masked()
    cm = numtorch.compile(m)
    cf = _cf(cm)
    x = numtorch.randn(2, 5, 5)
    with numtorch.no_grad():
        for _ in range(3):
            _eq(cm(x), m(x))
        (e,) = cf.cache.values()
        cached = [st for st in e.steps if isinstance(st, direct.CachedStep)]
        assert any(st.node.op.__name__ == "eq.Scalar" for st in cached)
        eq = next(st for st in cached if st.node.op.__name__ == "eq.Scalar")
        kept = eq.value
        assert kept is not None
        cm(x)
        assert eq.value is kept  # reused, not made again
        m.mask[0, 0, 1] = 1.0  # an in-place write bumps the buffer's version: made again
        _eq(cm(x), m(x))
        assert eq.value is not kept
        m.mask.data = numtorch.ones(1, 5, 5)  # a new array of the same meta: made again
        _eq(cm(x), m(x))
        assert bool(eq.value.logical_not().all())


def test_mask_comparison_in_a_training_plan():
    m = _Masked()
    cm = numtorch.compile(m)
    cf = _cf(cm)
    g = numtorch.Generator().manual_seed(0)
    for step in range(3):
        x = numtorch.randn(2, 5, 5, generator=g, requires_grad=True)
        y = x.detach().clone().requires_grad_(True)
        w = numtorch.randn(2, 5, 5, generator=g)
        (cm(x) * w).sum().backward()
        (m(y) * w).sum().backward()
        _eq(x.grad, y.grad)
        if step == 1:
            with numtorch.no_grad():
                m.mask[0, 3, 0] = 0.0
    (e,) = cf.cache.values()
    assert e.aot is not None and any(isinstance(st, direct.CachedStep) for st in e.aot.fwd_steps)


def test_only_constant_unreturned_values_are_kept():
    mask = numtorch.tril(numtorch.ones(4, 4))

    def f(x, k):
        return x.masked_fill(k == 0, 0.0) + x.masked_fill(mask == 0, 1.0), mask == 1

    cf = numtorch.compile(f)
    x, k = numtorch.randn(2, 4, 4), numtorch.tril(numtorch.ones(4, 4))  # (4, 4) comparisons: not fused
    for _ in range(2):
        a, b = cf(x, k), f(x, k)
        _eq(a[0], b[0])
        _eq(a[1], b[1])
    k[2, 0] = 0.0  # an argument's comparison is never kept
    _eq(cf(x, k)[0], f(x, k)[0])
    (e,) = cf.cache.values()
    cached = [st for st in e.steps if isinstance(st, direct.CachedStep)]
    assert [st.node.template[1] for st in cached] == [0]  # mask == 0; the returned mask == 1 is not
    assert cf(x, k)[1] is not cf(x, k)[1]


def test_a_write_through_a_returned_view_is_seen():
    mask = numtorch.tril(numtorch.ones(4, 4))

    def f(x):
        m = mask == 0
        return x.masked_fill(m, 0.0), m.view(16)

    cf = numtorch.compile(f)
    x = numtorch.randn(2, 4, 4)
    with numtorch.no_grad():
        cf(x)  # the capture
        _, v = cf(x)  # a view of the kept comparison
        v[0] = True  # the caller owns the view: the kept comparison is not reused after this
        a, b = cf(x), f(x)
    _eq(a[0], b[0])
    _eq(a[1], b[1])
