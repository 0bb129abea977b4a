"""Last-dim softmax / log_softmax over short rows and their backwards (Note [Softmax over short
rows]: one inline kernel per call): values against NumPy, special values, gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F


@pytest.mark.parametrize("shape", [(64, 8), (16, 32), (3, 1), (5, 64), (2, 200)])
@pytest.mark.parametrize("log", [False, True])
def test_values_and_backward_against_numpy(shape, log):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd - xd.max(-1, keepdims=True)).sum(-1, keepdims=True)) + xd.max(-1, keepdims=True)
    want = xd - lse if log else np.exp(xd - lse)
    xt = numtorch.from_numpy(x).requires_grad_(True)
    y = (F.log_softmax if log else F.softmax)(xt, -1)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=2e-6, atol=2e-7)
    y.backward(numtorch.from_numpy(g))
    gd = g.astype(np.float64)
    p = np.exp(want) if log else want
    gw = gd - p * gd.sum(-1, keepdims=True) if log else p * (gd - (gd * p).sum(-1, keepdims=True))
    np.testing.assert_allclose(xt.grad.numpy(), gw, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("log", [False, True])
def test_special_rows(log):
    inf, nan = float("inf"), float("nan")
    x = numtorch.tensor([[1.0, nan, 2.0], [inf, 1.0, 0.0], [-inf, 0.0, 0.0], [-inf, -inf, -inf]])
    y = (F.log_softmax if log else F.softmax)(x, -1).numpy()
    # as PyTorch 2.13: a NaN, +inf or all -inf row is all NaN (inf - inf)
    assert np.isnan(y[0]).all() and np.isnan(y[1]).all() and np.isnan(y[3]).all()
    assert y[2, 0] == (-inf if log else 0.0)
    np.testing.assert_allclose(y[2, 1:], np.log(0.5) if log else 0.5)


@pytest.mark.parametrize("log", [False, True])
def test_gradcheck_float64(log):
    x = numtorch.randn(6, 5, dtype=numtorch.float64, requires_grad=True)
    f = (lambda t: F.log_softmax(t, -1)) if log else (lambda t: F.softmax(t, -1))
    assert numtorch.autograd.gradcheck(f, (x,))
    assert numtorch.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("spread", [10.0, 59.0, 61.0, 1e4])
def test_one_shift_and_per_row_paths_agree_with_numpy(log, spread):
    # softmax_rows_shift takes blocks whose values span <= 60; wider ones go row by row
    rng = np.random.default_rng(int(spread))
    x = rng.uniform(0, 1, (40, 16)).astype(np.float32)
    x[::7] += np.float32(spread)
    xd = x.astype(np.float64)
    m = xd.max(-1, keepdims=True)
    lse = np.log(np.exp(xd - m).sum(-1, keepdims=True)) + m
    want = xd - lse if log else np.exp(xd - lse)
    y = (F.log_softmax if log else F.softmax)(numtorch.from_numpy(x), -1).numpy()
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-6 if log else 1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((2, 3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4), -1), ((5,), 0), ((4, 32), 0),
                                       ((1, 7, 1), 1)])  # fmt: skip
@pytest.mark.parametrize("log", [False, True])
def test_tiny_inputs_along_any_dim(dtype, shape, dim, log):
    # Note [Softmax of a few elements]: one kernel along any dim, same values as the larger routes
    rng = np.random.default_rng(len(shape) + dim)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    xd = x.astype(np.float64)
    m = xd.max(dim, keepdims=True)
    lse = np.log(np.exp(xd - m).sum(dim, keepdims=True)) + m
    want = xd - lse if log else np.exp(xd - lse)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    y = (F.log_softmax if log else F.softmax)(numtorch.from_numpy(x), dim)
    assert y.dtype == numtorch.from_numpy(x).dtype and y.shape == x.shape
    np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol)
    t = numtorch.from_numpy(np.ascontiguousarray(np.swapaxes(x, 0, -1))).transpose(0, -1)  # strided: the general route
    np.testing.assert_allclose((F.log_softmax if log else F.softmax)(t, dim).numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("log", [False, True])
def test_tiny_special_values_along_first_dim(log):
    inf, nan = float("inf"), float("nan")
    x = numtorch.tensor([[1.0, inf, -inf, 0.0], [nan, 1.0, -inf, 0.0]])
    y = (F.log_softmax if log else F.softmax)(x, 0).numpy()
    assert np.isnan(y[:, 0]).all() and np.isnan(y[:, 1]).all() and np.isnan(y[:, 2]).all()
    np.testing.assert_allclose(y[:, 3], np.log(0.5) if log else 0.5)


def test_tiny_dim_errors_as_pytorch():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.softmax(numtorch.ones(2, 3), 2)
