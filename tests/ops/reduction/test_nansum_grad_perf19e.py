"""nansum's backward in NumPy under Note [Backward formulas in NumPy]'s gate (session 19,
ops/reduction/_grad.nansum_grad): the same values as the expand-and-mask ops, bit for bit;
nanmean's gradient (nansum, then a division) takes it too."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.reduction import _grad


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = _grad.plain
    monkeypatch.setattr(_grad, "plain", lambda *t, **k: calls.append(real(*t, **k)) or calls[-1])
    return calls


def _grads(fn, a, create_graph):
    x = torch.from_numpy(a.copy()).requires_grad_()
    y = fn(x)
    g = torch.from_numpy(np.linspace(-2, 3, y.numel()).reshape(y.shape).astype(a.dtype))
    (gx,) = torch.autograd.grad(y, x, g, create_graph=create_graph)
    return gx.detach()


def _values(shape, dtype, rng):
    a = rng.standard_normal(shape).astype(dtype)
    if a.size > 3:
        a.reshape(-1)[[0, 3]] = np.nan
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape,kw",
    [((2, 3, 4), {}), ((2, 3, 4), {"dim": 1}), ((2, 3, 4), {"dim": (0, 2), "keepdim": True}),
     ((2, 3, 4), {"dim": []}), ((5,), {"dim": -1, "keepdim": True}), ((), {}), ((0, 3), {"dim": 1})],
)  # fmt: skip
@pytest.mark.parametrize("op", ["nansum", "nanmean"])
def test_numpy_formula_gives_the_ops_bits(op, shape, kw, dtype, rng, spy):
    a = _values(shape, dtype, rng)
    fn = lambda t: getattr(torch, op)(t, **kw)  # noqa: E731
    want = _grads(fn, a, create_graph=True)  # a graph being built: the ops
    assert spy == [False]
    spy.clear()
    got = _grads(fn, a, create_graph=False)
    assert spy == [True]
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes()
    np.testing.assert_array_equal(np.isnan(a), got.numpy() == 0) if a.size else None


def test_nansum_dtype_argument_and_strided_input(rng, spy):
    a = _values((4, 6), np.float32, rng)
    x = torch.from_numpy(a).requires_grad_()
    v = x.t()[1:]  # non-contiguous
    y = torch.nansum(v, 1, dtype=torch.float64)
    (g,) = torch.autograd.grad(y, x, torch.arange(5, dtype=torch.float64))
    want = np.zeros((6, 4))
    want[1:] = np.where(np.isnan(a.T[1:]), 0.0, np.arange(5.0)[:, None])
    np.testing.assert_array_equal(g.numpy(), want.T.astype(np.float32))
    assert True in spy


def test_half_and_modes_take_the_ops(rng, spy):
    x = torch.from_numpy(_values((3, 4), np.float32, rng)).half().requires_grad_()
    torch.nansum(x, 0).sum().backward()
    assert x.grad.dtype == torch.float16 and spy == [False]


def test_gradients():
    x = torch.randn(3, 4, dtype=torch.float64)
    x[0, 1] = float("nan")
    x.requires_grad_()
    assert gradcheck(lambda t: torch.nansum(t, 1).nan_to_num(), (x,))
    assert gradgradcheck(lambda t: torch.nanmean(t, 0, True).nan_to_num(), (x,))
