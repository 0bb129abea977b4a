"""det's and slogdet's final product in NumPy (Note [det's gradient product in NumPy]) against
the ops formula: same bits and layout; graphs, modes and complex inputs run the ops."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.linalg import _det_grad

from ._spy import OpLog, numpy_spy


@pytest.fixture
def hits(monkeypatch):
    """Counts the NumPy route's calls."""
    return numpy_spy(monkeypatch, _det_grad, "multiply", 1)


_FNS = {"det": lambda a: numtorch.linalg.det(a), "slogdet": lambda a: numtorch.linalg.slogdet(a)[1],
        "logdet": lambda a: numtorch.logdet(a @ a.mT + numtorch.eye(3, dtype=a.dtype))}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_FNS))
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_numpy_product_matches_the_ops(name, shape, dtype, hits, monkeypatch):
    a = np.random.default_rng(0).standard_normal(shape)
    x = numtorch.tensor(a, dtype=dtype, requires_grad=True)
    _FNS[name](x).sum().backward()
    assert hits, "the NumPy product was not taken"
    monkeypatch.setattr(_det_grad, "plain", lambda *t: False)
    y = numtorch.tensor(a, dtype=dtype, requires_grad=True)
    _FNS[name](y).sum().backward()
    assert x.grad.stride() == y.grad.stride() and x.grad.dtype == y.grad.dtype
    np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_direct_call_layout_and_values():
    g = numtorch.randn(2)
    inv = numtorch.randn(2, 3, 3)
    with numtorch.no_grad():
        r = _det_grad.times_inv_h(g, inv)
        ref = g.unsqueeze(-1).unsqueeze(-1) * inv.mT
    assert r.stride() == ref.stride()
    np.testing.assert_array_equal(r.numpy(), ref.numpy())
    np.testing.assert_array_equal(
        r.numpy(), g.numpy()[:, None, None] * np.swapaxes(inv.numpy(), -1, -2)
    )


def test_graphs_modes_and_complex_run_the_ops(hits):
    a = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
    (g,) = numtorch.autograd.grad(numtorch.linalg.det(a), a, create_graph=True)
    assert g.requires_grad and not hits
    log = OpLog()
    y = numtorch.linalg.slogdet(a)[1]
    with log:
        y.backward()
    assert "aten.mul.Tensor" in log.calls and not hits
    z = numtorch.randn(3, 3, dtype=numtorch.complex128, requires_grad=True)
    numtorch.linalg.det(z).abs().backward()
    assert not hits


def test_gradcheck_and_gradgradcheck():
    for dtype in (numtorch.float64, numtorch.complex128):
        a = numtorch.randn(2, 3, 3, dtype=dtype, requires_grad=True)
        assert gradcheck(numtorch.linalg.det, (a,))
        assert gradgradcheck(numtorch.linalg.det, (a,))
        assert gradcheck(lambda t: numtorch.linalg.slogdet(t)[1], (a,))
        assert gradgradcheck(lambda t: numtorch.linalg.slogdet(t)[1], (a,))
