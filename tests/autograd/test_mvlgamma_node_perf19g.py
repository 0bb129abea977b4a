"""Note [mvlgamma's own node]: mvlgamma / special.multigammaln record one MvlgammaBackward0
(PyTorch's node) whose formula is mvlgamma_backward's, with the composite as its kernel."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import numtorch as torch

from ._spy import OpLog as _Log


@pytest.mark.parametrize("fn", [torch.mvlgamma, torch.special.multigammaln])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_one_node_with_mvlgamma_backward(fn, p):
    x = torch.tensor([2.5, 3.0, 4.25, 7.5], dtype=torch.float64, requires_grad=True)
    y = fn(x, p)
    assert type(y.grad_fn).__name__ == "MvlgammaBackward0"
    (g,) = torch.autograd.grad(y.sum(), x)
    want = sum(
        torch.special.digamma(x.detach() - j / 2) for j in range(p)
    )  # the formula's order: j = 0 first
    assert g.numpy().tobytes() == want.numpy().tobytes()
    vals = [sum(math.lgamma(v - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
            for v in (2.5, 3.0, 4.25, 7.5)]  # fmt: skip
    np.testing.assert_allclose(y.detach().numpy(), vals, rtol=1e-14)


def test_a_mode_sees_mvlgamma():
    x = torch.tensor([2.5, 3.0], requires_grad=True)
    with _Log() as log:
        y = torch.mvlgamma(x, 2)
    assert log.calls[0].startswith("aten.mvlgamma")
    assert log.calls == ["aten.mvlgamma.default"]
    with _Log() as log:
        torch.autograd.grad(y.sum(), x)
    assert any("digamma" in s for s in log.calls)


def test_values_dtypes_and_out_forms_unchanged():
    x = torch.tensor([2.5, 3.0, 4.25], dtype=torch.float32)
    base = torch.mvlgamma(x, 2)
    assert base.dtype == torch.float32
    assert torch.mvlgamma(torch.tensor([3, 4]), 2).dtype == torch.float32  # integers promote
    out = torch.empty(3)
    torch.mvlgamma(x, 2, out=out)
    assert out.numpy().tobytes() == base.numpy().tobytes()
    y = x.clone()
    y.mvlgamma_(2)
    assert y.numpy().tobytes() == base.numpy().tobytes()
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        torch.mvlgamma(x, 0)


def test_gradcheck_gradgradcheck():
    x = torch.tensor([2.5, 3.0, 4.25], dtype=torch.float64, requires_grad=True)
    for p in (1, 2, 3):
        assert torch.autograd.gradcheck(lambda a, p=p: torch.mvlgamma(a, p), (x,))
        assert torch.autograd.gradgradcheck(lambda a, p=p: torch.special.multigammaln(a, p), (x,))


def test_vmap_uses_the_pointwise_rule():
    x = torch.rand(3, 2, dtype=torch.float64) + 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no batching-rule fallback warning
        got = torch.func.vmap(lambda a: torch.mvlgamma(a, 2))(x)
        gg = torch.func.vmap(torch.func.grad(lambda a: torch.mvlgamma(a, 2).sum()))(x)
    assert got.numpy().tobytes() == torch.mvlgamma(x, 2).numpy().tobytes()
    want = torch.special.digamma(x) + torch.special.digamma(x - 0.5)
    np.testing.assert_allclose(gg.numpy(), want.numpy(), rtol=1e-14)
