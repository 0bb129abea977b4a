"""_prelu_kernel_backward's NumPy route (Note [prelu's backward in NumPy]) against its kernels."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.nn import _prelu_grad, prelu_rows

from ._spy import numpy_spy

F = numtorch.nn.functional


@pytest.fixture
def hits(monkeypatch):
    """Counts the NumPy route's calls."""
    return numpy_spy(monkeypatch, _prelu_grad, "where", 0)


def _run(xa, wa, dtype, ga):
    x = numtorch.tensor(xa, dtype=dtype, requires_grad=True)
    w = numtorch.tensor(wa, dtype=dtype, requires_grad=True)
    F.prelu(x, w).backward(numtorch.tensor(ga, dtype=dtype))
    return x.grad, w.grad


_SHAPES = [((2, 3, 4), (3,)), ((2, 3), (3,)), ((5,), (1,)), ((2, 3, 2, 2), (3,)), ((2, 3, 4), (1,))]


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("xs, ws", _SHAPES)
def test_numpy_route_is_taken_and_gives_the_kernels_bits(xs, ws, dtype, hits, monkeypatch):
    # Note [PReLU rows] takes these calls first (tests/nn/test_glu_fast17.py): off here
    monkeypatch.setattr(prelu_rows, "layout", lambda x, w: None)
    rng = np.random.default_rng(0)
    xa = rng.standard_normal(xs)
    xa.flat[0], xa.flat[-1] = 0.0, np.nan  # the x > 0 boundary and NaN select as the kernels do
    wa, ga = rng.standard_normal(ws), rng.standard_normal(xs)
    fast = _run(xa, wa, dtype, ga)
    assert hits, "the NumPy route was not taken"
    monkeypatch.setattr(_prelu_grad, "SMALL", -1)
    del hits[:]
    slow = _run(xa, wa, dtype, ga)
    assert not hits
    for f, s in zip(fast, slow, strict=True):
        assert f.dtype == s.dtype and f.shape == s.shape and f.stride() == s.stride()
        np.testing.assert_array_equal(f.numpy(), s.numpy())


def test_kernel_outputs_match_directly():
    rng = np.random.default_rng(1)
    g, x = (
        numtorch.tensor(rng.standard_normal((2, 3, 4)), dtype=numtorch.float32) for _ in range(2)
    )
    w = numtorch.tensor(rng.standard_normal((1, 3, 1)), dtype=numtorch.float32)
    out = _prelu_grad.cpu(g, x, w, ())
    ref = tuple(pw([g, x, w]) for pw in numtorch.ops.nn.layers_extra._PRELU_GRADS)
    for a, b in zip(out, ref, strict=True):
        assert a.stride() == b.stride() and a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_what_the_route_declines_runs_the_kernels(hits):
    x = numtorch.randn(3, 4, 2, requires_grad=True)
    w = numtorch.randn(4, requires_grad=True)
    F.prelu(
        x.transpose(0, 2), numtorch.randn(1, requires_grad=True)
    ).sum().backward()  # strided input
    F.prelu(x.half(), w.half()).sum().backward()
    F.prelu(numtorch.randn(3, 4, 1024, requires_grad=True), w).sum().backward()  # above SMALL
    assert not hits


def test_gradcheck_and_gradgradcheck():
    x = numtorch.randn(2, 3, 4, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


def test_values_against_numpy():
    rng = np.random.default_rng(2)
    xa, wa = rng.standard_normal((2, 3, 4)), rng.standard_normal(3)
    gx, gw = _run(xa, wa, numtorch.float64, np.ones((2, 3, 4)))
    w3 = wa[None, :, None]
    np.testing.assert_allclose(gx.numpy(), np.where(xa > 0, 1.0, np.broadcast_to(w3, xa.shape)))
    np.testing.assert_allclose(gw.numpy(), np.where(xa > 0, 0.0, xa).sum((0, 2)))
