"""special.entr's gradient is derivatives.yaml's grad * -(1 + log(x)): +inf at 0 (and -0), NaN
below, four ops (it was a where-chain of eight that gave -inf at 0)."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

from ._spy import OpLog


def test_entr_gradient_values_against_numpy():
    a = np.array([0.0, -0.0, -1.0, 0.5, 2.0, np.nan, np.inf])
    g = np.array([1.0, 1.0, 1.0, 1.0, -3.0, 1.0, -2.0])
    for dt in (numtorch.float32, numtorch.float64):
        x = numtorch.tensor(a, dtype=dt, requires_grad=True)
        numtorch.special.entr(x).backward(numtorch.tensor(g, dtype=dt))
        with np.errstate(divide="ignore", invalid="ignore"):
            npdt = x.grad.numpy().dtype
            expect = g.astype(npdt) * -(1 + np.log(a.astype(npdt)))
        np.testing.assert_array_equal(x.grad.numpy(), expect)
        assert x.grad[0].item() == np.inf and x.grad[1].item() == np.inf


def test_entr_backward_runs_four_ops_and_checks():
    x = numtorch.rand(5, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.special.entr(x)
    log = OpLog()
    with log:
        y.sum().backward()
    skip = (
        "aten.sum.default",
        "aten.ones_like.default",
        "aten.expand.default",
        "aten.detach.default",
    )
    ops = [c for c in log.calls if c not in skip]
    assert ops == ["aten.log.default", "aten.add.Tensor", "aten.neg.default", "aten.mul.Tensor"]
    z = (numtorch.rand(5, dtype=numtorch.float64) + 0.1).requires_grad_()
    assert gradcheck(numtorch.special.entr, (z,))
    assert gradgradcheck(numtorch.special.entr, (z,))
