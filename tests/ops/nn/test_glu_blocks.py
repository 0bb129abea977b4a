"""GLU's kernels over contiguous half-blocks (numtorch/kernels/cpu/nn/layers.py): values and
gradients against NumPy for every split dimension, special values, gradcheck in float64."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "dim"), [((6, 8), -1), ((4, 6, 3), 1), ((10, 2, 5), 0), ((2,), 0)])
def test_values_and_grad_against_numpy(dtype, shape, dim):
    rng = np.random.default_rng(len(shape) + dim)
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    a, b = np.split(x.astype(np.float64), 2, axis=dim)
    s = 1 / (1 + np.exp(-b))
    g = rng.standard_normal(a.shape).astype(dtype)
    xt = numtorch.from_numpy(x).requires_grad_(True)
    y = F.glu(xt, dim)
    assert y.dtype == xt.dtype
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(y.detach().numpy(), a * s, **tol)
    y.backward(numtorch.from_numpy(g))
    gd = g.astype(np.float64)
    want = np.concatenate([gd * s, gd * a * s * (1 - s)], axis=dim)
    np.testing.assert_allclose(xt.grad.numpy(), want, **tol)


@pytest.mark.parametrize(("dtype", "tiny"), [(numtorch.float32, 0.0), (numtorch.float64, 7.440151952041671e-44)])
def test_special_values(dtype, tiny):
    # as PyTorch 2.13: sigmoid(-100) underflows in float32 only; 3 * sigmoid(-inf) = 0; NaN gate
    inf, nan = float("inf"), float("nan")
    x = numtorch.tensor([[2.0, 2.0, 3.0, 100.0, -100.0, inf, -inf, nan]], dtype=dtype)
    y = F.glu(x, -1).tolist()[0]
    assert y[:3] == [tiny, 2.0, 0.0] and y[3] != y[3]


def test_gradcheck_float64():
    x = numtorch.randn(3, 4, 2, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda t: F.glu(t, 1), (x,))
