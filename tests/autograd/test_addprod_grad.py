"""addmv / baddbmm / addbmm's formulas are derivatives.yaml's: maybe_multiply (no op for a
factor of 1) and addbmm's gradient expanded over the batch into one bmm (not matmul's
decomposition), so a dispatch mode sees PyTorch's ops."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

from ._spy import OpLog

_CASES = {
    "addbmm": ((2, 4), (3, 2, 3), (3, 3, 4)),
    "baddbmm": ((3, 2, 4), (3, 2, 3), (3, 3, 4)),
    "addmv": ((2,), (2, 3), (3,)),
}
_BACKWARD = {  # after sum's sum / ones_like / expand, before the leaves' copies
    "addbmm": ["unsqueeze.default", "expand.default", "transpose.int", "bmm.default", "transpose.int",
               "unsqueeze.default", "expand.default", "bmm.default"],
    "baddbmm": ["transpose.int", "bmm.default", "transpose.int", "bmm.default"],
    "addmv": ["view.default", "mul.Tensor", "transpose.int", "mv.default"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_CASES))
def test_backward_runs_pytorchs_ops(name):
    xs = [numtorch.randn(*s, requires_grad=True) for s in _CASES[name]]
    y = getattr(numtorch, name)(*xs)
    log = OpLog(short=True)
    with log:
        y.sum().backward()
    # calls[:3] are sum's gradient (sum, ones_like, expand); the leaves' copies are left out
    core = [
        c
        for c in log.calls[3:]
        if c not in ("detach.default", "new_empty_strided.default", "copy_.default")
    ]
    assert core == _BACKWARD[name]


@pytest.mark.parametrize("name", sorted(_CASES))
@pytest.mark.parametrize("dtype", [numtorch.float64, numtorch.complex128])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, -2.0)])
def test_gradcheck_and_gradgradcheck(name, dtype, beta, alpha):
    xs = [numtorch.randn(*s, dtype=dtype, requires_grad=True) for s in _CASES[name]]
    fn = lambda a, b, c: getattr(numtorch, name)(a, b, c, beta=beta, alpha=alpha)  # noqa: E731
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def test_addbmm_gradients_against_numpy():
    rng = np.random.default_rng(0)
    a, b1, b2 = (rng.standard_normal(s) for s in _CASES["addbmm"])
    g = rng.standard_normal((2, 4))
    xs = [numtorch.tensor(v, requires_grad=True) for v in (a, b1, b2)]
    numtorch.addbmm(*xs, beta=0.5, alpha=3.0).backward(numtorch.tensor(g))
    np.testing.assert_allclose(xs[0].grad.numpy(), 0.5 * g)
    np.testing.assert_allclose(
        xs[1].grad.numpy(), 3.0 * np.einsum("ik,bjk->bij", g, b2), rtol=1e-12
    )
    np.testing.assert_allclose(
        xs[2].grad.numpy(), 3.0 * np.einsum("bij,ik->bjk", b1, g), rtol=1e-12
    )


def test_a_factor_of_one_hands_the_gradient_through():
    x = numtorch.randn(2, 4, requires_grad=True)
    seen = []
    x.register_hook(seen.append)
    y = numtorch.addbmm(x, numtorch.randn(3, 2, 3), numtorch.randn(3, 3, 4))
    g = numtorch.randn(2, 4)
    y.backward(g)
    assert seen[0] is g
