"""rrelu in eval mode is ATen's leaky_relu with the mean slope (rounded to the input's dtype)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eval_values_and_grad(dtype):
    x = np.concatenate([np.random.default_rng(2).standard_normal(50), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    x = x.astype(dtype)
    slope = dtype((0.1 + 0.3) / 2)
    xt = numtorch.from_numpy(x).requires_grad_(True)
    y = F.rrelu(xt, 0.1, 0.3)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(y.detach().numpy(), np.where(x > 0, x, x * slope))
    y.sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy(), np.where(x > 0, 1, slope).astype(dtype))


def test_eval_gradcheck_float64():
    x = numtorch.randn(7, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda t: F.rrelu(t, 0.2, 0.4), (x,))
    assert numtorch.autograd.gradgradcheck(lambda t: F.rrelu(t, 0.2, 0.4), (x,))
